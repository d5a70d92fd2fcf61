// Declaration and reading of the optimiser's options; see optimizer_params.hpp.
#include "modules/der/optimizer_params.hpp"

#include <cmath>
#include <limits>

namespace kinema::der {

void declareOptimizerParams(ParamSchema& schema, const std::string& prefix, const OptimizerOptions& d) {
  const std::string p = prefix.empty() ? "" : prefix + ".";
  schema.addChoice(p + "scheme", schemeName(d.scheme), {"alm", "penalty", "rest_only"},
                   "alm (rest shape + stiffness, hard zero-force constraint), penalty (lambda = 0) or "
                   "rest_only (stiffness frozen, lambda = 0; the method of [5])");
  schema.addReal(p + "rho", d.rho, Range::positive(), "augmented Lagrangian / penalty weight (constant)");
  schema.addReal(p + "mu", d.bounds.mu, Range::nonNegative(), "rest curvature box |kbar - kbar0| <= mu (Eq. 18)");
  schema.addReal(p + "eta_ratio", d.etaRatio, Range::nonNegative(),
                 "rest twist box |mbar - mbar0| <= eta_ratio * mu (Eq. 19)");
  schema.addReal(p + "lbar_min", d.bounds.lbarMin, Range::positive(), "lower bound of the rest lengths [m] (Eq. 16)");
  schema.addReal(p + "stiffness_min", d.bounds.stiffnessMin, Range::positive(),
                 "lower bound of the stiffness multipliers alpha, beta, gamma (Eq. 17)");
  schema.addReal(p + "stiffness_max", d.bounds.stiffnessMax, Range::positive(),
                 "upper bound of alpha, beta, gamma (inf: none; finite maxima may prevent equilibrium)");
  schema.addReal(p + "weight_stiffness", d.weightStiffness, Range::positive(), "W on alpha, beta, gamma");
  schema.addReal(p + "weight_rest", d.weightRest, Range::positive(), "W on kbar, mbar, lbar");
  schema.addReal(p + "eps_p", d.epsP, Range::nonNegative(), "stop when the Newton step ||dp||_2 <= eps_p");
  schema.addInt(p + "k_max", d.kMax, Range::atLeast(0), "maximum number of ALM (Newton) iterations");
  schema.addInt(p + "line_search.max_halvings", d.lineSearchMaxHalvings, Range::atLeast(0),
                "backtracking line search fails after this many halvings of t");
  schema.addReal(p + "line_search.min_step", d.lineSearchMinStep, Range::nonNegative(),
                 "backtracking line search fails when t drops below this");
  schema.addChoice(p + "preconditioner", d.preconditioner, qpPreconditionerNames(),
                   "MPRGP preconditioner for the Newton BCQP (asc: active-set Cholesky, the paper's)");
  schema.addReal(p + "pivot_floor", d.qp.pivotFloor, Range::positive(),
                 "LDL^T pivots below pivot_floor * A_jj (their own row's diagonal) are clamped to it");
  schema.addChoice(p + "bcqp_solver", d.bcqpSolver, {"mprgp", "ipm"},
                   "solver of each Newton step's box-constrained QP: mprgp (the paper's, preconditioned by "
                   "`preconditioner`) or ipm (the interior-point baseline of Table I, one LDL^T per iteration)");
  schema.addBool(p + "warm_start", d.warmStart,
                 "start MPRGP from the previous Newton step projected onto the new box (else from 0)");
  schema.addBool(p + "scale_bcqp", d.scaleBcqp,
                 "solve the Newton BCQP in variables scaled by sqrt(diag A) (a box stays a box)");
  solvers::declareMprgpParams(schema, p + "mprgp", d.mprgp);
}

OptimizerOptions readOptimizerOptions(const Config& config, const std::string& prefix) {
  const std::string p = prefix.empty() ? "" : prefix + ".";
  OptimizerOptions o;
  o.scheme = schemeFromName(config.getString(p + "scheme"));
  o.rho = config.getReal(p + "rho");
  o.bounds.mu = config.getReal(p + "mu");
  o.etaRatio = config.getReal(p + "eta_ratio");
  o.bounds.eta = o.etaRatio * o.bounds.mu;
  o.bounds.lbarMin = config.getReal(p + "lbar_min");
  o.bounds.stiffnessMin = config.getReal(p + "stiffness_min");
  o.bounds.stiffnessMax = config.getReal(p + "stiffness_max");
  o.weightStiffness = config.getReal(p + "weight_stiffness");
  o.weightRest = config.getReal(p + "weight_rest");
  o.epsP = config.getReal(p + "eps_p");
  o.kMax = static_cast<int>(config.getInt(p + "k_max"));
  o.lineSearchMaxHalvings = static_cast<int>(config.getInt(p + "line_search.max_halvings"));
  o.lineSearchMinStep = config.getReal(p + "line_search.min_step");
  o.preconditioner = config.getString(p + "preconditioner");
  o.qp.pivotFloor = config.getReal(p + "pivot_floor");
  o.warmStart = config.getBool(p + "warm_start");
  o.bcqpSolver = config.getString(p + "bcqp_solver");
  o.scaleBcqp = config.getBool(p + "scale_bcqp");
  o.mprgp = solvers::readMprgpOptions(config, p + "mprgp");
  return o;
}

}  // namespace kinema::der

// The optimiser's options bound once (framework/core/param_binding.hpp); see optimizer_params.hpp.
#include "modules/der/optimizer_params.hpp"

#include "framework/core/param_binding.hpp"

namespace kinema::der {

const ParamBindings<OptimizerOptions>& optimizerBindings() {
  static const ParamBindings<OptimizerOptions> b = [] {
    using O = OptimizerOptions;
    using B = BoundsOptions;
    ParamBindings<O> r;
    r.choiceOf("scheme", &O::scheme,
               {{schemeName(Scheme::Alm), Scheme::Alm},
                {schemeName(Scheme::Penalty), Scheme::Penalty},
                {schemeName(Scheme::RestOnly), Scheme::RestOnly}},
               "alm (rest shape + stiffness, hard zero-force constraint), penalty (lambda = 0) or "
               "rest_only (stiffness frozen, lambda = 0; the method of [5])");
    r.real("rho", &O::rho, Range::positive(), "augmented Lagrangian / penalty weight (constant)");
    r.real("mu", field(&O::bounds, &B::mu), Range::nonNegative(), "rest curvature box |kbar - kbar0| <= mu (Eq. 18)");
    r.real("eta_ratio", &O::etaRatio, Range::nonNegative(), "rest twist box |mbar - mbar0| <= eta_ratio * mu (Eq. 19)");
    r.real("lbar_min", field(&O::bounds, &B::lbarMin), Range::positive(), "lower bound of the rest lengths [m] (Eq. 16)");
    r.real("stiffness_min", field(&O::bounds, &B::stiffnessMin), Range::positive(),
           "lower bound of the stiffness multipliers alpha, beta, gamma (Eq. 17)");
    r.real("stiffness_max", field(&O::bounds, &B::stiffnessMax), Range::positive(),
           "upper bound of alpha, beta, gamma (inf: none; finite maxima may prevent equilibrium)");
    r.real("weight_stiffness", &O::weightStiffness, Range::positive(), "W on alpha, beta, gamma");
    r.real("weight_rest", &O::weightRest, Range::positive(), "W on kbar, mbar, lbar");
    r.real("eps_p", &O::epsP, Range::nonNegative(), "stop when the Newton step ||dp||_2 <= eps_p");
    r.integer("k_max", &O::kMax, Range::atLeast(0), "maximum number of ALM (Newton) iterations");
    r.integer("line_search.max_halvings", &O::lineSearchMaxHalvings, Range::atLeast(0),
              "backtracking line search fails after this many halvings of t");
    r.real("line_search.min_step", &O::lineSearchMinStep, Range::nonNegative(),
           "backtracking line search fails when t drops below this");
    r.choiceFrom("preconditioner", &O::preconditioner, qpPreconditionerNames,
             "MPRGP preconditioner for the Newton BCQP (asc: active-set Cholesky, the paper's)");
    r.real("pivot_floor", field(&O::qp, &QpPreconditionerOptions::pivotFloor), Range::positive(),
           "LDL^T pivots below pivot_floor * A_jj (their own row's diagonal) are clamped to it");
    r.choice("bcqp_solver", &O::bcqpSolver, {"mprgp", "ipm"},
             "solver of each Newton step's box-constrained QP: mprgp (the paper's, preconditioned by "
             "`preconditioner`) or ipm (the interior-point baseline of Table I, one LDL^T per iteration)");
    r.boolean("warm_start", &O::warmStart,
              "start MPRGP from the previous Newton step projected onto the new box (else from 0)");
    r.boolean("scale_bcqp", &O::scaleBcqp,
              "solve the Newton BCQP in variables scaled by sqrt(diag A) (a box stays a box)");
    r.nested("mprgp", &O::mprgp, solvers::mprgpBindings());
    r.then([](O& o) { o.bounds.eta = o.etaRatio * o.bounds.mu; });  // Eq. 19: eta = eta_ratio * mu
    return r;
  }();
  return b;
}

}  // namespace kinema::der

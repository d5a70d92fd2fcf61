#include "framework/solvers/newton_params.hpp"

#include "framework/la/linear_solver_params.hpp"

namespace kinema::solvers {

void declareNewtonParams(ParamSchema& schema, const std::string& prefix, const NewtonOptions& d) {
  const std::string p = prefix.empty() ? "" : prefix + ".";
  schema.addReal(p + "gtol_abs", d.gtolAbs, Range::nonNegative(),
                 "stop when the reduced-gradient measure <= max(gtol_abs, gtol_rel * its initial value)");
  schema.addReal(p + "gtol_rel", d.gtolRel, Range::closed(0.0, 1.0),
                 "relative tolerance on the reduced-gradient measure (see gtol_abs)");
  schema.addInt(p + "max_iterations", d.maxIterations, Range::atLeast(0),
                "Newton iteration cap; reaching it is reported (reason max_iterations), not an error");
  schema.addReal(p + "armijo_c1", d.armijoC1, Range::open(0.0, 1.0),
                 "Armijo constant: accept f(R(alpha y)) <= f + c1 alpha g^T y");
  schema.addReal(p + "shrink", d.shrink, Range::open(0.0, 1.0),
                 "backtracking factor: alpha <- shrink * alpha after a rejected trial");
  schema.addInt(p + "max_line_search", d.maxLineSearch, Range::atLeast(1),
                "line-search trials before falling back to steepest descent");
  schema.addReal(p + "energy_noise", d.energyNoise, Range::nonNegative(),
                 "relative round-off slack in the Armijo test: + energy_noise * max(|f|, |f_trial|)");
  schema.addBool(p + "gradient_test_when_flat", d.gradientTestWhenFlat,
                 "where the decrease a trial asks for is below energy_noise * |f|, accept it if it lowers the "
                 "convergence measure (f cannot rank it at its round-off floor)");
  schema.addChoice(p + "forcing", d.forcing, {"eq31", "quadratic", "fixed"},
                   "linear rtol per iteration: eq31 = min(forcing_max, c sqrt(||g||)) (Eq. 31 of the bdem paper), "
                   "quadratic = min(forcing_max, c ||g||), fixed = linear.rtol");
  schema.addChoice(p + "forcing_of", d.forcingOf, {"gradient", "measure"},
                   "what the forcing term is computed from: gradient = ||g_red||_2 (Eq. 31 as printed, "
                   "unit-dependent), measure = the problem's convergence measure (dimensionless in bdem)");
  schema.addReal(p + "forcing_constant", d.forcingConstant, Range::positive(),
                 "the constant c of the forcing term");
  schema.addReal(p + "forcing_max", d.forcingMax, Range::leftOpen(0.0, 1.0),
                 "upper bound of the forcing term (0.5 in Eq. 31)");
  schema.addReal(p + "forcing_min", d.forcingMin, Range::leftOpen(0.0, 1.0),
                 "lower bound of the forcing term");
  schema.addBool(p + "psd_projection", d.psdProjection,
                 "project element Hessian blocks to semidefinite (clamp eigenvalues, bdem paper §5.2)");
  schema.addReal(p + "psd_floor", d.psdFloor, Range::nonNegative(),
                 "eigenvalues of an element block below this are clamped to it");
  schema.addBool(p + "steepest_fallback", d.steepestFallback,
                 "take a steepest-descent line search when the Newton one fails (docs/solvers/newton.md)");
  la::declareLinearSolverParams(schema, p + "linear", d.linear);
}

NewtonOptions readNewtonOptions(const Config& config, const std::string& prefix) {
  const std::string p = prefix.empty() ? "" : prefix + ".";
  NewtonOptions o;
  o.gtolAbs = config.getReal(p + "gtol_abs");
  o.gtolRel = config.getReal(p + "gtol_rel");
  o.maxIterations = static_cast<int>(config.getInt(p + "max_iterations"));
  o.armijoC1 = config.getReal(p + "armijo_c1");
  o.shrink = config.getReal(p + "shrink");
  o.maxLineSearch = static_cast<int>(config.getInt(p + "max_line_search"));
  o.energyNoise = config.getReal(p + "energy_noise");
  o.gradientTestWhenFlat = config.getBool(p + "gradient_test_when_flat");
  o.forcing = config.getString(p + "forcing");
  o.forcingOf = config.getString(p + "forcing_of");
  o.forcingConstant = config.getReal(p + "forcing_constant");
  o.forcingMax = config.getReal(p + "forcing_max");
  o.forcingMin = config.getReal(p + "forcing_min");
  o.psdProjection = config.getBool(p + "psd_projection");
  o.psdFloor = config.getReal(p + "psd_floor");
  o.steepestFallback = config.getBool(p + "steepest_fallback");
  o.linear = la::readLinearSolverOptions(config, p + "linear");
  return o;
}

}  // namespace kinema::solvers

// Newton's parameters bound once (framework/core/param_binding.hpp); see newton_params.hpp and
// docs/solvers/newton.md, "Parameters".
#include "framework/solvers/newton_params.hpp"

#include "framework/la/linear_solver_params.hpp"

namespace kinema::solvers {

const ParamBindings<NewtonOptions>& newtonBindings() {
  static const ParamBindings<NewtonOptions> b = [] {
    using O = NewtonOptions;
    ParamBindings<O> r;
    r.real("gtol_abs", &O::gtolAbs, Range::nonNegative(),
           "stop when the reduced-gradient measure <= max(gtol_abs, gtol_rel * its initial value)");
    r.real("gtol_rel", &O::gtolRel, Range::closed(0.0, 1.0),
           "relative tolerance on the reduced-gradient measure (see gtol_abs)");
    r.integer("max_iterations", &O::maxIterations, Range::atLeast(0),
              "Newton iteration cap; reaching it is reported (reason max_iterations), not an error");
    r.real("armijo_c1", &O::armijoC1, Range::open(0.0, 1.0), "Armijo constant: accept f(R(alpha y)) <= f + c1 alpha g^T y");
    r.real("shrink", &O::shrink, Range::open(0.0, 1.0),
           "backtracking factor: alpha <- shrink * alpha after a rejected trial");
    r.integer("max_line_search", &O::maxLineSearch, Range::atLeast(1),
              "line-search trials before falling back to steepest descent");
    r.real("energy_noise", &O::energyNoise, Range::nonNegative(),
           "relative round-off slack in the Armijo test: + energy_noise * max(|f|, |f_trial|)");
    r.boolean("gradient_test_when_flat", &O::gradientTestWhenFlat,
              "where the decrease a trial asks for is below energy_noise * |f|, accept it if it lowers the "
              "convergence measure (f cannot rank it at its round-off floor)");
    r.choice("forcing", &O::forcing, {"eq31", "quadratic", "fixed"},
             "linear rtol per iteration: eq31 = min(forcing_max, c sqrt(||g||)) (Eq. 31 of the bdem paper), "
             "quadratic = min(forcing_max, c ||g||), fixed = linear.rtol");
    r.choice("forcing_of", &O::forcingOf, {"gradient", "measure"},
             "what the forcing term is computed from: gradient = ||g_red||_2 (Eq. 31 as printed, "
             "unit-dependent), measure = the problem's convergence measure (dimensionless in bdem)");
    r.real("forcing_constant", &O::forcingConstant, Range::positive(), "the constant c of the forcing term");
    r.real("forcing_max", &O::forcingMax, Range::leftOpen(0.0, 1.0), "upper bound of the forcing term (0.5 in Eq. 31)");
    r.real("forcing_min", &O::forcingMin, Range::leftOpen(0.0, 1.0), "lower bound of the forcing term");
    r.boolean("psd_projection", &O::psdProjection,
              "project element Hessian blocks to semidefinite (clamp eigenvalues, bdem paper §5.2)");
    r.real("psd_floor", &O::psdFloor, Range::nonNegative(), "eigenvalues of an element block below this are clamped to it");
    r.boolean("steepest_fallback", &O::steepestFallback,
              "take a steepest-descent line search when the Newton one fails (docs/solvers/newton.md)");
    r.nested("linear", &O::linear, la::linearSolverBindings());
    return r;
  }();
  return b;
}



}  // namespace kinema::solvers

// The LP solver's parameters bound once (framework/core/param_binding.hpp); see lp_params.hpp.
#include "framework/solvers/lp_params.hpp"

namespace kinema::solvers {

const ParamBindings<LpOptions>& lpBindings() {
  static const ParamBindings<LpOptions> b = [] {
    using O = LpOptions;
    ParamBindings<O> r;
    r.choice("algorithm", &O::algorithm, {"dual", "primal"}, "LP simplex algorithm (COIN-OR Clp): dual or primal");
    r.real("feasibility_tolerance", &O::feasibilityTolerance, Range::open(0.0, 1e-2),
           "primal feasibility tolerance of the LP solver (on bounds and rows)");
    r.real("optimality_tolerance", &O::optimalityTolerance, Range::open(0.0, 1e-2),
           "dual feasibility tolerance of the LP solver (on reduced costs)");
    r.real("verify_tolerance", &O::verifyTolerance, Range::open(0.0, 1e-1),
           "scaled tolerance of Kinema's own check of an optimal LP solution; failing it "
           "is reported as numerical trouble");
    r.integer("max_iterations", &O::maxIterations, Range::atLeast(1),
              "simplex iteration limit; reaching it is reported, not an error");
    return r;
  }();
  return b;
}



}  // namespace kinema::solvers

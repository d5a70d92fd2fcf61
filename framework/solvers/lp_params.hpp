#pragma once
// The LP solver's parameters under a prefix (e.g. "impact.lp"), the same keys for every module that
// poses LPs: algorithm, feasibility_tolerance, optimality_tolerance, verify_tolerance,
// max_iterations; each bound once with the LpOptions field it fills (framework/core/param_binding.hpp).
#include <string>

#include "framework/core/config.hpp"
#include "framework/core/param_binding.hpp"
#include "framework/solvers/lp_solver.hpp"

namespace kinema::solvers {

// The bindings: a module's own bindings can nest them under a key of theirs.
const ParamBindings<LpOptions>& lpBindings();


}  // namespace kinema::solvers

#pragma once
// Newton's parameters under a prefix (e.g. "bdem.newton"), each bound once with default, range,
// help and the NewtonOptions field it fills (framework/core/param_binding.hpp); the linear
// solver's under "<prefix>.linear" (la::linearSolverBindings(), framework/la/linear_solver_params.hpp).
#include <string>

#include "framework/core/config.hpp"
#include "framework/core/param_binding.hpp"
#include "framework/solvers/newton.hpp"

namespace kinema::solvers {

// The bindings: a module's own bindings can nest them under a key of theirs.
const ParamBindings<NewtonOptions>& newtonBindings();


}  // namespace kinema::solvers

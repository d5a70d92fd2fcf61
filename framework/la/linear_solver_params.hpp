#pragma once
// A linear solver's parameters under a prefix (e.g. "poisson.solver"), the same keys for every
// module: type, preconditioner, rtol, atol, max_iterations, restart, reuse_preconditioner, native.
// Bound once (framework/core/param_binding.hpp, docs/writing-a-module.md section 2); a module's own
// bindings can nest linearSolverBindings() under a key of theirs.
#include <string>

#include "framework/core/config.hpp"
#include "framework/core/param_binding.hpp"
#include "framework/la/linear_solver.hpp"

namespace kinema::la {

// type: a choice of linearSolverTypes(); preconditioner: a choice of preconditionerNames() (every
// backend's and the framework's, asked for when declared), so a typo fails validation naming the key.
const ParamBindings<LinearSolverOptions>& linearSolverBindings();

// Every linear solver declared in `schema` by linearSolverBindings().declare names a preconditioner that
// the scene's backend (`backend.name`, from its registry entry: no backend is created) or the
// framework offers; otherwise one InputError listing each key, its line and what is offered. Run
// after Config::validate, so that `kinema check` refuses what `run` would refuse at its first solve.
void checkLinearSolverChoices(const Config& config, const ParamSchema& schema);

}  // namespace kinema::la

#pragma once
// Declares a linear solver's parameters under a prefix (e.g. "poisson.solver") so every module
// exposes the same keys: type, preconditioner, rtol, atol, max_iterations, restart.
#include <string>

#include "framework/core/config.hpp"
#include "framework/la/linear_solver.hpp"

namespace kinema::la {

void declareLinearSolverParams(ParamSchema& schema, const std::string& prefix,
                               const LinearSolverOptions& defaults = {});
LinearSolverOptions readLinearSolverOptions(const Config& config, const std::string& prefix);

// Every linear solver declared in `schema` by declareLinearSolverParams names a preconditioner that
// the scene's backend (`backend.name`, from its registry entry: no backend is created) or the
// framework offers; otherwise one InputError listing each key, its line and what is offered. Run
// after Config::validate, so that `kinema check` refuses what `run` would refuse at its first solve.
void checkLinearSolverChoices(const Config& config, const ParamSchema& schema);

}  // namespace kinema::la

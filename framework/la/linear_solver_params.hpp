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

}  // namespace kinema::la

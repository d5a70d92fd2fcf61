#pragma once
// Newton's parameters under a prefix (e.g. "bdem.newton"), each with default, range and help;
// the linear solver's under "<prefix>.linear" (framework/la/linear_solver_params.hpp).
#include <string>

#include "framework/core/config.hpp"
#include "framework/solvers/newton.hpp"

namespace kinema::solvers {

void declareNewtonParams(ParamSchema& schema, const std::string& prefix, const NewtonOptions& defaults = {});
NewtonOptions readNewtonOptions(const Config& config, const std::string& prefix);

}  // namespace kinema::solvers

#pragma once
// Declares the LP solver's parameters under a prefix (e.g. "impact.lp") so every module that poses
// LPs exposes the same keys: algorithm, feasibility_tolerance, optimality_tolerance,
// verify_tolerance, max_iterations.
#include <string>

#include "framework/core/config.hpp"
#include "framework/solvers/lp_solver.hpp"

namespace kinema::solvers {

void declareLpParams(ParamSchema& schema, const std::string& prefix, const LpOptions& defaults = {});
LpOptions readLpOptions(const Config& config, const std::string& prefix);

}  // namespace kinema::solvers

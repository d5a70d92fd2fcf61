#include "framework/solvers/lp_solver.hpp"

#include "framework/solvers/lp_clp.hpp"

namespace kinema::solvers {

std::string toString(LpStatus status) {
  switch (status) {
    case LpStatus::optimal: return "optimal";
    case LpStatus::infeasible: return "infeasible";
    case LpStatus::unbounded: return "unbounded";
    case LpStatus::numerical_trouble: return "numerical_trouble";
    case LpStatus::iteration_limit: return "iteration_limit";
  }
  return "unknown";
}

std::unique_ptr<LpSolver> makeLpSolver(const LpOptions& options) {
  return std::make_unique<ClpLpSolver>(options);
}

}  // namespace kinema::solvers

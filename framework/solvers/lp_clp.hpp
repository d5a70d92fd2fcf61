#pragma once
// LpSolver implemented with COIN-OR Clp (ClpSimplex, dual or primal simplex, no presolve, Clp's
// own scaling). Clp's headers are included only by lp_clp.cpp. Status mapping and verification:
// docs/solvers/lp.md.
#include "framework/solvers/lp_solver.hpp"

namespace kinema::solvers {

class ClpLpSolver : public LpSolver {
 public:
  // Throws InputError on an unknown algorithm or a non-positive tolerance / iteration limit.
  explicit ClpLpSolver(const LpOptions& options = {});
  LpResult solve(const LinearProgram& lp) override;
  std::string name() const override { return "clp-" + options_.algorithm; }
  const LpOptions& options() const { return options_; }

 private:
  LpOptions options_;
};

}  // namespace kinema::solvers

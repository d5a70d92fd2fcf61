#pragma once
// The LP solver interface. A solver takes a LinearProgram and returns an LpResult whose status is
// always explicit: `optimal` is returned only after the solution has been checked independently
// of the library (primal feasibility of every bound and row, and the optimality conditions of the
// returned duals, each within a tolerance scaled by the data); a solution that fails the check is
// `numerical_trouble` with a message naming the worst offender. Never a silent wrong answer.
//
// Sign conventions (the same for minimize and maximize): duals[i] is the derivative of the optimal
// objective with respect to the active bound of row i, and reducedCosts = c - A^T duals.
// Minimize: duals >= 0 at an active lower row bound, <= 0 at an active upper one; maximize: the
// opposite. The implementation is COIN-OR Clp (framework/solvers/lp_clp.hpp); no library header
// is included by this file.
#include <memory>
#include <string>
#include <vector>

#include "framework/solvers/linear_program.hpp"

namespace kinema::solvers {

enum class LpStatus { optimal, infeasible, unbounded, numerical_trouble, iteration_limit };
std::string toString(LpStatus status);

struct LpOptions {
  std::string algorithm = "dual";       // dual | primal simplex
  double feasibilityTolerance = 1e-9;   // primal feasibility tolerance handed to the library
  double optimalityTolerance = 1e-9;    // dual feasibility (reduced cost) tolerance for the library
  double verifyTolerance = 1e-7;        // our own check of the returned solution (scaled, see above)
  int maxIterations = 1000000;          // simplex iteration limit; reaching it is iteration_limit
};

struct LpResult {
  LpStatus status = LpStatus::numerical_trouble;
  double objective = 0.0;             // c^T x (meaningful for optimal)
  std::vector<double> x;              // primal solution, one per variable
  std::vector<double> rowActivity;    // A x, one per row
  std::vector<double> duals;          // row multipliers, one per row (convention above)
  std::vector<double> reducedCosts;   // c - A^T duals, one per variable
  int iterations = 0;                 // simplex iterations
  double seconds = 0.0;               // wall time of the solve (load + solve + verification)
  double primalViolation = 0.0;       // scaled, as LinearProgram::primalViolation
  double dualViolation = 0.0;         // scaled, as LinearProgram::dualViolation
  std::string message;                // what the library said, and what the verification found

  bool optimal() const { return status == LpStatus::optimal; }
};

class LpSolver {
 public:
  virtual ~LpSolver() = default;
  // Solves `lp`. Bad input (which LinearProgram rejects when it is built) never reaches here;
  // every outcome of the solve itself is reported in the status, not thrown.
  virtual LpResult solve(const LinearProgram& lp) = 0;
  virtual std::string name() const = 0;
};

// The LP solver for these options (today always Clp). Throws InputError on an unknown algorithm.
std::unique_ptr<LpSolver> makeLpSolver(const LpOptions& options = {});

}  // namespace kinema::solvers

#include "framework/solvers/lp_clp.hpp"

#include <ClpSimplex.hpp>
#include <CoinError.hpp>
#include <CoinPackedMatrix.hpp>

#include <chrono>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"

namespace kinema::solvers {

namespace {

// Clp's infinity is COIN_DBL_MAX; it also treats anything beyond 1e27 as infinite.
double toClp(double v) {
  if (v == LinearProgram::inf) return COIN_DBL_MAX;
  if (v == -LinearProgram::inf) return -COIN_DBL_MAX;
  return v;
}

const char* clpStatusText(int status) {
  switch (status) {
    case 0: return "optimal";
    case 1: return "primal infeasible";
    case 2: return "dual infeasible";
    case 3: return "stopped on iterations or time";
    case 4: return "stopped due to errors";
    case 5: return "stopped by event handler";
    default: return "unknown status";
  }
}

const char* clpSecondaryText(int secondary) {
  switch (secondary) {
    case 0: return "";
    case 1: return "primal infeasible because dual limit reached, or probably infeasible";
    case 2: return "scaled problem optimal, unscaled has primal infeasibilities";
    case 3: return "scaled problem optimal, unscaled has dual infeasibilities";
    case 4: return "scaled problem optimal, unscaled has primal and dual infeasibilities";
    case 5: return "giving up in primal with flagged variables";
    case 6: return "failed due to empty problem check";
    case 7: return "postsolve says not optimal";
    case 8: return "failed due to bad element check";
    case 9: return "stopped on time";
    case 10: return "stopped as primal feasible";
    default: return "event handler";
  }
}

// A problem with no variables: optimal (objective 0) if 0 is inside every row's bounds.
LpResult solveEmpty(const LinearProgram& lp) {
  LpResult r;
  r.rowActivity.assign(lp.numRows(), 0.0);
  r.duals.assign(lp.numRows(), 0.0);
  std::string where;
  r.primalViolation = lp.primalViolation({}, &where);
  r.status = r.primalViolation > 0.0 ? LpStatus::infeasible : LpStatus::optimal;
  r.message = r.primalViolation > 0.0 ? str("no variables and ", where, " excludes 0")
                                      : "no variables: trivially optimal";
  return r;
}

}  // namespace

ClpLpSolver::ClpLpSolver(const LpOptions& options) : options_(options) {
  if (options_.algorithm != "dual" && options_.algorithm != "primal")
    throw InputError(str("LP: unknown algorithm '", options_.algorithm, "' (expected dual or primal)"));
  if (!(options_.feasibilityTolerance > 0.0) || !(options_.optimalityTolerance > 0.0) ||
      !(options_.verifyTolerance > 0.0))
    throw InputError("LP: tolerances must be positive");
  if (options_.maxIterations < 1) throw InputError("LP: max_iterations must be at least 1");
}

LpResult ClpLpSolver::solve(const LinearProgram& lp) {
  const auto start = std::chrono::steady_clock::now();
  const int n = lp.numVariables(), m = lp.numRows();
  if (n == 0) return solveEmpty(lp);

  // Clp always minimises here: a maximisation is passed as min -c^T x and the multipliers are
  // negated back, so the sign conventions of LpResult do not depend on Clp's handling of
  // optimizationDirection.
  const double s = lp.sense() == LpSense::minimize ? 1.0 : -1.0;
  std::vector<double> collb(n), colub(n), obj(n), rowlb(m), rowub(m);
  for (int j = 0; j < n; ++j) {
    collb[j] = toClp(lp.lower()[j]);
    colub[j] = toClp(lp.upper()[j]);
    obj[j] = s * lp.cost()[j];
  }
  for (int i = 0; i < m; ++i) {
    rowlb[i] = toClp(lp.rowLower()[i]);
    rowub[i] = toClp(lp.rowUpper()[i]);
  }
  std::vector<CoinBigIndex> rowStart(lp.rowStart().begin(), lp.rowStart().end());
  std::vector<int> rowLength(m);
  for (int i = 0; i < m; ++i) rowLength[i] = lp.rowStart()[i + 1] - lp.rowStart()[i];

  LpResult r;
  ClpSimplex model;
  model.setLogLevel(0);
  int status = 4, secondary = 0;
  try {
    // Row-ordered: minor dimension = columns, major = rows.
    const CoinPackedMatrix matrix(false, n, m, lp.numNonzeros(), lp.values().data(),
                                  lp.colIndex().data(), rowStart.data(), rowLength.data());
    model.loadProblem(matrix, collb.data(), colub.data(), obj.data(), rowlb.data(), rowub.data());
    model.setOptimizationDirection(1.0);
    model.setPrimalTolerance(options_.feasibilityTolerance);
    model.setDualTolerance(options_.optimalityTolerance);
    model.setMaximumIterations(options_.maxIterations);
    if (options_.algorithm == "dual")
      model.dual();
    else
      model.primal();
    status = model.status();
    secondary = model.secondaryStatus();
  } catch (const CoinError& e) {
    r.status = LpStatus::numerical_trouble;
    r.message = str("Clp threw: ", e.message(), " (in ", e.className(), "::", e.methodName(), ")");
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  }

  r.iterations = model.numberIterations();
  const double* x = model.primalColumnSolution();
  const double* y = model.dualRowSolution();
  const double* d = model.dualColumnSolution();
  r.x.assign(x, x + n);
  r.duals.resize(m);
  r.reducedCosts.resize(n);
  for (int i = 0; i < m; ++i) r.duals[i] = s * y[i];
  for (int j = 0; j < n; ++j) r.reducedCosts[j] = s * d[j];
  r.rowActivity = lp.rowActivities(r.x);
  r.objective = lp.objectiveValue(r.x);
  std::string clpSays = str("Clp ", options_.algorithm, " simplex: ", clpStatusText(status));
  if (secondary != 0) clpSays += str(" (", clpSecondaryText(secondary), ")");
  clpSays += str(", ", r.iterations, " iterations");

  switch (status) {
    case 0: {
      // Candidate optimum (also with secondary 2-4: the unscaled solution may still be within
      // tolerance). Verify it ourselves before calling it optimal.
      std::string wherePrimal, whereDual;
      r.primalViolation = lp.primalViolation(r.x, &wherePrimal);
      r.dualViolation =
          lp.dualViolation(r.x, r.duals, r.reducedCosts, options_.verifyTolerance, &whereDual);
      const bool primalOk = r.primalViolation <= options_.verifyTolerance;
      const bool dualOk = r.dualViolation <= options_.verifyTolerance;
      if (primalOk && dualOk) {
        r.status = LpStatus::optimal;
        r.message = str(clpSays, "; verified: primal violation ", r.primalViolation,
                        ", dual violation ", r.dualViolation);
      } else {
        r.status = LpStatus::numerical_trouble;
        r.message = str(clpSays, "; verification FAILED (tolerance ", options_.verifyTolerance, "):");
        if (!primalOk) r.message += str(" primal violation ", r.primalViolation, " at ", wherePrimal, ";");
        if (!dualOk) r.message += str(" dual violation ", r.dualViolation, " at ", whereDual, ";");
      }
      break;
    }
    case 1:
      r.status = LpStatus::infeasible;
      r.message = clpSays;
      break;
    case 2:
      // Dual infeasible: no finite optimum. Clp's primal phase decides primal feasibility first,
      // so this is an unbounded objective (see docs/solvers/lp.md for the caveat).
      r.status = LpStatus::unbounded;
      r.message = clpSays;
      break;
    case 3:
      r.status = LpStatus::iteration_limit;
      r.message = str(clpSays, " (limit ", options_.maxIterations, "); solution not verified");
      break;
    default:
      r.status = LpStatus::numerical_trouble;
      r.message = clpSays;
      break;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace kinema::solvers

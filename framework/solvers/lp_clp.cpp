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

// The problem in Clp's arrays: bounds with Clp's infinities, the objective to minimise (s c) and
// the row lengths of the compressed-row matrix.
struct ClpArrays {
  std::vector<double> collb, colub, obj, rowlb, rowub;
  std::vector<CoinBigIndex> rowStart;
  std::vector<int> rowLength;
};

// lp in Clp's arrays, its objective multiplied by s.
ClpArrays toClpArrays(const LinearProgram& lp, double s) {
  const int n = lp.numVariables(), m = lp.numRows();
  ClpArrays a;
  a.collb.resize(n);
  a.colub.resize(n);
  a.obj.resize(n);
  a.rowlb.resize(m);
  a.rowub.resize(m);
  for (int j = 0; j < n; ++j) {
    a.collb[j] = toClp(lp.lower()[j]);
    a.colub[j] = toClp(lp.upper()[j]);
    a.obj[j] = s * lp.cost()[j];
  }
  for (int i = 0; i < m; ++i) {
    a.rowlb[i] = toClp(lp.rowLower()[i]);
    a.rowub[i] = toClp(lp.rowUpper()[i]);
  }
  a.rowStart.assign(lp.rowStart().begin(), lp.rowStart().end());
  a.rowLength.resize(m);
  for (int i = 0; i < m; ++i) a.rowLength[i] = lp.rowStart()[i + 1] - lp.rowStart()[i];
  return a;
}

// Loads the problem into `model` and runs the simplex of the options (Clp may throw CoinError).
void loadAndSolve(ClpSimplex& model, const LinearProgram& lp, const ClpArrays& a, const LpOptions& o) {
  // Row-ordered: minor dimension = columns, major = rows.
  const CoinPackedMatrix matrix(false, lp.numVariables(), lp.numRows(), lp.numNonzeros(), lp.values().data(),
                                lp.colIndex().data(), a.rowStart.data(), a.rowLength.data());
  model.loadProblem(matrix, a.collb.data(), a.colub.data(), a.obj.data(), a.rowlb.data(), a.rowub.data());
  model.setOptimizationDirection(1.0);
  model.setPrimalTolerance(o.feasibilityTolerance);
  model.setDualTolerance(o.optimalityTolerance);
  model.setMaximumIterations(o.maxIterations);
  if (o.algorithm == "dual")
    model.dual();
  else
    model.primal();
}

// Clp's solution in r: x, the multipliers of the minimisation negated back by s, A x and c^T x.
void readSolution(const ClpSimplex& model, const LinearProgram& lp, double s, LpResult& r) {
  const int n = lp.numVariables(), m = lp.numRows();
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
}

// Clp's candidate optimum, verified by us: optimal only if the primal and dual violations are
// within the verify tolerance, else numerical trouble naming the worst offenders.
void verifyOptimum(const LinearProgram& lp, const LpOptions& o, const std::string& clpSays, LpResult& r) {
  std::string wherePrimal, whereDual;
  r.primalViolation = lp.primalViolation(r.x, &wherePrimal);
  r.dualViolation = lp.dualViolation(r.x, r.duals, r.reducedCosts, o.verifyTolerance, &whereDual);
  const bool primalOk = r.primalViolation <= o.verifyTolerance;
  const bool dualOk = r.dualViolation <= o.verifyTolerance;
  if (primalOk && dualOk) {
    r.status = LpStatus::optimal;
    r.message = str(clpSays, "; verified: primal violation ", r.primalViolation, ", dual violation ",
                    r.dualViolation);
  } else {
    r.status = LpStatus::numerical_trouble;
    r.message = str(clpSays, "; verification FAILED (tolerance ", o.verifyTolerance, "):");
    if (!primalOk) r.message += str(" primal violation ", r.primalViolation, " at ", wherePrimal, ";");
    if (!dualOk) r.message += str(" dual violation ", r.dualViolation, " at ", whereDual, ";");
  }
}

// r.status and r.message from Clp's status (docs/solvers/lp.md); clpSays is Clp's own account.
void classify(const LinearProgram& lp, const LpOptions& o, int status, const std::string& clpSays, LpResult& r) {
  switch (status) {
    case 0:
      // Candidate optimum (also with secondary 2-4: the unscaled solution may still be within
      // tolerance). Verify it ourselves before calling it optimal.
      verifyOptimum(lp, o, clpSays, r);
      break;
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
      r.message = str(clpSays, " (limit ", o.maxIterations, "); solution not verified");
      break;
    default:
      r.status = LpStatus::numerical_trouble;
      r.message = clpSays;
      break;
  }
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
  const int n = lp.numVariables();
  if (n == 0) return solveEmpty(lp);

  // Clp always minimises here: a maximisation is passed as min -c^T x and the multipliers are
  // negated back, so the sign conventions of LpResult do not depend on Clp's handling of
  // optimizationDirection.
  const double s = lp.sense() == LpSense::minimize ? 1.0 : -1.0;
  const ClpArrays arrays = toClpArrays(lp, s);

  LpResult r;
  ClpSimplex model;
  model.setLogLevel(0);
  int status = 4, secondary = 0;
  try {
    loadAndSolve(model, lp, arrays, options_);
    status = model.status();
    secondary = model.secondaryStatus();
  } catch (const CoinError& e) {
    r.status = LpStatus::numerical_trouble;
    r.message = str("Clp threw: ", e.message(), " (in ", e.className(), "::", e.methodName(), ")");
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  }

  readSolution(model, lp, s, r);
  std::string clpSays = str("Clp ", options_.algorithm, " simplex: ", clpStatusText(status));
  if (secondary != 0) clpSays += str(" (", clpSecondaryText(secondary), ")");
  clpSays += str(", ", r.iterations, " iterations");
  classify(lp, options_, status, clpSays, r);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace kinema::solvers

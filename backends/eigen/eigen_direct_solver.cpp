#include "backends/eigen/eigen_direct_solver.hpp"

#include <chrono>
#include <cmath>

#include "framework/core/error.hpp"
#include "framework/la/solve_support.hpp"

namespace kinema::la::eigen {

void EigenDirectSolver::setOperator(OperatorPtr A) {
  const EigenMatrix& M = requireEigenMatrix(A, "the direct solver");
  fact_.compute(M, "direct solver");
  triedLu_ = !fact_.usesLdlt();
  A_ = std::move(A);
  r_ = A_->createRangeVector();
}

SolverStats EigenDirectSolver::solve(const Vector& b, Vector& x) {
  const auto t0 = std::chrono::steady_clock::now();
  if (!A_) throw Error("direct solver: solve() called before setOperator()");
  checkSolveArguments(*A_, b, x, "direct solver");
  auto residual = [&] { return trueResidual(*A_, b, x, *r_); };
  SolverStats s;
  s.rhsNorm = b.norm2();
  s.initialResidual = residual();
  const double tol = std::max(opts_.rtol * s.rhsNorm, opts_.atol);
  auto factorSolve = [&] {
    Vector::ConstView bv = b.view();
    Vector::View xv = x.view();
    fact_.solve(bv.data(), xv.data());
  };
  if (!settledByZeroRhs(s, x)) {
    factorSolve();
    s.iterations = 1;
    s.finalResidual = residual();
    // LDL^T without pivoting can be inaccurate on symmetric indefinite matrices: retry with LU.
    if (!(s.finalResidual <= tol) && !triedLu_) {
      triedLu_ = true;
      fact_.compute(dynamic_cast<const EigenMatrix&>(*A_), "direct solver", true);
      factorSolve();
      s.finalResidual = residual();
    }
    s.converged = std::isfinite(s.finalResidual) && s.finalResidual <= tol;
    s.reason = SolverOutcome::Direct;
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

std::string EigenDirectSolver::description() const {
  return str("direct (eigen sparse ", fact_.method(), ")");
}

}  // namespace kinema::la::eigen

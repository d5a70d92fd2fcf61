#include "framework/la/solve_support.hpp"

#include <cmath>

#include "framework/core/error.hpp"
#include "framework/la/matrix.hpp"

namespace kinema::la {

void checkSolveArguments(const Operator& A, const Vector& b, const Vector& x, const std::string& who) {
  if (!b.map().compatible(*A.rangeMap()))
    throw Error(str(who, ": the right-hand side is not on the range map of operator '", A.description(), "'"));
  if (!x.map().compatible(*A.domainMap()))
    throw Error(str(who, ": the solution vector is not on the domain map of operator '", A.description(), "'"));
  if (!A.domainMap()->compatible(*A.rangeMap()))
    throw Error(str(who, ": operator '", A.description(), "' is not square (domain and range maps differ)"));
  KINEMA_CHECK(&b != &x, who, ": b and x must be distinct vectors");
}

double trueResidual(const Operator& A, const Vector& b, const Vector& x, Vector& r) {
  A.apply(x, r);
  r.axpby(1.0, b, -1.0);
  return r.norm2();
}

bool settledByZeroRhs(SolverStats& s, Vector& x) {
  if (s.rhsNorm != 0.0) return false;
  x.set(0.0);  // the solution is exactly zero
  s.finalResidual = 0.0;
  s.converged = true;
  s.reason = SolverOutcome::ZeroRhs;
  return true;
}

bool settledWithoutIterating(SolverStats& s, Vector& x) {
  if (settledByZeroRhs(s, x)) return true;
  if (std::isfinite(s.rhsNorm) && std::isfinite(s.initialResidual)) return false;
  s.reason = SolverOutcome::Breakdown;
  return true;
}

void checkReusePolicy(const std::string& policy, const std::string& who) {
  if (policy != "none" && policy != "interpolation" && policy != "full")
    throw InputError(str(who, ": unknown reuse_preconditioner '", policy, "' (none, interpolation, full)"));
}

bool PreconditionerReuse::keep(const OperatorPtr& A) const {
  if (policy_ != "full" || !A) return false;
  const auto held = op_.lock();
  if (held.get() != A.get()) return false;
  const auto* M = dynamic_cast<const Matrix*>(A.get());
  if (M == nullptr || M->patternVersion() != pattern_) return false;
  if (baseline_ > 0 && last_ > kRefreshFactor * baseline_) {
    ++refreshes_;
    return false;
  }
  return true;
}

void PreconditionerReuse::record(const OperatorPtr& A) {
  op_ = A;
  const auto* M = dynamic_cast<const Matrix*>(A.get());
  pattern_ = M ? M->patternVersion() : 0;
  baseline_ = 0;
  last_ = 0;
}

void PreconditionerReuse::solved(int iterations) {
  if (iterations <= 0) return;
  if (baseline_ == 0) baseline_ = iterations;
  last_ = iterations;
}

}  // namespace kinema::la

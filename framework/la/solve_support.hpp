#pragma once
// Pieces every LinearSolver implementation needs, written once: argument checks and the true
// residual the layer's convergence test is stated in (linear_solver.hpp).
#include <cstdint>
#include <memory>
#include <string>

#include "framework/la/linear_solver.hpp"
#include "framework/la/operator.hpp"

namespace kinema::la {

// Throws an Error naming `who` unless b is on A's range map, x on its domain map, A is square,
// and b and x are distinct vectors.
void checkSolveArguments(const Operator& A, const Vector& b, const Vector& x, const std::string& who);
// r = b - A x; returns ||r||_2 (collective).
double trueResidual(const Operator& A, const Vector& b, const Vector& x, Vector& r);

// The outcome of a solve the right-hand side settles, from s.rhsNorm: b = 0 gives x = 0, converged,
// SolverOutcome::ZeroRhs, and returns true; otherwise returns false and changes nothing.
bool settledByZeroRhs(SolverStats& s, Vector& x);
// The same, and (for iterative solvers) a non-finite s.rhsNorm or s.initialResidual is a
// SolverOutcome::Breakdown: returns true with x untouched.
bool settledWithoutIterating(SolverStats& s, Vector& x);

// Checks a LinearSolverOptions::reusePreconditioner value (none | interpolation | full); throws
// an InputError naming `who` otherwise.
void checkReusePolicy(const std::string& policy, const std::string& who);

// Decides, at each setOperator, whether the preconditioner set up before may be kept: only under
// the policy "full", for the same operator object, an assembled Matrix whose pattern version is
// the one of the last set-up (values may have changed), and while it still works: a solve that took
// more than kRefreshFactor times the Krylov iterations of the first solve after the set-up (the
// values have drifted from those it was built on: a body that bent, bonds that broke) makes the
// next setOperator set it up again. record() after every set-up, solved() after every solve.
class PreconditionerReuse {
 public:
  static constexpr double kRefreshFactor = 2.0;
  explicit PreconditionerReuse(std::string policy = "none") : policy_(std::move(policy)) {}
  const std::string& policy() const { return policy_; }
  // True when the preconditioner may be kept for A (see above).
  bool keep(const OperatorPtr& A) const;
  // The preconditioner was (re)built on A.
  void record(const OperatorPtr& A);
  // A solve with the current preconditioner took `iterations` (solves that needed none, from a
  // zero right-hand side or a converged initial guess, do not count).
  void solved(int iterations);
  void forget() { op_.reset(); }
  // Set-ups that keep() refused because a solve took too many iterations (for the statistics).
  long refreshes() const { return refreshes_; }

 private:
  std::string policy_;
  std::weak_ptr<const Operator> op_;
  std::uint64_t pattern_ = 0;
  int baseline_ = 0;  // iterations of the first solve after the set-up (0: none yet)
  int last_ = 0;      // iterations of the latest solve
  mutable long refreshes_ = 0;
};

}  // namespace kinema::la

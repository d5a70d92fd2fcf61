#pragma once
// Pieces every LinearSolver implementation needs, written once: argument checks and the true
// residual the layer's convergence test is stated in (linear_solver.hpp).
#include <cstdint>
#include <memory>
#include <string>

#include "framework/la/operator.hpp"

namespace kinema::la {

// Throws an Error naming `who` unless b is on A's range map, x on its domain map, A is square,
// and b and x are distinct vectors.
void checkSolveArguments(const Operator& A, const Vector& b, const Vector& x, const std::string& who);
// r = b - A x; returns ||r||_2 (collective).
double trueResidual(const Operator& A, const Vector& b, const Vector& x, Vector& r);

// Checks a LinearSolverOptions::reusePreconditioner value (none | interpolation | full); throws
// an InputError naming `who` otherwise.
void checkReusePolicy(const std::string& policy, const std::string& who);

// Decides, at each setOperator, whether the preconditioner set up before may be kept: only under
// the policy "full", for the same operator object, an assembled Matrix whose pattern version is
// the one of the last set-up (values may have changed). record() after every set-up.
class PreconditionerReuse {
 public:
  explicit PreconditionerReuse(std::string policy = "none") : policy_(std::move(policy)) {}
  const std::string& policy() const { return policy_; }
  // True when the preconditioner may be kept for A (see above).
  bool keep(const OperatorPtr& A) const;
  // The preconditioner was (re)built on A.
  void record(const OperatorPtr& A);
  void forget() { op_.reset(); }

 private:
  std::string policy_;
  std::weak_ptr<const Operator> op_;
  std::uint64_t pattern_ = 0;
};

}  // namespace kinema::la

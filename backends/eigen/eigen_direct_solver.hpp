#pragma once
// The "direct" solver type: a sparse factorisation (LDL^T, or LU for nonsymmetric matrices and
// when LDL^T fails or leaves a residual above the tolerance). Ignores the preconditioner.
#include "backends/eigen/eigen_factorization.hpp"
#include "framework/la/linear_solver.hpp"

namespace kinema::la::eigen {

class EigenDirectSolver final : public LinearSolver {
 public:
  explicit EigenDirectSolver(LinearSolverOptions opts) : opts_(std::move(opts)) {}
  void setOperator(OperatorPtr A) override;
  // A direct solve needs no preconditioner; accepted for the interface and not used.
  void setPreconditioner(PreconditionerPtr) override {}
  SolverStats solve(const Vector& b, Vector& x) override;
  std::string description() const override;
  void setTolerances(double rtol, double atol) override {
    opts_.rtol = rtol;
    opts_.atol = atol;
  }

 private:
  LinearSolverOptions opts_;
  OperatorPtr A_;
  EigenFactorization fact_;
  bool triedLu_ = false;
  VectorPtr r_;  // residual work vector, kept between solves
};

}  // namespace kinema::la::eigen

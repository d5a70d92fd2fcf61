#pragma once
// Krylov methods written once over the abstract layer (CG, MINRES, restarted GMRES). The Eigen
// backend uses them as its solvers; distributed backends map to their native KSP / Belos but
// these also run there, which the conformance tests use as a cross-check.
#include "framework/la/linear_solver.hpp"
#include "framework/la/solve_support.hpp"

namespace kinema::la {

// Preconditioned conjugate gradients (A SPD, M SPD).
SolverStats conjugateGradient(const Operator& A, const Preconditioner& M, const Vector& b, Vector& x,
                              const LinearSolverOptions& opts);
// Preconditioned MINRES (A symmetric, possibly indefinite; M SPD).
SolverStats minres(const Operator& A, const Preconditioner& M, const Vector& b, Vector& x,
                   const LinearSolverOptions& opts);
// Right-preconditioned restarted GMRES(m) (A general).
SolverStats gmres(const Operator& A, const Preconditioner& M, const Vector& b, Vector& x,
                  const LinearSolverOptions& opts);

// A LinearSolver running the methods above with a given preconditioner.
class KrylovSolver : public LinearSolver {
 public:
  KrylovSolver(LinearSolverOptions opts, PreconditionerPtr preconditioner);
  void setOperator(OperatorPtr A) override;
  void setPreconditioner(PreconditionerPtr P) override;
  SolverStats solve(const Vector& b, Vector& x) override;
  void setTolerances(double rtol, double atol) override {
    opts_.rtol = rtol;
    opts_.atol = atol;
  }
  std::string description() const override;

 private:
  LinearSolverOptions opts_;
  PreconditionerPtr pc_;
  OperatorPtr A_;
  PreconditionerReuse reuse_;  // LinearSolverOptions::reusePreconditioner
};

}  // namespace kinema::la

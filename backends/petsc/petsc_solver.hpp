#pragma once
// PetscLinearSolver: a KSP configured from the layer's options, then from PETSc options strings.
//
// Types: cg -> KSPCG (unpreconditioned norm), gmres -> KSPGMRES (right preconditioning, so its
// residual estimate is the unpreconditioned one), minres -> KSPMINRES (PETSc 3.18's MINRES only
// has the preconditioned norm), direct -> KSPPREONLY + PCLU (MUMPS). The preconditioner is the
// named native PC, or a PCSHELL around a framework preconditioner.
//
// Convergence is the layer's: ||b - A x||_2 <= max(rtol ||b||_2, atol), with rtol, atol and the
// iteration limit read back from the KSP (so -ksp_rtol etc. work). A custom convergence test
// confirms every candidate with the true residual (KSPBuildResidual); where the KSP's norm is not
// the unpreconditioned residual (MINRES, or a type or norm chosen through options) it computes the
// true residual every iteration. The statistics always hold the true residual computed after the
// solve. PETSc's CG stops on a negative curvature only when the sign changes, so for CG the Ritz
// values (KSPComputeEigenvalues) are checked: a non-positive one means A (or M) is not positive
// definite, reported as "indefinite" as the framework's CG does.
//
// Options: the KSP's prefix is LinearSolverOptions::prefix (e.g. "poisson_solver_"). Each solver
// owns a private options database (see OptionsDb) holding, in order of precedence: the global
// PETSc options, the preconditioner's defaults, backend.petsc.options and native["petsc"], the
// last two inserted under the prefix. So two solvers of a run differ exactly by their native
// options, even with the same prefix.
#include <petscksp.h>

#include <vector>

#include "backends/petsc/petsc_base.hpp"
#include "backends/petsc/petsc_shell.hpp"
#include "backends/petsc/petsc_vector.hpp"
#include "framework/la/linear_solver.hpp"
#include "framework/la/solve_support.hpp"

namespace kinema::la::petsc {

class PetscLinearSolver final : public LinearSolver {
 public:
  PetscLinearSolver(LinearSolverOptions opts, std::string backendOptions, PreconditionerPtr pc);
  ~PetscLinearSolver() override;

  void setOperator(OperatorPtr A) override;
  void setPreconditioner(PreconditionerPtr P) override;
  SolverStats solve(const Vector& b, Vector& x) override;
  std::string description() const override;
  void setTolerances(double rtol, double atol) override;

  KSP ksp() const { return ksp_; }
  const std::string& prefix() const { return opts_.prefix; }

 private:
  SolverStats solveOnce(const Vector& b, Vector& x);  // solve() before the reuse bookkeeping
  void createKsp(const Comm& comm);
  void configureKsp(const Comm& comm);
  void configurePreconditioner();
  void applyTolerances();
  void setUp();
  double trueResidual(const Vector& b, const Vector& x);
  static PetscErrorCode convergenceTest(KSP ksp, PetscInt it, PetscReal rnorm, KSPConvergedReason* reason,
                                        void* ctx);

  LinearSolverOptions opts_;
  std::string backendOptions_, nativeOptions_;
  bool direct_ = false;
  bool explicitTolerances_ = false;  // set by setTolerances(): re-applied over the options
  std::string pcName_;     // a native name, or empty when pc_ is a framework preconditioner
  PreconditionerPtr pc_;   // the framework preconditioner (PCSHELL) when pcName_ is empty
  std::unique_ptr<ShellPreconditioner> shellPc_;
  std::unique_ptr<OptionsDb> db_;
  KSP ksp_ = nullptr;
  BoundOperator op_;
  PreconditionerReuse reuse_;  // LinearSolverOptions::reusePreconditioner ("full": keep the PC)

  // Per-solve state for the convergence test, and work vectors kept between solves.
  double tol_ = 0.0;
  bool atolWins_ = false;
  bool trueEveryIteration_ = false;
  VectorPtr r_;
  Vec t_ = nullptr, w_ = nullptr;
  std::vector<PetscReal> ritzRe_, ritzIm_;
};

// The layer's outcome for a KSP reason (e.g. MaxIterations); one it has no name for is Native with
// PETSc's text in s.native (e.g. "diverged:DIVERGED_DTOL").
void setOutcome(SolverStats& s, KSPConvergedReason r);

}  // namespace kinema::la::petsc

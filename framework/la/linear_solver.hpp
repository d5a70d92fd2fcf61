#pragma once
// LinearSolver: solves A x = b with a Krylov method or a direct factorisation, preconditioned.
// Every solve returns statistics that reach the diagnostics.
//
// Convergence (the same on every backend): ||b - A x||_2 <= max(rtol * ||b||_2, atol), with the
// true (unpreconditioned) residual.
#include <map>
#include <memory>
#include <string>

#include "framework/core/solver_outcome.hpp"
#include "framework/la/preconditioner.hpp"

namespace kinema::la {

struct SolverStats {
  int iterations = 0;
  double initialResidual = 0;  // ||b - A x0||
  double finalResidual = 0;    // ||b - A x|| at exit
  double rhsNorm = 0;          // ||b||
  bool converged = false;
  SolverOutcome reason = SolverOutcome::None;  // Rtol, Atol, Direct, MaxIterations, Breakdown, ...
  std::string native;          // with reason Native: the backend's own (e.g. "diverged:DIVERGED_DTOL")
  double seconds = 0;
  // The reason as printed: name(reason), or the native text.
  std::string reasonName() const { return reason == SolverOutcome::Native ? native : name(reason); }
};

struct LinearSolverOptions {
  std::string type = "cg";               // cg | minres | gmres | direct
  std::string preconditioner = "jacobi";  // a name the backend knows, or a custom one
  double rtol = 1e-8;
  double atol = 0.0;
  int maxIterations = 1000;
  int restart = 30;                       // GMRES restart length
  // What setOperator keeps of the preconditioner when it is called again with the same matrix
  // object whose values changed but whose sparsity pattern did not (Matrix::patternVersion), e.g.
  // the Hessian refills of Newton iterations:
  //   none          everything is set up anew (default);
  //   interpolation algebraic multigrid keeps its aggregates and interpolation and recomputes
  //                 the Galerkin coarse operators and smoothers from the new values (PETSc
  //                 PCGAMGSetReuseInterpolation, MueLu "reuse: type" RP); other preconditioners
  //                 are set up anew;
  //   full          the preconditioner set up on earlier values is kept as it is (PETSc
  //                 KSPSetReusePreconditioner; MueLu, Ifpack2 and framework preconditioners are
  //                 not set up again). Direct solvers always refactor.
  // A new pattern or another operator object always sets everything up anew.
  std::string reusePreconditioner = "none";
  std::string prefix;                     // option prefix for native pass-through (PETSc, Belos)
  // This solver's native options, keyed by backend name, each written as YAML text (the scene
  // reader converts them, see yamlText in framework/core/config.hpp): native["petsc"] is a PETSc
  // options string, native["trilinos"] a map of Teuchos parameter lists ({belos: {...}, ...}).
  // Each backend reads its own.
  std::map<std::string, std::string> native;
};

class LinearSolver {
 public:
  virtual ~LinearSolver() = default;
  // Binds the operator and sets the preconditioner up on it. Call again after its values change.
  virtual void setOperator(OperatorPtr A) = 0;
  // Replaces the named preconditioner (e.g. with a framework-written one); set up on the next
  // setOperator, or now if an operator is bound.
  virtual void setPreconditioner(PreconditionerPtr P) = 0;
  // x holds the initial guess on entry and the solution on exit. Does not throw on
  // non-convergence: the caller reads stats.converged.
  virtual SolverStats solve(const Vector& b, Vector& x) = 0;
  // New convergence tolerances for the next solves, without re-creating the solver or its
  // preconditioner (e.g. a Newton forcing term changing every iteration). Overrides rtol / atol
  // given through native options.
  virtual void setTolerances(double rtol, double atol) = 0;
  virtual std::string description() const = 0;
};

using LinearSolverPtr = std::unique_ptr<LinearSolver>;

}  // namespace kinema::la

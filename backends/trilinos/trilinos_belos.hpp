#pragma once
// Belos Krylov solvers (through Belos::SolverFactory): cg -> "PSEUDOBLOCK CG" (what "CG" names),
// minres -> "MINRES", gmres -> "PSEUDOBLOCK GMRES" (what "GMRES" names, "Num Blocks" = restart,
// right-preconditioned so its residual is the unpreconditioned one).
//
// Convergence is the layer's: ||b - A x||_2 <= max(rtol ||b||_2, atol). Belos gets
// "Convergence Tolerance" = max(rtol, atol/||b||) with both residual scalings "Norm of RHS"
// (MINRES scales by the initial residual only, so it gets the same target divided by that).
// After Belos returns, the true residual decides; if Belos stopped on its recurrence while the
// true residual is still above the target, it continues from x with a tighter tolerance.
//
// Matrix-free operators and framework-written preconditioners are wrapped as Tpetra::Operator
// subclasses whose apply views Belos's vectors as trilinos la::Vectors (no copy; a copy only when
// the operator's IndexMap has ghosts, since Belos's vectors have none).
#include <memory>

#include "backends/trilinos/trilinos_params.hpp"
#include "framework/la/linear_solver.hpp"

namespace kinema::la::trilinos {

std::unique_ptr<LinearSolver> makeBelosSolver(const LinearSolverOptions& opts,
                                              std::shared_ptr<const NativeOptions> native,
                                              PreconditionerPtr preconditioner);

}  // namespace kinema::la::trilinos

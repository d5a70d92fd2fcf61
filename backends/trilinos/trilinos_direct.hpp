#pragma once
// Amesos2: the "direct" solver type and preconditioner, with KLU2 (always built in; Debian's 13.2
// has KLU2 and Tacho only, Tacho being for symmetric matrices). Options: the amesos2 parameter
// list (backend-wide, then the solver's own); its optional "Solver Name" picks another solver
// Amesos2 has (Amesos2::query), the rest is passed to the solver (e.g. {KLU2: {...}}).
// On several ranks the matrix is gathered to rank 0 by the backend and factorised there
// serially (Debian's Amesos2 13.2 solves wrongly when KLU2 gathers a distributed matrix itself).
// On one rank a refill with an unchanged pattern only refactorises numerically.
#include <memory>
#include <string>

#include "backends/trilinos/trilinos_params.hpp"
#include "backends/trilinos/trilinos_types.hpp"
#include "framework/la/linear_solver.hpp"

namespace kinema::la::trilinos {

class TrilinosMatrix;

class Amesos2Factorization {
 public:
  Amesos2Factorization();
  ~Amesos2Factorization();
  // Symbolic and numeric factorisation, or numeric only when `A`'s pattern is unchanged.
  void compute(const TrilinosMatrix& A, const NativeOptions& opts, const std::string& who);
  // x = A^{-1} b on the owned maps.
  void solve(const TMV& b, TMV& x) const;
  bool ready() const;
  std::string solverName() const;
  // A Tpetra operator applying A^{-1} (for Belos), valid while this object lives.
  Teuchos::RCP<const TOp> inverseOperator() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

std::unique_ptr<LinearSolver> makeDirectSolver(const LinearSolverOptions& opts,
                                               std::shared_ptr<const NativeOptions> native);

}  // namespace kinema::la::trilinos

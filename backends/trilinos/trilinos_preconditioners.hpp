#pragma once
// The backend's native preconditioners: the layer's names mapped onto Trilinos.
//   jacobi -> Ifpack2 RELAXATION "Jacobi" (the framework's JacobiPreconditioner on matrix-free
//             operators, which have a diagonal but no rows)
//   ssor   -> Ifpack2 RELAXATION "Symmetric Gauss-Seidel", damping 1 (rank-local sweeps)
//   ic0    -> Ifpack2 RILUK level 0, which is IC(0) on an SPD matrix (rank-local)
//   amg    -> MueLu smoothed aggregation, the matrix's near-null space, bs PDE equations
//   direct -> Amesos2 (see trilinos_direct.hpp)
// Options: ifpack2 / muelu / amesos2 parameter lists from backend.trilinos and the solver's
// native.trilinos, applied over the defaults above. setup() on the same matrix after a refill
// recomputes (Ifpack2 compute(), MueLu re-setup, Amesos2 numeric factorisation); after a
// pattern rebuild everything is set up anew.
#include <memory>
#include <string>

#include "backends/trilinos/trilinos_params.hpp"
#include "backends/trilinos/trilinos_types.hpp"
#include "framework/la/preconditioner.hpp"

namespace kinema::la::trilinos {

class TrilinosMatrix;

class NativePreconditioner : public Preconditioner {
 public:
  explicit NativePreconditioner(std::shared_ptr<const NativeOptions> opts) : opts_(std::move(opts)) {}
  // The Tpetra operator applying M^{-1} on the operator's owned maps, or null when this
  // preconditioner runs a framework fallback (then it is wrapped like any framework one).
  virtual Teuchos::RCP<const TOp> nativeOperator() const = 0;
  // z = M^{-1} r through nativeOperator() (or the fallback).
  void apply(const Vector& r, Vector& z) const override;

 protected:
  virtual const Preconditioner* fallback() const { return nullptr; }
  std::shared_ptr<const NativeOptions> opts_;
};

// The matrix behind `A` for a preconditioner that needs rows; an InputError naming `who` if A
// is matrix-free (or not a trilinos matrix).
const TrilinosMatrix& requireTrilinosMatrix(const OperatorPtr& A, const std::string& who);

std::unique_ptr<NativePreconditioner> makeIfpack2Preconditioner(const std::string& name,
                                                                std::shared_ptr<const NativeOptions> opts);
// reuseInterpolation: a set-up on the same CrsMatrix (a refill) keeps the prolongator and
// restriction (MueLu "reuse: type" RP unless the options name another) even when the near-null
// space vectors were replaced; otherwise a refill with new near-null-space vectors sets up anew.
std::unique_ptr<NativePreconditioner> makeMueLuPreconditioner(std::shared_ptr<const NativeOptions> opts,
                                                              bool reuseInterpolation = false);
std::unique_ptr<NativePreconditioner> makeAmesos2Preconditioner(std::shared_ptr<const NativeOptions> opts);

}  // namespace kinema::la::trilinos

#pragma once
// The PETSc backend: vectors, block matrices, KSP solvers and PCs over MPI ranks (PETSc 3.18,
// real scalars, 32-bit PetscInt as Debian builds it). `options` is backend.petsc.options, applied to
// every solver under its prefix and to stand-alone preconditioners without one.
#include "framework/la/backend.hpp"

namespace kinema::la::petsc {

class PetscBackend final : public Backend {
 public:
  explicit PetscBackend(std::string options);
  // Warns of the options PETSc never read (endOptionsReport in petsc_base.hpp).
  ~PetscBackend() override;
  std::string name() const override { return "petsc"; }
  bool distributed() const override { return true; }

  std::unique_ptr<Vector> createVector(IndexMapPtr map) const override;
  std::unique_ptr<MatrixAssembler> createAssembler(IndexMapPtr rows, IndexMapPtr cols) const override;
  std::unique_ptr<LinearSolver> createLinearSolver(const LinearSolverOptions& opts) const override;
  std::vector<std::string> nativePreconditioners() const override;
  std::vector<std::string> solverTypes() const override;
  // The same lists without an object (the registry entry's, for `kinema list`).
  static std::vector<std::string> offeredSolverTypes();
  static std::vector<std::string> offeredPreconditioners();
  const std::string& options() const { return options_; }

 protected:
  std::unique_ptr<Preconditioner> createNativePreconditioner(const std::string& name) const override;

 private:
  std::string options_;
};

}  // namespace kinema::la::petsc

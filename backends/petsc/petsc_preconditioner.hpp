#pragma once
// PetscPreconditioner: one of the layer's named preconditioners as a stand-alone PETSc PC (for
// framework algorithms that apply a preconditioner themselves, e.g. MPRGP). Given to a
// PetscLinearSolver, only its name is used: the solver configures its own KSP's PC by that name.
#include <petscksp.h>

#include "backends/petsc/petsc_base.hpp"
#include "backends/petsc/petsc_shell.hpp"
#include "backends/petsc/petsc_vector.hpp"
#include "framework/la/preconditioner.hpp"

namespace kinema::la::petsc {

class PetscPreconditioner final : public Preconditioner {
 public:
  // `backendOptions`: backend.petsc.options, applied without a prefix.
  PetscPreconditioner(std::string name, std::string backendOptions);
  ~PetscPreconditioner() override;

  void setup(OperatorPtr A) override;
  void apply(const Vector& r, Vector& z) const override;
  std::string name() const override { return name_; }
  PC pc() const { return pc_; }

 private:
  std::string name_, backendOptions_;
  std::unique_ptr<OptionsDb> db_;
  BoundOperator op_;
  PC pc_ = nullptr;
  mutable VectorPtr work_;  // for aliased r and z
};

}  // namespace kinema::la::petsc

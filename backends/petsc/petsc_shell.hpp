#pragma once
// Framework objects as PETSc objects. A matrix-free la::Operator (a FunctionOperator, or any
// operator that is not a PetscMatrix) becomes a MATSHELL; a framework-written la::Preconditioner
// becomes the apply of a PCSHELL. Inside the callbacks the PETSc Vecs are wrapped as borrowed
// PetscVectors on the stack (no copy, no allocation) and the framework object's apply runs on them;
// an exception it throws crosses PETSc as an error code and is rethrown by KINEMA_PETSC_CHECK.
#include <petscksp.h>

#include "backends/petsc/petsc_matrix.hpp"
#include "framework/la/preconditioner.hpp"

namespace kinema::la::petsc {

// The map with the same distribution and block size but no ghosts: the layout of the Vecs PETSc
// creates for its own work (collective).
IndexMapPtr withoutGhosts(const IndexMap& map);

class ShellMatrix {
 public:
  explicit ShellMatrix(OperatorPtr op);  // collective
  ~ShellMatrix();
  ShellMatrix(const ShellMatrix&) = delete;
  ShellMatrix& operator=(const ShellMatrix&) = delete;
  Mat mat() const { return mat_; }
  const OperatorPtr& op() const { return op_; }

 private:
  static PetscErrorCode mult(Mat A, Vec x, Vec y);
  static PetscErrorCode getDiagonal(Mat A, Vec d);
  OperatorPtr op_;
  IndexMapPtr domain_, range_;
  Mat mat_ = nullptr;
};

// The operator a solver or preconditioner is bound to, with its Mat: the PetscMatrix's own, or a
// MATSHELL kept while the operator stays the same.
class BoundOperator {
 public:
  void bind(OperatorPtr A);
  bool bound() const { return op_ != nullptr; }
  const OperatorPtr& op() const { return op_; }
  const PetscMatrix* matrix() const { return matrix_; }  // null for a matrix-free operator
  Mat mat() const { return matrix_ ? matrix_->mat() : shell_->mat(); }
  MPI_Comm comm() const { return op_->rangeMap()->comm().raw(); }

 private:
  OperatorPtr op_;
  const PetscMatrix* matrix_ = nullptr;
  std::unique_ptr<ShellMatrix> shell_;
};

// Makes `pc` a PCSHELL applying `P` on vectors of `map` (its ghost-free form).
class ShellPreconditioner {
 public:
  ShellPreconditioner(PreconditionerPtr P, const IndexMap& map);  // collective
  void install(PC pc);
  const PreconditionerPtr& preconditioner() const { return P_; }

 private:
  static PetscErrorCode apply(PC pc, Vec r, Vec z);
  PreconditionerPtr P_;
  IndexMapPtr map_;
};

}  // namespace kinema::la::petsc

#pragma once
// PetscVector: a Vector held in a PETSc Vec. Vectors the backend creates are ghosted
// (VecCreateGhostBlock): the local form is the owned entries followed by the ghosts, contiguous,
// exactly la::Vector's View, so acquire() hands out the Vec's own array. A PetscVector may also
// wrap a Vec it does not own (the vectors PETSc passes to shell callbacks): no copy is made.
// BLAS-1 and most pointwise operations run PETSc's kernels (VecAXPY, VecDot, VecPointwiseMin, ...).
#include <petscvec.h>

#include "framework/la/vector.hpp"

namespace kinema::la::petsc {

class PetscVector final : public Vector {
 public:
  // A new zero vector on `map` (ghosted when the map has ghosts on any rank).
  explicit PetscVector(IndexMapPtr map);
  // Wraps `v` without owning it; `map` must describe v's owned layout (and its ghosts, if any).
  struct Borrow {};
  PetscVector(IndexMapPtr map, Vec v, Borrow);
  ~PetscVector() override;

  Vec vec() const { return v_; }

  void updateGhosts() override;
  void accumulateGhosts() override;
  std::unique_ptr<Vector> clone() const override;

  void set(double alpha) override;
  void copy(const Vector& x) override;
  void scale(double alpha) override;
  void axpy(double alpha, const Vector& x) override;
  void axpby(double alpha, const Vector& x, double beta) override;
  double dot(const Vector& x) const override;
  double norm2() const override;
  double norm1() const override;
  double normInf() const override;
  double sum() const override;
  double min() const override;
  double max() const override;
  void pointwiseMultiply(const Vector& x, const Vector& y) override;
  void pointwiseMin(const Vector& x) override;
  void pointwiseMax(const Vector& x) override;
  void clamp(const Vector& lo, const Vector& hi) override;

 protected:
  double* acquire(bool write) override;
  void release(bool write) override;

 private:
  const PetscVector& other(const Vector& x, const char* op) const;

  Vec v_ = nullptr;
  bool owns_ = true;
  bool ghosted_ = false;  // v_ has a local form (VecGhostGetLocalForm)
  // Open views: PETSc hands out one array per Get/Restore pair, so nested views share it.
  double* array_ = nullptr;
  const double* carray_ = nullptr;
  int writes_ = 0, reads_ = 0;
};

// The PetscVector behind `v`, or an Error naming both backends (`who` says which object asked).
const PetscVector& asPetsc(const Vector& v, const char* who);
PetscVector& asPetsc(Vector& v, const char* who);

}  // namespace kinema::la::petsc

#pragma once
// PetscMatrix: an assembled block-sparse matrix held in a PETSc Mat of type MATAIJ (SEQAIJ on one
// rank, MPIAIJ on several) with the maps' block size set, so every PETSc preconditioner applies
// (ICC, SOR, GAMG with the block size as the number of unknowns per node, MUMPS) and AIJ's inode
// kernels exploit the block structure. The assembler owns the pattern and swaps the Mat when it is
// rebuilt; this object stays the same for the solvers bound to it.
#include <petscmat.h>

#include "framework/la/matrix.hpp"

namespace kinema::la::petsc {

class PetscMatrix final : public Matrix {
 public:
  PetscMatrix(IndexMapPtr rows, IndexMapPtr cols);
  ~PetscMatrix() override;

  const IndexMapPtr& domainMap() const override { return cols_; }
  const IndexMapPtr& rangeMap() const override { return rows_; }
  std::unique_ptr<Vector> createDomainVector() const override;
  std::unique_ptr<Vector> createRangeVector() const override;
  void diagonal(Vector& d) const override;
  std::string description() const override;

  double entry(GlobalIndex row, GlobalIndex col) const override;
  std::int64_t globalNonzeros() const override;
  std::uint64_t valuesVersion() const override { return version_; }
  std::uint64_t patternVersion() const override { return patternVersion_; }

  // The current Mat (null before the first assembly); throws naming the matrix if there is none.
  Mat mat() const;
  bool assembled() const { return mat_ != nullptr; }
  // For the assembler: a new Mat (new pattern) with `localNonzeros` stored entries on this rank.
  void replaceMat(Mat m, std::int64_t localNonzeros);
  void valuesChanged() { ++version_; }

 protected:
  void applyImpl(const Vector& x, Vector& y) const override;

 private:
  IndexMapPtr rows_, cols_;
  Mat mat_ = nullptr;
  std::int64_t localNonzeros_ = 0;
  std::uint64_t version_ = 0;
  std::uint64_t patternVersion_ = 0;  // bumped by replaceMat
};

}  // namespace kinema::la::petsc

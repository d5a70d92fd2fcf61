#include "backends/petsc/petsc_matrix.hpp"

#include "backends/petsc/petsc_base.hpp"
#include "backends/petsc/petsc_vector.hpp"

namespace kinema::la::petsc {

PetscMatrix::PetscMatrix(IndexMapPtr rows, IndexMapPtr cols) : rows_(std::move(rows)), cols_(std::move(cols)) {
  KINEMA_CHECK(rows_ && cols_, "PetscMatrix needs row and column maps");
  requireIndexRange(*rows_);
  requireIndexRange(*cols_);
}

PetscMatrix::~PetscMatrix() {
  if (mat_ && alive()) MatDestroy(&mat_);
}

Mat PetscMatrix::mat() const {
  if (!mat_) throw Error(str(description(), " has not been assembled yet (call the assembler's end())"));
  return mat_;
}

void PetscMatrix::replaceMat(Mat m, std::int64_t localNonzeros) {
  if (mat_) KINEMA_PETSC_CHECK(MatDestroy(&mat_));
  mat_ = m;
  localNonzeros_ = localNonzeros;
  ++patternVersion_;
}

void PetscMatrix::applyImpl(const Vector& x, Vector& y) const {
  const PetscVector& px = asPetsc(x, "petsc matrix apply");
  PetscVector& py = asPetsc(y, "petsc matrix apply");
  KINEMA_PETSC_CHECK(MatMult(mat(), px.vec(), py.vec()));
}

std::unique_ptr<Vector> PetscMatrix::createDomainVector() const { return std::make_unique<PetscVector>(cols_); }

std::unique_ptr<Vector> PetscMatrix::createRangeVector() const { return std::make_unique<PetscVector>(rows_); }

void PetscMatrix::diagonal(Vector& d) const {
  PetscVector& pd = asPetsc(d, "petsc matrix diagonal");
  KINEMA_CHECK(d.map().compatible(*rows_), description(), ": diagonal vector is not on the row map");
  KINEMA_PETSC_CHECK(MatGetDiagonal(mat(), pd.vec()));
}

std::string PetscMatrix::description() const {
  return str("petsc matrix ", rows_->globalSize(), " x ", cols_->globalSize(), " (aij, block size ",
             rows_->blockSize(), mat_ ? str(", ", localNonzeros_, " stored entries on this rank") : ", not assembled",
             ")");
}

double PetscMatrix::entry(GlobalIndex row, GlobalIndex col) const {
  const int bs = rows_->blockSize();
  const GlobalIndex first = rows_->ownedBegin() * bs, last = rows_->ownedEnd() * bs;
  if (row < first || row >= last)
    throw Error(str(description(), ": entry(", row, ", ", col, "): row ", row,
                    " is not owned by this rank (owned rows [", first, ", ", last, "))"));
  if (col < 0 || col >= cols_->globalSize()) return 0.0;
  const PetscInt r = idx(row), c = idx(col);
  PetscScalar v = 0;
  KINEMA_PETSC_CHECK(MatGetValues(mat(), 1, &r, 1, &c, &v));
  return v;
}

std::int64_t PetscMatrix::globalNonzeros() const { return rows_->comm().sum(mat_ ? localNonzeros_ : std::int64_t{0}); }

}  // namespace kinema::la::petsc

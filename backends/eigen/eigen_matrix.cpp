#include "backends/eigen/eigen_matrix.hpp"

#include <algorithm>
#include <climits>

#include "backends/eigen/eigen_vector.hpp"
#include "framework/core/error.hpp"

namespace kinema::la::eigen {

EigenMatrix::EigenMatrix(IndexMapPtr rows, IndexMapPtr cols)
    : rows_(std::move(rows)), cols_(std::move(cols)) {
  KINEMA_CHECK(rows_ && cols_, "EigenMatrix needs row and column maps");
  if (rows_->globalSize() > INT_MAX || cols_->globalSize() > INT_MAX)
    throw Error(str("the eigen backend stores 32-bit indices, but the matrix has ",
                    rows_->globalSize(), " x ", cols_->globalSize(), " scalar rows and columns"));
  csr_.resize(static_cast<int>(rows_->ownedSize()), static_cast<int>(cols_->globalSize()));
  csr_.makeCompressed();
}

std::int64_t EigenMatrix::find(int row, int col) const {
  const int* outer = csr_.outerIndexPtr();
  const int* inner = csr_.innerIndexPtr();
  const int* b = inner + outer[row];
  const int* e = inner + outer[row + 1];
  const int* it = std::lower_bound(b, e, col);
  return (it != e && *it == col) ? static_cast<std::int64_t>(it - inner) : -1;
}

void EigenMatrix::applyImpl(const Vector& x, Vector& y) const {
  Vector::ConstView xv = x.view();
  Vector::View yv = y.view();
  const int* outer = csr_.outerIndexPtr();
  const int* inner = csr_.innerIndexPtr();
  const double* val = csr_.valuePtr();
  const double* xp = xv.data();
  for (int i = 0; i < csr_.rows(); ++i) {
    double s = 0.0;
    for (int p = outer[i]; p < outer[i + 1]; ++p) s += val[p] * xp[inner[p]];
    yv[i] = s;
  }
}

std::unique_ptr<Vector> EigenMatrix::createDomainVector() const {
  return std::make_unique<EigenVector>(cols_);
}

std::unique_ptr<Vector> EigenMatrix::createRangeVector() const {
  return std::make_unique<EigenVector>(rows_);
}

void EigenMatrix::diagonal(Vector& d) const {
  KINEMA_CHECK(d.map().compatible(*rows_), description(), ": diagonal vector is not on the row map");
  Vector::View dv = d.view();
  const double* val = csr_.valuePtr();
  for (int i = 0; i < csr_.rows(); ++i) {
    const std::int64_t p = find(i, i);
    dv[i] = p < 0 ? 0.0 : val[p];
  }
}

std::string EigenMatrix::description() const {
  return str("eigen matrix ", rows_->globalSize(), " x ", cols_->globalSize(), " (block size ",
             rows_->blockSize(), ", ", csr_.nonZeros(), " stored entries)");
}

double EigenMatrix::entry(GlobalIndex row, GlobalIndex col) const {
  const int bs = rows_->blockSize();
  const GlobalIndex first = rows_->ownedBegin() * bs, last = rows_->ownedEnd() * bs;
  if (row < first || row >= last)
    throw Error(str(description(), ": entry(", row, ", ", col, "): row ", row,
                    " is not owned by this rank (owned rows [", first, ", ", last, "))"));
  if (col < 0 || col >= cols_->globalSize()) return 0.0;
  const std::int64_t p = find(static_cast<int>(row - first), static_cast<int>(col));
  return p < 0 ? 0.0 : csr_.valuePtr()[p];
}

std::int64_t EigenMatrix::globalNonzeros() const {
  return rows_->comm().sum(static_cast<std::int64_t>(csr_.nonZeros()));
}

}  // namespace kinema::la::eigen

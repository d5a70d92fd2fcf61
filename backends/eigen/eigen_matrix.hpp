#pragma once
// EigenMatrix: an assembled matrix held in one process as scalar CSR (Eigen's row-major sparse
// matrix, 32-bit indices). Blocks of size bs are stored as bs x bs dense groups of scalar
// entries, so every scalar row of a block row has the same column groups (the assembler relies
// on it to refill values in place).
#include <Eigen/SparseCore>

#include "framework/la/matrix.hpp"

namespace kinema::la::eigen {

class EigenMatrix final : public Matrix {
 public:
  using Csr = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

  EigenMatrix(IndexMapPtr rows, IndexMapPtr cols);

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

  // For the assembler, the preconditioners and the direct solver of this backend.
  Csr& csr() { return csr_; }
  const Csr& csr() const { return csr_; }
  void valuesChanged() { ++version_; }
  void patternChanged() { ++patternVersion_; }
  // Position of (row, col) in the CSR value array, -1 if outside the pattern (binary search).
  std::int64_t find(int row, int col) const;

 protected:
  void applyImpl(const Vector& x, Vector& y) const override;

 private:
  IndexMapPtr rows_, cols_;
  Csr csr_;
  std::uint64_t version_ = 0;
  std::uint64_t patternVersion_ = 0;
};

}  // namespace kinema::la::eigen

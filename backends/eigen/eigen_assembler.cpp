#include "backends/eigen/eigen_assembler.hpp"

#include <algorithm>

#include "framework/core/error.hpp"

namespace kinema::la::eigen {

EigenAssembler::EigenAssembler(IndexMapPtr rows, IndexMapPtr cols)
    : rows_(std::move(rows)), cols_(std::move(cols)), bs_(rows_->blockSize()) {
  if (cols_->blockSize() != bs_)
    throw Error(str("eigen assembler: row block size ", bs_, " differs from column block size ",
                    cols_->blockSize()));
  A_ = std::make_shared<EigenMatrix>(rows_, cols_);
}

void EigenAssembler::begin() {
  inCycle_ = true;
  tRows_.clear();
  tCols_.clear();
  tVals_.clear();
  collecting_ = !havePattern_;
  if (havePattern_) {
    auto& csr = A_->csr();
    std::fill(csr.valuePtr(), csr.valuePtr() + csr.nonZeros(), 0.0);
  }
}

void EigenAssembler::add(GlobalIndex blockRow, GlobalIndex blockCol, const double* block) {
  KINEMA_CHECK(inCycle_, "eigen assembler: add() outside begin() ... end()");
  if (!rows_->owns(blockRow))
    throw Error(str("eigen assembler: block row ", blockRow,
                    " is not owned by this rank (owned block rows [", rows_->ownedBegin(), ", ",
                    rows_->ownedEnd(), "))"));
  if (blockCol < 0 || blockCol >= cols_->globalBlocks())
    throw Error(str("eigen assembler: block column ", blockCol, " is outside [0, ",
                    cols_->globalBlocks(), ")"));
  if (!collecting_) {
    auto& csr = A_->csr();
    const int r0 = static_cast<int>((blockRow - rows_->ownedBegin()) * bs_);
    const std::int64_t p0 = A_->find(r0, static_cast<int>(blockCol * bs_));
    if (p0 >= 0) {
      // Every scalar row of a block row holds the same column groups: same offset in each.
      const int* outer = csr.outerIndexPtr();
      double* val = csr.valuePtr();
      const std::int64_t off = p0 - outer[r0];
      for (int a = 0; a < bs_; ++a) {
        double* dst = val + outer[r0 + a] + off;
        for (int c = 0; c < bs_; ++c) dst[c] += block[a * bs_ + c];
      }
      return;
    }
    switchToCollecting();
  }
  collect(blockRow, blockCol, block);
}

void EigenAssembler::collect(GlobalIndex blockRow, GlobalIndex blockCol, const double* block) {
  tRows_.push_back(blockRow);
  tCols_.push_back(blockCol);
  tVals_.insert(tVals_.end(), block, block + bs_ * bs_);
}

void EigenAssembler::switchToCollecting() {
  const auto& csr = A_->csr();
  const int* outer = csr.outerIndexPtr();
  const int* inner = csr.innerIndexPtr();
  const double* val = csr.valuePtr();
  std::vector<double> blk(static_cast<std::size_t>(bs_ * bs_));
  for (GlobalIndex I = rows_->ownedBegin(); I < rows_->ownedEnd(); ++I) {
    const int r0 = static_cast<int>((I - rows_->ownedBegin()) * bs_);
    for (int p = outer[r0]; p < outer[r0 + 1]; p += bs_) {
      const int off = p - outer[r0];
      for (int a = 0; a < bs_; ++a)
        for (int c = 0; c < bs_; ++c) blk[static_cast<std::size_t>(a * bs_ + c)] = val[outer[r0 + a] + off + c];
      collect(I, inner[p] / bs_, blk.data());
    }
  }
  collecting_ = true;
}

MatrixPtr EigenAssembler::end() {
  KINEMA_CHECK(inCycle_, "eigen assembler: end() without begin()");
  inCycle_ = false;
  if (collecting_) {
    using Triplet = Eigen::Triplet<double, int>;
    std::vector<Triplet> t;
    t.reserve(tVals_.size());
    const std::size_t bb = static_cast<std::size_t>(bs_ * bs_);
    for (std::size_t k = 0; k < tRows_.size(); ++k) {
      const int r0 = static_cast<int>((tRows_[k] - rows_->ownedBegin()) * bs_);
      const int c0 = static_cast<int>(tCols_[k] * bs_);
      for (int a = 0; a < bs_; ++a)
        for (int c = 0; c < bs_; ++c)
          t.emplace_back(r0 + a, c0 + c, tVals_[k * bb + static_cast<std::size_t>(a * bs_ + c)]);
    }
    // Duplicates are summed; explicit zeros stay in the pattern (a block is a dense group).
    auto& csr = A_->csr();
    csr.setZero();
    csr.setFromTriplets(t.begin(), t.end());
    csr.makeCompressed();
    havePattern_ = true;
    collecting_ = false;
    ++stats_.patternBuilds;
    A_->patternChanged();
  } else {
    ++stats_.refills;
  }
  A_->valuesChanged();
  return A_;
}

void EigenAssembler::resetPattern() {
  if (inCycle_ && !collecting_) switchToCollecting();
  havePattern_ = false;
}

}  // namespace kinema::la::eigen

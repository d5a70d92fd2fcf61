#include "backends/petsc/petsc_assembler.hpp"

#include <algorithm>
#include <climits>
#include <utility>

#include "backends/petsc/petsc_base.hpp"

namespace kinema::la::petsc {

PetscAssembler::PetscAssembler(IndexMapPtr rows, IndexMapPtr cols)
    : rows_(std::move(rows)), cols_(std::move(cols)), bs_(rows_->blockSize()), bb_(bs_ * bs_) {
  if (cols_->blockSize() != bs_)
    throw Error(str("petsc assembler: row block size ", bs_, " differs from column block size ",
                    cols_->blockSize()));
  ranks_ = rows_->comm().size();
  rank_ = rows_->comm().rank();
  A_ = std::make_shared<PetscMatrix>(rows_, cols_);
  sendIJ_.resize(static_cast<std::size_t>(ranks_));
  sendVals_.resize(static_cast<std::size_t>(ranks_));
  for (auto* v : {&sendCounts_, &recvCounts_, &sendDispl_, &recvDispl_, &sendScaled_, &recvScaled_})
    v->assign(static_cast<std::size_t>(ranks_), 0);
}

void PetscAssembler::begin() {
  inCycle_ = true;
  localIJ_.clear();
  localVals_.clear();
  for (auto& v : sendIJ_) v.clear();
  for (auto& v : sendVals_) v.clear();
}

void PetscAssembler::add(GlobalIndex blockRow, GlobalIndex blockCol, const double* block) {
  KINEMA_CHECK(inCycle_, "petsc assembler: add() outside begin() ... end()");
  if (blockRow < 0 || blockRow >= rows_->globalBlocks())
    throw Error(str("petsc assembler: block row ", blockRow, " is outside [0, ", rows_->globalBlocks(), ")"));
  if (blockCol < 0 || blockCol >= cols_->globalBlocks())
    throw Error(str("petsc assembler: block column ", blockCol, " is outside [0, ", cols_->globalBlocks(), ")"));
  if (rows_->owns(blockRow)) {
    localIJ_.push_back(blockRow);
    localIJ_.push_back(blockCol);
    localVals_.insert(localVals_.end(), block, block + bb_);
    return;
  }
  const auto owner = static_cast<std::size_t>(rows_->owner(blockRow));
  sendIJ_[owner].push_back(blockRow);
  sendIJ_[owner].push_back(blockCol);
  sendVals_[owner].insert(sendVals_[owner].end(), block, block + bb_);
  ++stats_.offRankBlocks;
}

// Sends each owner the blocks of its rows; afterwards recvIJ_ / recvVals_ hold what others sent.
void PetscAssembler::exchange() {
  recvIJ_.clear();
  recvVals_.clear();
  if (ranks_ == 1) return;
  MPI_Comm comm = rows_->comm().raw();
  for (int r = 0; r < ranks_; ++r)
    sendCounts_[static_cast<std::size_t>(r)] = static_cast<int>(sendIJ_[static_cast<std::size_t>(r)].size() / 2);
  MPI_Alltoall(sendCounts_.data(), 1, MPI_INT, recvCounts_.data(), 1, MPI_INT, comm);
  std::size_t sendTotal = 0, recvTotal = 0;
  for (std::size_t r = 0; r < static_cast<std::size_t>(ranks_); ++r) {
    sendTotal += static_cast<std::size_t>(sendCounts_[r]);
    recvTotal += static_cast<std::size_t>(recvCounts_[r]);
  }
  KINEMA_CHECK(2 * sendTotal <= INT_MAX && 2 * recvTotal <= INT_MAX && recvTotal * static_cast<std::size_t>(bb_) <= INT_MAX,
               "petsc assembler: too many off-rank blocks in one assembly for MPI's int counts");
  sendIJFlat_.clear();
  sendValsFlat_.clear();
  for (std::size_t r = 0; r < static_cast<std::size_t>(ranks_); ++r) {
    sendIJFlat_.insert(sendIJFlat_.end(), sendIJ_[r].begin(), sendIJ_[r].end());
    sendValsFlat_.insert(sendValsFlat_.end(), sendVals_[r].begin(), sendVals_[r].end());
  }
  recvIJ_.resize(2 * recvTotal);
  recvVals_.resize(recvTotal * static_cast<std::size_t>(bb_));
  // Indices: 2 per block; values: bs^2 per block.
  auto displs = [&](const std::vector<int>& counts, int per, std::vector<int>& scaled, std::vector<int>& displ) {
    int d = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      scaled[r] = counts[r] * per;
      displ[r] = d;
      d += scaled[r];
    }
  };
  std::vector<int>& sc = sendScaled_;
  std::vector<int>& rc = recvScaled_;
  displs(sendCounts_, 2, sc, sendDispl_);
  displs(recvCounts_, 2, rc, recvDispl_);
  MPI_Alltoallv(sendIJFlat_.data(), sc.data(), sendDispl_.data(), MPI_INT64_T, recvIJ_.data(), rc.data(),
                recvDispl_.data(), MPI_INT64_T, comm);
  displs(sendCounts_, bb_, sc, sendDispl_);
  displs(recvCounts_, bb_, rc, recvDispl_);
  MPI_Alltoallv(sendValsFlat_.data(), sc.data(), sendDispl_.data(), MPI_DOUBLE, recvVals_.data(), rc.data(),
                recvDispl_.data(), MPI_DOUBLE, comm);
}

std::int64_t PetscAssembler::find(std::int64_t localRow, GlobalIndex col) const {
  const auto b = patCols_.begin() + patPtr_[static_cast<std::size_t>(localRow)];
  const auto e = patCols_.begin() + patPtr_[static_cast<std::size_t>(localRow) + 1];
  const auto it = std::lower_bound(b, e, col);
  return (it != e && *it == col) ? static_cast<std::int64_t>(it - patCols_.begin()) : -1;
}

bool PetscAssembler::fitsPattern() const {
  if (!havePattern_) return false;
  const GlobalIndex first = rows_->ownedBegin();
  for (const auto* ij : {&localIJ_, &recvIJ_})
    for (std::size_t k = 0; k < ij->size(); k += 2)
      if (find((*ij)[k] - first, (*ij)[k + 1]) < 0) return false;
  return true;
}

void PetscAssembler::rebuildPattern() {
  const GlobalIndex first = rows_->ownedBegin();
  const std::int64_t nrows = rows_->ownedBlocks();
  std::vector<std::pair<std::int64_t, GlobalIndex>> ij;
  ij.reserve((localIJ_.size() + recvIJ_.size()) / 2 + (havePattern_ ? patCols_.size() : 0));
  if (havePattern_)  // the union: blocks of the old pattern stay (as eigen does)
    for (std::int64_t r = 0; r < nrows; ++r)
      for (std::int64_t p = patPtr_[static_cast<std::size_t>(r)]; p < patPtr_[static_cast<std::size_t>(r) + 1]; ++p)
        ij.emplace_back(r, patCols_[static_cast<std::size_t>(p)]);
  for (const auto* list : {&localIJ_, &recvIJ_})
    for (std::size_t k = 0; k < list->size(); k += 2) ij.emplace_back((*list)[k] - first, (*list)[k + 1]);
  std::sort(ij.begin(), ij.end());
  ij.erase(std::unique(ij.begin(), ij.end()), ij.end());
  patPtr_.assign(static_cast<std::size_t>(nrows) + 1, 0);
  patCols_.resize(ij.size());
  for (std::size_t k = 0; k < ij.size(); ++k) {
    ++patPtr_[static_cast<std::size_t>(ij[k].first) + 1];
    patCols_[k] = ij[k].second;
  }
  for (std::size_t r = 0; r < static_cast<std::size_t>(nrows); ++r) patPtr_[r + 1] += patPtr_[r];
  havePattern_ = true;

  // Scalar CSR of the owned rows (sorted global columns), for exact preallocation.
  const std::size_t nloc = static_cast<std::size_t>(nrows) * static_cast<std::size_t>(bs_);
  std::vector<PetscInt> ia(nloc + 1, 0), ja;
  ja.reserve(patCols_.size() * static_cast<std::size_t>(bb_));
  for (std::int64_t r = 0; r < nrows; ++r)
    for (int a = 0; a < bs_; ++a) {
      for (std::int64_t p = patPtr_[static_cast<std::size_t>(r)]; p < patPtr_[static_cast<std::size_t>(r) + 1]; ++p)
        for (int c = 0; c < bs_; ++c) ja.push_back(idx(patCols_[static_cast<std::size_t>(p)] * bs_ + c));
      ia[static_cast<std::size_t>(r * bs_ + a) + 1] = static_cast<PetscInt>(ja.size());
    }
  Mat m = nullptr;
  MPI_Comm comm = rows_->comm().raw();
  KINEMA_PETSC_CHECK(MatCreate(comm, &m));
  try {
    KINEMA_PETSC_CHECK(MatSetSizes(m, idx(rows_->ownedSize()), idx(cols_->ownedSize()), idx(rows_->globalSize()),
                                   idx(cols_->globalSize())));
    KINEMA_PETSC_CHECK(MatSetBlockSizes(m, bs_, bs_));
    KINEMA_PETSC_CHECK(MatSetType(m, MATAIJ));
    // Both are no-ops unless the type matches (PetscTryMethod): one of them sets the pattern.
    KINEMA_PETSC_CHECK(MatSeqAIJSetPreallocationCSR(m, ia.data(), ja.data(), nullptr));
    KINEMA_PETSC_CHECK(MatMPIAIJSetPreallocationCSR(m, ia.data(), ja.data(), nullptr));
    // Refills stay inside the pattern (checked above), and every row inserted here is owned.
    KINEMA_PETSC_CHECK(MatSetOption(m, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
    KINEMA_PETSC_CHECK(MatSetOption(m, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE));
  } catch (...) {
    MatDestroy(&m);
    throw;
  }
  A_->replaceMat(m, static_cast<std::int64_t>(ja.size()));
  ++stats_.patternBuilds;
}

void PetscAssembler::insertValues() {
  // Sum this cycle's blocks into a block-CSR value array laid out as MatSetValuesBlocked takes one
  // block row (row-oriented: bs rows of ncols * bs values), then hand PETSc one call per owned
  // block row with INSERT_VALUES. Every pattern entry is written (zeros included), so no
  // MatZeroEntries, and PETSc's per-call dispatch and column search run once per block row
  // instead of once per element block (four per bond).
  Mat m = A_->mat();
  const GlobalIndex first = rows_->ownedBegin();
  const std::int64_t nrows = rows_->ownedBlocks();
  patVals_.assign(patCols_.size() * static_cast<std::size_t>(bb_), 0.0);  // capacity kept across cycles
  for (int pass = 0; pass < 2; ++pass) {
    const std::vector<GlobalIndex>& ij = pass == 0 ? localIJ_ : recvIJ_;
    const std::vector<double>& vals = pass == 0 ? localVals_ : recvVals_;
    for (std::size_t k = 0, b = 0; k < ij.size(); k += 2, ++b) {
      const std::int64_t r = ij[k] - first;
      const std::int64_t p = find(r, ij[k + 1]);  // inside: checked by fitsPattern or just rebuilt
      const std::int64_t row0 = patPtr_[static_cast<std::size_t>(r)];
      const std::int64_t ncols = patPtr_[static_cast<std::size_t>(r) + 1] - row0;
      double* dst = patVals_.data() + row0 * bb_ + (p - row0) * bs_;
      const double* src = vals.data() + b * static_cast<std::size_t>(bb_);
      for (int a = 0; a < bs_; ++a)
        for (int c = 0; c < bs_; ++c) dst[a * ncols * bs_ + c] += src[a * bs_ + c];
    }
  }
  for (std::int64_t r = 0; r < nrows; ++r) {
    const std::int64_t row0 = patPtr_[static_cast<std::size_t>(r)];
    const std::int64_t ncols = patPtr_[static_cast<std::size_t>(r) + 1] - row0;
    if (ncols == 0) continue;
    rowCols_.resize(static_cast<std::size_t>(ncols));
    for (std::int64_t q = 0; q < ncols; ++q)
      rowCols_[static_cast<std::size_t>(q)] = idx(patCols_[static_cast<std::size_t>(row0 + q)]);
    const PetscInt I = idx(first + r);
    KINEMA_PETSC_CHECK(MatSetValuesBlocked(m, 1, &I, static_cast<PetscInt>(ncols), rowCols_.data(),
                                           patVals_.data() + row0 * bb_, INSERT_VALUES));
  }
  KINEMA_PETSC_CHECK(MatAssemblyBegin(m, MAT_FINAL_ASSEMBLY));
  KINEMA_PETSC_CHECK(MatAssemblyEnd(m, MAT_FINAL_ASSEMBLY));
}

MatrixPtr PetscAssembler::end() {
  KINEMA_CHECK(inCycle_, "petsc assembler: end() without begin()");
  inCycle_ = false;
  exchange();
  // Collective decision: one rank outside its pattern rebuilds the Mat on every rank.
  const bool fits = rows_->comm().all(fitsPattern());
  if (fits)
    ++stats_.refills;
  else
    rebuildPattern();
  insertValues();
  A_->valuesChanged();
  return A_;
}

}  // namespace kinema::la::petsc

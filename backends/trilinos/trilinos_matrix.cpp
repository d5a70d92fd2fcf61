#include "backends/trilinos/trilinos_matrix.hpp"

#include <algorithm>
#include <map>
#include <numeric>

#include "backends/trilinos/trilinos_vector.hpp"
#include "framework/core/error.hpp"

namespace kinema::la::trilinos {

// ---- TrilinosMatrix -------------------------------------------------------------------------

void TrilinosMatrix::applyImpl(const Vector& x, Vector& y) const {
  const TrilinosVector& tx = asTrilinos(x, "matrix apply (x)");
  TrilinosVector& ty = asTrilinos(y, "matrix apply (y)");
  A_->apply(tx.owned(), ty.owned());
}

std::unique_ptr<Vector> TrilinosMatrix::createDomainVector() const {
  return std::make_unique<TrilinosVector>(cols_);
}

std::unique_ptr<Vector> TrilinosMatrix::createRangeVector() const {
  return std::make_unique<TrilinosVector>(rows_);
}

void TrilinosMatrix::diagonal(Vector& d) const {
  TrilinosVector& td = asTrilinos(d, "matrix diagonal");
  KINEMA_CHECK(d.map().compatible(*rangeMap()), description(), ": diagonal vector is not on the range map");
  A_->getLocalDiagCopy(td.owned());
}

std::string TrilinosMatrix::description() const {
  return str("trilinos CrsMatrix ", rows_->map->globalSize(), " x ", cols_->map->globalSize(),
             " (block size ", rows_->map->blockSize(), ")");
}

double TrilinosMatrix::entry(GlobalIndex row, GlobalIndex col) const {
  const LO lr = A_->getRowMap()->getLocalElement(static_cast<GO>(row));
  KINEMA_CHECK(lr != Teuchos::OrdinalTraits<LO>::invalid(), description(), ": entry(", row, ", ", col,
               ") asks for a row this rank does not own");
  const LO lc = A_->getColMap()->getLocalElement(static_cast<GO>(col));
  if (lc == Teuchos::OrdinalTraits<LO>::invalid()) return 0.0;
  TCrs::local_inds_host_view_type inds;
  TCrs::values_host_view_type vals;
  A_->getLocalRowView(lr, inds, vals);
  for (std::size_t k = 0; k < inds.extent(0); ++k)
    if (inds(k) == lc) return vals(k);
  return 0.0;
}

std::int64_t TrilinosMatrix::globalNonzeros() const {
  return static_cast<std::int64_t>(A_->getGlobalNumEntries());
}

// ---- TrilinosAssembler ----------------------------------------------------------------------

TrilinosAssembler::TrilinosAssembler(LayoutPtr rows, LayoutPtr cols)
    : rows_(std::move(rows)), cols_(std::move(cols)), bs_(rows_->map->blockSize()) {
  if (cols_->map->blockSize() != bs_)
    throw Error(str("trilinos assembler: row block size ", bs_, " differs from column block size ",
                    cols_->map->blockSize()));
  bb_ = static_cast<std::size_t>(bs_ * bs_);
  colBuf_.resize(static_cast<std::size_t>(bs_));
  M_ = std::make_shared<TrilinosMatrix>(rows_, cols_);
}

void TrilinosAssembler::begin() {
  KINEMA_CHECK(!inCycle_, "trilinos assembler: begin() twice without end()");
  inCycle_ = true;
  tRows_.clear();
  tCols_.clear();
  tVals_.clear();
  collecting_ = !havePattern_;
  if (havePattern_) {
    M_->A_->resumeFill();
    M_->A_->setAllToScalar(0.0);
    std::fill(sendVals_.begin(), sendVals_.end(), 0.0);
  }
}

bool TrilinosAssembler::sumIntoOwned(GlobalIndex I, GlobalIndex J, const double* block) {
  TCrs& A = *M_->A_;
  for (int c = 0; c < bs_; ++c) colBuf_[static_cast<std::size_t>(c)] = static_cast<GO>(J * bs_ + c);
  const GO r0 = static_cast<GO>(I * bs_);
  for (int a = 0; a < bs_; ++a) {
    const LO n = A.sumIntoGlobalValues(r0 + a, static_cast<LO>(bs_), block + a * bs_, colBuf_.data(),
                                       /*atomic=*/false);
    if (n != bs_) {
      // Every scalar row of a block row holds the same column groups: all or nothing.
      KINEMA_CHECK(a == 0 && n <= 0, "trilinos assembler: block (", I, ", ", J,
                   ") is only partly in the pattern");
      return false;
    }
  }
  return true;
}

void TrilinosAssembler::add(GlobalIndex blockRow, GlobalIndex blockCol, const double* block) {
  KINEMA_CHECK(inCycle_, "trilinos assembler: add() outside begin() ... end()");
  const IndexMap& rm = *rows_->map;
  if (blockRow < 0 || blockRow >= rm.globalBlocks())
    throw Error(str("trilinos assembler: block row ", blockRow, " is outside [0, ", rm.globalBlocks(), ")"));
  if (blockCol < 0 || blockCol >= cols_->map->globalBlocks())
    throw Error(str("trilinos assembler: block column ", blockCol, " is outside [0, ",
                    cols_->map->globalBlocks(), ")"));
  const bool owned = rm.owns(blockRow);
  if (!owned) ++stats_.offRankBlocks;
  if (!collecting_) {
    if (owned) {
      if (sumIntoOwned(blockRow, blockCol, block)) return;
    } else {
      auto it = offSlot_.find({blockRow, blockCol});
      if (it != offSlot_.end()) {
        double* dst = sendVals_.data() + it->second * bb_;
        for (std::size_t k = 0; k < bb_; ++k) dst[k] += block[k];
        return;
      }
    }
    switchToCollecting();
  }
  collect(blockRow, blockCol, block);
}

void TrilinosAssembler::collect(GlobalIndex I, GlobalIndex J, const double* block) {
  tRows_.push_back(I);
  tCols_.push_back(J);
  tVals_.insert(tVals_.end(), block, block + bb_);
}

void TrilinosAssembler::switchToCollecting() {
  if (havePattern_ && !M_->A_.is_null()) {
    const TCrs& A = *M_->A_;
    const auto colMap = A.getColMap();
    const IndexMap& rm = *rows_->map;
    std::map<GlobalIndex, std::vector<double>> blocks;
    for (GlobalIndex I = rm.ownedBegin(); I < rm.ownedEnd(); ++I) {
      blocks.clear();
      for (int a = 0; a < bs_; ++a) {
        const LO lr = static_cast<LO>((I - rm.ownedBegin()) * bs_ + a);
        TCrs::local_inds_host_view_type inds;
        TCrs::values_host_view_type vals;
        A.getLocalRowView(lr, inds, vals);
        for (std::size_t k = 0; k < inds.extent(0); ++k) {
          const GO g = colMap->getGlobalElement(inds(k));
          std::vector<double>& b = blocks[g / bs_];
          if (b.empty()) b.assign(bb_, 0.0);
          b[static_cast<std::size_t>(a * bs_) + static_cast<std::size_t>(g % bs_)] = vals(k);
        }
      }
      for (const auto& [J, b] : blocks) collect(I, J, b.data());
    }
    for (std::size_t s = 0; s < offI_.size(); ++s) collect(offI_[s], offJ_[s], sendVals_.data() + s * bb_);
  }
  collecting_ = true;
}

namespace {

// Per-rank counts and displacements of blocks[r] blocks of `per` values each; returns the total.
int scaledCounts(const std::vector<int>& blocks, int per, std::vector<int>& counts, std::vector<int>& displs) {
  counts.assign(blocks.size(), 0);
  displs.assign(blocks.size(), 0);
  for (std::size_t r = 0; r < blocks.size(); ++r) {
    counts[r] = blocks[r] * per;
    if (r > 0) displs[r] = displs[r - 1] + counts[r - 1];
  }
  return blocks.empty() ? 0 : displs.back() + counts.back();
}

// How many blocks this rank sends to and receives from each rank.
struct BlockCounts {
  const std::vector<int>& send;
  const std::vector<int>& recv;
};

// Sends the (row, column) of each off-rank slot to its owner (MPI_Alltoallv, collective); the
// received pairs, in rank order, replace recvI / recvJ.
void exchangeBlockIndices(const Comm& comm, const BlockCounts& blocks, const std::vector<GlobalIndex>& offI,
                          const std::vector<GlobalIndex>& offJ, std::vector<GlobalIndex>& recvI,
                          std::vector<GlobalIndex>& recvJ) {
  std::vector<int> sc, sd, rc, rd;
  scaledCounts(blocks.send, 2, sc, sd);
  const int nRecvIdx = scaledCounts(blocks.recv, 2, rc, rd);
  std::vector<std::int64_t> sendIdx, recvIdx(static_cast<std::size_t>(nRecvIdx));
  sendIdx.reserve(offI.size() * 2);
  for (std::size_t s = 0; s < offI.size(); ++s) {
    sendIdx.push_back(offI[s]);
    sendIdx.push_back(offJ[s]);
  }
  MPI_Alltoallv(sendIdx.data(), sc.data(), sd.data(), MPI_INT64_T, recvIdx.data(), rc.data(), rd.data(),
                MPI_INT64_T, comm.raw());
  recvI.clear();
  recvJ.clear();
  for (std::size_t k = 0; k + 1 < recvIdx.size(); k += 2) {
    recvI.push_back(recvIdx[k]);
    recvJ.push_back(recvIdx[k + 1]);
  }
}

// The scalar graph of a sorted, duplicate-free block pattern (bs x bs entries per block), fill-completed
// on the layouts' owned maps. colBuf holds bs global column indices.
Teuchos::RCP<TGraph> scalarGraph(const std::vector<std::pair<GlobalIndex, GlobalIndex>>& pattern, const Layout& rows,
                                 const Layout& cols, int bs, std::vector<GO>& colBuf) {
  const IndexMap& rm = *rows.map;
  std::vector<size_t> perRow(static_cast<std::size_t>(rm.ownedSize()), 0);
  for (const auto& [I, J] : pattern)
    for (int a = 0; a < bs; ++a)
      perRow[static_cast<std::size_t>((I - rm.ownedBegin()) * bs + a)] += static_cast<size_t>(bs);
  auto graph = Teuchos::rcp(new TGraph(rows.owned, Teuchos::ArrayView<const size_t>(perRow)));
  for (const auto& [I, J] : pattern) {
    for (int c = 0; c < bs; ++c) colBuf[static_cast<std::size_t>(c)] = static_cast<GO>(J * bs + c);
    for (int a = 0; a < bs; ++a)
      graph->insertGlobalIndices(static_cast<GO>(I * bs + a), Teuchos::ArrayView<const GO>(colBuf));
  }
  graph->fillComplete(cols.owned, rows.owned);
  return graph;
}

}  // namespace

void TrilinosAssembler::buildPattern() {
  const IndexMap& rm = *rows_->map;
  const Comm& comm = rm.comm();
  const int P = comm.size();

  // Off-rank blocks, duplicates merged, sorted by (row, column) and so by owner: the slots.
  std::vector<std::size_t> ownedIdx, offIdx;
  for (std::size_t k = 0; k < tRows_.size(); ++k) (rm.owns(tRows_[k]) ? ownedIdx : offIdx).push_back(k);
  std::sort(offIdx.begin(), offIdx.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(tRows_[a], tCols_[a]) < std::pair(tRows_[b], tCols_[b]);
  });
  offI_.clear();
  offJ_.clear();
  offSlot_.clear();
  sendVals_.clear();
  for (std::size_t k : offIdx) {
    if (offI_.empty() || offI_.back() != tRows_[k] || offJ_.back() != tCols_[k]) {
      offSlot_.emplace(std::pair(tRows_[k], tCols_[k]), offI_.size());
      offI_.push_back(tRows_[k]);
      offJ_.push_back(tCols_[k]);
      sendVals_.resize(sendVals_.size() + bb_, 0.0);
    }
    double* dst = sendVals_.data() + (offI_.size() - 1) * bb_;
    for (std::size_t c = 0; c < bb_; ++c) dst[c] += tVals_[k * bb_ + c];
  }

  // Tell each owner which blocks it receives (once per pattern), and send this cycle's values.
  std::vector<int> sendBlocks(static_cast<std::size_t>(P), 0), recvBlocks(static_cast<std::size_t>(P), 0);
  for (GlobalIndex I : offI_) ++sendBlocks[static_cast<std::size_t>(rm.owner(I))];
  MPI_Alltoall(sendBlocks.data(), 1, MPI_INT, recvBlocks.data(), 1, MPI_INT, comm.raw());
  exchangeBlockIndices(comm, BlockCounts{sendBlocks, recvBlocks}, offI_, offJ_, recvI_, recvJ_);
  scaledCounts(sendBlocks, static_cast<int>(bb_), sendCounts_, sendDispls_);
  const int nRecvVals = scaledCounts(recvBlocks, static_cast<int>(bb_), recvCounts_, recvDispls_);
  recvVals_.assign(static_cast<std::size_t>(nRecvVals), 0.0);
  MPI_Alltoallv(sendVals_.data(), sendCounts_.data(), sendDispls_.data(), MPI_DOUBLE, recvVals_.data(),
                recvCounts_.data(), recvDispls_.data(), MPI_DOUBLE, comm.raw());
  exchange_ = comm.any(!offI_.empty());

  // The owned block pattern: this rank's blocks plus the received ones.
  std::vector<std::pair<GlobalIndex, GlobalIndex>> pattern;
  pattern.reserve(ownedIdx.size() + recvI_.size());
  for (std::size_t k : ownedIdx) pattern.emplace_back(tRows_[k], tCols_[k]);
  for (std::size_t k = 0; k < recvI_.size(); ++k) pattern.emplace_back(recvI_[k], recvJ_[k]);
  std::sort(pattern.begin(), pattern.end());
  pattern.erase(std::unique(pattern.begin(), pattern.end()), pattern.end());
  const Teuchos::RCP<TGraph> graph = scalarGraph(pattern, *rows_, *cols_, bs_, colBuf_);

  // The values of this cycle.
  M_->A_ = Teuchos::rcp(new TCrs(graph));
  ++M_->patternVersion_;
  if (!M_->A_->isFillActive()) M_->A_->resumeFill();
  for (std::size_t k : ownedIdx) {
    const bool ok = sumIntoOwned(tRows_[k], tCols_[k], tVals_.data() + k * bb_);
    KINEMA_CHECK(ok, "trilinos assembler: an owned block is missing from the new pattern");
  }
  for (std::size_t k = 0; k < recvI_.size(); ++k) {
    const bool ok = sumIntoOwned(recvI_[k], recvJ_[k], recvVals_.data() + k * bb_);
    KINEMA_CHECK(ok, "trilinos assembler: a received block is missing from the new pattern");
  }
  M_->A_->fillComplete(cols_->owned, rows_->owned);

  tRows_.clear();
  tCols_.clear();
  tVals_.clear();
  havePattern_ = true;
  collecting_ = false;
}

void TrilinosAssembler::finishRefill() {
  if (exchange_)
    MPI_Alltoallv(sendVals_.data(), sendCounts_.data(), sendDispls_.data(), MPI_DOUBLE, recvVals_.data(),
                  recvCounts_.data(), recvDispls_.data(), MPI_DOUBLE, rows_->map->comm().raw());
  for (std::size_t k = 0; k < recvI_.size(); ++k) {
    const bool ok = sumIntoOwned(recvI_[k], recvJ_[k], recvVals_.data() + k * bb_);
    KINEMA_CHECK(ok, "trilinos assembler: a received block is outside the pattern");
  }
  M_->A_->fillComplete(cols_->owned, rows_->owned);
}

MatrixPtr TrilinosAssembler::end() {
  KINEMA_CHECK(inCycle_, "trilinos assembler: end() without begin()");
  inCycle_ = false;
  // Collective: a block outside the pattern on any rank (its row may be owned anywhere) makes
  // every rank rebuild, so the pattern and the exchange stay consistent.
  const bool rebuild = rows_->map->comm().any(collecting_);
  if (rebuild) {
    if (!collecting_) switchToCollecting();
    buildPattern();
    ++stats_.patternBuilds;
  } else {
    finishRefill();
    ++stats_.refills;
  }
  ++M_->version_;
  return M_;
}

void TrilinosAssembler::resetPattern() {
  if (inCycle_ && !collecting_) switchToCollecting();
  havePattern_ = false;
}

}  // namespace kinema::la::trilinos

#pragma once
// TrilinosMatrix: a scalar Tpetra::CrsMatrix holding the bs x bs blocks expanded (block (I, J)
// occupies scalar rows I*bs.. and columns J*bs..), on the rows layout's owned map with the
// columns layout's owned map as domain. A scalar CrsMatrix rather than a BlockCrsMatrix because
// every Ifpack2 preconditioner, MueLu and Amesos2 take it directly.
//
// TrilinosAssembler: the pattern is a static CrsGraph, built once. Refills run resumeFill,
// setAllToScalar(0), sumIntoGlobalValues and fillComplete on the same matrix (no allocation).
// Blocks for rows other ranks own go through a fixed exchange set up with the pattern: each
// off-rank block has a slot in a send buffer ordered by owner, and end() sends the values with
// one MPI_Alltoallv to the owners, who add them at the (row, column) pairs received when the
// pattern was built. A block outside the pattern (here or on any rank) makes every rank rebuild.
#include <unordered_map>
#include <vector>

#include <Tpetra_CrsMatrix.hpp>

#include "backends/trilinos/trilinos_types.hpp"
#include "framework/la/matrix_assembler.hpp"

namespace kinema::la::trilinos {

using TCrs = Tpetra::CrsMatrix<SC, LO, GO, NO>;
using TGraph = Tpetra::CrsGraph<LO, GO, NO>;

class TrilinosMatrix final : public Matrix {
 public:
  TrilinosMatrix(LayoutPtr rows, LayoutPtr cols) : rows_(std::move(rows)), cols_(std::move(cols)) {}

  const IndexMapPtr& domainMap() const override { return cols_->map; }
  const IndexMapPtr& rangeMap() const override { return rows_->map; }
  std::unique_ptr<Vector> createDomainVector() const override;
  std::unique_ptr<Vector> createRangeVector() const override;
  void diagonal(Vector& d) const override;
  std::string description() const override;

  double entry(GlobalIndex row, GlobalIndex col) const override;
  std::int64_t globalNonzeros() const override;
  std::uint64_t valuesVersion() const override { return version_; }

  // The native matrix. Replaced when the pattern is rebuilt; refills change its values in place.
  const Teuchos::RCP<TCrs>& crs() const { return A_; }
  // Increases when the pattern (and so the CrsMatrix object) is replaced.
  std::uint64_t patternVersion() const override { return patternVersion_; }
  const LayoutPtr& rowLayout() const { return rows_; }
  const LayoutPtr& colLayout() const { return cols_; }

 protected:
  void applyImpl(const Vector& x, Vector& y) const override;

 private:
  friend class TrilinosAssembler;
  LayoutPtr rows_, cols_;
  Teuchos::RCP<TCrs> A_;
  std::uint64_t version_ = 0;
  std::uint64_t patternVersion_ = 0;
};

class TrilinosAssembler final : public MatrixAssembler {
 public:
  TrilinosAssembler(LayoutPtr rows, LayoutPtr cols);

  void begin() override;
  void add(GlobalIndex blockRow, GlobalIndex blockCol, const double* block) override;
  MatrixPtr end() override;
  void resetPattern() override;
  Stats stats() const override { return stats_; }
  int blockSize() const override { return bs_; }

 private:
  struct PairHash {
    std::size_t operator()(const std::pair<GlobalIndex, GlobalIndex>& p) const {
      return std::hash<GlobalIndex>()(p.first * 1000003 + p.second);
    }
  };
  void collect(GlobalIndex I, GlobalIndex J, const double* block);
  // Moves the current values (owned matrix and off-rank send buffer) into the collected blocks.
  void switchToCollecting();
  // Adds a block to an owned row of the current matrix; false if it is outside the pattern.
  bool sumIntoOwned(GlobalIndex I, GlobalIndex J, const double* block);
  void buildPattern();
  void finishRefill();

  LayoutPtr rows_, cols_;
  int bs_;
  std::size_t bb_;
  std::shared_ptr<TrilinosMatrix> M_;
  bool havePattern_ = false;
  bool collecting_ = true;
  bool inCycle_ = false;
  std::vector<GlobalIndex> tRows_, tCols_;  // collected blocks
  std::vector<double> tVals_;
  std::vector<GO> colBuf_;  // bs global column indices of one block row

  // The off-rank exchange of the current pattern.
  std::unordered_map<std::pair<GlobalIndex, GlobalIndex>, std::size_t, PairHash> offSlot_;
  std::vector<GlobalIndex> offI_, offJ_;  // per slot
  std::vector<double> sendVals_, recvVals_;
  std::vector<int> sendCounts_, sendDispls_, recvCounts_, recvDispls_;  // in doubles, per rank
  std::vector<GlobalIndex> recvI_, recvJ_;  // per received block
  bool exchange_ = false;                   // any rank sends anything
  Stats stats_;
};

}  // namespace kinema::la::trilinos

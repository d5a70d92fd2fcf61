#pragma once
// EigenAssembler: block triplets -> CSR on the first end(); later cycles add each block in place
// at the slot found by binary search in its row (no allocation). A block outside the pattern
// switches the cycle back to collecting triplets (the old pattern's entries are kept) and end()
// rebuilds the pattern.
#include <vector>

#include "backends/eigen/eigen_matrix.hpp"
#include "framework/la/matrix_assembler.hpp"

namespace kinema::la::eigen {

class EigenAssembler final : public MatrixAssembler {
 public:
  EigenAssembler(IndexMapPtr rows, IndexMapPtr cols);

  void begin() override;
  void add(GlobalIndex blockRow, GlobalIndex blockCol, const double* block) override;
  MatrixPtr end() override;
  void resetPattern() override;
  Stats stats() const override { return stats_; }
  int blockSize() const override { return bs_; }

 private:
  void collect(GlobalIndex blockRow, GlobalIndex blockCol, const double* block);
  // Moves the current pattern and its values into the triplet buffers.
  void switchToCollecting();

  IndexMapPtr rows_, cols_;
  int bs_;
  std::shared_ptr<EigenMatrix> A_;
  bool havePattern_ = false;
  bool collecting_ = true;
  bool inCycle_ = false;
  std::vector<GlobalIndex> tRows_, tCols_;  // collected blocks (capacity kept across cycles)
  std::vector<double> tVals_;
  Stats stats_;
};

}  // namespace kinema::la::eigen

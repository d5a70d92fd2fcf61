#pragma once
// PetscAssembler: blocks are buffered during a cycle (local rows in one list, rows other ranks own
// in one list per owner); end() sends the off-rank blocks to their owners (MPI_Alltoall of counts,
// MPI_Alltoallv of indices and values), then every rank checks its blocks against its block pattern
// (sorted block columns per owned block row). All inside: the blocks are summed into a block-CSR
// value array of the pattern and set with one MatSetValuesBlocked (INSERT_VALUES) per owned block
// row into the preallocated Mat (a refill; the buffers keep their capacity, nothing is allocated). Any
// block outside on any rank: the pattern becomes the union of the old one and this cycle's blocks
// and a new Mat is preallocated exactly from it (MatXAIJ CSR preallocation), counted as a build.
#include <vector>

#include "backends/petsc/petsc_matrix.hpp"
#include "framework/la/matrix_assembler.hpp"

namespace kinema::la::petsc {

class PetscAssembler final : public MatrixAssembler {
 public:
  PetscAssembler(IndexMapPtr rows, IndexMapPtr cols);

  void begin() override;
  void add(GlobalIndex blockRow, GlobalIndex blockCol, const double* block) override;
  MatrixPtr end() override;
  void resetPattern() override { havePattern_ = false; }
  Stats stats() const override { return stats_; }
  int blockSize() const override { return bs_; }

 private:
  void exchange();
  bool fitsPattern() const;
  void rebuildPattern();
  void insertValues();
  // Position of block (local block row, global block col) in the pattern, -1 if outside.
  std::int64_t find(std::int64_t localRow, GlobalIndex col) const;

  IndexMapPtr rows_, cols_;
  int bs_, bb_;
  int ranks_, rank_;
  std::shared_ptr<PetscMatrix> A_;
  bool havePattern_ = false;
  bool inCycle_ = false;
  // Block pattern of the owned block rows: CSR over local block rows, global block columns.
  std::vector<std::int64_t> patPtr_;
  std::vector<GlobalIndex> patCols_;
  // Values of the pattern, block row by block row, each row-oriented (bs x ncols*bs) as
  // MatSetValuesBlocked takes it; and one row's PETSc block column indices.
  std::vector<double> patVals_;
  std::vector<PetscInt> rowCols_;
  // This cycle's blocks: (row, col) pairs and bs*bs values each. Capacity is kept across cycles.
  std::vector<GlobalIndex> localIJ_;
  std::vector<double> localVals_;
  std::vector<std::vector<GlobalIndex>> sendIJ_;
  std::vector<std::vector<double>> sendVals_;
  std::vector<GlobalIndex> sendIJFlat_, recvIJ_;
  std::vector<double> sendValsFlat_, recvVals_;
  std::vector<int> sendCounts_, recvCounts_, sendDispl_, recvDispl_, sendScaled_, recvScaled_;
  Stats stats_;
};

}  // namespace kinema::la::petsc

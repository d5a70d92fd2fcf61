#pragma once
// MatrixAssembler: block-sparse assembly with global block indices.
//   begin();  add(I, J, block) ...;  MatrixPtr A = end();
// Blocks are bs x bs, row-major, added (not inserted). Blocks for rows another rank owns are sent
// to it in end(). The first end() builds the sparsity pattern; later cycles that add within it
// only refill values (no allocation), a block outside it triggers a rebuild (counted in stats()).
// end() always returns the same Matrix object, so solvers bound to it see the new values.
#include <Eigen/Core>

#include "framework/la/matrix.hpp"

namespace kinema::la {

class MatrixAssembler {
 public:
  struct Stats {
    long patternBuilds = 0;  // times the pattern was (re)built
    long refills = 0;        // assemblies that reused the pattern
    long offRankBlocks = 0;  // blocks this rank sent to other owners, over all assemblies
  };
  virtual ~MatrixAssembler() = default;

  virtual void begin() = 0;
  virtual void add(GlobalIndex blockRow, GlobalIndex blockCol, const double* block) = 0;
  virtual MatrixPtr end() = 0;
  // Forget the pattern: the next end() builds it anew (topology changed, e.g. fracture).
  virtual void resetPattern() = 0;
  virtual Stats stats() const = 0;
  virtual int blockSize() const = 0;

  // Fixed-size Eigen block (element-level math), checked against the block size.
  template <class Derived>
  void addBlock(GlobalIndex blockRow, GlobalIndex blockCol, const Eigen::MatrixBase<Derived>& b) {
    constexpr int R = Derived::RowsAtCompileTime;
    static_assert(R != Eigen::Dynamic && R == Derived::ColsAtCompileTime,
                  "addBlock takes a fixed-size square block");
    checkBlockSize(R);
    Eigen::Matrix<double, R, R, (R == 1 ? Eigen::ColMajor : Eigen::RowMajor)> rm = b;
    add(blockRow, blockCol, rm.data());
  }
  void addScalar(GlobalIndex row, GlobalIndex col, double value) {
    checkBlockSize(1);
    add(row, col, &value);
  }

 protected:
  void checkBlockSize(int n) const;
};

}  // namespace kinema::la

#pragma once
// Matrix: an assembled block-sparse operator (produced by a MatrixAssembler). Square bs x bs blocks
// with the block size of its maps.
#include <vector>

#include "framework/la/operator.hpp"

namespace kinema::la {

class Matrix : public Operator {
 public:
  int blockSize() const { return rangeMap()->blockSize(); }
  bool hasDiagonal() const override { return true; }
  // Scalar entry (row owned by this rank); 0 outside the pattern. For tests and diagnostics.
  virtual double entry(GlobalIndex row, GlobalIndex col) const = 0;
  // Stored scalar entries summed over ranks (collective).
  virtual std::int64_t globalNonzeros() const = 0;
  // Increases each time the assembler refills the values: a preconditioner set up on an older
  // version is stale.
  virtual std::uint64_t valuesVersion() const = 0;
  // Increases each time the assembler builds a new sparsity pattern: a preconditioner whose
  // structure (AMG aggregates, factor pattern) came from an older version must be set up anew.
  virtual std::uint64_t patternVersion() const = 0;
  // Near-null space for algebraic multigrid (e.g. the six rigid-body modes). Stored here so any
  // backend's AMG can read it; backends without AMG ignore it.
  void setNearNullSpace(std::vector<std::shared_ptr<const Vector>> modes) { nullSpace_ = std::move(modes); }
  const std::vector<std::shared_ptr<const Vector>>& nearNullSpace() const { return nullSpace_; }

 private:
  std::vector<std::shared_ptr<const Vector>> nullSpace_;
};

using MatrixPtr = std::shared_ptr<Matrix>;

}  // namespace kinema::la

#pragma once
// EigenVector: a Vector held in one process (maps whose communicator has one rank), stored as a
// contiguous array of owned then ghost entries. The BLAS-1 and pointwise operations are the
// framework's portable defaults, which run on the raw array through views.
#include <vector>

#include "framework/la/vector.hpp"

namespace kinema::la::eigen {

class EigenVector final : public Vector {
 public:
  explicit EigenVector(IndexMapPtr map);

  // With one rank every block is owned here and IndexMap rejects ghosts owned by this rank, so
  // the ghost list is empty and both exchanges have nothing to move.
  void updateGhosts() override {}
  void accumulateGhosts() override;
  std::unique_ptr<Vector> clone() const override;

  // The raw array for the backend's own kernels (owned then ghosts).
  double* data() { return data_.data(); }
  const double* data() const { return data_.data(); }

 protected:
  double* acquire(bool /*write*/) override { return data_.data(); }
  void release(bool /*write*/) override {}

 private:
  std::vector<double> data_;
};

}  // namespace kinema::la::eigen

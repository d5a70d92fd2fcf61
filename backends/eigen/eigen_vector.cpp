#include "backends/eigen/eigen_vector.hpp"

#include <algorithm>

namespace kinema::la::eigen {

EigenVector::EigenVector(IndexMapPtr map)
    : Vector(std::move(map)), data_(static_cast<std::size_t>(localSize()), 0.0) {}

void EigenVector::accumulateGhosts() {
  // Nothing to send (no ghosts with one rank); the contract still zeroes the ghost entries.
  std::fill(data_.begin() + ownedSize(), data_.end(), 0.0);
}

std::unique_ptr<Vector> EigenVector::clone() const {
  auto c = std::make_unique<EigenVector>(mapPtr());
  c->data_ = data_;
  return c;
}

}  // namespace kinema::la::eigen

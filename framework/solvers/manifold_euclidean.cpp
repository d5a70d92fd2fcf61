#include "framework/solvers/manifold_euclidean.hpp"

#include "framework/core/error.hpp"

namespace kinema::solvers {

EuclideanManifold::EuclideanManifold(int blockSize) : bs_(blockSize) {
  KINEMA_CHECK(blockSize >= 1, "EuclideanManifold: block size must be >= 1, got ", blockSize);
}

void EuclideanManifold::retract(la::Vector& x, const la::Vector& y, double alpha) const {
  x.axpy(alpha, y);
  x.updateGhosts();
}

void EuclideanManifold::projectTangent(const la::Vector&, la::Vector&) const {}

void EuclideanManifold::toReduced(const la::Vector&, const la::Vector& v, la::Vector& y) const { y.copy(v); }

void EuclideanManifold::fromReduced(const la::Vector&, const la::Vector& y, la::Vector& v) const { v.copy(y); }

void EuclideanManifold::transport(const la::Vector&, const la::Vector&, la::Vector&) const {}

void EuclideanManifold::tangentBasis(const double*, double* basis) const {
  for (int j = 0; j < bs_; ++j)
    for (int i = 0; i < bs_; ++i) basis[j * bs_ + i] = (i == j) ? 1.0 : 0.0;
}

}  // namespace kinema::solvers

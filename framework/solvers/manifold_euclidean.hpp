#pragma once
// EuclideanManifold: R^n in blocks of `blockSize` scalars. Ambient = tangent, the tangent basis is
// the identity, the retraction is x + alpha y, transport is the identity.
#include <Eigen/Core>

#include "framework/solvers/manifold.hpp"

namespace kinema::solvers {

class EuclideanManifold final : public Manifold {
 public:
  explicit EuclideanManifold(int blockSize = 1);
  std::string name() const override { return "euclidean"; }
  int ambientBlockSize() const override { return bs_; }
  int tangentBlockSize() const override { return bs_; }
  void retract(la::Vector& x, const la::Vector& y, double alpha) const override;
  void projectTangent(const la::Vector& x, la::Vector& v) const override;
  void toReduced(const la::Vector& x, const la::Vector& v, la::Vector& y) const override;
  void fromReduced(const la::Vector& x, const la::Vector& y, la::Vector& v) const override;
  void transport(const la::Vector& xOld, const la::Vector& xNew, la::Vector& y) const override;
  void tangentBasis(const double* xBlock, double* basis) const override;

  // The basis as a fixed-size Eigen matrix (the identity).
  template <int N>
  static Eigen::Matrix<double, N, N> basis() {
    return Eigen::Matrix<double, N, N>::Identity();
  }

 private:
  int bs_;
};

}  // namespace kinema::solvers

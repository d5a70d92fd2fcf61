#pragma once
// Random banded SPD test matrices shared by the der solver tests.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <random>

#include "modules/der/banded.hpp"

namespace kinema::der::test {

inline Eigen::MatrixXd toDense(const BandedSymmetric& A) {
  const int n = A.size();
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = std::max(0, i - A.bandwidth()); j <= i; ++j) M(i, j) = M(j, i) = A.at(i, j);
  return M;
}

// Diagonally dominant SPD band matrix (every band baseline, wjacobi included, is SPD on it). With
// `holes`, about a quarter of the off-diagonal band entries are exactly 0 (IC != complete LDL^T).
inline BandedSymmetric dominantSpd(int n, int kd, std::mt19937& rng, double shift = 1.0, bool holes = false) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::bernoulli_distribution hole(0.25);
  BandedSymmetric A(n, kd);
  for (int j = 0; j < n; ++j)
    for (int i = j + 1; i <= std::min(n - 1, j + kd); ++i) A.at(i, j) = (holes && hole(rng)) ? 0.0 : u(rng);
  for (int i = 0; i < n; ++i) {
    double s = 0.0;
    for (int j = std::max(0, i - kd); j <= std::min(n - 1, i + kd); ++j)
      if (j != i) s += std::abs(A.at(i, j));
    A.at(i, i) = s + shift;
  }
  return A;
}

// SPD band matrix that is not diagonally dominant: B^T B + shift I, B upper banded (width kd / 2).
inline BandedSymmetric gramSpd(int n, int kd, std::mt19937& rng, double shift) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int h = kd / 2;
  Eigen::MatrixXd B = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = i; j <= std::min(n - 1, i + h); ++j) B(i, j) = u(rng);
  const Eigen::MatrixXd M = B.transpose() * B;
  BandedSymmetric A(n, kd);
  for (int j = 0; j < n; ++j)
    for (int i = j; i <= std::min(n - 1, j + kd); ++i) A.at(i, j) = M(i, j) + (i == j ? shift : 0.0);
  return A;
}

}  // namespace kinema::der::test

#pragma once
// PSD safeguard of an element Hessian (specs/bdem.md section 3.5, as in IPC, Li et al. 2020):
// eigendecompose the symmetric element block and clamp every eigenvalue below `floor` to `floor`.
// Fixed-size Eigen, no heap allocation. Returns the number of clamped eigenvalues (0: unchanged).
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>

namespace kinema::solvers {

template <int N>
int projectPSD(Eigen::Matrix<double, N, N>& H, double floor = 0.0) {
  static_assert(N != Eigen::Dynamic, "projectPSD takes a fixed-size block");
  const Eigen::Matrix<double, N, N> S = 0.5 * (H + H.transpose());
  {
    // Fast path: LDL^T (diagonal pivoting) of S - floor I. By Sylvester's law of inertia D has as
    // many negative entries as S - floor I has eigenvalues below zero, so a D with none below
    // round-off (64 eps max|D|) means there is nothing to clamp, and the eigen-decomposition
    // (about 30x the cost; most bond elements of a resting or smoothly bending body are PSD) is
    // skipped. An eigenvalue below `floor` by round-off only is then left as it is.
    const Eigen::LDLT<Eigen::Matrix<double, N, N>> ldlt(S - floor * Eigen::Matrix<double, N, N>::Identity());
    if (ldlt.info() == Eigen::Success) {
      const Eigen::Matrix<double, N, 1> d = ldlt.vectorD();
      const double scale = d.cwiseAbs().maxCoeff();
      if (std::isfinite(scale) && d.minCoeff() >= -64.0 * std::numeric_limits<double>::epsilon() * scale) return 0;
    }
  }
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, N, N>> es(S);
  Eigen::Matrix<double, N, 1> lambda = es.eigenvalues();
  int clamped = 0;
  for (int i = 0; i < N; ++i)
    if (lambda[i] < floor) {
      lambda[i] = floor;
      ++clamped;
    }
  if (clamped > 0) H = es.eigenvectors() * lambda.asDiagonal() * es.eigenvectors().transpose();
  return clamped;
}

}  // namespace kinema::solvers

#pragma once
// PSD safeguard of an element Hessian (specs/bdem.md section 3.5, as in IPC, Li et al. 2020):
// eigendecompose the symmetric element block and clamp every eigenvalue below `floor` to `floor`.
// Fixed-size Eigen, no heap allocation. Returns the number of clamped eigenvalues (0: unchanged).
#include <Eigen/Eigenvalues>

namespace kinema::solvers {

template <int N>
int projectPSD(Eigen::Matrix<double, N, N>& H, double floor = 0.0) {
  static_assert(N != Eigen::Dynamic, "projectPSD takes a fixed-size block");
  const Eigen::Matrix<double, N, N> S = 0.5 * (H + H.transpose());
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

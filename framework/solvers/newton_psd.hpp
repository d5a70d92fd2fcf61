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

// The same projection for a two-body element over the blocks [p_i, r_i, p_j, r_j] (block size BS,
// the first 3 entries of a block are the position, the other BS - 3 the rotation) whose energy
// depends on the positions only through p_j - p_i (a bond: Eqs. 8-11 of Lu et al., the bdem paper, depend on
// the relative position and the two orientations). The common translation t = (v, 0, v, 0) is then
// in H's null space, and with the orthonormal rows T = [x = (p_j - p_i)/sqrt(2), r_i, r_j],
//   H = T^T (T H T^T) T,
// so H's eigenvalues are those of the (2 BS - 3)-square T H T^T and three zeros. Projecting the
// small block and mapping back gives the same matrix as projectPSD<2 BS> (the zeros become `floor`,
// added on the complement of T's rows) at about (9/12)^3 = 0.42 of its cost for BS = 6. If H does
// not annihilate the common translation (to 64 eps max|H|; e.g. a row zeroed for a fixed
// particle), it falls back to projectPSD<2 BS>. Returns the number of clamped eigenvalues.
template <int BS>
int projectPSDTranslationInvariantPair(Eigen::Matrix<double, 2 * BS, 2 * BS>& H, double floor = 0.0) {
  static_assert(BS >= 3, "a block holds a 3D position first");
  constexpr int N = 2 * BS, M = 2 * BS - 3;
  using MatN = Eigen::Matrix<double, N, N>;
  using MatM = Eigen::Matrix<double, M, M>;
  using MatMN = Eigen::Matrix<double, M, N>;
  const MatN S = 0.5 * (H + H.transpose());
  const double scale = S.cwiseAbs().maxCoeff();
  if (!std::isfinite(scale)) return projectPSD<N>(H, floor);
  // Residual of the common translation: (S.col(p_i + k) + S.col(p_j + k)) for k = 0, 1, 2.
  const double tol = 64.0 * std::numeric_limits<double>::epsilon() * scale;
  for (int k = 0; k < 3; ++k)
    if ((S.col(k) + S.col(BS + k)).cwiseAbs().maxCoeff() > tol) return projectPSD<N>(H, floor);
  MatMN T = MatMN::Zero();
  const double h = std::sqrt(0.5);
  for (int k = 0; k < 3; ++k) {
    T(k, k) = -h;
    T(k, BS + k) = h;
  }
  for (int k = 0; k < BS - 3; ++k) {
    T(3 + k, 3 + k) = 1.0;
    T(BS + k, BS + 3 + k) = 1.0;
  }
  MatM R = T * S * T.transpose();
  int clamped = projectPSD<M>(R, floor);
  if (floor > 0.0) clamped += 3;
  if (clamped == 0) return 0;
  H = T.transpose() * R * T;
  if (floor > 0.0) H += floor * (MatN::Identity() - T.transpose() * T);
  return clamped;
}

}  // namespace kinema::solvers

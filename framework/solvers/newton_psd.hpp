#pragma once
// PSD safeguard of an element Hessian (bdem paper §5.2, as in IPC, Li et al. 2020):
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
  // As on the fast path, an eigenvalue below `floor` by round-off only (64 eps max|lambda|; a
  // semidefinite element with exact null vectors, e.g. a bond's rigid rotations, lands here when
  // its LDL^T pivots fall just outside the test above) does not count: if no eigenvalue is below
  // floor by more, H is kept as it came rather than rebuilt from the decomposition, which would
  // only add round-off. When H is rebuilt, every eigenvalue below floor is raised to it.
  const double tolLambda = 64.0 * std::numeric_limits<double>::epsilon() * lambda.cwiseAbs().maxCoeff();
  int clamped = 0;
  for (int i = 0; i < N; ++i)
    if (lambda[i] < floor - tolLambda) ++clamped;
  if (clamped == 0 && std::isfinite(tolLambda)) return 0;
  for (int i = 0; i < N; ++i) lambda[i] = std::max(lambda[i], floor);
  H = es.eigenvectors() * lambda.asDiagonal() * es.eigenvectors().transpose();
  H = (0.5 * (H + H.transpose())).eval();
  return clamped;
}

// The same projection for a two-body element over the blocks [p_i, r_i, p_j, r_j] (block size BS,
// the first 3 entries of a block are the position, the other K = BS - 3 the rotation) whose energy
// depends on the positions only through p_j - p_i (a bond: Eqs. 8-11 of Lu et al., the bdem paper,
// depend on the relative position and the two orientations). The common translation t = (v, 0, v, 0)
// is then in H's null space, and with the orthonormal rows T = [x = (p_j - p_i)/sqrt(2), r_i, r_j],
//   H = T^T (T H T^T) T,
// so H's eigenvalues are those of the (2 BS - 3)-square R = T H T^T and three zeros. Projecting R
// and mapping back gives the matrix projectPSD<2 BS> gives (the zeros become `floor`, added on the
// complement of T's rows) at about (9/12)^3 = 0.42 of its cost for BS = 6.
// R and the map back are formed block by block (T has one entry of magnitude 1 or sqrt(1/2) per
// column, so no dense product is needed), and the result is exactly symmetric and exactly
// translation invariant: H_{p_i p_i} = H_{p_j p_j} = -H_{p_i p_j} = R_xx / 2, H_{p_i r} = -H_{p_j r}.
// Where R is already PSD (above `floor`; the LDL^T test of projectPSD) and floor = 0, H is left
// bit-for-bit as it came. If H does not annihilate the common translation (to 64 eps max|H|; e.g.
// a row zeroed for a fixed particle), it falls back to projectPSD<2 BS>. Returns the number of
// clamped eigenvalues.
template <int BS>
int projectPSDTranslationInvariantPair(Eigen::Matrix<double, 2 * BS, 2 * BS>& H, double floor = 0.0) {
  static_assert(BS >= 3, "a block holds a 3D position first");
  constexpr int N = 2 * BS, M = 2 * BS - 3, K = BS - 3;
  using MatM = Eigen::Matrix<double, M, M>;
  const double scale = H.cwiseAbs().maxCoeff();
  if (!std::isfinite(scale)) return projectPSD<N>(H, floor);
  // Residual of the common translation: (H.col(p_i + k) + H.col(p_j + k)) for k = 0, 1, 2, and the
  // same for the rows (an unsymmetric H is symmetrised below, as projectPSD does).
  const double tol = 64.0 * std::numeric_limits<double>::epsilon() * scale;
  for (int k = 0; k < 3; ++k)
    if ((H.col(k) + H.col(BS + k)).cwiseAbs().maxCoeff() > tol ||
        (H.row(k) + H.row(BS + k)).cwiseAbs().maxCoeff() > tol)
      return projectPSD<N>(H, floor);
  const double h = std::sqrt(0.5);
  // R = T S T^T with S = (H + H^T)/2, blocks [x, r_i, r_j] of sizes 3, K, K.
  const auto Hpp = [&](int a, int b) { return H.template block<3, 3>(a, b); };
  MatM R;
  {
    const Eigen::Matrix<double, 3, 3> Sxx =
        0.5 * (Hpp(BS, BS) - Hpp(BS, 0) - Hpp(0, BS) + Hpp(0, 0));  // h^2 (p_j - p_i)(p_j - p_i)
    R.template block<3, 3>(0, 0) = 0.5 * (Sxx + Sxx.transpose());
    for (int side = 0; side < 2; ++side) {
      const int c = side * BS + 3;  // column of r_i or r_j in H
      const int m = 3 + side * K;   // its row / column in R
      const Eigen::Matrix<double, 3, K> a = h * (H.template block<3, K>(BS, c) - H.template block<3, K>(0, c));
      const Eigen::Matrix<double, K, 3> b = h * (H.template block<K, 3>(c, BS) - H.template block<K, 3>(c, 0));
      R.template block<3, K>(0, m) = 0.5 * (a + b.transpose());
      R.template block<K, 3>(m, 0) = R.template block<3, K>(0, m).transpose();
    }
    for (int si = 0; si < 2; ++si)
      for (int sj = 0; sj < 2; ++sj)
        R.template block<K, K>(3 + si * K, 3 + sj * K) =
            0.5 * (H.template block<K, K>(si * BS + 3, sj * BS + 3) +
                   H.template block<K, K>(sj * BS + 3, si * BS + 3).transpose());
  }
  int clamped = projectPSD<M>(R, floor);
  if (clamped == 0 && floor == 0.0) return 0;  // already PSD: keep H as it is
  if (floor > 0.0) clamped += 3;               // the common translation's zeros, raised to floor
  R = (0.5 * (R + R.transpose())).eval();      // the eigen-reconstruction is symmetric to round-off only
  // H = T^T R T + floor (I - T^T T); (I - T^T T) is 1/2 on each of the four position blocks' diagonals.
  const Eigen::Matrix<double, 3, 3> A = 0.5 * R.template block<3, 3>(0, 0);
  const Eigen::Matrix<double, 3, 3> Af = A + (0.5 * floor) * Eigen::Matrix<double, 3, 3>::Identity();
  const Eigen::Matrix<double, 3, 3> Bf = (0.5 * floor) * Eigen::Matrix<double, 3, 3>::Identity() - A;
  H.template block<3, 3>(0, 0) = Af;
  H.template block<3, 3>(BS, BS) = Af;
  H.template block<3, 3>(0, BS) = Bf;
  H.template block<3, 3>(BS, 0) = Bf;
  for (int side = 0; side < 2; ++side) {
    const int c = side * BS + 3, m = 3 + side * K;
    const Eigen::Matrix<double, 3, K> a = h * R.template block<3, K>(0, m);
    H.template block<3, K>(0, c) = -a;
    H.template block<3, K>(BS, c) = a;
    H.template block<K, 3>(c, 0) = -a.transpose();
    H.template block<K, 3>(c, BS) = a.transpose();
  }
  for (int si = 0; si < 2; ++si)
    for (int sj = 0; sj < 2; ++sj)
      H.template block<K, K>(si * BS + 3, sj * BS + 3) = R.template block<K, K>(3 + si * K, 3 + sj * K);
  return clamped;
}

}  // namespace kinema::solvers

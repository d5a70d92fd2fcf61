#pragma once
// Symmetric banded matrices and their LDL^T factorisation with clamped pivots (paper §V-A;
// README decisions 14-15): the storage of the forward-simulation Newton system (half-bandwidth 10) and of the BCQP
// matrix A = W + rho J^T M^-1 J of the parameter optimisation (half-bandwidth 21).
#include <cstdint>
#include <span>
#include <vector>

namespace kinema::der {

// Lower band, column-major (LAPACK 'L' band layout): entry (i, j), j <= i <= j + kd, is
// data[j * (kd + 1) + (i - j)].
class BandedSymmetric {
 public:
  BandedSymmetric() = default;
  BandedSymmetric(int n, int kd);
  void resize(int n, int kd);  // and zero
  void setZero();
  int size() const { return n_; }
  int bandwidth() const { return kd_; }
  // (i, j) with |i - j| <= kd, either triangle (symmetric storage).
  double& at(int i, int j);
  double at(int i, int j) const;
  void add(int i, int j, double v) { at(i, j) += v; }  // adds once to the stored triangle
  // y = A x.
  void multiply(std::span<const double> x, std::span<double> y) const;
  std::span<const double> data() const { return data_; }

 private:
  int n_ = 0, kd_ = 0;
  std::vector<double> data_;
};

struct LdltStats {
  int clampedPivots = 0;
  double minPivot = 0.0;  // before clamping
};

// A = L D L^T with unit lower L in the same band. A pivot D_j below pivotFloor * A_jj is clamped
// to it (never NaN/Inf on near-singular input), and raised to max_i c_ij^2 / A_ii (c_ij = the
// column before division) if that is larger, which never binds for an SPD matrix in exact
// arithmetic and keeps L_ij^2 D_j <= A_ii on round-off. Both bounds are relative to the rows'
// own diagonals, so the factorisation commutes with diagonal scaling (see banded.cpp).
class BandedLdlt {
 public:
  explicit BandedLdlt(double pivotFloor = 1e-12) : pivotFloor_(pivotFloor) {}
  LdltStats factor(const BandedSymmetric& A);
  // z = A^{-1} r (with the clamped factor).
  void solve(std::span<const double> r, std::span<double> z) const;
  // Active-set filtered solve (the ASC preconditioner, corrected Eq. 34-35):
  // z_F = (L_FF D_FF L_FF^T)^{-1} r_F and z_C = 0, with F = {i : freeMask[i] != 0}.
  void solveFiltered(std::span<const double> r, std::span<const std::uint8_t> freeMask,
                     std::span<double> z) const;
  int size() const { return n_; }
  int bandwidth() const { return kd_; }
  long factorizations() const { return factorizations_; }  // numeric factorisations so far
  // Factor entries (tests, diagnostics): l(i, j) of the unit lower L (1 on the diagonal, 0
  // outside the band or above it) and the clamped pivot D_ii.
  double l(int i, int j) const;
  double d(int i) const { return D_[static_cast<std::size_t>(i)]; }
  double pivotFloor() const { return pivotFloor_; }
  const LdltStats& lastStats() const { return lastStats_; }  // of the latest factor()

 private:
  double pivotFloor_;
  int n_ = 0, kd_ = 0;
  std::vector<double> L_;  // band of L (unit diagonal not stored), same layout as BandedSymmetric
  std::vector<double> D_;
  std::vector<double> work_;  // L_jk D_k of the current column (factor only)
  LdltStats lastStats_;
  long factorizations_ = 0;
};

// The filtered sweeps of a unit-lower LDL^T factor held in band layout (L: n * (kd + 1) doubles,
// column j at L[j * (kd + 1)], diagonal slot unused; D: n pivots): z_F = (L_FF D_FF L_FF^T)^{-1} r_F,
// z_C = 0 (column-oriented form of the corrected Eq. 34-35, README decision 15). Shared by the
// complete factor (ASC) and the incomplete ones (IC, MIC). r and z may alias. No allocation.
void ldltSolveFiltered(int n, int kd, std::span<const double> L, std::span<const double> D,
                       std::span<const std::uint8_t> freeMask, std::span<const double> r, std::span<double> z);

}  // namespace kinema::der

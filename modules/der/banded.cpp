// Symmetric band storage and the banded LDL^T with clamped pivots (paper §V-A; README decisions 14-15).
// The filtered solve is the active-set Cholesky (ASC) preconditioner of the paper (Eq. 34-35),
// with the D_jj correction of the forward sweep (README decision 15).
#include "modules/der/banded.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"

namespace kinema::der {

// ---------------------------------------------------------------------------------------------
// BandedSymmetric
// ---------------------------------------------------------------------------------------------

BandedSymmetric::BandedSymmetric(int n, int kd) { resize(n, kd); }

void BandedSymmetric::resize(int n, int kd) {
  if (n < 0 || kd < 0) throw Error(str("BandedSymmetric: invalid size n = ", n, ", kd = ", kd));
  n_ = n;
  // A half-bandwidth beyond n - 1 stores only zeros; keep it anyway (the caller asked for it).
  kd_ = kd;
  data_.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(kd + 1), 0.0);
}

void BandedSymmetric::setZero() { std::fill(data_.begin(), data_.end(), 0.0); }

double& BandedSymmetric::at(int i, int j) {
  if (i < j) std::swap(i, j);
  KINEMA_CHECK(j >= 0 && i < n_ && i - j <= kd_, "BandedSymmetric: entry (", i, ", ", j,
               ") outside the band (n = ", n_, ", kd = ", kd_, ")");
  return data_[static_cast<std::size_t>(j) * static_cast<std::size_t>(kd_ + 1) + static_cast<std::size_t>(i - j)];
}

double BandedSymmetric::at(int i, int j) const {
  if (i < j) std::swap(i, j);
  KINEMA_CHECK(j >= 0 && i < n_ && i - j <= kd_, "BandedSymmetric: entry (", i, ", ", j,
               ") outside the band (n = ", n_, ", kd = ", kd_, ")");
  return data_[static_cast<std::size_t>(j) * static_cast<std::size_t>(kd_ + 1) + static_cast<std::size_t>(i - j)];
}

void BandedSymmetric::multiply(std::span<const double> x, std::span<double> y) const {
  KINEMA_CHECK(static_cast<int>(x.size()) == n_ && static_cast<int>(y.size()) == n_,
               "BandedSymmetric::multiply: sizes ", x.size(), " and ", y.size(), " for n = ", n_);
  KINEMA_CHECK(x.data() != y.data() || n_ == 0, "BandedSymmetric::multiply: x and y must not alias");
  const std::size_t ld = static_cast<std::size_t>(kd_ + 1);
  std::fill(y.begin(), y.end(), 0.0);
  // Column j of the lower band holds A_jj and A_ij (i > j); each off-diagonal entry is used twice.
  for (int j = 0; j < n_; ++j) {
    const double* col = data_.data() + static_cast<std::size_t>(j) * ld;
    const double xj = x[static_cast<std::size_t>(j)];
    double yj = col[0] * xj;
    const int iend = std::min(n_ - 1, j + kd_);
    for (int i = j + 1; i <= iend; ++i) {
      const double a = col[i - j];
      y[static_cast<std::size_t>(i)] += a * xj;
      yj += a * x[static_cast<std::size_t>(i)];
    }
    y[static_cast<std::size_t>(j)] += yj;
  }
}

// ---------------------------------------------------------------------------------------------
// BandedLdlt
// ---------------------------------------------------------------------------------------------

LdltStats BandedLdlt::factor(const BandedSymmetric& A) {
  n_ = A.size();
  kd_ = A.bandwidth();
  const std::size_t ld = static_cast<std::size_t>(kd_ + 1);
  L_.assign(A.data().begin(), A.data().end());  // overwritten column by column
  D_.assign(static_cast<std::size_t>(n_), 0.0);
  work_.assign(ld, 0.0);
  LdltStats st;
  ++factorizations_;
  if (n_ == 0) return st;

  double maxDiag = 0.0;
  for (int k = 0; k < n_; ++k) {
    const double a = L_[static_cast<std::size_t>(k) * ld];
    if (!std::isfinite(a)) throw Error(str("BandedLdlt: the diagonal entry ", k, " is ", a));
    maxDiag = std::max(maxDiag, a);
  }
  for (double a : L_)
    if (!std::isfinite(a)) throw Error("BandedLdlt: the matrix has a NaN or infinite entry");
  // delta = pivotFloor * max_k A_kk (README decision 14); a matrix with no positive diagonal gets
  // the absolute floor so the factor stays finite.
  const double delta = maxDiag > 0.0 ? pivotFloor_ * maxDiag : std::max(pivotFloor_, std::numeric_limits<double>::min());
  const double beta2 = maxDiag;
  st.minPivot = std::numeric_limits<double>::infinity();

  // Left-looking LDL^T (column j uses columns j-kd..j-1). For column k, L_jk D_k is kept in work_
  // so that each entry of column j costs one multiply-add per k.
  for (int j = 0; j < n_; ++j) {
    double* colj = L_.data() + static_cast<std::size_t>(j) * ld;
    const int k0 = std::max(0, j - kd_);
    // work_[j - k] = L_jk D_k for k in [k0, j)
    const double A_diag_j = colj[0];
    double dj = colj[0];
    for (int k = k0; k < j; ++k) {
      const double ljk = L_[static_cast<std::size_t>(k) * ld + static_cast<std::size_t>(j - k)];
      const double v = ljk * D_[static_cast<std::size_t>(k)];
      work_[static_cast<std::size_t>(j - k)] = v;
      dj -= ljk * v;
    }
    // Column numerators c_ij = A_ij - sum_k L_ik L_jk D_k, kept in place until D_j is known. Rows
    // i > j still hold their original diagonal A_ii in L_ (column i is factored later).
    const int iend = std::min(n_ - 1, j + kd_);
    double gmw = 0.0;
    for (int i = j + 1; i <= iend; ++i) {
      double s = colj[i - j];
      for (int k = std::max(k0, i - kd_); k < j; ++k)
        s -= L_[static_cast<std::size_t>(k) * ld + static_cast<std::size_t>(i - k)] * work_[static_cast<std::size_t>(j - k)];
      colj[i - j] = s;
      const double aii = L_[static_cast<std::size_t>(i) * ld];
      gmw = std::max(gmw, s * s / (aii > 0.0 ? aii : beta2));
    }
    st.minPivot = std::min(st.minPivot, dj);
    // Clamp (README decision 14), relative to the pivot's own row so that it is
    // invariant under diagonal scaling (a floor relative to max_k A_kk clamped most pivots of the
    // unscaled DER BCQP, whose diagonal spans 17 orders of magnitude):
    //   D_j >= pivotFloor * A_jj  and  D_j >= max_i c_ij^2 / A_ii,
    // the second a row-wise form of Gill, Murray & Wright's modified-Cholesky bound. For an SPD
    // matrix the exact factor satisfies D_j <= A_jj and L_ij^2 D_j <= A_ii, so it only binds on
    // round-off or indefinite input, where it keeps L bounded (clamping to the first floor alone
    // lets L grow exponentially on rank-deficient matrices).
    const double ajj = A_diag_j;
    const double dmin = std::max(ajj > 0.0 ? pivotFloor_ * ajj : delta, gmw);
    if (!(dj >= dmin)) {  // also catches NaN
      dj = dmin;
      ++st.clampedPivots;
    }
    D_[static_cast<std::size_t>(j)] = dj;
    colj[0] = 1.0;  // unit diagonal (not used by the solves)
    const double inv = 1.0 / dj;
    for (int i = j + 1; i <= iend; ++i) colj[i - j] *= inv;
  }
  lastStats_ = st;
  return st;
}

double BandedLdlt::l(int i, int j) const {
  if (i == j) return 1.0;
  if (i < j || i - j > kd_) return 0.0;
  return L_[static_cast<std::size_t>(j) * static_cast<std::size_t>(kd_ + 1) + static_cast<std::size_t>(i - j)];
}

void BandedLdlt::solve(std::span<const double> r, std::span<double> z) const {
  KINEMA_CHECK(static_cast<int>(r.size()) == n_ && static_cast<int>(z.size()) == n_,
               "BandedLdlt::solve: sizes ", r.size(), " and ", z.size(), " for n = ", n_);
  const std::size_t ld = static_cast<std::size_t>(kd_ + 1);
  if (r.data() != z.data()) std::copy(r.begin(), r.end(), z.begin());
  // L w = r (column-oriented), then y = D^{-1} w, then L^T z = y (row of L^T = column of L).
  for (int j = 0; j < n_; ++j) {
    const double* col = L_.data() + static_cast<std::size_t>(j) * ld;
    const double wj = z[static_cast<std::size_t>(j)];
    if (wj == 0.0) continue;
    const int iend = std::min(n_ - 1, j + kd_);
    for (int i = j + 1; i <= iend; ++i) z[static_cast<std::size_t>(i)] -= col[i - j] * wj;
  }
  for (int j = 0; j < n_; ++j) z[static_cast<std::size_t>(j)] /= D_[static_cast<std::size_t>(j)];
  for (int j = n_ - 1; j >= 0; --j) {
    const double* col = L_.data() + static_cast<std::size_t>(j) * ld;
    double yj = z[static_cast<std::size_t>(j)];
    const int iend = std::min(n_ - 1, j + kd_);
    for (int i = j + 1; i <= iend; ++i) yj -= col[i - j] * z[static_cast<std::size_t>(i)];
    z[static_cast<std::size_t>(j)] = yj;
  }
}

void BandedLdlt::solveFiltered(std::span<const double> r, std::span<const std::uint8_t> freeMask,
                               std::span<double> z) const {
  ldltSolveFiltered(n_, kd_, L_, D_, freeMask, r, z);
}

void ldltSolveFiltered(int n, int kd, std::span<const double> L, std::span<const double> D,
                       std::span<const std::uint8_t> freeMask, std::span<const double> r, std::span<double> z) {
  KINEMA_CHECK(static_cast<int>(r.size()) == n && static_cast<int>(z.size()) == n &&
                   static_cast<int>(freeMask.size()) == n && static_cast<int>(D.size()) == n &&
                   L.size() == static_cast<std::size_t>(n) * static_cast<std::size_t>(kd + 1),
               "filtered LDL^T solve: sizes r ", r.size(), ", mask ", freeMask.size(), ", z ", z.size(),
               ", D ", D.size(), ", L ", L.size(), " for n = ", n, ", kd = ", kd);
  const std::size_t ld = static_cast<std::size_t>(kd + 1);
  // w = S r (r masked to F)
  for (int i = 0; i < n; ++i) {
    const std::size_t si = static_cast<std::size_t>(i);
    z[si] = freeMask[si] ? r[si] : 0.0;
  }
  // Forward sweep L_FF w = r_F, column-oriented. Subtracting L_ij w_j with w_j not yet divided by
  // D_jj is the corrected Eq. 34: y_i = (r_i - sum_{j<i, j in F} L_ij D_jj y_j) / D_ii.
  for (int j = 0; j < n; ++j) {
    if (!freeMask[static_cast<std::size_t>(j)]) continue;
    const double wj = z[static_cast<std::size_t>(j)];
    if (wj == 0.0) continue;
    const double* col = L.data() + static_cast<std::size_t>(j) * ld;
    const int iend = std::min(n - 1, j + kd);
    for (int i = j + 1; i <= iend; ++i)
      if (freeMask[static_cast<std::size_t>(i)]) z[static_cast<std::size_t>(i)] -= col[i - j] * wj;
  }
  // y_F = D_FF^{-1} w_F (z_C is already 0).
  for (int j = 0; j < n; ++j)
    if (freeMask[static_cast<std::size_t>(j)]) z[static_cast<std::size_t>(j)] /= D[static_cast<std::size_t>(j)];
  // Backward sweep L_FF^T z_F = y_F (Eq. 35): z_j = y_j - sum_{i>j, i in F} L_ij z_i.
  for (int j = n - 1; j >= 0; --j) {
    if (!freeMask[static_cast<std::size_t>(j)]) continue;
    const double* col = L.data() + static_cast<std::size_t>(j) * ld;
    double yj = z[static_cast<std::size_t>(j)];
    const int iend = std::min(n - 1, j + kd);
    for (int i = j + 1; i <= iend; ++i)
      if (freeMask[static_cast<std::size_t>(i)]) yj -= col[i - j] * z[static_cast<std::size_t>(i)];
    z[static_cast<std::size_t>(j)] = yj;
  }
}

}  // namespace kinema::der

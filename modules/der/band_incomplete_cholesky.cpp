// IC(0) / MIC(0) as a unit-lower LDL^T on the pattern of a banded A (see band_incomplete_cholesky.hpp).
#include "modules/der/band_incomplete_cholesky.hpp"

#include <algorithm>
#include <cmath>

#include "framework/core/error.hpp"

namespace kinema::der {

void IncompleteBandedLdlt::factor(const BandedSymmetric& A) {
  n_ = A.size();
  kd_ = A.bandwidth();
  const std::size_t ld = static_cast<std::size_t>(kd_ + 1);
  const std::span<const double> a = A.data();
  L_.assign(a.size(), 0.0);
  D_.assign(static_cast<std::size_t>(n_), 0.0);
  work_.assign(ld, 0.0);
  pending_.assign(static_cast<std::size_t>(n_), 0.0);  // MIC diagonal compensation not yet applied
  fallbacks_ = 0;
  ++factorizations_;
  const double tau = options_.tau;
  for (int j = 0; j < n_; ++j) {
    const std::size_t cj = static_cast<std::size_t>(j) * ld;
    const double ajj = a[cj];
    if (!(ajj > 0.0) || !std::isfinite(ajj))
      throw Error(str("incomplete LDL^T: diagonal entry ", j, " is ", ajj, "; A must be SPD"));
    const int k0 = std::max(0, j - kd_);
    double dj = ajj + pending_[static_cast<std::size_t>(j)];
    for (int k = k0; k < j; ++k) {
      const double ljk = L_[static_cast<std::size_t>(k) * ld + static_cast<std::size_t>(j - k)];
      const double v = ljk * D_[static_cast<std::size_t>(k)];
      work_[static_cast<std::size_t>(j - k)] = v;
      dj -= ljk * v;
    }
    const int iend = std::min(n_ - 1, j + kd_);
    double dropped = 0.0;
    for (int i = j + 1; i <= iend; ++i) {
      double c = a[cj + static_cast<std::size_t>(i - j)];
      const bool inPattern = c != 0.0;
      for (int k = std::max(k0, i - kd_); k < j; ++k)
        c -= L_[static_cast<std::size_t>(k) * ld + static_cast<std::size_t>(i - k)] * work_[static_cast<std::size_t>(j - k)];
      if (inPattern) {
        L_[cj + static_cast<std::size_t>(i - j)] = c;
      } else if (options_.modified && c != 0.0) {
        // Dropped fill c at (i, j) and (j, i): tau c onto both diagonals (Bridson's MIC).
        dropped += c;
        pending_[static_cast<std::size_t>(i)] += tau * c;
      }
    }
    if (options_.modified) dj += tau * dropped;
    // Breakdown safeguard: replace the pivot by the original diagonal.
    const double floor = options_.modified ? options_.sigma * ajj : options_.pivotFloor * ajj;
    const bool breakdown = options_.modified ? !(dj >= floor) : !(dj > floor);  // NaN included
    if (breakdown) {
      dj = ajj;
      ++fallbacks_;
    }
    D_[static_cast<std::size_t>(j)] = dj;
    L_[cj] = 1.0;
    const double inv = 1.0 / dj;
    for (int i = j + 1; i <= iend; ++i) L_[cj + static_cast<std::size_t>(i - j)] *= inv;
  }
}

double IncompleteBandedLdlt::l(int i, int j) const {
  if (i == j) return 1.0;
  if (i < j || i - j > kd_) return 0.0;
  return L_[static_cast<std::size_t>(j) * static_cast<std::size_t>(kd_ + 1) + static_cast<std::size_t>(i - j)];
}

}  // namespace kinema::der

// none / jacobi / wjacobi / ssor on the free part of a banded A (see band_sweep_preconditioners.hpp).
// Every applyMasked first forms S r (r masked to the free set), so r and z may alias.
#include "modules/der/band_sweep_preconditioners.hpp"

#include <algorithm>
#include <cmath>

#include "framework/core/error.hpp"

namespace kinema::der {

namespace {

// 1 / A_jj for every j; A must have a positive diagonal (it is SPD).
void inverseDiagonal(const BandedSymmetric& A, const std::string& who, std::vector<double>& inv) {
  const int n = A.size();
  inv.assign(static_cast<std::size_t>(n), 0.0);
  for (int j = 0; j < n; ++j) {
    const double a = A.at(j, j);
    if (!(a > 0.0) || !std::isfinite(a))
      throw Error(str("BCQP preconditioner '", who, "': diagonal entry ", j, " is ", a, "; A must be SPD"));
    inv[static_cast<std::size_t>(j)] = 1.0 / a;
  }
}

void maskedCopy(std::span<const double> r, std::span<const std::uint8_t> m, std::span<double> z) {
  for (std::size_t i = 0; i < z.size(); ++i) z[i] = m[i] ? r[i] : 0.0;
}

}  // namespace

// ---- none ----

void NoneQpPreconditioner::applyMasked(std::span<const double> r, std::span<const std::uint8_t> freeMask,
                                       std::span<double> z) const {
  maskedCopy(r, freeMask, z);
}

// ---- jacobi ----

void JacobiQpPreconditioner::compute(const BandedSymmetric& A) { inverseDiagonal(A, name(), invDiag_); }

void JacobiQpPreconditioner::applyMasked(std::span<const double> r, std::span<const std::uint8_t> freeMask,
                                         std::span<double> z) const {
  for (std::size_t i = 0; i < z.size(); ++i) z[i] = freeMask[i] ? r[i] * invDiag_[i] : 0.0;
}

// ---- wjacobi ----

WeightedJacobiQpPreconditioner::WeightedJacobiQpPreconditioner(double omega, int sweeps)
    : omega_(omega), sweeps_(sweeps) {
  if (!(omega > 0.0) || !std::isfinite(omega))
    throw InputError(str("BCQP preconditioner 'wjacobi': omega must be positive, got ", omega));
  if (sweeps < 1) throw InputError(str("BCQP preconditioner 'wjacobi': sweeps must be at least 1, got ", sweeps));
}

void WeightedJacobiQpPreconditioner::configure(const QpPreconditionerOptions& o) {
  const WeightedJacobiQpPreconditioner checked(o.wjacobiOmega, o.wjacobiSweeps);
  omega_ = checked.omega_;
  sweeps_ = checked.sweeps_;
}

void WeightedJacobiQpPreconditioner::compute(const BandedSymmetric& A) {
  A_ = A;
  inverseDiagonal(A_, name(), invDiag_);
  rF_.assign(static_cast<std::size_t>(A.size()), 0.0);
  y_.assign(static_cast<std::size_t>(A.size()), 0.0);
}

void WeightedJacobiQpPreconditioner::applyMasked(std::span<const double> r, std::span<const std::uint8_t> freeMask,
                                                 std::span<double> z) const {
  const std::size_t n = z.size();
  std::span<double> rF(rF_), y(y_);
  maskedCopy(r, freeMask, rF);
  // Sweep 1 from x = 0: x = omega D^{-1} r_F (z holds x; it stays 0 on C).
  for (std::size_t i = 0; i < n; ++i) z[i] = omega_ * invDiag_[i] * rF[i];
  // Further sweeps: x_F += omega D^{-1} (r - A x)_F; since x_C = 0, (A x)_F = A_FF x_F.
  for (int k = 1; k < sweeps_; ++k) {
    A_.multiply(z, y);
    for (std::size_t i = 0; i < n; ++i)
      if (freeMask[i]) z[i] += omega_ * invDiag_[i] * (rF[i] - y[i]);
  }
}

// ---- ssor ----

SsorQpPreconditioner::SsorQpPreconditioner(double omega) : omega_(omega) {
  if (!(omega > 0.0 && omega < 2.0))
    throw InputError(str("BCQP preconditioner 'ssor': omega must be in (0, 2), got ", omega));
}

void SsorQpPreconditioner::configure(const QpPreconditionerOptions& o) { omega_ = SsorQpPreconditioner(o.ssorOmega).omega_; }

void SsorQpPreconditioner::compute(const BandedSymmetric& A) {
  std::vector<double> inv;
  inverseDiagonal(A, name(), inv);  // validates the diagonal
  A_ = A;
}

void SsorQpPreconditioner::applyMasked(std::span<const double> r, std::span<const std::uint8_t> freeMask,
                                       std::span<double> z) const {
  const int n = A_.size(), kd = A_.bandwidth();
  const std::size_t ld = static_cast<std::size_t>(kd + 1);
  const std::span<const double> a = A_.data();
  maskedCopy(r, freeMask, z);
  // Forward: (D/omega + L_FF) y = r_F, column-oriented over the lower band.
  for (int j = 0; j < n; ++j) {
    if (!freeMask[static_cast<std::size_t>(j)]) continue;
    const double* col = a.data() + static_cast<std::size_t>(j) * ld;
    const double yj = z[static_cast<std::size_t>(j)] * omega_ / col[0];
    z[static_cast<std::size_t>(j)] = yj;
    const int iend = std::min(n - 1, j + kd);
    for (int i = j + 1; i <= iend; ++i)
      if (freeMask[static_cast<std::size_t>(i)]) z[static_cast<std::size_t>(i)] -= col[i - j] * yj;
  }
  // Backward: (D/omega + L_FF^T) z = (D/omega) y, i.e. z_j = y_j - omega/A_jj sum_{i>j, i in F} A_ij z_i.
  for (int j = n - 1; j >= 0; --j) {
    if (!freeMask[static_cast<std::size_t>(j)]) continue;
    const double* col = a.data() + static_cast<std::size_t>(j) * ld;
    double s = 0.0;
    const int iend = std::min(n - 1, j + kd);
    for (int i = j + 1; i <= iend; ++i)
      if (freeMask[static_cast<std::size_t>(i)]) s += col[i - j] * z[static_cast<std::size_t>(i)];
    z[static_cast<std::size_t>(j)] -= omega_ / col[0] * s;
  }
  // The factor (2 - omega) of SSOR's M^{-1}.
  const double c = 2.0 - omega_;
  for (int j = 0; j < n; ++j) z[static_cast<std::size_t>(j)] *= c;
}

}  // namespace kinema::der

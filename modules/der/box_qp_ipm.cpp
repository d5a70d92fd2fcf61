// Mehrotra predictor-corrector IPM for the banded box QP (see box_qp_ipm.hpp).
//
// Variables: x, slacks s_l = x - l (finite l), s_u = u - x (finite u), multipliers z_l, z_u >= 0.
// KKT: A x - b - z_l + z_u = 0, s_l z_l = 0, s_u z_u = 0. The Newton step for the complementarity
// targets r_l = sigma mu - s_l z_l (- ds_l^aff dz_l^aff for the corrector), likewise r_u, reduces to
//   (A + Sigma) dx = -r_d + r_l / s_l - r_u / s_u,   Sigma = z_l / s_l + z_u / s_u,
//   dz_l = (r_l - z_l dx) / s_l,   dz_u = (r_u + z_u dx) / s_u.
#include "modules/der/box_qp_ipm.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"

namespace kinema::der {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

BoxQpIpm::BoxQpIpm(BoxQpIpmOptions options) : options_(options), ldlt_(options.pivotFloor) {
  if (!(options_.tol > 0.0)) throw InputError(str("box QP IPM: tol must be positive, got ", options_.tol));
  if (options_.maxIterations < 0)
    throw InputError(str("box QP IPM: max iterations must be nonnegative, got ", options_.maxIterations));
  if (!(options_.fractionToBoundary > 0.0 && options_.fractionToBoundary < 1.0))
    throw InputError(str("box QP IPM: fraction to boundary must be in (0, 1), got ", options_.fractionToBoundary));
}

bool BoxQpIpm::Box::hasL(std::size_t i) const { return lower[i] > -kInf && lower[i] != upper[i]; }
bool BoxQpIpm::Box::hasU(std::size_t i) const { return upper[i] < kInf && lower[i] != upper[i]; }
bool BoxQpIpm::Box::fixed(std::size_t i) const { return lower[i] == upper[i]; }

namespace {
void checkInputs(const BandedSymmetric& A, std::span<const double> b, std::span<const double> lower,
                 std::span<const double> upper, std::span<double> x) {
  const std::size_t N = static_cast<std::size_t>(A.size());
  if (b.size() != N || lower.size() != N || upper.size() != N || x.size() != N)
    throw InputError(str("box QP IPM: sizes b ", b.size(), ", lower ", lower.size(), ", upper ", upper.size(),
                         ", x ", x.size(), " for n = ", A.size()));
  for (std::size_t i = 0; i < N; ++i) {
    if (!std::isfinite(b[i])) throw InputError(str("box QP IPM: b[", i, "] is ", b[i]));
    if (std::isnan(lower[i]) || std::isnan(upper[i]) || !(lower[i] <= upper[i]) || lower[i] == kInf ||
        upper[i] == -kInf)
      throw InputError(str("box QP IPM: empty or invalid box at index ", i, ": [", lower[i], ", ", upper[i], "]"));
  }
}
}  // namespace

void BoxQpIpm::formK(const BandedSymmetric& A, const Box& box, bool withSigma) {
  const int n = A.size(), kd = A.bandwidth();
  if (K_.size() != n || K_.bandwidth() != kd) K_.resize(n, kd);
  for (int j = 0; j < n; ++j)
    for (int i = j; i <= std::min(n - 1, j + kd); ++i) {
      const bool fx = box.fixed(static_cast<std::size_t>(i)) || box.fixed(static_cast<std::size_t>(j));
      K_.at(i, j) = fx ? (i == j ? 1.0 : 0.0) : A.at(i, j);
    }
  if (!withSigma) return;
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
    if (box.fixed(i)) continue;
    double s = 0.0;
    if (box.hasL(i)) s += zl_[i] / sl_[i];
    if (box.hasU(i)) s += zu_[i] / su_[i];
    K_.at(static_cast<int>(i), static_cast<int>(i)) += s;
  }
}

int BoxQpIpm::startingPoint(const BandedSymmetric& A, std::span<const double> b, const Box& box, std::span<double> x) {
  const std::size_t N = x.size();
  // The unconstrained minimiser (fixed variables at their value)...
  for (std::size_t i = 0; i < N; ++i) x[i] = box.fixed(i) ? box.lower[i] : 0.0;
  A.multiply(x, g_);  // A x_fixed
  for (std::size_t i = 0; i < N; ++i) rhs_[i] = box.fixed(i) ? box.lower[i] : b[i] - g_[i];
  formK(A, box, false);
  ldlt_.factor(K_);
  ldlt_.solve(rhs_, x);
  // ... pushed into the interior of the box.
  double scale = 1.0;
  for (std::size_t i = 0; i < N; ++i) scale = std::max(scale, std::abs(x[i]));
  int m = 0;  // number of barrier terms
  for (std::size_t i = 0; i < N; ++i) {
    if (box.fixed(i)) continue;
    const double l = box.lower[i], u = box.upper[i];
    if (box.hasL(i) && box.hasU(i)) {
      const double w = u - l;
      x[i] = std::min(std::max(x[i], l + 0.1 * w), u - 0.1 * w);
      if (!(x[i] > l && x[i] < u)) x[i] = l + 0.5 * w;  // round-off on tiny boxes
    } else if (box.hasL(i)) {
      x[i] = std::max(x[i], l + 0.1 * scale);
    } else if (box.hasU(i)) {
      x[i] = std::min(x[i], u - 0.1 * scale);
    }
    if (box.hasL(i)) sl_[i] = x[i] - l, ++m;
    if (box.hasU(i)) su_[i] = u - x[i], ++m;
  }
  A.multiply(x, g_);
  double gmax = 0.0;
  for (std::size_t i = 0; i < N; ++i) {
    g_[i] -= b[i];
    if (!box.fixed(i)) gmax = std::max(gmax, std::abs(g_[i]));
  }
  // Multipliers: z_l - z_u = g where both bounds exist (zero dual residual), plus delta > 0.
  const double delta = 0.1 * std::max(1.0, gmax);
  for (std::size_t i = 0; i < N; ++i) {
    if (box.hasL(i)) zl_[i] = std::max(g_[i], 0.0) + delta;
    if (box.hasU(i)) zu_[i] = std::max(-g_[i], 0.0) + delta;
  }
  return m;
}

double BoxQpIpm::residuals(const BandedSymmetric& A, std::span<const double> b, const Box& box,
                           std::span<const double> x, int m, double bmax, double& mu) {
  A.multiply(x, g_);
  double rdmax = 0.0, cmax = 0.0, xmax = 0.0;
  mu = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    xmax = std::max(xmax, std::abs(x[i]));
    if (box.fixed(i)) {
      rd_[i] = 0.0;
      continue;
    }
    double r = g_[i] - b[i];
    if (box.hasL(i)) r -= zl_[i], mu += sl_[i] * zl_[i], cmax = std::max(cmax, sl_[i] * zl_[i]);
    if (box.hasU(i)) r += zu_[i], mu += su_[i] * zu_[i], cmax = std::max(cmax, su_[i] * zu_[i]);
    rd_[i] = r;
    rdmax = std::max(rdmax, std::abs(r));
  }
  if (m > 0) mu /= m;
  return std::max(rdmax, cmax / (1.0 + xmax)) / (1.0 + bmax);
}

double BoxQpIpm::maxStep(const Box& box, const std::vector<double>& dx, const std::vector<double>& dzl,
                         const std::vector<double>& dzu) const {
  double a = kInf;
  for (std::size_t i = 0; i < dx.size(); ++i) {
    if (box.hasL(i)) {
      if (dx[i] < 0.0) a = std::min(a, -sl_[i] / dx[i]);
      if (dzl[i] < 0.0) a = std::min(a, -zl_[i] / dzl[i]);
    }
    if (box.hasU(i)) {
      if (dx[i] > 0.0) a = std::min(a, su_[i] / dx[i]);
      if (dzu[i] < 0.0) a = std::min(a, -zu_[i] / dzu[i]);
    }
  }
  return a;
}

void BoxQpIpm::newtonStep(const Box& box, std::vector<double>& dx, std::vector<double>& dzl, std::vector<double>& dzu) {
  const std::size_t N = dx.size();
  for (std::size_t i = 0; i < N; ++i) {
    if (box.fixed(i)) {
      rhs_[i] = 0.0;
      continue;
    }
    double r = -rd_[i];
    if (box.hasL(i)) r += dzl[i] / sl_[i];
    if (box.hasU(i)) r -= dzu[i] / su_[i];
    rhs_[i] = r;
  }
  ldlt_.solve(rhs_, dx);
  for (std::size_t i = 0; i < N; ++i) {
    if (box.fixed(i)) dx[i] = 0.0;
    dzl[i] = box.hasL(i) ? (dzl[i] - zl_[i] * dx[i]) / sl_[i] : 0.0;
    dzu[i] = box.hasU(i) ? (dzu[i] + zu_[i] * dx[i]) / su_[i] : 0.0;
  }
}

double BoxQpIpm::predictorSigma(const Box& box, int m, double mu) {
  const std::size_t N = dxa_.size();
  for (std::size_t i = 0; i < N; ++i) {
    dzla_[i] = box.hasL(i) ? -sl_[i] * zl_[i] : 0.0;
    dzua_[i] = box.hasU(i) ? -su_[i] * zu_[i] : 0.0;
  }
  newtonStep(box, dxa_, dzla_, dzua_);
  const double aa = std::min(1.0, maxStep(box, dxa_, dzla_, dzua_));
  double muAff = 0.0;
  for (std::size_t i = 0; i < N; ++i) {
    if (box.hasL(i)) muAff += (sl_[i] + aa * dxa_[i]) * (zl_[i] + aa * dzla_[i]);
    if (box.hasU(i)) muAff += (su_[i] - aa * dxa_[i]) * (zu_[i] + aa * dzua_[i]);
  }
  if (m > 0) muAff /= m;
  return mu > 0.0 ? std::pow(std::max(muAff, 0.0) / mu, 3) : 0.0;
}

double BoxQpIpm::correctorStep(const Box& box, double sigma, double mu, std::span<double> x) {
  const std::size_t N = x.size();
  for (std::size_t i = 0; i < N; ++i) {
    dzl_[i] = box.hasL(i) ? sigma * mu - sl_[i] * zl_[i] - (options_.mehrotra ? dxa_[i] * dzla_[i] : 0.0) : 0.0;
    dzu_[i] = box.hasU(i) ? sigma * mu - su_[i] * zu_[i] + (options_.mehrotra ? dxa_[i] * dzua_[i] : 0.0) : 0.0;
  }
  newtonStep(box, dx_, dzl_, dzu_);
  const double a = std::min(1.0, options_.fractionToBoundary * maxStep(box, dx_, dzl_, dzu_));
  for (std::size_t i = 0; i < N; ++i) {
    x[i] += a * dx_[i];
    if (box.hasL(i)) sl_[i] += a * dx_[i], zl_[i] += a * dzl_[i];
    if (box.hasU(i)) su_[i] -= a * dx_[i], zu_[i] += a * dzu_[i];
  }
  return a;
}

BoxQpIpmResult BoxQpIpm::solve(const BandedSymmetric& A, std::span<const double> b, std::span<const double> lower,
                               std::span<const double> upper, std::span<double> x) {
  const auto t0 = std::chrono::steady_clock::now();
  checkInputs(A, b, lower, upper, x);
  const Box box{lower, upper};
  for (auto* v : {&g_, &rd_, &sl_, &su_, &zl_, &zu_, &dx_, &dzl_, &dzu_, &rhs_, &dxa_, &dzla_, &dzua_})
    v->assign(x.size(), 0.0);
  BoxQpIpmResult res;
  const long f0 = ldlt_.factorizations();
  const int m = startingPoint(A, b, box, x);
  double bmax = 0.0;
  for (double v : b) bmax = std::max(bmax, std::abs(v));

  while (true) {
    double mu = 0.0;
    res.kktResidual = residuals(A, b, box, x, m, bmax, mu);
    if (res.kktResidual <= options_.tol) {
      res.converged = true;
      res.reason = SolverOutcome::Tol;
      break;
    }
    if (res.iterations >= options_.maxIterations) {
      res.reason = SolverOutcome::MaxIterations;
      break;
    }
    formK(A, box, true);
    ldlt_.factor(K_);
    // Predictor (affine scaling, targets -s z) for Mehrotra's sigma; then the corrector (or the
    // plain path-following step): targets sigma mu - s z (- ds^aff dz^aff).
    const double sigma = options_.mehrotra ? predictorSigma(box, m, mu) : 0.1;
    const double a = correctorStep(box, sigma, mu, x);
    ++res.iterations;
    if (!(a > 1e-14)) {
      res.reason = SolverOutcome::Stalled;
      break;
    }
  }
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::min(std::max(x[i], lower[i]), upper[i]);
  res.factorizations = ldlt_.factorizations() - f0;
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace kinema::der

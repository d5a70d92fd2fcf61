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

BoxQpIpmResult BoxQpIpm::solve(const BandedSymmetric& A, std::span<const double> b, std::span<const double> lower,
                               std::span<const double> upper, std::span<double> x) {
  const auto t0 = std::chrono::steady_clock::now();
  const int n = A.size(), kd = A.bandwidth();
  const std::size_t N = static_cast<std::size_t>(n);
  if (b.size() != N || lower.size() != N || upper.size() != N || x.size() != N)
    throw InputError(str("box QP IPM: sizes b ", b.size(), ", lower ", lower.size(), ", upper ", upper.size(),
                         ", x ", x.size(), " for n = ", n));
  for (std::size_t i = 0; i < N; ++i) {
    if (!std::isfinite(b[i])) throw InputError(str("box QP IPM: b[", i, "] is ", b[i]));
    if (std::isnan(lower[i]) || std::isnan(upper[i]) || !(lower[i] <= upper[i]) || lower[i] == kInf ||
        upper[i] == -kInf)
      throw InputError(str("box QP IPM: empty or invalid box at index ", i, ": [", lower[i], ", ", upper[i], "]"));
  }
  auto hasL = [&](std::size_t i) { return lower[i] > -kInf && lower[i] != upper[i]; };
  auto hasU = [&](std::size_t i) { return upper[i] < kInf && lower[i] != upper[i]; };
  auto fixed = [&](std::size_t i) { return lower[i] == upper[i]; };

  for (auto* v : {&g_, &rd_, &sl_, &su_, &zl_, &zu_, &dx_, &dzl_, &dzu_, &rhs_, &dxa_, &dzla_, &dzua_})
    v->assign(N, 0.0);
  BoxQpIpmResult res;
  const long f0 = ldlt_.factorizations();

  // K = A with the rows and columns of fixed variables replaced by the identity, plus `shift`
  // (Sigma) on the diagonal.
  auto formK = [&](bool withSigma) {
    if (K_.size() != n || K_.bandwidth() != kd) K_.resize(n, kd);
    for (int j = 0; j < n; ++j)
      for (int i = j; i <= std::min(n - 1, j + kd); ++i) {
        const bool fx = fixed(static_cast<std::size_t>(i)) || fixed(static_cast<std::size_t>(j));
        K_.at(i, j) = fx ? (i == j ? 1.0 : 0.0) : A.at(i, j);
      }
    if (!withSigma) return;
    for (std::size_t i = 0; i < N; ++i) {
      if (fixed(i)) continue;
      double s = 0.0;
      if (hasL(i)) s += zl_[i] / sl_[i];
      if (hasU(i)) s += zu_[i] / su_[i];
      K_.at(static_cast<int>(i), static_cast<int>(i)) += s;
    }
  };

  // ---- starting point: the unconstrained minimiser (fixed variables at their value), pushed into
  // the interior of the box ----
  for (std::size_t i = 0; i < N; ++i) x[i] = fixed(i) ? lower[i] : 0.0;
  A.multiply(x, g_);  // A x_fixed
  for (std::size_t i = 0; i < N; ++i) rhs_[i] = fixed(i) ? lower[i] : b[i] - g_[i];
  formK(false);
  ldlt_.factor(K_);
  ldlt_.solve(rhs_, x);
  double scale = 1.0;
  for (std::size_t i = 0; i < N; ++i) scale = std::max(scale, std::abs(x[i]));
  int m = 0;  // number of barrier terms
  for (std::size_t i = 0; i < N; ++i) {
    if (fixed(i)) continue;
    const double l = lower[i], u = upper[i];
    if (hasL(i) && hasU(i)) {
      const double w = u - l;
      x[i] = std::min(std::max(x[i], l + 0.1 * w), u - 0.1 * w);
      if (!(x[i] > l && x[i] < u)) x[i] = l + 0.5 * w;  // round-off on tiny boxes
    } else if (hasL(i)) {
      x[i] = std::max(x[i], l + 0.1 * scale);
    } else if (hasU(i)) {
      x[i] = std::min(x[i], u - 0.1 * scale);
    }
    if (hasL(i)) sl_[i] = x[i] - l, ++m;
    if (hasU(i)) su_[i] = u - x[i], ++m;
  }
  A.multiply(x, g_);
  double gmax = 0.0;
  for (std::size_t i = 0; i < N; ++i) {
    g_[i] -= b[i];
    if (!fixed(i)) gmax = std::max(gmax, std::abs(g_[i]));
  }
  // Multipliers: z_l - z_u = g where both bounds exist (zero dual residual), plus delta > 0.
  const double delta = 0.1 * std::max(1.0, gmax);
  for (std::size_t i = 0; i < N; ++i) {
    if (hasL(i)) zl_[i] = std::max(g_[i], 0.0) + delta;
    if (hasU(i)) zu_[i] = std::max(-g_[i], 0.0) + delta;
  }
  double bmax = 0.0;
  for (double v : b) bmax = std::max(bmax, std::abs(v));

  // Largest step in (0, inf] keeping s_l, s_u, z_l, z_u nonnegative along (dx, dzl, dzu).
  auto maxStep = [&](const std::vector<double>& dx, const std::vector<double>& dzl, const std::vector<double>& dzu) {
    double a = kInf;
    for (std::size_t i = 0; i < N; ++i) {
      if (hasL(i)) {
        if (dx[i] < 0.0) a = std::min(a, -sl_[i] / dx[i]);
        if (dzl[i] < 0.0) a = std::min(a, -zl_[i] / dzl[i]);
      }
      if (hasU(i)) {
        if (dx[i] > 0.0) a = std::min(a, su_[i] / dx[i]);
        if (dzu[i] < 0.0) a = std::min(a, -zu_[i] / dzu[i]);
      }
    }
    return a;
  };
  // Solves for dx, dzl, dzu given the complementarity targets rl, ru (held in dzl, dzu on entry).
  auto newton = [&](std::vector<double>& dx, std::vector<double>& dzl, std::vector<double>& dzu) {
    for (std::size_t i = 0; i < N; ++i) {
      if (fixed(i)) {
        rhs_[i] = 0.0;
        continue;
      }
      double r = -rd_[i];
      if (hasL(i)) r += dzl[i] / sl_[i];
      if (hasU(i)) r -= dzu[i] / su_[i];
      rhs_[i] = r;
    }
    ldlt_.solve(rhs_, dx);
    for (std::size_t i = 0; i < N; ++i) {
      if (fixed(i)) dx[i] = 0.0;
      dzl[i] = hasL(i) ? (dzl[i] - zl_[i] * dx[i]) / sl_[i] : 0.0;
      dzu[i] = hasU(i) ? (dzu[i] + zu_[i] * dx[i]) / su_[i] : 0.0;
    }
  };

  while (true) {
    // Residuals at the current point.
    A.multiply(x, g_);
    double rdmax = 0.0, cmax = 0.0, mu = 0.0, xmax = 0.0;
    for (std::size_t i = 0; i < N; ++i) {
      xmax = std::max(xmax, std::abs(x[i]));
      if (fixed(i)) {
        rd_[i] = 0.0;
        continue;
      }
      double r = g_[i] - b[i];
      if (hasL(i)) r -= zl_[i], mu += sl_[i] * zl_[i], cmax = std::max(cmax, sl_[i] * zl_[i]);
      if (hasU(i)) r += zu_[i], mu += su_[i] * zu_[i], cmax = std::max(cmax, su_[i] * zu_[i]);
      rd_[i] = r;
      rdmax = std::max(rdmax, std::abs(r));
    }
    if (m > 0) mu /= m;
    res.kktResidual = std::max(rdmax, cmax / (1.0 + xmax)) / (1.0 + bmax);
    if (res.kktResidual <= options_.tol) {
      res.converged = true;
      res.reason = SolverOutcome::Tol;
      break;
    }
    if (res.iterations >= options_.maxIterations) {
      res.reason = SolverOutcome::MaxIterations;
      break;
    }
    formK(true);
    ldlt_.factor(K_);
    double sigma = 0.1;
    if (options_.mehrotra) {
      // Predictor (affine scaling): targets -s z.
      for (std::size_t i = 0; i < N; ++i) {
        dzla_[i] = hasL(i) ? -sl_[i] * zl_[i] : 0.0;
        dzua_[i] = hasU(i) ? -su_[i] * zu_[i] : 0.0;
      }
      newton(dxa_, dzla_, dzua_);
      const double aa = std::min(1.0, maxStep(dxa_, dzla_, dzua_));
      double muAff = 0.0;
      for (std::size_t i = 0; i < N; ++i) {
        if (hasL(i)) muAff += (sl_[i] + aa * dxa_[i]) * (zl_[i] + aa * dzla_[i]);
        if (hasU(i)) muAff += (su_[i] - aa * dxa_[i]) * (zu_[i] + aa * dzua_[i]);
      }
      if (m > 0) muAff /= m;
      sigma = mu > 0.0 ? std::pow(std::max(muAff, 0.0) / mu, 3) : 0.0;
    }
    // Corrector (or the plain path-following step): targets sigma mu - s z (- ds^aff dz^aff).
    for (std::size_t i = 0; i < N; ++i) {
      dzl_[i] = hasL(i) ? sigma * mu - sl_[i] * zl_[i] - (options_.mehrotra ? dxa_[i] * dzla_[i] : 0.0) : 0.0;
      dzu_[i] = hasU(i) ? sigma * mu - su_[i] * zu_[i] + (options_.mehrotra ? dxa_[i] * dzua_[i] : 0.0) : 0.0;
    }
    newton(dx_, dzl_, dzu_);
    const double a = std::min(1.0, options_.fractionToBoundary * maxStep(dx_, dzl_, dzu_));
    for (std::size_t i = 0; i < N; ++i) {
      x[i] += a * dx_[i];
      if (hasL(i)) sl_[i] += a * dx_[i], zl_[i] += a * dzl_[i];
      if (hasU(i)) su_[i] -= a * dx_[i], zu_[i] += a * dzu_[i];
    }
    ++res.iterations;
    if (!(a > 1e-14)) {
      res.reason = SolverOutcome::Stalled;
      break;
    }
  }
  for (std::size_t i = 0; i < N; ++i) x[i] = std::min(std::max(x[i], lower[i]), upper[i]);
  res.factorizations = ldlt_.factorizations() - f0;
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace kinema::der

#pragma once
// The box QPs of bench_mprgp: min 1/2 x^T A x - b^T x subject to l <= x <= u, with a known
// solution x* and a prescribed fraction of active bounds.
//
// A (N x N, N arbitrary) is a randomly weighted 7-point stencil on an m x m x m grid (m = ceil(N^(1/3)),
// the last plane truncated; weights in [0.5, 1.5]) plus two random long-range circulant couplings
// i +- s1, i +- s2 of either sign and small magnitude ([0.001, 0.004]), made strictly diagonally
// dominant by a shift of 1e-3: SPD, about 11 nonzeros per row, condition number growing like m^2
// (about 3e2 at N = 1e4, a few thousand at N = 1e6), so the QPs are not trivial for unpreconditioned
// first-order methods. (Long-range couplings of O(1) size would make A an expander-like, O(1)-
// conditioned matrix at every size.) Every entry is a hash of (min(i,j), max(i,j), seed):
// symmetric by construction and computable row by row on any rank.
//
// x*: each index is active with probability `activeFraction` (half at l, half at u); free ones lie
// strictly inside. Multipliers lambda_i in [0.1, 1] at l, in [-1, -0.1] at u, 0 free, and
// b = A x* - lambda, so the KKT conditions hold at x* with strict complementarity.
// Bounds: l_i in [-1.5, -0.5], u_i in [0.5, 1.5], so 0 is feasible and x0 = P(0) = 0.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace kinema::bench {

inline double hashUnit(std::uint64_t a, std::uint64_t b, std::uint64_t seed) {
  std::uint64_t z = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full ^ seed;
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ull;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;  // [0, 1)
}

struct BoxQp {
  std::int64_t n = 0;  // unknowns
  std::int64_t m = 0;  // grid edge
  std::int64_t s1 = 0, s2 = 0;
  double shift = 1e-3;
  std::uint64_t seed = 12345;
  double activeFraction = 0.1;
  std::vector<double> xstar, lower, upper, b;

  BoxQp(std::int64_t unknowns, double active, std::uint64_t seed_ = 12345)
      : n(unknowns), seed(seed_), activeFraction(active) {
    m = static_cast<std::int64_t>(std::ceil(std::cbrt(static_cast<double>(n)) - 1e-9));
    s1 = std::max<std::int64_t>(2, static_cast<std::int64_t>(n * (0.2 + 0.1 * hashUnit(1, 2, seed))));
    s2 = std::max<std::int64_t>(3, static_cast<std::int64_t>(n * (0.45 + 0.04 * hashUnit(3, 4, seed))));
    xstar.resize(n), lower.resize(n), upper.resize(n), b.resize(n);
    for (std::int64_t i = 0; i < n; ++i) {
      const auto u = static_cast<std::uint64_t>(i);
      lower[i] = -1.5 + hashUnit(u, 11, seed);
      upper[i] = 0.5 + hashUnit(u, 12, seed);
      const double r = hashUnit(u, 13, seed);
      if (r < 0.5 * activeFraction) xstar[i] = lower[i];
      else if (r < activeFraction) xstar[i] = upper[i];
      else xstar[i] = smooth(i) + 0.02 * (hashUnit(u, 14, seed) - 0.5);
    }
    for (std::int64_t i = 0; i < n; ++i) {
      const auto u = static_cast<std::uint64_t>(i);
      const double r = hashUnit(u, 13, seed);
      double lambda = 0;
      if (r < 0.5 * activeFraction) lambda = 0.1 + 0.9 * hashUnit(u, 15, seed);
      else if (r < activeFraction) lambda = -(0.1 + 0.9 * hashUnit(u, 15, seed));
      double ax = 0;
      row(i, [&](std::int64_t j, double v) { ax += v * xstar[j]; });
      b[i] = ax - lambda;
    }
  }

  // A smooth field in [-0.4, 0.4] over the grid (the free part of x*): its error modes sit at the
  // bottom of A's spectrum, where unpreconditioned first-order methods are slowest.
  double smooth(std::int64_t i) const {
    constexpr double pi = 3.14159265358979323846;
    const double x = static_cast<double>(i % m) / m, y = static_cast<double>((i / m) % m) / m,
                 z = static_cast<double>(i / (m * m)) / m;
    return 0.4 * std::sin(2 * pi * x) * std::cos(pi * y) * std::cos(2 * pi * z);
  }

  // Calls f(col, value) for every stored entry of row i (off-diagonals first, then the diagonal).
  template <class F>
  void row(std::int64_t i, F&& f) const {
    double diag = shift;
    auto edge = [&](std::int64_t j, bool signed_) {
      if (j < 0 || j >= n || j == i) return;
      const auto lo = static_cast<std::uint64_t>(std::min(i, j)), hi = static_cast<std::uint64_t>(std::max(i, j));
      const double h = hashUnit(lo, hi, seed);
      const double w = signed_ ? (h < 0.5 ? -1.0 : 1.0) * (0.001 + 0.006 * h) : -(0.5 + h);
      diag += std::abs(w);
      f(j, w);
    };
    const std::int64_t x = i % m;
    if (x > 0) edge(i - 1, false);
    if (x + 1 < m) edge(i + 1, false);
    edge(i - m, false);
    edge(i + m, false);
    edge(i - m * m, false);
    edge(i + m * m, false);
    // Long-range couplings, wrapped around; skipped where they coincide with a stencil entry.
    for (std::int64_t s : {s1, s2}) {
      for (std::int64_t j : {(i + s) % n, (i - s % n + n) % n}) {
        const std::int64_t d = std::abs(i - j);
        if (d == 1 || d == m || d == m * m) continue;
        edge(j, true);
      }
    }
    f(i, diag);
  }

  // g = A x - b over all unknowns (one process).
  std::vector<double> gradient(const std::vector<double>& x) const {
    std::vector<double> g(n);
    for (std::int64_t i = 0; i < n; ++i) {
      double s = 0;
      row(i, [&](std::int64_t j, double v) { s += v * x[j]; });
      g[i] = s - b[i];
    }
    return g;
  }
  // ||g^P||_2, MPRGP's projected gradient: g_i free, min(g_i, 0) at l_i, max(g_i, 0) at u_i.
  double projectedGradientNorm(const std::vector<double>& x, const std::vector<double>& g) const {
    double s = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      double v = g[i];
      if (x[i] <= lower[i]) v = std::min(v, 0.0);
      else if (x[i] >= upper[i]) v = std::max(v, 0.0);
      s += v * v;
    }
    return std::sqrt(s);
  }
  // ||x - P(x - g)||_2, the natural residual (continuous; fair to interior-point iterates).
  double naturalResidual(const std::vector<double>& x, const std::vector<double>& g) const {
    double s = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const double v = x[i] - std::clamp(x[i] - g[i], lower[i], upper[i]);
      s += v * v;
    }
    return std::sqrt(s);
  }
  // ||x - x*||_inf / ||x*||_inf.
  double error(const std::vector<double>& x) const {
    double e = 0, s = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      e = std::max(e, std::abs(x[i] - xstar[i]));
      s = std::max(s, std::abs(xstar[i]));
    }
    return e / s;
  }
  // Fraction of indices of x* at a bound (as realised).
  double activeRealised() const {
    std::int64_t a = 0;
    for (std::int64_t i = 0; i < n; ++i) a += (xstar[i] == lower[i] || xstar[i] == upper[i]);
    return static_cast<double>(a) / static_cast<double>(n);
  }
};

}  // namespace kinema::bench

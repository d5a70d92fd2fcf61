#include "modules/avi/certificate.hpp"

#include <algorithm>
#include <cmath>

namespace kinema::avi {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Root of f(tau) = f0 + tau f1 - 2r for f1 < 0 (f0 >= 2r); +inf if f never decreases.
inline double root(double f0, double f1, double twoR) {
  if (!(f1 < 0.0)) return kInf;
  return std::max(0.0, (f0 - twoR) / (-f1));
}

}  // namespace

bool findSlab(const Vec3& w, double r, const SlabSide& a, const SlabSide& b, Slab& slab,
              double& lifetime) {
  if (!w.allFinite() || a.n <= 0 || b.n <= 0) return false;
  double pa[3], qa[3], pb[3], qb[3];
  double sA = kInf, sB = -kInf;
  for (int i = 0; i < a.n; ++i) {
    pa[i] = w.dot(a.x[i]);
    qa[i] = w.dot(a.v[i]);
    sA = std::min(sA, pa[i]);
  }
  for (int i = 0; i < b.n; ++i) {
    pb[i] = w.dot(b.x[i]);
    qb[i] = w.dot(b.v[i]);
    sB = std::max(sB, pb[i]);
  }
  const double twoR = 2.0 * r;
  if (!(sA - sB >= twoR)) return false;
  // Feasible centres at time tau (the paper's §6): L(tau) <= c +- r <= U(tau) with
  // U(tau) = min(s_A, min_a w.x_a(tau)) - r and L(tau) = max(s_B, max_b w.x_b(tau)) + r, since a
  // vertex on a line stays on its side of a face over [0, tau] iff it does at both ends. U - L
  // is concave and decreasing; its zero is the smallest root of the linear terms below.
  double tau = kInf;
  for (int i = 0; i < a.n; ++i) tau = std::min(tau, root(pa[i] - sB, qa[i], twoR));
  for (int j = 0; j < b.n; ++j) tau = std::min(tau, root(sA - pb[j], -qb[j], twoR));
  for (int i = 0; i < a.n; ++i)
    for (int j = 0; j < b.n; ++j) tau = std::min(tau, root(pa[i] - pb[j], qa[i] - qb[j], twoR));
  double c;
  if (tau == kInf) {
    c = 0.5 * (sA + sB);
  } else {
    double U = sA, L = sB;
    for (int i = 0; i < a.n; ++i) U = std::min(U, pa[i] + tau * qa[i]);
    for (int j = 0; j < b.n; ++j) L = std::max(L, pb[j] + tau * qb[j]);
    c = 0.5 * (U + L);
  }
  // The slab must separate now: c in [s_B + r, s_A - r] (non-empty since s_A - s_B >= 2r).
  c = std::clamp(c, sB + r, sA - r);
  slab.w = w;
  slab.c = c;
  slab.r = r;
  lifetime = slabLifetime(slab, a, b);
  return true;
}

double slabLifetime(const Slab& slab, const SlabSide& a, const SlabSide& b) {
  double t = kInf;
  const double top = slab.c + slab.r, bottom = slab.c - slab.r;
  for (int i = 0; i < a.n; ++i) {
    const double q = slab.w.dot(a.v[i]);
    if (q < 0.0) t = std::min(t, std::max(0.0, (top - slab.w.dot(a.x[i])) / q));
  }
  for (int i = 0; i < b.n; ++i) {
    const double q = slab.w.dot(b.v[i]);
    if (q > 0.0) t = std::min(t, std::max(0.0, (bottom - slab.w.dot(b.x[i])) / q));
  }
  return t;
}

bool slabSeparates(const Slab& slab, const SlabSide& a, const SlabSide& b, double tol) {
  for (int i = 0; i < a.n; ++i)
    if (slab.w.dot(a.x[i]) < slab.c + slab.r - tol) return false;
  for (int i = 0; i < b.n; ++i)
    if (slab.w.dot(b.x[i]) > slab.c - slab.r + tol) return false;
  return true;
}

}  // namespace kinema::avi

#include "framework/geometry/narrow_phase.hpp"

#include <Eigen/Geometry>  // cross()
#include <algorithm>
#include <cmath>
#include <limits>

namespace kinema::geometry {

namespace {

template <int D>
using Vec = Eigen::Matrix<double, D, 1>;

// Relative round-off allowance when grouping co-planar candidate points into one manifold.
constexpr double kRoundOff = 1e-9;
// A face axis beats an edge axis (and A's faces beat B's) unless the other is better by more than
// this fraction of the separation (plus round-off): stable manifolds for resting contact.
constexpr double kAxisBias = 1e-4;

double sgn(double x) { return x >= 0.0 ? 1.0 : -1.0; }

// Candidate points of a multi-point manifold before the keep rule.
template <int D>
struct Candidates {
  static constexpr int kCap = 16;
  std::array<ContactPoint<D>, kCap> p{};
  int n = 0;
  void add(const Vec<D>& x, double s) {
    if (n < kCap) p[n++] = {x, s};
  }
};

// Keeps every candidate with distance <= max(min + round-off, margin) (see narrow_phase.hpp).
template <int D>
void keep(Contact<D>& c, const Candidates<D>& cand, double margin, double scale) {
  double minS = std::numeric_limits<double>::infinity();
  for (int k = 0; k < cand.n; ++k) minS = std::min(minS, cand.p[k].distance);
  const double threshold = std::max(minS + kRoundOff * scale, margin);
  for (int k = 0; k < cand.n; ++k)
    if (cand.p[k].distance <= threshold) c.addPoint(cand.p[k].position, cand.p[k].distance);
}

// A polygon (3D: a closed loop; 2D: a segment) clipped by half-spaces {x : dir . x <= offset}.
template <int D>
struct Poly {
  std::array<Vec<D>, 16> v;
  int n = 0;
};

template <int D>
void clip(Poly<D>& poly, const Vec<D>& dir, double offset) {
  if constexpr (D == 2) {
    if (poly.n < 2) return;
    const double d0 = dir.dot(poly.v[0]) - offset, d1 = dir.dot(poly.v[1]) - offset;
    if (d0 > 0.0 && d1 > 0.0) {
      poly.n = 0;
      return;
    }
    const Vec<D> p0 = poly.v[0], p1 = poly.v[1];
    if (d0 > 0.0) poly.v[0] = p0 + (p1 - p0) * (d0 / (d0 - d1));
    if (d1 > 0.0) poly.v[1] = p1 + (p0 - p1) * (d1 / (d1 - d0));
  } else {
    Poly<D> out;
    for (int k = 0; k < poly.n; ++k) {
      const Vec<D>& a = poly.v[(k + poly.n - 1) % poly.n];
      const Vec<D>& b = poly.v[k];
      const double da = dir.dot(a) - offset, db = dir.dot(b) - offset;
      if (db <= 0.0) {
        if (da > 0.0 && out.n < 16) out.v[out.n++] = a + (b - a) * (da / (da - db));
        if (out.n < 16) out.v[out.n++] = b;
      } else if (da <= 0.0 && out.n < 16) {
        out.v[out.n++] = a + (b - a) * (da / (da - db));
      }
    }
    poly = out;
  }
}

// Closest points of the segments p + s d (|s| <= hp) and q + u e (|u| <= hq), unit d, e, not
// parallel (Ericson, Real-Time Collision Detection 5.1.9).
template <int D>
void closestSegmentPoints(const Vec<D>& p, const Vec<D>& d, double hp, const Vec<D>& q,
                          const Vec<D>& e, double hq, Vec<D>& onP, Vec<D>& onQ) {
  const Vec<D> r = p - q;
  const double b = d.dot(e), c = d.dot(r), f = e.dot(r);
  const double denom = 1.0 - b * b;
  double s = denom > 1e-14 ? std::clamp((b * f - c) / denom, -hp, hp) : 0.0;
  double u = std::clamp(b * s + f, -hq, hq);
  s = std::clamp(b * u - c, -hp, hp);
  onP = p + s * d;
  onQ = q + u * e;
}

// Edge axes a_i x b_j of two boxes: the largest separation over the non-parallel edge pairs, the
// edges (eA, eB) giving it, and its unit normal pointing from a to b. eA stays -1 if all are parallel.
double bestEdgeAxis(const Box<3>& a, const Box<3>& b, const Vec<3>& t, int& eA, int& eB, Vec<3>& edgeNormal) {
  double sE = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      Vec<3> L = a.rotation.col(i).cross(b.rotation.col(j));
      const double len = L.norm();
      if (len < 1e-6) continue;  // parallel edges: the face axes cover this direction
      L /= len;
      const double rA = (a.rotation.transpose() * L).cwiseAbs().dot(a.halfExtents);
      const double rB = (b.rotation.transpose() * L).cwiseAbs().dot(b.halfExtents);
      const double tl = t.dot(L);
      const double s = std::abs(tl) - rA - rB;
      if (s > sE) sE = s, eA = i, eB = j, edgeNormal = sgn(tl) * L;
    }
  return sE;
}

// Edge-edge contact point on edges eA of a and eB of b, for c.normal and c.distance already set.
void addEdgeContact(Contact<3>& c, const Box<3>& a, const Box<3>& b, int eA, int eB) {
  // The edge of A furthest along n and the edge of B furthest along -n.
  Vec<3> pA = a.centre, pB = b.centre;
  for (int m = 0; m < 3; ++m) {
    if (m != eA) pA += sgn(c.normal.dot(a.rotation.col(m))) * a.halfExtents[m] * a.rotation.col(m);
    if (m != eB) pB -= sgn(c.normal.dot(b.rotation.col(m))) * b.halfExtents[m] * b.rotation.col(m);
  }
  Vec<3> onA, onB;
  closestSegmentPoints<3>(pA, a.rotation.col(eA), a.halfExtents[eA], pB, b.rotation.col(eB), b.halfExtents[eB],
                          onA, onB);
  c.addPoint(0.5 * (onA + onB), c.distance);
}

// Incident face: the face of `inc` most anti-parallel to nRef (3D: a quad; 2D: a segment).
template <int D>
Poly<D> incidentFace(const Box<D>& inc, const Vec<D>& nRef) {
  const Vec<D> dots = inc.rotation.transpose() * nRef;
  int j = 0;
  for (int m = 1; m < D; ++m)
    if (std::abs(dots[m]) > std::abs(dots[j])) j = m;
  const double faceSign = dots[j] > 0.0 ? -1.0 : 1.0;
  const Vec<D> fc = inc.centre + faceSign * inc.halfExtents[j] * inc.rotation.col(j);
  Poly<D> poly;
  if constexpr (D == 2) {
    const int u = 1 - j;
    const Vec<D> eu = inc.halfExtents[u] * inc.rotation.col(u);
    poly.v[0] = fc + eu;
    poly.v[1] = fc - eu;
    poly.n = 2;
  } else {
    const int u = (j + 1) % 3, v = (j + 2) % 3;
    const Vec<D> eu = inc.halfExtents[u] * inc.rotation.col(u);
    const Vec<D> ev = inc.halfExtents[v] * inc.rotation.col(v);
    poly.v[0] = fc + eu + ev;
    poly.v[1] = fc - eu + ev;
    poly.v[2] = fc - eu - ev;
    poly.v[3] = fc + eu - ev;
    poly.n = 4;
  }
  return poly;
}

// Clips the incident face by the side faces of the reference box `ref` (every axis but k).
template <int D>
void clipToSideFaces(Poly<D>& poly, const Box<D>& ref, int k) {
  for (int m = 0; m < D; ++m) {
    if (m == k) continue;
    const Vec<D> r = ref.rotation.col(m);
    const double rc = r.dot(ref.centre);
    clip(poly, r, rc + ref.halfExtents[m]);
    clip(poly, Vec<D>(-r), -rc + ref.halfExtents[m]);
  }
}

}  // namespace

template <int D>
Contact<D> collide(const Sphere<D>& a, const Sphere<D>& b) {
  Contact<D> c;
  const Vec<D> t = b.centre - a.centre;
  const double len = t.norm();
  c.normal = len > 0.0 ? Vec<D>(t / len) : Vec<D>(Vec<D>::UnitX());
  c.distance = len - a.radius - b.radius;
  const Vec<D> wa = a.centre + a.radius * c.normal, wb = b.centre - b.radius * c.normal;
  c.addPoint(0.5 * (wa + wb), c.distance);
  return c;
}

template <int D>
Contact<D> collide(const Sphere<D>& a, const HalfSpace<D>& b) {
  Contact<D> c;
  const double height = b.normal.dot(a.centre) - b.offset;  // of the centre above the plane
  c.normal = -b.normal;
  c.distance = height - a.radius;
  const Vec<D> wa = a.centre - a.radius * b.normal, wb = a.centre - height * b.normal;
  c.addPoint(0.5 * (wa + wb), c.distance);
  return c;
}

template <int D>
Contact<D> collide(const Sphere<D>& a, const Box<D>& b) {
  Contact<D> c;
  const Vec<D> p = b.rotation.transpose() * (a.centre - b.centre);  // in the box frame
  const Vec<D> q = p.cwiseMax(-b.halfExtents).cwiseMin(b.halfExtents);
  Vec<D> outward;  // box frame, from the box towards the sphere
  Vec<D> onBox = q;
  const Vec<D> diff = p - q;
  const double len = diff.norm();
  if (len > 0.0) {
    outward = diff / len;
    c.distance = len - a.radius;
  } else {
    // Centre inside: leave through the face of least depth.
    int k = 0;
    double depth = std::numeric_limits<double>::infinity();
    for (int m = 0; m < D; ++m) {
      const double dm = b.halfExtents[m] - std::abs(p[m]);
      if (dm < depth) {
        depth = dm;
        k = m;
      }
    }
    outward = sgn(p[k]) * Vec<D>::Unit(k);
    onBox[k] = sgn(p[k]) * b.halfExtents[k];
    c.distance = -depth - a.radius;
  }
  const Vec<D> outwardWorld = b.rotation * outward;
  c.normal = -outwardWorld;
  const Vec<D> wb = b.centre + b.rotation * onBox, wa = a.centre - a.radius * outwardWorld;
  c.addPoint(0.5 * (wa + wb), c.distance);
  return c;
}

template <int D>
Contact<D> collide(const Box<D>& a, const HalfSpace<D>& b, double margin) {
  Contact<D> c;
  c.normal = -b.normal;
  Candidates<D> cand;
  double minS = std::numeric_limits<double>::infinity();
  for (int corner = 0; corner < (1 << D); ++corner) {
    Vec<D> local;
    for (int k = 0; k < D; ++k) local[k] = (corner >> k & 1) ? a.halfExtents[k] : -a.halfExtents[k];
    const Vec<D> v = a.centre + a.rotation * local;
    const double s = b.normal.dot(v) - b.offset;
    minS = std::min(minS, s);
    cand.add(v - 0.5 * s * b.normal, s);
  }
  c.distance = minS;
  keep(c, cand, margin, a.centre.cwiseAbs().maxCoeff() + std::abs(b.offset) + a.halfExtents.sum());
  return c;
}

template <int D>
Contact<D> collide(const Box<D>& a, const Box<D>& b, double margin) {
  using Mat = Eigen::Matrix<double, D, D>;
  Contact<D> c;
  const Vec<D> t = b.centre - a.centre;
  const Mat C = a.rotation.transpose() * b.rotation;  // C(i, j) = a_i . b_j
  const Mat absC = C.cwiseAbs();
  const Vec<D> tA = a.rotation.transpose() * t, tB = b.rotation.transpose() * t;
  const double scale = std::max(a.centre.cwiseAbs().maxCoeff(), b.centre.cwiseAbs().maxCoeff()) +
                       a.halfExtents.sum() + b.halfExtents.sum();
  auto better = [&](double challenger, double incumbent) {
    return challenger > incumbent + kAxisBias * std::abs(incumbent) + kRoundOff * scale;
  };

  // Face axes of A, then of B.
  double sA = -std::numeric_limits<double>::infinity(), sB = sA;
  int kA = 0, kB = 0;
  for (int k = 0; k < D; ++k) {
    const double s = std::abs(tA[k]) - a.halfExtents[k] - absC.row(k).dot(b.halfExtents);
    if (s > sA) sA = s, kA = k;
  }
  for (int k = 0; k < D; ++k) {
    const double s = std::abs(tB[k]) - b.halfExtents[k] - absC.col(k).dot(a.halfExtents);
    if (s > sB) sB = s, kB = k;
  }
  bool refIsA = true;
  double best = sA;
  if (better(sB, sA)) refIsA = false, best = sB;

  // Edge axes a_i x b_j (3D only).
  if constexpr (D == 3) {
    int eA = -1, eB = -1;
    Vec<D> edgeNormal = Vec<D>::Zero();
    const double sE = bestEdgeAxis(a, b, t, eA, eB, edgeNormal);
    if (eA >= 0 && better(sE, best)) {
      c.distance = sE;
      c.normal = edgeNormal;
      addEdgeContact(c, a, b, eA, eB);
      return c;
    }
  }

  // Face contact: reference face on `ref`, incident face on `inc`.
  const Box<D>& ref = refIsA ? a : b;
  const Box<D>& inc = refIsA ? b : a;
  const int k = refIsA ? kA : kB;
  const double tk = refIsA ? tA[k] : -tB[k];  // other centre relative to ref, along ref axis k
  const Vec<D> nRef = sgn(tk) * ref.rotation.col(k);  // out of the reference face
  c.distance = best;
  c.normal = refIsA ? nRef : Vec<D>(-nRef);

  Poly<D> poly = incidentFace(inc, nRef);
  const Poly<D> unclipped = poly;
  clipToSideFaces(poly, ref, k);
  // Separated boxes offset sideways can clip the whole face away: fall back to its vertices.
  if (poly.n == 0) poly = unclipped;
  const double faceOffset = nRef.dot(ref.centre) + ref.halfExtents[k];
  Candidates<D> cand;
  for (int m = 0; m < poly.n; ++m) {
    const double s = nRef.dot(poly.v[m]) - faceOffset;
    cand.add(poly.v[m] - 0.5 * s * nRef, s);
  }
  keep(c, cand, margin, scale);
  return c;
}

#define KINEMA_NARROW_PHASE_INSTANTIATE(D)                                              \
  template Contact<D> collide<D>(const Sphere<D>&, const Sphere<D>&);                  \
  template Contact<D> collide<D>(const Sphere<D>&, const HalfSpace<D>&);               \
  template Contact<D> collide<D>(const Sphere<D>&, const Box<D>&);                     \
  template Contact<D> collide<D>(const Box<D>&, const HalfSpace<D>&, double);          \
  template Contact<D> collide<D>(const Box<D>&, const Box<D>&, double);
KINEMA_NARROW_PHASE_INSTANTIATE(2)
KINEMA_NARROW_PHASE_INSTANTIATE(3)
#undef KINEMA_NARROW_PHASE_INSTANTIATE

}  // namespace kinema::geometry

// Closest points between points, segments, triangles and planes (primitive_distance.hpp;
// modules/avi/README.md, decision 26). Every function builds a* and b* from the weights it returns,
// so the weights reproduce the closest points exactly (up to the rounding of the weighted sums).
#include "framework/geometry/primitive_distance.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>

namespace kinema::geometry {

namespace {

using Vec3 = Eigen::Vector3d;

// Fills d, n and degenerate from a* and b*; `fallback` is the unit normal used when d == 0.
void finish(ClosestPoints& c, const Vec3& aStar, const Vec3& bStar, const Vec3& fallback) {
  const Vec3 diff = aStar - bStar;
  c.d = diff.norm();
  if (c.d > 0.0) {
    c.n = diff / c.d;
    c.degenerate = false;
  } else {
    c.n = fallback;
    c.degenerate = true;
  }
}

// A unit vector along v, or +x when v is (numerically) zero.
Vec3 unitOr(const Vec3& v, double scale2) {
  const double n2 = v.squaredNorm();
  if (n2 > 1e-28 * scale2 && n2 > 0.0) return v / std::sqrt(n2);
  return Vec3::UnitX();
}

// Parameter t in [0, 1] of the point of segment (a, b) closest to p (0 for a degenerate segment).
double segmentParameter(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 ab = b - a;
  const double l2 = ab.squaredNorm();
  if (l2 <= 0.0) return 0.0;
  return std::clamp((p - a).dot(ab) / l2, 0.0, 1.0);
}

// Candidate of the segment-segment search: parameters s on (p0, p1), t on (q0, q1), squared distance.
struct SegCandidate {
  double s = 0.0, t = 0.0, d2 = 0.0;
};

SegCandidate segCandidate(double s, double t, const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1) {
  const Vec3 a = (1.0 - s) * p0 + s * p1;
  const Vec3 b = (1.0 - t) * q0 + t * q1;
  return {s, t, (a - b).squaredNorm()};
}

// Relative round-off tolerance of the intersection predicates: a signed volume or area whose
// magnitude is below kSnap times its natural scale counts as zero (touching / coplanar), so that
// the answer does not depend on the frame or the labelling for touching and coplanar triangles.
constexpr double kSnap = 1e-12;

// The sign of x with |x| <= tol snapped to 0.
int snapSign(double x, double tol) { return x > tol ? 1 : (x < -tol ? -1 : 0); }

int orient2d(const Eigen::Vector2d& a, const Eigen::Vector2d& b, const Eigen::Vector2d& c, double tol) {
  const Eigen::Vector2d u = b - a, v = c - a;
  return snapSign(u.x() * v.y() - u.y() * v.x(), tol);
}

// c on the closed segment (a, b), given that a, b, c are collinear (up to the tolerance).
bool onSegment2d(const Eigen::Vector2d& a, const Eigen::Vector2d& b, const Eigen::Vector2d& c, double tol) {
  const Eigen::Vector2d ab = b - a;
  const double l2 = ab.squaredNorm();
  if (l2 == 0.0) return (c - a).norm() <= tol;
  const double t = (c - a).dot(ab) / l2;
  const double slack = tol / std::sqrt(l2);
  return t >= -slack && t <= 1.0 + slack;
}

bool segmentsIntersect2d(const Eigen::Vector2d& p, const Eigen::Vector2d& q, const Eigen::Vector2d& a,
                         const Eigen::Vector2d& b, double areaTol, double lenTol) {
  const int o1 = orient2d(p, q, a, areaTol), o2 = orient2d(p, q, b, areaTol);
  const int o3 = orient2d(a, b, p, areaTol), o4 = orient2d(a, b, q, areaTol);
  if (o1 * o2 < 0 && o3 * o4 < 0) return true;
  if (o1 == 0 && onSegment2d(p, q, a, lenTol)) return true;
  if (o2 == 0 && onSegment2d(p, q, b, lenTol)) return true;
  if (o3 == 0 && onSegment2d(a, b, p, lenTol)) return true;
  if (o4 == 0 && onSegment2d(a, b, q, lenTol)) return true;
  return false;
}

bool pointInTriangle2d(const Eigen::Vector2d& p, const Eigen::Vector2d& a, const Eigen::Vector2d& b,
                       const Eigen::Vector2d& c, double areaTol) {
  const int o1 = orient2d(a, b, p, areaTol), o2 = orient2d(b, c, p, areaTol), o3 = orient2d(c, a, p, areaTol);
  return (o1 >= 0 && o2 >= 0 && o3 >= 0) || (o1 <= 0 && o2 <= 0 && o3 <= 0);
}

// True if the closed segment (p, q) meets the closed triangle (a, b, c), up to round-off relative
// to the length scale L of the pair.
bool segmentMeetsTriangle(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c, double L) {
  const Vec3 normal = (b - a).cross(c - a);
  const double nn = normal.norm();
  const double own2 = std::max({(b - a).squaredNorm(), (c - a).squaredNorm(), (c - b).squaredNorm()});
  if (nn <= 1e-12 * own2) {
    // Degenerate (needle or point) triangle: it is the union of its edges.
    const double tol = kSnap * L;
    return segmentSegment(p, q, a, b).d <= tol || segmentSegment(p, q, b, c).d <= tol ||
           segmentSegment(p, q, c, a).d <= tol;
  }
  const double volTol = kSnap * nn * L;
  const int sp = snapSign(normal.dot(p - a), volTol), sq = snapSign(normal.dot(q - a), volTol);
  if (sp * sq > 0) return false;
  int drop = 0;
  normal.cwiseAbs().maxCoeff(&drop);
  const int i0 = (drop + 1) % 3, i1 = (drop + 2) % 3;
  auto proj = [&](const Vec3& x) { return Eigen::Vector2d(x[i0], x[i1]); };
  const Eigen::Vector2d A = proj(a), B = proj(b), C = proj(c);
  const double areaTol = kSnap * L * L, lenTol = kSnap * L;
  if (sp != 0 || sq != 0) {
    // The segment meets the plane at one point only: where it crosses it (strictly opposite
    // sides), or at the end lying on it (within round-off). It meets the triangle iff that point
    // is in it. (A test on the segment's infinite line, with triple products snapped to zero,
    // misjudges segments nearly parallel to the plane.)
    Vec3 x = sp == 0 ? p : q;
    if (sp != 0 && sq != 0) {
      const double vp = normal.dot(p - a), vq = normal.dot(q - a);
      x = p + (vp / (vp - vq)) * (q - p);
    }
    return pointInTriangle2d(proj(x), A, B, C, areaTol);
  }
  // Coplanar: in the coordinate plane that drops the normal's dominant axis.
  const Eigen::Vector2d P = proj(p), Q = proj(q);
  if (pointInTriangle2d(P, A, B, C, areaTol) || pointInTriangle2d(Q, A, B, C, areaTol)) return true;
  return segmentsIntersect2d(P, Q, A, B, areaTol, lenTol) || segmentsIntersect2d(P, Q, B, C, areaTol, lenTol) ||
         segmentsIntersect2d(P, Q, C, A, areaTol, lenTol);
}

}  // namespace

ClosestPoints pointPoint(const Vec3& p, const Vec3& q) {
  ClosestPoints c;
  c.alpha = {1.0, 0.0, 0.0};
  c.beta = {1.0, 0.0, 0.0};
  finish(c, p, q, Vec3::UnitX());
  return c;
}

ClosestPoints pointSegment(const Vec3& p, const Vec3& a, const Vec3& b) {
  ClosestPoints c;
  const double t = segmentParameter(p, a, b);
  c.alpha = {1.0, 0.0, 0.0};
  c.beta = {1.0 - t, t, 0.0};
  finish(c, p, c.beta[0] * a + c.beta[1] * b, Vec3::UnitX());
  return c;
}

// Ericson, Real-Time Collision Detection, 5.1.5 (Voronoi regions of the vertices, edges and face).
ClosestPoints pointTriangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  ClosestPoints out;
  out.alpha = {1.0, 0.0, 0.0};
  const Vec3 ab = b - a, ac = c - a, bc = c - b;
  const Vec3 normal = ab.cross(ac);
  const double scale2 = std::max({ab.squaredNorm(), ac.squaredNorm(), bc.squaredNorm()});
  const Vec3 fallback = unitOr(normal, scale2 * scale2);
  auto done = [&](double u, double v, double w) {
    out.beta = {u, v, w};
    finish(out, p, u * a + v * b + w * c, fallback);
    return out;
  };
  if (normal.squaredNorm() <= 1e-24 * scale2 * scale2) {
    // Degenerate triangle (collinear or coincident vertices): the closest of its three edges.
    const double tab = segmentParameter(p, a, b), tbc = segmentParameter(p, b, c), tca = segmentParameter(p, c, a);
    const double dab = (p - ((1 - tab) * a + tab * b)).squaredNorm();
    const double dbc = (p - ((1 - tbc) * b + tbc * c)).squaredNorm();
    const double dca = (p - ((1 - tca) * c + tca * a)).squaredNorm();
    if (dab <= dbc && dab <= dca) return done(1 - tab, tab, 0);
    if (dbc <= dca) return done(0, 1 - tbc, tbc);
    return done(tca, 0, 1 - tca);
  }
  const Vec3 ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return done(1, 0, 0);  // vertex region a
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return done(0, 1, 0);  // vertex region b
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {  // edge region ab
    const double v = d1 / (d1 - d3);
    return done(1 - v, v, 0);
  }
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return done(0, 0, 1);  // vertex region c
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {  // edge region ac
    const double w = d2 / (d2 - d6);
    return done(1 - w, 0, w);
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {  // edge region bc
    const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return done(0, 1 - w, w);
  }
  // Face region.
  const double denom = 1.0 / (va + vb + vc);
  const double v = vb * denom, w = vc * denom;
  return done(1 - v - w, v, w);
}

// The squared distance of the two segments is a convex quadratic in (s, t) on [0, 1]^2: its
// minimum is the interior stationary point when that exists and lies inside, else it lies on one
// of the four sides, each a point-segment problem. Taking the best of these five candidates is
// robust for parallel and degenerate segments.
ClosestPoints segmentSegment(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1) {
  const Vec3 d1 = p1 - p0, d2 = q1 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm();

  SegCandidate best;
  best.d2 = std::numeric_limits<double>::infinity();
  auto consider = [&](const SegCandidate& cand) {
    if (cand.d2 < best.d2) best = cand;
  };
  // Interior stationary point of the two lines, in the cross-product form (accurate for nearly
  // parallel segments, where a e - b^2 = |d1 x d2|^2 cancels catastrophically):
  // s = ((q0 - p0) x d2) . m / |m|^2, t = ((q0 - p0) x d1) . m / |m|^2, m = d1 x d2.
  // Every candidate is a feasible pair of points, so an ill-conditioned interior candidate can
  // only be rejected by the minimum, never make the answer worse.
  const Vec3 m = d1.cross(d2);
  const double mm = m.squaredNorm();
  if (mm > 0.0) {
    const Vec3 r = q0 - p0;
    const double s = r.cross(d2).dot(m) / mm;
    const double t = r.cross(d1).dot(m) / mm;
    if (s > 0 && s < 1 && t > 0 && t < 1) consider(segCandidate(s, t, p0, p1, q0, q1));
  }
  consider(segCandidate(0.0, segmentParameter(p0, q0, q1), p0, p1, q0, q1));
  consider(segCandidate(1.0, segmentParameter(p1, q0, q1), p0, p1, q0, q1));
  consider(segCandidate(segmentParameter(q0, p0, p1), 0.0, p0, p1, q0, q1));
  consider(segCandidate(segmentParameter(q1, p0, p1), 1.0, p0, p1, q0, q1));

  ClosestPoints out;
  out.alpha = {1.0 - best.s, best.s, 0.0};
  out.beta = {1.0 - best.t, best.t, 0.0};
  const double scale2 = std::max(a, e);
  finish(out, out.alpha[0] * p0 + out.alpha[1] * p1, out.beta[0] * q0 + out.beta[1] * q1,
         unitOr(m, scale2 * scale2));
  return out;
}

ClosestPoints pointPlane(const Vec3& p, const Vec3& normal, double offset) {
  ClosestPoints out;
  out.d = normal.dot(p) - offset;
  out.n = normal;
  out.alpha = {1.0, 0.0, 0.0};
  out.beta = {1.0, 0.0, 0.0};
  out.degenerate = (out.d == 0.0);
  return out;
}

// Two closed triangles meet iff an edge of one meets the other triangle: for non-coplanar
// triangles the intersection is a segment whose endpoints lie on edges of A or of B; for coplanar
// ones it is a convex polygon whose vertices are edge crossings or vertices inside the other.
bool trianglesIntersect(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0, const Vec3& b1,
                        const Vec3& b2) {
  // Length scale of the pair: the diagonal of the common bounding box.
  Eigen::AlignedBox3d box(a0);
  for (const Vec3* x : {&a1, &a2, &b0, &b1, &b2}) box.extend(*x);
  const double L = box.diagonal().norm();
  if (!(L > 0.0)) return true;  // all six vertices coincide
  // Quick rejection: all of B strictly on one side of A's plane, or vice versa.
  auto oneSide = [L](const Vec3& p0, const Vec3& p1, const Vec3& p2, const Vec3& q0, const Vec3& q1, const Vec3& q2) {
    const Vec3 normal = (p1 - p0).cross(p2 - p0);
    const double tol = kSnap * normal.norm() * L;
    const int s0 = snapSign(normal.dot(q0 - p0), tol), s1 = snapSign(normal.dot(q1 - p0), tol),
              s2 = snapSign(normal.dot(q2 - p0), tol);
    return (s0 > 0 && s1 > 0 && s2 > 0) || (s0 < 0 && s1 < 0 && s2 < 0);
  };
  if (oneSide(a0, a1, a2, b0, b1, b2) || oneSide(b0, b1, b2, a0, a1, a2)) return false;
  return segmentMeetsTriangle(a0, a1, b0, b1, b2, L) || segmentMeetsTriangle(a1, a2, b0, b1, b2, L) ||
         segmentMeetsTriangle(a2, a0, b0, b1, b2, L) || segmentMeetsTriangle(b0, b1, a0, a1, a2, L) ||
         segmentMeetsTriangle(b1, b2, a0, a1, a2, L) || segmentMeetsTriangle(b2, b0, a0, a1, a2, L);
}

}  // namespace kinema::geometry

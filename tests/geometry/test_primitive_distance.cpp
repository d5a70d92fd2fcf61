// Closest points between simplicial primitives (framework/geometry/primitive_distance.hpp;
// specs/avi.md section 2.3): random configurations against brute-force sampling of the
// primitives, weights reproducing a* and b*, the gradient of d by finite differences equal to
// alpha_a n / -beta_b n, parallel / collinear / degenerate segments, touching -> degenerate with a
// unit normal, the signed point-plane distance, and triangle-triangle intersection on
// constructed intersecting / separated cases (also under random rigid motions and relabelling).
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <array>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "framework/geometry/primitive_distance.hpp"

using namespace kinema::geometry;
using Eigen::Vector3d;

namespace {

Vector3d rnd(std::mt19937& rng, double s = 1.0) {
  std::uniform_real_distribution<double> u(-s, s);
  return Vector3d(u(rng), u(rng), u(rng));
}

Eigen::Matrix3d randomRotation(std::mt19937& rng) {
  std::normal_distribution<double> g;
  Eigen::Quaterniond q(g(rng), g(rng), g(rng), g(rng));
  return q.normalized().toRotationMatrix();
}

// A primitive as its vertex list (1 point, 2 segment, 3 triangle).
using Prim = std::vector<Vector3d>;

ClosestPoints query(const Prim& A, const Prim& B) {
  if (A.size() == 1 && B.size() == 1) return pointPoint(A[0], B[0]);
  if (A.size() == 1 && B.size() == 2) return pointSegment(A[0], B[0], B[1]);
  if (A.size() == 1 && B.size() == 3) return pointTriangle(A[0], B[0], B[1], B[2]);
  return segmentSegment(A[0], A[1], B[0], B[1]);
}

// Sample points of a primitive: a uniform barycentric grid with n intervals per edge.
std::vector<Vector3d> samples(const Prim& P, int n) {
  std::vector<Vector3d> out;
  if (P.size() == 1) return {P[0]};
  if (P.size() == 2) {
    for (int i = 0; i <= n; ++i) out.push_back(P[0] + (P[1] - P[0]) * (double(i) / n));
    return out;
  }
  for (int i = 0; i <= n; ++i)
    for (int j = 0; i + j <= n; ++j) out.push_back(P[0] + (P[1] - P[0]) * (double(i) / n) + (P[2] - P[0]) * (double(j) / n));
  return out;
}

// Checks the structural contract: weights valid (in [0, 1], sum 1), d = |a* - b*|, n unit and
// (a* - b*) / d. Returns a* and b*.
std::pair<Vector3d, Vector3d> checkContract(const Prim& A, const Prim& B, const ClosestPoints& c) {
  Vector3d a = Vector3d::Zero(), b = Vector3d::Zero();
  double sa = 0.0, sb = 0.0;
  for (std::size_t i = 0; i < A.size(); ++i) {
    EXPECT_GE(c.alpha[i], 0.0);
    EXPECT_LE(c.alpha[i], 1.0);
    a += c.alpha[i] * A[i];
    sa += c.alpha[i];
  }
  for (std::size_t i = 0; i < B.size(); ++i) {
    EXPECT_GE(c.beta[i], 0.0);
    EXPECT_LE(c.beta[i], 1.0);
    b += c.beta[i] * B[i];
    sb += c.beta[i];
  }
  EXPECT_NEAR(sa, 1.0, 1e-14);
  EXPECT_NEAR(sb, 1.0, 1e-14);
  EXPECT_NEAR(c.d, (a - b).norm(), 1e-14 * (1 + c.d));
  EXPECT_NEAR(c.n.norm(), 1.0, 1e-14);
  if (c.d > 0) {
    EXPECT_FALSE(c.degenerate);
    EXPECT_LE((c.n - (a - b) / c.d).norm(), 1e-12);
  }
  return {a, b};
}

// Random configurations of one pair type against brute-force sampling; returns the largest
// finite-difference gradient error seen.
double randomPairs(int na, int nb, int configs, int samplesPerEdge, unsigned seed) {
  std::mt19937 rng(seed);
  double worstGrad = 0.0;
  for (int k = 0; k < configs; ++k) {
    Prim A, B;
    for (int i = 0; i < na; ++i) A.push_back(rnd(rng));
    for (int i = 0; i < nb; ++i) B.push_back(rnd(rng) + Vector3d(0.3, 0.2, 0.1));
    const ClosestPoints c = query(A, B);
    checkContract(A, B, c);
    // Brute force: no sampled pair is closer than d; the sampled minimum is within the sampling
    // resolution of d (|edge| / n per primitive).
    double brute = INFINITY;
    const auto sa = samples(A, samplesPerEdge), sb = samples(B, samplesPerEdge);
    for (const auto& p : sa)
      for (const auto& q : sb) brute = std::min(brute, (p - q).norm());
    EXPECT_LE(c.d, brute + 1e-12) << "config " << k;
    EXPECT_GE(c.d, brute - 2.0 * 2.0 * std::sqrt(3.0) / samplesPerEdge) << "config " << k;
    // Gradient of d by central differences: alpha_a n on A, -beta_b n on B.
    if (c.d < 1e-3) continue;
    const double h = 1e-7;
    for (int side = 0; side < 2; ++side) {
      Prim& P = side == 0 ? A : B;
      for (std::size_t v = 0; v < P.size(); ++v) {
        const Vector3d expected = side == 0 ? Vector3d(c.alpha[v] * c.n) : Vector3d(-c.beta[v] * c.n);
        for (int comp = 0; comp < 3; ++comp) {
          const double x0 = P[v][comp];
          P[v][comp] = x0 + h;
          const double dp = query(A, B).d;
          P[v][comp] = x0 - h;
          const double dm = query(A, B).d;
          P[v][comp] = x0;
          const double err = std::abs((dp - dm) / (2 * h) - expected[comp]);
          worstGrad = std::max(worstGrad, err);
          EXPECT_LE(err, 1e-6) << "config " << k << " side " << side << " vertex " << v;
        }
      }
    }
  }
  return worstGrad;
}

bool tt(const std::array<Vector3d, 3>& a, const std::array<Vector3d, 3>& b) {
  return trianglesIntersect(a[0], a[1], a[2], b[0], b[1], b[2]);
}

// The intersection answer must not depend on the frame, the vertex order, or which is A.
void expectIntersect(std::array<Vector3d, 3> a, std::array<Vector3d, 3> b, bool expected, std::mt19937& rng,
                     const char* what) {
  EXPECT_EQ(tt(a, b), expected) << what;
  EXPECT_EQ(tt(b, a), expected) << what << " (swapped)";
  EXPECT_EQ(tt({a[1], a[2], a[0]}, {b[2], b[1], b[0]}), expected) << what << " (relabelled)";
  for (int k = 0; k < 5; ++k) {
    const Eigen::Matrix3d R = randomRotation(rng);
    const Vector3d t = rnd(rng, 3.0);
    std::array<Vector3d, 3> ra, rb;
    for (int i = 0; i < 3; ++i) {
      ra[i] = R * a[i] + t;
      rb[i] = R * b[i] + t;
    }
    EXPECT_EQ(tt(ra, rb), expected) << what << " (moved " << k << ")";
  }
}

}  // namespace

TEST(PrimitiveDistance, PointPointRandom) { randomPairs(1, 1, 50, 1, 1); }

TEST(PrimitiveDistance, PointSegmentRandom) {
  const double g = randomPairs(1, 2, 300, 4000, 2);
  std::printf("point-segment worst gradient error %.2e\n", g);
}

TEST(PrimitiveDistance, PointTriangleRandom) {
  const double g = randomPairs(1, 3, 300, 300, 3);
  std::printf("point-triangle worst gradient error %.2e\n", g);
}

TEST(PrimitiveDistance, SegmentSegmentRandom) {
  const double g = randomPairs(2, 2, 150, 500, 4);
  std::printf("segment-segment worst gradient error %.2e\n", g);
}

// Nearly parallel random pairs (B = A turned by 1e-6 .. 1e-12 rad and offset) against sampling.
TEST(PrimitiveDistance, SegmentSegmentNearlyParallelRandom) {
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int k = 0; k < 200; ++k) {
    const Vector3d p0 = rnd(rng), p1 = rnd(rng);
    const Eigen::Matrix3d R(Eigen::AngleAxisd(std::pow(10.0, -6 - 6 * u(rng)), rnd(rng).normalized()));
    const Vector3d off = rnd(rng, 0.5), mid = 0.5 * (p0 + p1);
    const double shrink = 0.2 + u(rng);
    const Vector3d q0 = mid + shrink * R * (p0 - mid) + off, q1 = mid + shrink * R * (p1 - mid) + off;
    const ClosestPoints c = segmentSegment(p0, p1, q0, q1);
    checkContract({p0, p1}, {q0, q1}, c);
    double brute = INFINITY;
    for (const auto& p : samples({p0, p1}, 2000))
      for (const auto& q : samples({q0, q1}, 40)) brute = std::min(brute, (p - q).norm());
    EXPECT_LE(c.d, brute + 1e-12) << "config " << k;
  }
}

TEST(PrimitiveDistance, PointTriangleEveryRegion) {
  // Triangle (0,0,0), (1,0,0), (0,1,0): one query point in each Voronoi region, height 0.5.
  const Vector3d a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
  struct Q {
    Vector3d p;
    std::array<double, 3> beta;
  };
  const Q qs[] = {{{-1, -1, 0.5}, {1, 0, 0}},       {{2, -0.5, 0.5}, {0, 1, 0}},   {{-0.5, 2, 0.5}, {0, 0, 1}},
                  {{0.4, -1, 0.5}, {0.6, 0.4, 0}},  {{-1, 0.3, 0.5}, {0.7, 0, 0.3}}, {{1, 1, 0.5}, {0, 0.5, 0.5}},
                  {{0.2, 0.3, 0.5}, {0.5, 0.2, 0.3}}};
  for (const Q& q : qs) {
    const ClosestPoints r = pointTriangle(q.p, a, b, c);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(r.beta[i], q.beta[i], 1e-15) << q.p.transpose();
    const Vector3d foot = q.beta[0] * a + q.beta[1] * b + q.beta[2] * c;
    EXPECT_NEAR(r.d, (q.p - foot).norm(), 1e-15);
  }
  // Below the face: n points from the triangle to the point (downwards).
  const ClosestPoints below = pointTriangle(Vector3d(0.2, 0.2, -0.3), a, b, c);
  EXPECT_NEAR(below.n.z(), -1.0, 1e-15);
  EXPECT_NEAR(below.d, 0.3, 1e-15);
  // Degenerate (collinear) triangle behaves as its edges.
  const ClosestPoints needle = pointTriangle(Vector3d(0.5, 1, 0), a, b, Vector3d(2, 0, 0));
  EXPECT_NEAR(needle.d, 1.0, 1e-15);
  checkContract({Vector3d(0.5, 1, 0)}, {a, b, Vector3d(2, 0, 0)}, needle);
}

TEST(PrimitiveDistance, ParallelAndDegenerateSegments) {
  const Vector3d p0(0, 0, 0), p1(1, 0, 0);
  // Parallel, overlapping in projection: d = 1, closest points on the overlap, a* - b* perpendicular.
  {
    const Prim A{p0, p1}, B{Vector3d(0.3, 1, 0), Vector3d(1.5, 1, 0)};
    const ClosestPoints c = segmentSegment(A[0], A[1], B[0], B[1]);
    const auto [a, b] = checkContract(A, B, c);
    EXPECT_NEAR(c.d, 1.0, 1e-15);
    EXPECT_GE(a.x(), 0.3 - 1e-15);
    EXPECT_NEAR((a - b).dot(Vector3d::UnitX()), 0.0, 1e-15);
    EXPECT_NEAR(c.n.y(), -1.0, 1e-15);
  }
  // Anti-parallel, disjoint in projection: the nearest endpoints.
  {
    const ClosestPoints c = segmentSegment(p0, p1, Vector3d(3, 1, 0), Vector3d(2, 1, 0));
    EXPECT_NEAR(c.d, std::sqrt(2.0), 1e-15);
    EXPECT_NEAR(c.alpha[1], 1.0, 1e-15);
    EXPECT_NEAR(c.beta[1], 1.0, 1e-15);
  }
  // Collinear disjoint: d = 1 between p1 and q0.
  {
    const ClosestPoints c = segmentSegment(p0, p1, Vector3d(2, 0, 0), Vector3d(3, 0, 0));
    EXPECT_NEAR(c.d, 1.0, 1e-15);
    EXPECT_NEAR(c.n.x(), -1.0, 1e-15);
  }
  // Collinear overlapping: touching, degenerate, unit normal.
  {
    const ClosestPoints c = segmentSegment(p0, p1, Vector3d(0.5, 0, 0), Vector3d(2, 0, 0));
    EXPECT_EQ(c.d, 0.0);
    EXPECT_TRUE(c.degenerate);
    EXPECT_NEAR(c.n.norm(), 1.0, 1e-15);
  }
  // Nearly parallel (angle 1e-13) against the exact answer: both endpoints of B project inside A
  // at height 0.5 and 0.5 + 1e-13.
  {
    const Vector3d q0(0.2, 0.5, 0), q1(0.9, 0.5 + 0.7e-13, 0);
    const ClosestPoints c = segmentSegment(p0, p1, q0, q1);
    checkContract({p0, p1}, {q0, q1}, c);
    EXPECT_NEAR(c.d, 0.5, 1e-14);
  }
  // Nearly parallel segments crossing in projection (an X of angle 2e-9) at offsets h: d = h.
  for (double h : {0.0, 1e-12, 1e-6, 0.3}) {
    const ClosestPoints c = segmentSegment(Vector3d(-1, 0, 0), Vector3d(1, 0, 0), Vector3d(-1, -1e-9, h),
                                           Vector3d(1, 1e-9, h));
    EXPECT_NEAR(c.d, h, 1e-15) << "h = " << h;
    EXPECT_NEAR(c.alpha[1], 0.5, 1e-6);
  }
  // Degenerate segments: a point-segment and a point-point problem.
  {
    const Vector3d q(0.3, 2, 0);
    const ClosestPoints c = segmentSegment(q, q, p0, p1);
    EXPECT_NEAR(c.d, 2.0, 1e-15);
    EXPECT_NEAR(c.beta[1], 0.3, 1e-15);
    const ClosestPoints e = segmentSegment(q, q, p1, p1);
    EXPECT_NEAR(e.d, (q - p1).norm(), 1e-15);
    const ClosestPoints f = pointSegment(q, p1, p1);
    EXPECT_NEAR(f.d, (q - p1).norm(), 1e-15);
  }
}

TEST(PrimitiveDistance, TouchingIsDegenerate) {
  const Vector3d a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
  const ClosestPoints pp = pointPoint(a, a);
  EXPECT_TRUE(pp.degenerate);
  EXPECT_EQ(pp.d, 0.0);
  EXPECT_NEAR(pp.n.norm(), 1.0, 1e-15);
  const ClosestPoints ps = pointSegment(Vector3d(0.5, 0, 0), a, b);
  EXPECT_TRUE(ps.degenerate);
  EXPECT_EQ(ps.d, 0.0);
  EXPECT_NEAR(ps.beta[1], 0.5, 1e-15);
  const ClosestPoints pt = pointTriangle(Vector3d(0.25, 0.25, 0), a, b, c);
  EXPECT_TRUE(pt.degenerate);
  EXPECT_NEAR(std::abs(pt.n.z()), 1.0, 1e-15);  // the triangle normal
  const ClosestPoints ss = segmentSegment(Vector3d(0.5, -1, 0), Vector3d(0.5, 1, 0), a, b);
  EXPECT_TRUE(ss.degenerate);
  EXPECT_NEAR(std::abs(ss.n.z()), 1.0, 1e-15);  // normal of the two crossing segments
  EXPECT_NEAR(ss.alpha[1], 0.5, 1e-15);
  EXPECT_NEAR(ss.beta[1], 0.5, 1e-15);
  // Just apart is not degenerate.
  EXPECT_FALSE(segmentSegment(Vector3d(0.5, -1, 1e-12), Vector3d(0.5, 1, 1e-12), a, b).degenerate);
}

TEST(PrimitiveDistance, PointPlane) {
  const Vector3d nrm = Vector3d(1, 2, 2) / 3.0;
  const ClosestPoints above = pointPlane(Vector3d(3, 0, 0), nrm, 0.5);
  EXPECT_NEAR(above.d, 0.5, 1e-15);
  EXPECT_EQ(above.n, nrm);
  EXPECT_FALSE(above.degenerate);
  const ClosestPoints below = pointPlane(Vector3d(0, 0, 0), nrm, 0.5);
  EXPECT_NEAR(below.d, -0.5, 1e-15);
  // Gradient of the signed distance is the normal.
  const double h = 1e-6;
  for (int k = 0; k < 3; ++k) {
    Vector3d p(0.3, -0.2, 0.9), q = p;
    p[k] += h;
    q[k] -= h;
    EXPECT_NEAR((pointPlane(p, nrm, 0.5).d - pointPlane(q, nrm, 0.5).d) / (2 * h), nrm[k], 1e-9);
  }
}

TEST(PrimitiveDistance, TriangleTriangleConstructed) {
  std::mt19937 rng(7);
  const std::array<Vector3d, 3> A{Vector3d(0, 0, 0), Vector3d(2, 0, 0), Vector3d(0, 2, 0)};
  // B vertical, piercing A's interior.
  expectIntersect(A, {Vector3d(0.5, 0.5, -1), Vector3d(0.5, 0.5, 1), Vector3d(1.0, 0.2, 1)}, true, rng, "pierce");
  // The same lifted by 1.01: separated.
  expectIntersect(A, {Vector3d(0.5, 0.5, 0.01), Vector3d(0.5, 0.5, 2), Vector3d(1.0, 0.2, 2)}, false, rng, "lifted");
  // B crosses A's plane, but outside A (beyond the hypotenuse).
  expectIntersect(A, {Vector3d(1.5, 1.5, -1), Vector3d(1.5, 1.5, 1), Vector3d(2.5, 1.2, 0)}, false, rng, "outside");
  // A's hypotenuse pierces B (no vertex of either inside the other): intersecting; B moved
  // beyond the hypotenuse: separated.
  expectIntersect(A, {Vector3d(0.8, 0.8, -1), Vector3d(0.8, 0.8, 1), Vector3d(1.4, 1.4, 0)}, true, rng, "edge");
  expectIntersect(A, {Vector3d(1.1, 1.1, -1), Vector3d(1.1, 1.1, 1), Vector3d(1.4, 1.4, 0)}, false, rng, "edge apart");
  // Vertex of B exactly on A's face.
  expectIntersect(A, {Vector3d(0.5, 0.5, 0), Vector3d(0.5, 0.5, 1), Vector3d(1.0, 0.2, 1)}, true, rng, "touch");
  // Coplanar: overlapping (star), one inside the other, disjoint.
  expectIntersect(A, {Vector3d(1.5, 1.5, 0), Vector3d(-0.5, 1, 0), Vector3d(1, -0.5, 0)}, true, rng, "coplanar star");
  expectIntersect(A, {Vector3d(0.2, 0.2, 0), Vector3d(0.5, 0.2, 0), Vector3d(0.2, 0.5, 0)}, true, rng, "coplanar inside");
  expectIntersect(A, {Vector3d(1.2, 1.2, 0), Vector3d(2, 1.2, 0), Vector3d(1.2, 2, 0)}, false, rng, "coplanar apart");
  // Parallel planes.
  expectIntersect(A, {Vector3d(0, 0, 0.1), Vector3d(2, 0, 0.1), Vector3d(0, 2, 0.1)}, false, rng, "parallel");
}

// Random family with a known answer: B is a small triangle transverse to A's plane whose interior
// contains a point P of that plane; P is inside A (intersecting) or outside A by a margin larger
// than B (separated).
TEST(PrimitiveDistance, TriangleTriangleRandomPiercing) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int hits = 0, misses = 0;
  for (int k = 0; k < 2000; ++k) {
    std::array<Vector3d, 3> A{rnd(rng), rnd(rng), rnd(rng)};
    const Vector3d nA = (A[1] - A[0]).cross(A[2] - A[0]);
    if (nA.norm() < 0.2) continue;
    // Barycentric target, some possibly negative.
    double w1 = 1.6 * u(rng) - 0.3, w2 = 1.6 * u(rng) - 0.3;
    const double w0 = 1.0 - w1 - w2;
    const double margin = std::min({w0, w1, w2});
    if (std::abs(margin) < 0.05) continue;
    const Vector3d P = w0 * A[0] + w1 * A[1] + w2 * A[2];
    // Distance scale of the margin: the smallest altitude times |margin|.
    double minAlt = INFINITY;
    for (int i = 0; i < 3; ++i) {
      const Vector3d e = A[(i + 2) % 3] - A[(i + 1) % 3];
      minAlt = std::min(minAlt, nA.norm() / e.norm());
    }
    const double size = 0.3 * std::abs(margin) * minAlt;
    // B: P at its centroid, transverse to A's plane.
    const Vector3d n = nA.normalized();
    const Vector3d t = n.cross(rnd(rng)).normalized();
    std::array<Vector3d, 3> B{P + size * (n + 0.2 * t), P + size * (-n + 0.5 * t), P + size * (0.1 * n - 0.7 * t)};
    const Vector3d centroid = (B[0] + B[1] + B[2]) / 3.0;
    for (auto& b : B) b += P - centroid;
    const bool expected = margin > 0;
    EXPECT_EQ(tt(A, B), expected) << "case " << k;
    EXPECT_EQ(tt(B, A), expected) << "case " << k;
    (expected ? hits : misses)++;
  }
  EXPECT_GT(hits, 200);
  EXPECT_GT(misses, 200);
}

// Regression (found by the sphere-plate scene): two disjoint, nearly coplanar triangles about
// 1 cm apart in their plane, off it by ~1e-11. An edge nearly parallel to the other triangle's
// plane with one end snapped onto it must not be followed along its line far outside the edge.
TEST(PrimitiveDistance, NearlyCoplanarDisjointTriangles) {
  const Eigen::Vector3d a0(10.1036297, 5.83333333, 4.70085269e-11), a1(16.4446209, 5.98535251, 1.13111484e-11),
      a2(13.4057778, 11.2487832, -1.46606817e-11);
  const Eigen::Vector3d b0(17.5, -1.33e-13, 2.80344521e-11), b1(23.3333333, -9.37e-16, 4.37e-16),
      b2(22.5382693, 6.03911105, -2.16e-12);
  EXPECT_FALSE(kinema::geometry::trianglesIntersect(a0, a1, a2, b0, b1, b2));
  EXPECT_FALSE(kinema::geometry::trianglesIntersect(b0, b1, b2, a0, a1, a2));
  // Moving B onto A (same near-plane) makes them intersect.
  const Eigen::Vector3d shift = (a0 + a1 + a2) / 3.0 - (b0 + b1 + b2) / 3.0;
  EXPECT_TRUE(kinema::geometry::trianglesIntersect(a0, a1, a2, b0 + shift, b1 + shift, b2 + shift));
}

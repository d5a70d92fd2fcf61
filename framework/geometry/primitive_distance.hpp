#pragma once
// Closest points between simplicial primitives in 3D (points, segments, triangles, planes), with
// the barycentric weights of the closest points: a* = sum_a alpha_a x_a, b* = sum_b beta_b x_b, d =
// |a* - b*|, n = (a* - b*) / d (unit, from B to A). By the envelope theorem the gradient of d is
// alpha_a n on the vertices of A and -beta_b n on those of B (docs/geometry.md;
// modules/avi/README.md, decision 26), so a penalty force built from these weights has zero net
// force and zero net torque.
//
// 2D problems use the same functions with z = 0 (point-point, point-segment).
// When d == 0 (touching / intersecting primitives) n is set to a unit vector that is still
// consistent (the segment-segment or triangle normal where defined, else +x) and `degenerate`
// is true; callers that need n treat that as an intersection.
#include <Eigen/Core>
#include <array>

namespace kinema::geometry {

struct ClosestPoints {
  double d = 0.0;                              // distance |a* - b*|
  Eigen::Vector3d n = Eigen::Vector3d::UnitX();  // (a* - b*) / d
  std::array<double, 3> alpha{1.0, 0.0, 0.0};  // weights on A's vertices (sum 1)
  std::array<double, 3> beta{1.0, 0.0, 0.0};   // weights on B's vertices (sum 1)
  bool degenerate = false;                     // d == 0 (n not defined by the geometry)
};

// A = point p, B = point q.
ClosestPoints pointPoint(const Eigen::Vector3d& p, const Eigen::Vector3d& q);
// A = point p, B = segment (a, b).
ClosestPoints pointSegment(const Eigen::Vector3d& p, const Eigen::Vector3d& a, const Eigen::Vector3d& b);
// A = point p, B = triangle (a, b, c) (Voronoi-region method, Ericson 5.1.5).
ClosestPoints pointTriangle(const Eigen::Vector3d& p, const Eigen::Vector3d& a, const Eigen::Vector3d& b,
                            const Eigen::Vector3d& c);
// A = segment (p0, p1), B = segment (q0, q1); robust for parallel and degenerate segments.
ClosestPoints segmentSegment(const Eigen::Vector3d& p0, const Eigen::Vector3d& p1,
                             const Eigen::Vector3d& q0, const Eigen::Vector3d& q1);
// A = point p, B = the plane {x : normal . x = offset} (normal unit). d is the signed distance
// normal . p - offset (negative below the plane), n = normal, beta unused.
ClosestPoints pointPlane(const Eigen::Vector3d& p, const Eigen::Vector3d& normal, double offset);

// True if the two triangles intersect (share a point), exact up to round-off; triangles sharing a
// vertex index are the caller's business (skip them). Used by the intersection diagnostics.
bool trianglesIntersect(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& a2,
                        const Eigen::Vector3d& b0, const Eigen::Vector3d& b1, const Eigen::Vector3d& b2);

}  // namespace kinema::geometry

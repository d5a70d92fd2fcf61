#pragma once
// Narrow phase: signed distance, contact normal and contact points between pairs of primitives
// (shapes.hpp), in 2D (discs, rectangles, lines) and 3D (spheres, boxes, planes).
//
// Conventions, for every collide(A, B):
// - `distance` is signed: > 0 separated (the gap), 0 touching, < 0 penetrating (the depth).
// - `normal` is unit and points from A to B. Moving B by +eps * normal increases the distance by
//   eps (for the sphere cases exactly: d distance / d centre_B = normal, d / d centre_A = -normal).
// - each contact point is the midpoint of the two witness points (on A's and B's surface) and
//   carries its own signed distance along the normal. `distance` is the pair's signed distance;
//   it equals the minimum over the points except for box-box face contacts, where the deepest
//   incident vertex may lie outside the reference face and be clipped away.
// - collide(B, A) returns the same distance and points with the normal negated (flip()).
//
// Multi-point manifolds (box-plane, box-box on a face) report every candidate point whose
// distance is <= max(min distance (+ 1e-9 relative round-off), margin): with margin = 0 that is
// the penetrating points, or the closest feature when separated; a speculative-contact stepper
// passes its contact margin to get every point within it.
//
// Box-box is the separating axis test (face normals of both boxes, and in 3D the 9 edge cross
// products; face axes are preferred over edges within a small tolerance, A's faces over B's, for
// stable manifolds). Penetrating: the distance is the exact penetration depth of the two boxes.
// Separated: it is the largest separation over those axes, which equals the Euclidean distance
// when the closest features are face-vertex, face-face or edge-edge and is a lower bound
// otherwise (vertex-vertex, vertex-edge). Face contacts clip the incident face against the
// reference face's side planes (up to 8 points in 3D, 2 in 2D); edge contacts give one point.
//
// Degenerate cases: coincident sphere centres take normal +e_x; a sphere centre inside a box
// leaves through the face of least depth (lowest axis, + side on ties).
#include <Eigen/Core>
#include <array>

#include "framework/geometry/shapes.hpp"

namespace kinema::geometry {

template <int D>
struct ContactPoint {
  Eigen::Matrix<double, D, 1> position = Eigen::Matrix<double, D, 1>::Zero();
  double distance = 0.0;
};

template <int D>
struct Contact {
  static constexpr int kMaxPoints = 1 << D;  // 8 in 3D (a clipped quad), 4 in 2D (box-line)
  double distance = 0.0;
  Eigen::Matrix<double, D, 1> normal = Eigen::Matrix<double, D, 1>::UnitX();
  std::array<ContactPoint<D>, kMaxPoints> points{};
  int numPoints = 0;

  // The same contact seen from B: normal negated, distance and points unchanged.
  Contact& flip() {
    normal = -normal;
    return *this;
  }
  void addPoint(const Eigen::Matrix<double, D, 1>& position, double dist) {
    if (numPoints < kMaxPoints) points[numPoints++] = {position, dist};
  }
};

template <int D>
Contact<D> collide(const Sphere<D>& a, const Sphere<D>& b);
template <int D>
Contact<D> collide(const Sphere<D>& a, const HalfSpace<D>& b);
template <int D>
Contact<D> collide(const Sphere<D>& a, const Box<D>& b);
template <int D>
Contact<D> collide(const Box<D>& a, const HalfSpace<D>& b, double margin = 0.0);
template <int D>
Contact<D> collide(const Box<D>& a, const Box<D>& b, double margin = 0.0);

// Reversed argument orders.
template <int D>
Contact<D> collide(const HalfSpace<D>& a, const Sphere<D>& b) {
  return collide(b, a).flip();
}
template <int D>
Contact<D> collide(const Box<D>& a, const Sphere<D>& b) {
  return collide(b, a).flip();
}
template <int D>
Contact<D> collide(const HalfSpace<D>& a, const Box<D>& b, double margin = 0.0) {
  return collide(b, a, margin).flip();
}

}  // namespace kinema::geometry

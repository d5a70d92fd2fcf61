#pragma once
// The primitive shapes the narrow phase understands, in D = 2 or 3 dimensions.
//
// In 2D a Sphere<2> is a disc and a Box<2> a rectangle rotated in the plane. (Decision: a template
// on D, not 3D shapes with z = 0: a 2D box embedded in 3D would offer the separating axis test the
// spurious +-z face normals.)
#include <Eigen/Core>
#include <cstdint>

#include "framework/geometry/aabb.hpp"

namespace kinema::geometry {

template <int D>
struct Sphere {
  using Vec = Eigen::Matrix<double, D, 1>;
  Vec centre = Vec::Zero();
  double radius = 0.0;
};

// The solid half-space {x : normal . x <= offset}; `normal` is unit and points out of the solid
// (a floor at height h is normal = +e_z, offset = h). Static planes and walls.
template <int D>
struct HalfSpace {
  using Vec = Eigen::Matrix<double, D, 1>;
  Vec normal = Vec::UnitX();
  double offset = 0.0;

  static HalfSpace through(const Vec& point, const Vec& unitNormal) {
    return {unitNormal, unitNormal.dot(point)};
  }
};

// An oriented box: the columns of `rotation` are the box's axes in world coordinates (orthonormal,
// det +1), `halfExtents` the half side lengths along them.
template <int D>
struct Box {
  using Vec = Eigen::Matrix<double, D, 1>;
  using Mat = Eigen::Matrix<double, D, D>;
  Vec centre = Vec::Zero();
  Mat rotation = Mat::Identity();
  Vec halfExtents = Vec::Zero();
};

// Validation, once per object when it is created or loaded (the narrow phase itself does not
// re-check in its inner loop). Each throws kinema::InputError naming `index`: NaN or infinite
// coordinates, a negative radius or half extent, a non-unit plane normal, a rotation that is not
// orthonormal (tolerance 1e-6).
template <int D>
void validate(const Sphere<D>& s, std::int64_t index);
template <int D>
void validate(const HalfSpace<D>& h, std::int64_t index);
template <int D>
void validate(const Box<D>& b, std::int64_t index);

// Tight axis-aligned bounds (input to the broad phases).
template <int D>
inline Aabb<D> bounds(const Sphere<D>& s) {
  return Aabb<D>::ofBall(s.centre, s.radius);
}
template <int D>
inline Aabb<D> bounds(const Box<D>& b) {
  const typename Box<D>::Vec r = b.rotation.cwiseAbs() * b.halfExtents;
  return Aabb<D>(b.centre - r, b.centre + r);
}

}  // namespace kinema::geometry

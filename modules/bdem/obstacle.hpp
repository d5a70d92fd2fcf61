#pragma once
// Static or kinematically moving obstacles for particle contact (paper §5.4, Eq. 33):
// a half-space (floor, wall), a box (solid, or hollow: a container, inside free), and a cylinder of
// finite length (supports and indenter of three-point bending). Each gives a signed distance g(p)
// (negative inside the solid), its gradient (unit for these shapes) and Hessian; the particle's
// gap is phi = g(p) - r. A moving obstacle translates with constant velocity from t = 0.
#include <Eigen/Core>
#include <string>

#include "modules/bdem/particles.hpp"

namespace kinema::bdem {

struct Obstacle {
  enum class Kind { Plane, Box, Cylinder };
  Kind kind = Kind::Plane;
  std::string name;
  Vec3 point = Vec3::Zero();       // plane: a point on it; box/cylinder: centre at t = 0
  Vec3 normal = Vec3::UnitZ();     // plane: outward unit normal (solid is below)
  Vec3 halfExtents = Vec3::Ones(); // box (axis-aligned)
  bool hollow = false;             // box: solid outside, particles kept inside
  Vec3 axis = Vec3::UnitY();       // cylinder: unit axis
  double radius = 0;               // cylinder radius
  double halfLength = 0;           // cylinder half length along the axis
  Vec3 velocity = Vec3::Zero();    // prescribed translation
  double friction = 0.0;           // mu_s for Eq. 34 against this obstacle

  // Signed distance at time t; gradient and Hessian written when non-null.
  double distance(const Vec3& p, double t, Vec3* grad = nullptr, Mat3* hess = nullptr) const;
};

}  // namespace kinema::bdem

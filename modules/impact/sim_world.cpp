#include "modules/impact/sim_world.hpp"

#include <cmath>

#include "framework/core/error.hpp"

namespace kinema::impact {

int SimWorld::addBall(const Eigen::Vector3d& x, double radius, double mass, const Eigen::Vector3d& v, bool rigid) {
  SimBody b;
  b.shape = SimShape::Sphere;
  b.rigid = rigid;
  b.radius = radius;
  b.mass = mass;
  b.inertiaBody = Eigen::Vector3d::Constant(0.4 * mass * radius * radius);
  b.x = x;
  b.v = v;
  b.id = numBodies();
  bodies.push_back(b);
  return numBodies() - 1;
}

int SimWorld::addBox(const Eigen::Vector3d& x, const Eigen::Vector3d& h, double mass, const Eigen::Quaterniond& q,
                     const Eigen::Vector3d& v) {
  SimBody b;
  b.shape = SimShape::Box;
  b.rigid = true;
  b.halfExtents = h;
  b.mass = mass;
  const Eigen::Vector3d s = h.cwiseProduct(h);
  b.inertiaBody = mass / 3.0 * Eigen::Vector3d(s[1] + s[2], s[0] + s[2], s[0] + s[1]);
  b.x = x;
  b.v = v;
  b.q = q.normalized();
  b.id = numBodies();
  bodies.push_back(b);
  return numBodies() - 1;
}

int SimWorld::addStaticBox(const Eigen::Vector3d& x, const Eigen::Vector3d& h, const Eigen::Quaterniond& q) {
  const int id = addBox(x, h, 1.0, q);
  bodies.back().isStatic = true;
  bodies.back().rigid = false;
  return id;
}

int SimWorld::addStaticBall(const Eigen::Vector3d& x, double radius) {
  const int id = addBall(x, radius, 1.0);
  bodies.back().isStatic = true;
  return id;
}

void SimWorld::addPlane(const Eigen::Vector3d& point, const Eigen::Vector3d& normal) {
  SimPlane p;
  const double n = normal.norm();
  p.normal = n > 0.0 ? Eigen::Vector3d(normal / n) : normal;
  p.offset = p.normal.dot(point);
  planes.push_back(p);
}

void SimWorld::validate() const {
  if (dimension != 2 && dimension != 3) throw InputError(str("impact world: dimension must be 2 or 3, got ", dimension));
  for (int k = 0; k < numBodies(); ++k) {
    const SimBody& b = bodies[static_cast<std::size_t>(k)];
    const auto bad = [&](const std::string& what) { throw InputError(str("body ", b.id >= 0 ? b.id : k, ": ", what)); };
    if (!b.x.allFinite() || !b.v.allFinite() || !b.omega.allFinite() || !b.q.coeffs().allFinite())
      bad("non-finite position, velocity or orientation");
    if (b.shape == SimShape::Sphere && !(b.radius > 0.0)) bad(str("radius must be > 0, got ", b.radius));
    if (b.shape == SimShape::Box && !(b.halfExtents.minCoeff() > 0.0))
      bad(str("half extents must be > 0, got (", b.halfExtents.transpose(), ")"));
    if (!b.isStatic && !(b.mass > 0.0 && std::isfinite(b.mass))) bad(str("mass must be > 0, got ", b.mass));
    if (dimension == 2) {
      if (b.shape == SimShape::Box) bad("boxes need dimension 3");
      if (b.x[2] != 0.0 || b.v[2] != 0.0) bad("a 2D body must lie in the z = 0 plane with zero z velocity");
    }
  }
  for (std::size_t k = 0; k < planes.size(); ++k)
    if (!planes[k].normal.allFinite() || std::abs(planes[k].normal.norm() - 1.0) > 1e-9 ||
        !std::isfinite(planes[k].offset))
      throw InputError(str("plane ", k, ": the normal must be finite and nonzero"));
}

double SimWorld::kineticEnergy() const {
  double e = 0.0;
  for (const SimBody& b : bodies) {
    if (b.isStatic) continue;
    e += 0.5 * b.mass * b.v.squaredNorm();
    if (b.rigid) e += 0.5 * b.omega.dot(b.inertiaWorld() * b.omega);
  }
  return e;
}

double SimWorld::potentialEnergy() const {
  double e = 0.0;
  for (const SimBody& b : bodies)
    if (!b.isStatic) e -= b.mass * gravity.dot(b.x);
  return e;
}

double SimWorld::shadowEnergy(double dt) const {
  double e = kineticEnergy() + potentialEnergy();
  for (const SimBody& b : bodies)
    if (!b.isStatic) e += 0.5 * dt * b.mass * gravity.dot(b.v);
  return e;
}

Eigen::Vector3d SimWorld::linearMomentum() const {
  Eigen::Vector3d p = Eigen::Vector3d::Zero();
  for (const SimBody& b : bodies)
    if (!b.isStatic) p += b.mass * b.v;
  return p;
}

Eigen::Vector3d SimWorld::angularMomentum() const {
  Eigen::Vector3d L = Eigen::Vector3d::Zero();
  for (const SimBody& b : bodies) {
    if (b.isStatic) continue;
    L += b.x.cross(b.mass * b.v);
    if (b.rigid) L += b.inertiaWorld() * b.omega;
  }
  return L;
}

}  // namespace kinema::impact

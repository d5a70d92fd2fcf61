#include "modules/impact/sim_contacts.hpp"

#include <cmath>

#include "framework/core/error.hpp"
#include "framework/geometry/narrow_phase.hpp"

namespace kinema::impact {

BroadPhaseKind parseBroadPhase(const std::string& name) {
  if (name == "spatial_hash") return BroadPhaseKind::SpatialHash;
  if (name == "sweep_and_prune") return BroadPhaseKind::SweepAndPrune;
  throw InputError(str("broad phase: unknown kind '", name, "' (spatial_hash | sweep_and_prune)"));
}

namespace {

template <int D>
using Vec = Eigen::Matrix<double, D, 1>;

template <int D>
Vec<D> cut(const Eigen::Vector3d& v) {
  return v.template head<D>();
}
template <int D>
Eigen::Vector3d pad(const Vec<D>& v) {
  Eigen::Vector3d r = Eigen::Vector3d::Zero();
  r.template head<D>() = v;
  return r;
}

template <int D>
geometry::Sphere<D> sphereOf(const SimBody& b) {
  return {cut<D>(b.x), b.radius};
}
geometry::Box<3> boxOf(const SimBody& b) {
  geometry::Box<3> box;
  box.centre = b.x;
  box.rotation = b.rotation();
  box.halfExtents = b.halfExtents;
  return box;
}

template <int D>
geometry::Contact<D> collideBodies(const SimBody& a, const SimBody& b, double margin) {
  if constexpr (D == 2) {
    (void)margin;
    return geometry::collide(sphereOf<2>(a), sphereOf<2>(b));  // 2D worlds hold discs only
  } else {
    const bool sa = a.shape == SimShape::Sphere, sb = b.shape == SimShape::Sphere;
    if (sa && sb) return geometry::collide(sphereOf<3>(a), sphereOf<3>(b));
    if (sa) return geometry::collide(sphereOf<3>(a), boxOf(b));
    if (sb) return geometry::collide(boxOf(a), sphereOf<3>(b));
    return geometry::collide(boxOf(a), boxOf(b), margin);
  }
}

template <int D>
geometry::Contact<D> collidePlane(const SimBody& a, const SimPlane& p, double margin) {
  geometry::HalfSpace<D> h{cut<D>(p.normal), p.offset};
  if constexpr (D == 2) {
    (void)margin;
    return geometry::collide(sphereOf<2>(a), h);
  } else {
    if (a.shape == SimShape::Sphere) return geometry::collide(sphereOf<3>(a), h);
    return geometry::collide(boxOf(a), h, margin);
  }
}

template <int D>
void append(const geometry::Contact<D>& c, int a, int b, int plane, double reach, std::vector<SimContact>& out) {
  for (int k = 0; k < c.numPoints; ++k) {
    if (c.points[static_cast<std::size_t>(k)].distance > reach) continue;
    SimContact s;
    s.a = a;
    s.b = b;
    s.plane = plane;
    s.point = pad<D>(c.points[static_cast<std::size_t>(k)].position);
    s.normal = pad<D>(c.normal);
    s.distance = c.points[static_cast<std::size_t>(k)].distance;
    out.push_back(s);
  }
}

}  // namespace

template <int D>
void SimContactDetector::detectD(const SimWorld& world, double dt, double tolerance, std::vector<SimContact>& out) {
  auto& boxes = [this]() -> std::vector<geometry::Aabb<D>>& {
    if constexpr (D == 2) return boxes2_; else return boxes3_;
  }();
  const int n = world.numBodies();
  boxes.resize(static_cast<std::size_t>(n));
  reach_.resize(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    const SimBody& b = world.bodies[static_cast<std::size_t>(k)];
    // |·| bounded by √3 |·|_∞ (no overflow of the squared norm for huge velocities).
    const double s = b.isStatic ? 0.0
                                : std::sqrt(3.0) * (b.v.cwiseAbs().maxCoeff() +
                                                    (b.rigid ? b.omega.cwiseAbs().maxCoeff() * b.boundingRadius() : 0.0)) * dt;
    reach_[static_cast<std::size_t>(k)] = s;
    geometry::Aabb<D> box;
    if (b.shape == SimShape::Sphere) {
      box = geometry::bounds(sphereOf<D>(b));
    } else {
      if constexpr (D == 3) box = geometry::bounds(boxOf(b));
    }
    box.inflate(s + 0.5 * tolerance);
    boxes[static_cast<std::size_t>(k)] = box;
  }
  if constexpr (D == 2) {
    if (kind_ == BroadPhaseKind::SpatialHash) hash2_.findPairs(boxes, pairs_); else sap2_.findPairs(boxes, pairs_);
  } else {
    if (kind_ == BroadPhaseKind::SpatialHash) hash3_.findPairs(boxes, pairs_); else sap3_.findPairs(boxes, pairs_);
  }
  for (const geometry::BodyPair& p : pairs_) {
    const SimBody& a = world.bodies[static_cast<std::size_t>(p.i)];
    const SimBody& b = world.bodies[static_cast<std::size_t>(p.j)];
    if (a.isStatic && b.isStatic) continue;
    const double reach = tolerance + reach_[static_cast<std::size_t>(p.i)] + reach_[static_cast<std::size_t>(p.j)];
    append<D>(collideBodies<D>(a, b, reach), p.i, p.j, -1, reach, out);
  }
  for (int k = 0; k < n; ++k) {
    const SimBody& b = world.bodies[static_cast<std::size_t>(k)];
    if (b.isStatic) continue;
    const double reach = tolerance + reach_[static_cast<std::size_t>(k)];
    for (std::size_t pl = 0; pl < world.planes.size(); ++pl) {
      const SimPlane& P = world.planes[pl];
      // Cheap reject: the bounding sphere is farther than the reach.
      if (P.normal.dot(b.x) - P.offset - b.boundingRadius() > reach) continue;
      append<D>(collidePlane<D>(b, P, reach), k, -1, static_cast<int>(pl), reach, out);
    }
  }
}

void SimContactDetector::detect(const SimWorld& world, double dt, double tolerance, std::vector<SimContact>& out) {
  out.clear();
  if (world.dimension == 2) detectD<2>(world, dt, tolerance, out); else detectD<3>(world, dt, tolerance, out);
}

}  // namespace kinema::impact

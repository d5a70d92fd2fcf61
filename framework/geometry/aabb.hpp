#pragma once
// Axis-aligned bounding boxes in D = 2 or 3 dimensions.
//
// Decision: the box is a template on the dimension (Aabb<2>, Aabb<3>) rather than a 3D box with
// z = 0. A 2D simulation then hashes a 2D grid (no wasted z layer) and the sweep picks among two
// axes; the broad phases are explicitly instantiated for D = 2 and 3 in their .cpp files.
//
// Boxes are closed: two boxes that touch (hi of one equals lo of the other) overlap. Every broad
// phase in this folder uses exactly this predicate, so their outputs are comparable bit for bit.
#include <Eigen/Core>
#include <algorithm>
#include <limits>

namespace kinema::geometry {

template <int D>
struct Aabb {
  static_assert(D == 2 || D == 3, "Aabb is defined for D = 2 and D = 3");
  using Vec = Eigen::Matrix<double, D, 1>;

  Vec lo = Vec::Constant(std::numeric_limits<double>::infinity());
  Vec hi = Vec::Constant(-std::numeric_limits<double>::infinity());

  Aabb() = default;
  Aabb(const Vec& lower, const Vec& upper) : lo(lower), hi(upper) {}

  // The box of a ball (sphere in 3D, disc in 2D).
  static Aabb ofBall(const Vec& centre, double radius) {
    return Aabb(centre.array() - radius, centre.array() + radius);
  }

  // An empty box (lo = +inf, hi = -inf) is the identity of merge() and overlaps nothing.
  bool empty() const { return (lo.array() > hi.array()).any(); }

  Vec centre() const { return 0.5 * (lo + hi); }
  Vec extent() const { return hi - lo; }

  // Closed-interval overlap on every axis.
  bool overlaps(const Aabb& o) const {
    for (int k = 0; k < D; ++k)
      if (lo[k] > o.hi[k] || o.lo[k] > hi[k]) return false;
    return true;
  }

  bool contains(const Vec& p) const {
    return (p.array() >= lo.array()).all() && (p.array() <= hi.array()).all();
  }
  bool contains(const Aabb& o) const {
    return (o.lo.array() >= lo.array()).all() && (o.hi.array() <= hi.array()).all();
  }

  // Grows this box to cover `o` (or a point).
  Aabb& merge(const Aabb& o) {
    lo = lo.cwiseMin(o.lo);
    hi = hi.cwiseMax(o.hi);
    return *this;
  }
  Aabb& merge(const Vec& p) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
    return *this;
  }

  // Grows every side by `margin` (a contact margin, or v * dt for a swept box). A negative margin
  // shrinks; the caller keeps it above -extent / 2.
  Aabb& inflate(double margin) {
    lo.array() -= margin;
    hi.array() += margin;
    return *this;
  }
  // Per-axis margin, e.g. a displacement over a step.
  Aabb& inflate(const Vec& margin) {
    lo -= margin;
    hi += margin;
    return *this;
  }

  // Every coordinate finite and lo <= hi on every axis.
  bool valid() const {
    return lo.allFinite() && hi.allFinite() && (lo.array() <= hi.array()).all();
  }
};

template <int D>
inline Aabb<D> merged(Aabb<D> a, const Aabb<D>& b) {
  return a.merge(b);
}

template <int D>
inline Aabb<D> inflated(Aabb<D> a, double margin) {
  return a.inflate(margin);
}

using Aabb2 = Aabb<2>;
using Aabb3 = Aabb<3>;

}  // namespace kinema::geometry

#pragma once
// Separating-slab certificates (the paper's §6; README decisions 3, 4 and 30).
//
// A slab {x : |w . x - c| <= r} with unit normal w, centre c and half-width r = eta / j separates
// the A side (w . x >= c + r) from the B side (w . x <= c - r). While it does, the distance
// between the convex primitives is >= 2r = 2 eta / j, so layer j (and every deeper layer) exerts
// no force. The slab is fixed in space; each vertex moves on a straight line between kicks, so
// its signed distance to its face is linear in time and the expiry is the first face crossing.
//
// Decisions (README):
//  - normal: w = n, the closest-point direction from B to A (for convex primitives the gap
//    along n is the distance d, the largest possible);
//  - centre: the c that maximises the expiry over [s_B + r, s_A - r] (exact: the feasible
//    region of c shrinks linearly in time, so the last feasible time is the smallest root of a
//    few linear functions); the midpoint when nothing approaches;
//  - a fixed B side (a plane) is one pseudo vertex at the plane with zero velocity.
#include <Eigen/Core>
#include <cstdint>
#include <limits>

#include "modules/avi/vertices.hpp"

namespace kinema::avi {

struct Slab {
  Vec3 w = Vec3::UnitZ();  // unit normal, from B to A
  double c = 0.0;          // centre: w . p
  double r = 0.0;          // half-width eta / j
};

// The certificate of a pair: a slab guarding layer `guarded` (and deeper) until `tc`.
struct Certificate {
  Slab slab;
  int guarded = 0;  // 0: no certificate
  double tc = std::numeric_limits<double>::infinity();
  std::int32_t handle = -1;  // queue handle of the CERT event
};

// One side of the support at a common time: positions and velocities of up to 3 vertices.
struct SlabSide {
  const Vec3* x = nullptr;
  const Vec3* v = nullptr;
  int n = 0;
};

// FIND_SLAB (README decision 30) for normal w (unit, B to A) and half-width r at the time the
// positions are taken: false if the gap G = min_A w.x - max_B w.x is below 2r or w is not
// finite. On success `slab` is the slab with the latest expiry and `lifetime` that expiry minus
// the current time (+inf if no vertex approaches its face).
bool findSlab(const Vec3& w, double r, const SlabSide& a, const SlabSide& b, Slab& slab,
              double& lifetime);

// SCHEDULE (the paper's §6): time from now until the first vertex reaches its slab face (>= 0; +inf if
// none approaches): A vertices with w.v < 0 reach c + r, B vertices with w.v > 0 reach c - r.
double slabLifetime(const Slab& slab, const SlabSide& a, const SlabSide& b);

// Whether the slab separates the given positions (A on w.x >= c + r - tol, B on
// w.x <= c - r + tol): the debug invariant check.
bool slabSeparates(const Slab& slab, const SlabSide& a, const SlabSide& b, double tol);

}  // namespace kinema::avi

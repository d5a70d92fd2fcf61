#pragma once
// A candidate contact pair (the paper's §5, §7.1-7.2; README decisions 26 and 33) and its penalty
// kick.
//
// State per pair: the primitives (kind, A and B vertices, or a plane), the smallest free mass
// m_min (sets the layer steps h_l, the paper's §5), the deepest active layer L_p (layers 1..L_p are
// on the queue), one clock per active layer (the lattice index j of its next tick: the tick is
// at origin + j h_l, origin = 0 except in the restartClocks negative test) and the certificate
// that guards layer L_p + 1.
#include <array>
#include <cstdint>
#include <vector>

#include "framework/geometry/primitive_distance.hpp"
#include "modules/avi/certificate.hpp"
#include "modules/avi/engine.hpp"
#include "modules/avi/scene.hpp"

namespace kinema::avi {

struct LayerClock {
  std::int64_t j = 0;        // lattice index of the next tick
  double origin = 0.0;       // 0 (clock integrity, the paper's §6); the activation time if restarted
  std::int32_t handle = -1;  // queue handle of the PENALTY event (-1: not queued)
};

struct ContactPair {
  PairKey key;
  std::uint8_t na = 0;  // vertices of A (1 point, 2 edge)
  std::uint8_t nb = 0;  // vertices of B (1 point, 2 edge / segment, 3 triangle, 0 plane)
  std::array<std::int32_t, 3> a{-1, -1, -1};
  std::array<std::int32_t, 3> b{-1, -1, -1};
  std::int32_t plane = -1;
  double mMin = 0.0;  // smallest mass among free vertices (scripted ones excluded)
  int deepest = 0;    // L_p
  std::vector<LayerClock> layers;  // [l - 1], size >= deepest (brute force: bruteForceLayers)
  Certificate cert;
  bool sync = false;  // partitioned mode: touches a boundary vertex
};

// The pair of `key` with its vertex lists and m_min (infinite if every vertex is scripted).
ContactPair makePair(const PairKey& key, const Vertices& verts);

// Positions at time t and velocities of the pair's vertices: xa/va[na], xb/vb[nbSide] where a
// plane is one pseudo vertex on the plane at rest (the slab's fixed B side). Returns the number
// of B entries written.
int gatherPair(const ContactPair& p, const Vertices& verts, const std::vector<Plane>& planes, double t,
               Vec3* xa, Vec3* va, Vec3* xb, Vec3* vb);

// Closest points of the pair for positions xa[na], xb[nb] (README decision 26); for a plane d is signed.
geometry::ClosestPoints closestPoints(const ContactPair& p, const Vec3* xa, const Vec3* xb,
                                      const std::vector<Plane>& planes);

struct PenaltyParams {
  double eta = 0.0;
  double k = 0.0;
  double restitution = 1.0;  // e (the paper's §7.1)
  double friction = 0.0;     // mu (the paper's §7.2)
};

// The kick of PENALTY(p, l) with step h (README decision 4): for g = d - 2 eta / l < 0,
//   s = e if the primitives separate (v_rel . n > 0, segment velocities before the kick), else 1;
//   J_n = h 2 l^3 k s |g|;  v_a += minv_a J_n alpha_a n,  v_b -= minv_b J_n beta_b n;
// then, if mu > 0, the capped Coulomb impulse (the paper's §7.2; README decision 33)
//   J_f = -min(mu J_n, m_t |v_t|) v_t / |v_t|, m_t = 1 / (sum alpha^2 minv_a + sum beta^2 minv_b),
// distributed like the normal impulse. Velocity changes go to dv[0..na+nb) (A then B) and are
// added to verts.v. Returns J_n (0 if g >= 0: nothing applied).
double penaltyKick(const ContactPair& p, const geometry::ClosestPoints& cp, int l, double h,
                   const PenaltyParams& prm, Vertices& verts, Vec3* dv);

}  // namespace kinema::avi

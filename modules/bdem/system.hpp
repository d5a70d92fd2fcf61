#pragma once
// System: everything one rank holds of a BDEM scene (paper §3, §5.4): particles
// (owned, then ghosts), the bonds this rank owns, obstacles, grips (prescribed rigid motions of
// particle sets), materials, the bond model switches, contact and friction parameters, gravity,
// external loads and the simulated time. Built by a scene generator (scene_builder.hpp) on every rank alike, then
// distributed by Domain::distribute (domain.hpp).
#include <string>
#include <vector>

#include "modules/bdem/bond.hpp"
#include "modules/bdem/obstacle.hpp"
#include "modules/bdem/particles.hpp"

namespace kinema::bdem {

// Prescribed rigid motion of the particles with grip index g (README decision 28): at time t,
//   p(t) = c + v min(t, tStop) + R(omega min(t, tStop)) (pRef - c),  q(t) = exp(omega min(t, tStop)) (x) qRef
// with c the grip's centre at t = 0 and omega a world-frame angular velocity (rad/s).
struct Grip {
  std::string name;
  Vec3 centre = Vec3::Zero();
  Vec3 velocity = Vec3::Zero();
  Vec3 angularVelocity = Vec3::Zero();
  double tStop = 1e300;  // the motion holds still after tStop
};

struct ContactParams {
  bool enabled = true;
  double kec = 0;      // element-element penalty k_ec (Eq. 32); 0: E_max r_max (README decision 44)
  double kc = 0;       // element-obstacle penalty k_c (Eq. 33); 0: E_max r_max
  double muS = 0.0;    // sliding friction, particle-particle (Eq. 34)
  double muR = 0.0;    // rolling friction (Eq. 35)
  bool rollingR3 = false;  // Eq. 35 as printed (r^3, not dimensionless) instead of r (README decision 31)
};

struct System {
  Particles P;
  std::vector<Bond> bonds;   // owned bonds; dead ones are kept with alive = false until compacted
  std::vector<Obstacle> obstacles;
  std::vector<Grip> grips;
  std::vector<Material> materials = std::vector<Material>(1);
  BondModel model;
  ContactParams contact;
  Vec3 gravity = Vec3(0, 0, -9.81);
  // External load on each owned particle, local order (loads.hpp: body force, point force,
  // traction); empty: none. Like gravity a term -f.p of Eq. 6 for free particles.
  std::vector<Vec3> load;
  double time = 0;

  std::size_t aliveBonds() const;
};

}  // namespace kinema::bdem

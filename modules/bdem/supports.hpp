#pragma once
// Supports on particle sets (docs/modules/bdem.md, "Loads, supports and probes"): prescribed
// motion, i.e. Dirichlet DOFs (README decision 28), declared under `bdem.supports.<name>`:
//   {set: S, fixed: true}                        the particles keep their rest p and q
//   {set: S, velocity: [vx, vy, vz], angular_velocity: [wx, wy, wz], until: t}
//                                                rigid motion at constant velocity (about the
//                                                set's rest centroid) until t, then held
//   {set: S, displacement: [ux, uy, uz], ramp_time: T}
//                                                moved by u at constant velocity over [0, T]
//                                                (T = 0: over the first time step), then held
// Each non-fixed support becomes a Grip (system.hpp) named after it; the generator's own
// supports of the particles in S are replaced. Later supports override earlier ones (in the
// order of the scene file).
#include "modules/bdem/particle_sets.hpp"

namespace kinema::bdem {

// Applies the supports to `scene` (every particle, before distribution); dt is the time step.
void applySupports(const Config& c, const ParticleSets& sets, System& scene, double dt);

}  // namespace kinema::bdem

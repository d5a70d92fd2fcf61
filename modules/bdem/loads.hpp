#pragma once
// External loads on particle sets (docs/modules/bdem.md, "Loads, supports and probes"), constant
// in time, declared under `bdem.loads.<name>`:
//   {set: S, body_force: [bx, by, bz]}   N/kg: particle a of S gets m_a b (gravity-like)
//   {set: S, force: [fx, fy, fz]}        N: the total force, shared equally by the particles of S
//   {set: S, traction: [tx, ty, tz], area: A}
//                                        N/m^2 times the set's area (ParticleSet::area unless
//                                        `area` is given), shared equally
// Loads on one particle add up. Each enters the incremental potential (Eq. 6) as -f_a . p_a per
// free particle, exactly like gravity's -m g . p (README decision 39): its gradient is -f_a, its Hessian 0.
// A load on a fixed or gripped particle does not move it; the probe's reaction includes it.
#include <vector>

#include "modules/bdem/particle_sets.hpp"

namespace kinema::bdem {

// The load on every scene particle (indexed by scene index, zero where unloaded), from the scene
// as built (masses after any calibration); empty when the scene declares no load.
std::vector<Vec3> readLoads(const Config& c, const ParticleSets& sets, const System& scene);

// The load on each owned particle of a distributed scene, local order (sceneIds: Domain::sceneIds()),
// empty when `sceneLoads` is.
std::vector<Vec3> localLoads(const std::vector<Vec3>& sceneLoads, const std::vector<GlobalId>& sceneIds);

}  // namespace kinema::bdem

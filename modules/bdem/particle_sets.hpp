#pragma once
// Named particle sets of a scene (docs/modules/bdem.md, "Loads, supports and probes"): the
// particles that loads act on, supports hold and probes measure. A set is declared under
// `bdem.sets.<name>` by exactly one selector, evaluated on the scene as built (rest positions
// pRef, before distribution):
//   box: [xmin, ymin, zmin, xmax, ymax, zmax]   centres inside the box (bounds included)
//   face: x_min | x_max | y_min | y_max | z_min | z_max
//                                  centres within half their radius of that face of the bounding
//                                  box of the rest centres
//   grip: <name>                   the particles a generator's grip holds (e.g. "j", "0", "1")
//   indices: [i, ...]              scene indices (the generator's or the file's order)
// The name `all` is predefined (every particle). An empty set is an InputError naming its key.
//
// The sets, loads, supports and probes keys are pass-through trees of the schema (their entries
// are named by the user); this file binds them once (declared and read with their keys) and the
// readers check their entries themselves, naming the file, line and key of each problem.
#include <map>
#include <string>
#include <vector>

#include "framework/core/config.hpp"
#include "modules/bdem/system.hpp"

namespace kinema::bdem {

struct ParticleSet {
  std::string name;
  std::string key;            // "bdem.sets.<name>" (where it is defined; "all" is predefined)
  std::vector<GlobalId> ids;  // scene indices, sorted, unique
  // Area a traction acts on [m^2]: for a face set, that face of the bounding box of the spheres
  // (rest centres +- r); otherwise the sum over the set of (2 r)^2 (one lattice cell face each).
  double area = 0;
};
using ParticleSets = std::map<std::string, ParticleSet>;

// One of those trees as the scene gives it: its full key (for messages) and its node (null when
// the scene has none).
struct SceneTree {
  std::string key;
  YAML::Node node;
};
struct SceneTrees {
  SceneTree sets, loads, supports, probes;
};

// Declares bdem.sets, bdem.loads, bdem.supports and bdem.probes (trees, checked by the readers).
void declareParticleSetParams(ParamSchema& schema);
// The four trees of a validated config.
SceneTrees readSceneTrees(const Config& c);

// The sets of the scene `scene` (every particle, gid = scene index, as a generator built it).
ParticleSets readParticleSets(const Config& c, const System& scene);

// The set named by the value of `key` (a string node); an InputError naming key and the set if
// the scene declares no such set.
const ParticleSet& namedSet(const Config& c, const ParticleSets& sets, const std::string& key,
                            const std::string& name);

// Small readers for the tree entries; each error names c.where(key) and key.
[[noreturn]] void treeError(const Config& c, const std::string& key, const std::string& message);
Vec3 readVec3(const Config& c, const std::string& key, const YAML::Node& node);
double readReal(const Config& c, const std::string& key, const YAML::Node& node);
std::string readString(const Config& c, const std::string& key, const YAML::Node& node);
bool readBool(const Config& c, const std::string& key, const YAML::Node& node);
// Entries of a map node `key` whose fields must all be in `allowed` (an InputError otherwise).
void checkFields(const Config& c, const std::string& key, const YAML::Node& node,
                 const std::vector<std::string>& allowed);

}  // namespace kinema::bdem

#include "modules/bdem/particle_sets.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"
#include "framework/core/param_binding.hpp"
#include "framework/core/strings.hpp"

namespace kinema::bdem {

namespace {

// A tree key: declared with its help, read as its full key and node (ParamBindings::tree, with the
// key kept for the readers' messages).
void tree(ParamBindings<SceneTrees>& r, std::string key, SceneTree SceneTrees::*member, std::string help) {
  r.custom(
      std::move(key),
      [help](ParamSchema& s, const std::string& k, const SceneTrees&) -> ParamSpec& { return s.addTree(k, help); },
      [member](const Config& c, const std::string& k, SceneTrees& o) {
        (o.*member).key = k;
        (o.*member).node.reset(c.tree(k));  // rebinds: `=` would write into a node copies share
      });
}

const ParamBindings<SceneTrees>& treeBindings() {
  static const ParamBindings<SceneTrees> b = [] {
    using T = SceneTrees;
    ParamBindings<T> r;
    tree(r, "sets", &T::sets,
         "named particle sets, bdem.sets.<name>: {box: [xmin, ymin, zmin, xmax, ymax, zmax]} | {face: x_min|x_max|"
         "y_min|y_max|z_min|z_max} | {grip: <generator grip>} | {indices: [scene indices]}; `all` is predefined "
         "(docs/modules/bdem.md, Loads, supports and probes)");
    tree(r, "loads", &T::loads,
         "named loads, bdem.loads.<name>: {set: <set>, body_force: [N/kg]} | {set, force: [N], total over the set, "
         "equal shares} | {set, traction: [N/m^2], area: [m^2] (optional)}; enter Eq. 6 as -f.p");
    tree(r, "supports", &T::supports,
         "named supports, bdem.supports.<name>: {set: <set>, fixed: true} | {set, velocity: [m/s], "
         "angular_velocity: [rad/s] (optional), until: [s] (optional)} | {set, displacement: [m], ramp_time: [s] "
         "(0: one time step)}: prescribed motion (Dirichlet, README decision 28)");
    tree(r, "probes", &T::probes,
         "list of set names; each adds diagnostics columns probe_<set>_{x,y,z} (mean position), _{ux,uy,uz} (mean "
         "displacement from rest), _{vx,vy,vz} (mean velocity), _{fx,fy,fz} (total reaction / external force)");
    return r;
  }();
  return b;
}

const char* const kPrefix = "bdem";

}  // namespace

void declareParticleSetParams(ParamSchema& s) { treeBindings().declare(s, kPrefix); }

SceneTrees readSceneTrees(const Config& c) { return treeBindings().read(c, kPrefix); }

void treeError(const Config& c, const std::string& key, const std::string& message) {
  throw InputError(str(c.where(key), ": ", key, ": ", message));
}

Vec3 readVec3(const Config& c, const std::string& key, const YAML::Node& node) {
  if (!node.IsSequence() || node.size() != 3) treeError(c, key, "expected a list of 3 numbers");
  Vec3 v;
  for (std::size_t k = 0; k < 3; ++k) v[static_cast<int>(k)] = readReal(c, key, node[k]);
  return v;
}

double readReal(const Config& c, const std::string& key, const YAML::Node& node) {
  double x = 0;
  if (!node.IsScalar()) treeError(c, key, "expected a number");
  try {
    x = node.as<double>();
  } catch (const YAML::Exception&) {
    treeError(c, key, str("expected a number, got '", node.Scalar(), "'"));
  }
  if (!std::isfinite(x)) treeError(c, key, str("must be finite, got ", node.Scalar()));
  return x;
}

std::string readString(const Config& c, const std::string& key, const YAML::Node& node) {
  if (!node.IsScalar()) treeError(c, key, "expected a name");
  return node.Scalar();
}

bool readBool(const Config& c, const std::string& key, const YAML::Node& node) {
  try {
    if (node.IsScalar()) return node.as<bool>();
  } catch (const YAML::Exception&) {
  }
  treeError(c, key, "expected true or false");
}

void checkFields(const Config& c, const std::string& key, const YAML::Node& node,
                 const std::vector<std::string>& allowed) {
  if (!node.IsMap()) treeError(c, key, "expected a map of fields");
  for (const auto& kv : node) {
    const std::string f = kv.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), f) == allowed.end()) {
      treeError(c, key + "." + f, str("unknown field '", f, "' (valid: ", joinNames(allowed), ")"));
    }
  }
}

namespace {

struct Bounds {
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity());
  Vec3 hi = -Vec3::Constant(std::numeric_limits<double>::infinity());
};

// The scene as the set selectors see it: bounding boxes of the rest centres and spheres, and the
// scene index -> local index table.
struct SceneView {
  const Config& c;
  const System& scene;
  Bounds centres, spheres;
  std::vector<std::size_t> local;

  SceneView(const Config& config, const System& s) : c(config), scene(s) {
    const Particles& P = scene.P;
    const std::size_t n = P.size();
    for (std::size_t a = 0; a < n; ++a) {
      centres.lo = centres.lo.cwiseMin(P.pRef[a]);
      centres.hi = centres.hi.cwiseMax(P.pRef[a]);
      spheres.lo = spheres.lo.cwiseMin(P.pRef[a] - Vec3::Constant(P.r[a]));
      spheres.hi = spheres.hi.cwiseMax(P.pRef[a] + Vec3::Constant(P.r[a]));
    }
    // Scene index -> local index (the scene before distribution: gid is the scene index).
    local.resize(n);
    for (std::size_t a = 0; a < n; ++a) local[static_cast<std::size_t>(P.gid[a])] = a;
  }
  // Sum over the particles of (2 r)^2, one lattice cell face each.
  double cellArea(const std::vector<GlobalId>& ids) const {
    double A = 0;
    for (GlobalId g : ids) {
      const double r = scene.P.r[local[static_cast<std::size_t>(g)]];
      A += 4.0 * r * r;
    }
    return A;
  }
};

// box: [xmin, ymin, zmin, xmax, ymax, zmax], rest centres inside (bounds included).
void selectBox(const SceneView& sv, const std::string& fkey, const YAML::Node& v, ParticleSet& set) {
  const Config& c = sv.c;
  const Particles& P = sv.scene.P;
  if (!v.IsSequence() || v.size() != 6) treeError(c, fkey, "expected [xmin, ymin, zmin, xmax, ymax, zmax]");
  Vec3 lo, hi;
  for (int k = 0; k < 3; ++k) {
    lo[k] = readReal(c, fkey, v[static_cast<std::size_t>(k)]);
    hi[k] = readReal(c, fkey, v[static_cast<std::size_t>(k + 3)]);
    if (!(lo[k] <= hi[k])) treeError(c, fkey, str("min > max along axis ", k));
  }
  for (std::size_t a = 0; a < P.size(); ++a)
    if ((P.pRef[a].array() >= lo.array()).all() && (P.pRef[a].array() <= hi.array()).all()) set.ids.push_back(P.gid[a]);
  set.area = sv.cellArea(set.ids);
}

// face: the rest centres within half their radius of a face of the centres' bounding box.
void selectFace(const SceneView& sv, const std::string& fkey, const YAML::Node& v, ParticleSet& set) {
  const Particles& P = sv.scene.P;
  const std::string f = readString(sv.c, fkey, v);
  static const std::vector<std::string> faces{"x_min", "x_max", "y_min", "y_max", "z_min", "z_max"};
  const auto it = std::find(faces.begin(), faces.end(), f);
  if (it == faces.end())
    treeError(sv.c, fkey, str("unknown face '", f, "' (x_min, x_max, y_min, y_max, z_min, z_max)"));
  const int axis = static_cast<int>(it - faces.begin()) / 2;
  const bool upper = (it - faces.begin()) % 2 == 1;
  for (std::size_t a = 0; a < P.size(); ++a) {
    const double d = upper ? sv.centres.hi[axis] - P.pRef[a][axis] : P.pRef[a][axis] - sv.centres.lo[axis];
    if (d <= 0.5 * P.r[a]) set.ids.push_back(P.gid[a]);
  }
  const Vec3 ext = sv.spheres.hi - sv.spheres.lo;
  set.area = ext[(axis + 1) % 3] * ext[(axis + 2) % 3];
}

// grip: the particles a generator's grip holds.
void selectGrip(const SceneView& sv, const std::string& fkey, const YAML::Node& v, ParticleSet& set) {
  const System& scene = sv.scene;
  const Particles& P = scene.P;
  const std::string g = readString(sv.c, fkey, v);
  int index = -1;
  for (std::size_t k = 0; k < scene.grips.size(); ++k)
    if (scene.grips[k].name == g) index = static_cast<int>(k);
  const std::string names = joinNamesBy(scene.grips, [](const auto& grip) { return grip.name; });
  if (index < 0)
    treeError(sv.c, fkey, str("the scene has no grip '", g, "' (its grips: ", names.empty() ? "none" : names, ")"));
  for (std::size_t a = 0; a < P.size(); ++a)
    if (P.dof[a] == Dof::Grip && P.grip[a] == index) set.ids.push_back(P.gid[a]);
  set.area = sv.cellArea(set.ids);
}

// indices: a list of scene indices, each checked, duplicates dropped.
void selectIndices(const SceneView& sv, const std::string& fkey, const YAML::Node& v, ParticleSet& set) {
  const Config& c = sv.c;
  const std::size_t n = sv.scene.P.size();
  if (!v.IsSequence()) treeError(c, fkey, "expected a list of scene indices");
  for (std::size_t k = 0; k < v.size(); ++k) {
    long long i = -1;
    try {
      i = v[k].as<long long>();
    } catch (const YAML::Exception&) {
      treeError(c, fkey, str("entry ", k, " is not an integer"));
    }
    if (i < 0 || static_cast<std::size_t>(i) >= n)
      treeError(c, fkey,
                str("entry ", k, ": particle ", i, " does not exist (the scene has ", n, ", 0 to ", n - 1, ")"));
    set.ids.push_back(static_cast<GlobalId>(i));
  }
  std::sort(set.ids.begin(), set.ids.end());
  set.ids.erase(std::unique(set.ids.begin(), set.ids.end()), set.ids.end());
  set.area = sv.cellArea(set.ids);
}

// One named set bdem.sets.<name> (`key`) from its definition `def`, by its single selector.
ParticleSet readSet(const SceneView& sv, const std::string& name, const std::string& key, const YAML::Node& def) {
  const Config& c = sv.c;
  if (name == "all") treeError(c, key, "`all` is predefined (every particle); choose another name");
  checkFields(c, key, def, {"box", "face", "grip", "indices"});
  if (def.size() != 1) treeError(c, key, "give exactly one of box, face, grip, indices");
  ParticleSet set{name, key, {}, 0};
  const std::string field = def.begin()->first.Scalar();
  const YAML::Node v = def.begin()->second;
  const std::string fkey = key + "." + field;
  if (field == "box")
    selectBox(sv, fkey, v, set);
  else if (field == "face")
    selectFace(sv, fkey, v, set);
  else if (field == "grip")
    selectGrip(sv, fkey, v, set);
  else  // indices
    selectIndices(sv, fkey, v, set);
  std::sort(set.ids.begin(), set.ids.end());
  if (set.ids.empty()) treeError(c, fkey, "the set is empty: it selects no particle of the scene");
  return set;
}

}  // namespace

ParticleSets readParticleSets(const Config& c, const System& scene) {
  const std::size_t n = scene.P.size();
  const SceneView sv(c, scene);

  const SceneTree t = readSceneTrees(c).sets;
  ParticleSets sets;
  ParticleSet all{"all", t.key + ".all", {}, 0};
  for (std::size_t g = 0; g < n; ++g) all.ids.push_back(static_cast<GlobalId>(g));
  all.area = sv.cellArea(all.ids);
  sets["all"] = all;

  const YAML::Node& tree = t.node;
  if (!tree || tree.IsNull()) return sets;
  if (!tree.IsMap()) treeError(c, t.key, "expected a map of named sets, e.g. tip: {face: x_max}");
  for (const auto& kv : tree) {
    const std::string name = kv.first.Scalar();
    const std::string key = t.key + "." + name;
    const YAML::Node& def = kv.second;
    sets[name] = readSet(sv, name, key, def);
  }
  return sets;
}

const ParticleSet& namedSet(const Config& c, const ParticleSets& sets, const std::string& key, const std::string& name) {
  const auto it = sets.find(name);
  if (it == sets.end()) {
    const std::string names = joinNamesBy(sets, [](const auto& kv) { return kv.first; });
    treeError(c, key, str("no particle set '", name, "' (declared under bdem.sets: ", names, ")"));
  }
  return it->second;
}

}  // namespace kinema::bdem

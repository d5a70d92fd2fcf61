#include "modules/bdem/supports.hpp"

#include "framework/core/error.hpp"

namespace kinema::bdem {

void applySupports(const Config& c, const ParticleSets& sets, System& scene, double dt) {
  const SceneTree t = readSceneTrees(c).supports;
  const YAML::Node& tree = t.node;
  if (!tree || tree.IsNull()) return;
  if (!tree.IsMap()) treeError(c, t.key, "expected a map of named supports, e.g. clamp: {set: root, fixed: true}");
  Particles& P = scene.P;
  const std::size_t n = P.size();
  std::vector<std::size_t> local(n);
  for (std::size_t a = 0; a < n; ++a) local[static_cast<std::size_t>(P.gid[a])] = a;
  for (const auto& kv : tree) {
    const std::string name = kv.first.Scalar();
    const std::string key = t.key + "." + name;
    const YAML::Node& def = kv.second;
    checkFields(c, key, def, {"set", "fixed", "velocity", "angular_velocity", "until", "displacement", "ramp_time"});
    if (!def["set"]) treeError(c, key, "names no set (set: <name>)");
    const ParticleSet& set = namedSet(c, sets, key + ".set", readString(c, key + ".set", def["set"]));
    const int kinds = (def["fixed"] ? 1 : 0) + (def["velocity"] || def["angular_velocity"] ? 1 : 0) +
                      (def["displacement"] ? 1 : 0);
    if (kinds != 1) treeError(c, key, "give exactly one of fixed, velocity (and / or angular_velocity), displacement");
    if (def["until"] && !(def["velocity"] || def["angular_velocity"]))
      treeError(c, key + ".until", "until applies to a velocity support only");
    if (def["ramp_time"] && !def["displacement"])
      treeError(c, key + ".ramp_time", "ramp_time applies to a displacement support only");
    if (def["fixed"]) {
      if (!readBool(c, key + ".fixed", def["fixed"])) treeError(c, key + ".fixed", "only `fixed: true` is meaningful");
      for (GlobalId g : set.ids) {
        const std::size_t a = local[static_cast<std::size_t>(g)];
        P.dof[a] = Dof::Fixed;
        P.grip[a] = -1;
        P.v[a].setZero();
        P.qdot[a].setZero();
      }
      continue;
    }
    Grip grip;
    grip.name = name;
    for (GlobalId g : set.ids) grip.centre += P.pRef[local[static_cast<std::size_t>(g)]];
    grip.centre /= static_cast<double>(set.ids.size());
    if (def["displacement"]) {
      const Vec3 u = readVec3(c, key + ".displacement", def["displacement"]);
      double T = def["ramp_time"] ? readReal(c, key + ".ramp_time", def["ramp_time"]) : 0.0;
      if (T < 0) treeError(c, key + ".ramp_time", str("must be >= 0, got ", T));
      if (T == 0) T = dt;
      grip.velocity = u / T;
      grip.tStop = T;
    } else {
      if (def["velocity"]) grip.velocity = readVec3(c, key + ".velocity", def["velocity"]);
      if (def["angular_velocity"]) grip.angularVelocity = readVec3(c, key + ".angular_velocity", def["angular_velocity"]);
      if (def["until"]) {
        grip.tStop = readReal(c, key + ".until", def["until"]);
        if (!(grip.tStop > 0)) treeError(c, key + ".until", str("must be positive, got ", grip.tStop));
      }
    }
    const auto index = static_cast<std::int32_t>(scene.grips.size());
    scene.grips.push_back(grip);
    for (GlobalId g : set.ids) {
      const std::size_t a = local[static_cast<std::size_t>(g)];
      P.dof[a] = Dof::Grip;
      P.grip[a] = index;
    }
  }
}

}  // namespace kinema::bdem

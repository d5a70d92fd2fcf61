#include "modules/bdem/loads.hpp"

#include "framework/core/error.hpp"

namespace kinema::bdem {

std::vector<Vec3> readLoads(const Config& c, const ParticleSets& sets, const System& scene) {
  const SceneTree t = readSceneTrees(c).loads;
  const YAML::Node& tree = t.node;
  if (!tree || tree.IsNull()) return {};
  if (!tree.IsMap()) treeError(c, t.key, "expected a map of named loads, e.g. tip_load: {set: tip, force: [0, 0, -1]}");
  const Particles& P = scene.P;
  const std::size_t n = P.size();
  std::vector<std::size_t> local(n);
  for (std::size_t a = 0; a < n; ++a) local[static_cast<std::size_t>(P.gid[a])] = a;
  std::vector<Vec3> f(n, Vec3::Zero());
  for (const auto& kv : tree) {
    const std::string key = t.key + "." + kv.first.Scalar();
    const YAML::Node& def = kv.second;
    checkFields(c, key, def, {"set", "body_force", "force", "traction", "area"});
    if (!def["set"]) treeError(c, key, "names no set (set: <name>)");
    const ParticleSet& set = namedSet(c, sets, key + ".set", readString(c, key + ".set", def["set"]));
    const int kinds = (def["body_force"] ? 1 : 0) + (def["force"] ? 1 : 0) + (def["traction"] ? 1 : 0);
    if (kinds != 1) treeError(c, key, "give exactly one of body_force, force, traction");
    if (def["area"] && !def["traction"]) treeError(c, key + ".area", "area applies to a traction only");
    const double count = static_cast<double>(set.ids.size());
    if (def["body_force"]) {
      const Vec3 b = readVec3(c, key + ".body_force", def["body_force"]);
      for (GlobalId g : set.ids) f[static_cast<std::size_t>(g)] += P.m[local[static_cast<std::size_t>(g)]] * b;
    } else if (def["force"]) {
      const Vec3 F = readVec3(c, key + ".force", def["force"]);
      for (GlobalId g : set.ids) f[static_cast<std::size_t>(g)] += F / count;
    } else {
      const Vec3 t = readVec3(c, key + ".traction", def["traction"]);
      double area = set.area;
      if (def["area"]) {
        area = readReal(c, key + ".area", def["area"]);
        if (!(area > 0)) treeError(c, key + ".area", str("must be positive, got ", area));
      }
      for (GlobalId g : set.ids) f[static_cast<std::size_t>(g)] += t * area / count;
    }
  }
  return f;
}

std::vector<Vec3> localLoads(const std::vector<Vec3>& sceneLoads, const std::vector<GlobalId>& sceneIds) {
  if (sceneLoads.empty()) return {};
  std::vector<Vec3> f(sceneIds.size());
  for (std::size_t a = 0; a < sceneIds.size(); ++a) f[a] = sceneLoads[static_cast<std::size_t>(sceneIds[a])];
  return f;
}

}  // namespace kinema::bdem

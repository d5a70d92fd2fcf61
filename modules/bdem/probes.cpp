#include "modules/bdem/probes.hpp"

#include <algorithm>

#include "framework/core/error.hpp"

namespace kinema::bdem {

void Probes::read(const Config& c, const ParticleSets& sets) {
  probes_.clear();
  const SceneTree t = readSceneTrees(c).probes;
  const YAML::Node& tree = t.node;
  if (!tree || tree.IsNull()) return;
  if (!tree.IsSequence()) treeError(c, t.key, "expected a list of set names, e.g. [tip, clamp]");
  for (std::size_t k = 0; k < tree.size(); ++k) {
    const std::string name = readString(c, t.key, tree[k]);
    const ParticleSet& set = namedSet(c, sets, t.key, name);
    if (std::any_of(probes_.begin(), probes_.end(), [&](const Probe& p) { return p.name == name; }))
      treeError(c, t.key, str("set '", name, "' is probed twice"));
    probes_.push_back({name, set.ids, {}, static_cast<double>(set.ids.size())});
  }
}

void Probes::bind(const std::vector<GlobalId>& sceneIds) {
  for (Probe& p : probes_) {
    p.owned.clear();
    for (std::size_t a = 0; a < sceneIds.size(); ++a)
      if (std::binary_search(p.ids.begin(), p.ids.end(), sceneIds[a])) p.owned.push_back(a);
  }
}

void Probes::addColumns(const System& s, const double* gradV, const std::vector<Vec3>& loads, const Comm& comm,
                        io::Diagnostics::Row& row) const {
  const Particles& P = s.P;
  std::vector<double> sums(12 * probes_.size(), 0.0);
  for (std::size_t k = 0; k < probes_.size(); ++k) {
    double* m = sums.data() + 12 * k;
    for (std::size_t a : probes_[k].owned) {
      const Vec3 load = (a < loads.size() ? loads[a] : Vec3::Zero()) + P.m[a] * s.gravity;
      Vec3 f = load;
      if (P.dof[a] != Dof::Free) f = Vec3(gradV[6 * a], gradV[6 * a + 1], gradV[6 * a + 2]) - load;
      const Vec3 u = P.p[a] - P.pRef[a];
      for (int i = 0; i < 3; ++i) {
        m[i] += P.p[a][i];
        m[3 + i] += u[i];
        m[6 + i] += P.v[a][i];
        m[9 + i] += f[i];
      }
    }
  }
  for (double& x : sums) x = comm.sum(x);
  static const char* names[12] = {"x", "y", "z", "ux", "uy", "uz", "vx", "vy", "vz", "fx", "fy", "fz"};
  for (std::size_t k = 0; k < probes_.size(); ++k)
    for (int i = 0; i < 12; ++i) {
      const double v = sums[12 * k + static_cast<std::size_t>(i)];
      row.emplace_back("probe_" + probes_[k].name + "_" + names[i], i < 9 ? v / probes_[k].count : v);
    }
}

}  // namespace kinema::bdem

// Rods from polylines (rod_builder.hpp).
#include "modules/avi/rod_builder.hpp"

#include "framework/core/error.hpp"

namespace kinema::avi {

int addRod(Scene& scene, const std::vector<Vec3>& p, const RodOptions& o, const StepRule& steps) {
  const std::size_t n = p.size();
  if (n < 2) throw InputError(str("avi rod '", o.name, "': needs at least 2 points (got ", n, ")"));
  std::vector<double> mass(n, 0.0);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const double L = (p[i + 1] - p[i]).norm();
    if (!(L > 0.0))
      throw InputError(str("avi rod '", o.name, "': segment ", i, " has zero length (points ", i, " and ", i + 1, ")"));
    mass[i] += 0.5 * o.linearDensity * L;
    mass[i + 1] += 0.5 * o.linearDensity * L;
  }
  beginObject(scene, o.name);
  const int base = scene.vertices.size();
  for (std::size_t i = 0; i < n; ++i) {
    const int id = addVertex(scene, p[i], o.velocity, mass[i], false);
    scene.contactPoints.push_back(id);
  }
  endObject(scene);
  const auto& X = scene.vertices.x;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const int a = base + static_cast<int>(i), b = a + 1;
    scene.contactEdges.emplace_back(a, b);
    scene.drawEdges.emplace_back(a, b);
    ForceElement e = makeSpring(a, b, X[a], X[b], o.axial / (X[b] - X[a]).norm(), o.stretchDamping);
    assignStep(e, scene, steps);
    scene.forces.push_back(e);
  }
  if (o.bend > 0.0 || o.bendDamping > 0.0)
    for (std::size_t i = 1; i + 1 < n; ++i) {
      const int a = base + static_cast<int>(i) - 1, b = a + 1, c = a + 2;
      ForceElement e = makeRodBend(a, b, c, X[a], X[b], X[c], o.bend, o.bendDamping);
      assignStep(e, scene, steps);
      scene.forces.push_back(e);
    }
  return base;
}

}  // namespace kinema::avi

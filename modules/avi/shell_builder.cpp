// Thin shells from triangle meshes (shell_builder.hpp).
#include "modules/avi/shell_builder.hpp"

#include "framework/core/error.hpp"
#include "modules/avi/surface_mesh.hpp"

namespace kinema::avi {

int addShell(Scene& scene, const geometry::TriMesh& mesh, const ShellOptions& o, const StepRule& steps) {
  if (mesh.faces.empty()) throw InputError(str("avi shell '", o.name, "': the mesh has no triangles"));
  geometry::checkSurface(mesh);
  const std::vector<HingeStencil> hinges = meshHinges(mesh.faces, mesh.source);
  const std::vector<double> area = vertexAreas(mesh);
  const int obj = beginObject(scene, o.name);
  (void)obj;
  const int base = scene.vertices.size();
  for (std::size_t a = 0; a < mesh.vertices.size(); ++a) {
    if (!(area[a] > 0.0))
      throw InputError(str("avi shell '", o.name, "' (", mesh.source, "): vertex ", a + 1,
                           " belongs to no triangle (a shell vertex needs mass)"));
    const int id = addVertex(scene, mesh.vertices[a], o.velocity, o.material.arealDensity * area[a], o.scripted);
    scene.contactPoints.push_back(id);
  }
  endObject(scene);
  for (const Eigen::Vector2i& e : meshEdges(mesh.faces)) scene.contactEdges.emplace_back(e.array() + base);
  for (const Eigen::Vector3i& f : mesh.faces) {
    const Eigen::Vector3i g = f.array() + base;
    scene.contactTriangles.push_back(g);
    scene.drawTriangles.push_back(g);
  }
  if (!o.scripted) {
    const ShellMaterial& m = o.material;
    const auto& X = scene.vertices.x;
    if (m.stretch > 0.0 || m.stretchDamping > 0.0)
      for (const Eigen::Vector3i& f : mesh.faces) {
        const int a = f[0] + base, b = f[1] + base, c = f[2] + base;
        ForceElement e = makeCst(a, b, c, X[a], X[b], X[c], m.stretch, m.poisson, m.stretchDamping);
        assignStep(e, scene, steps);
        scene.forces.push_back(e);
      }
    if (m.bend > 0.0 || m.bendDamping > 0.0)
      for (const HingeStencil& h : hinges) {
        const int a = h.a + base, b = h.b + base, c = h.c + base, d = h.d + base;
        ForceElement e = makeHinge(a, b, c, d, X[a], X[b], X[c], X[d], m.bend, m.bendDamping);
        assignStep(e, scene, steps);
        scene.forces.push_back(e);
      }
  }
  return static_cast<int>(scene.objects.size()) - 1;
}

}  // namespace kinema::avi

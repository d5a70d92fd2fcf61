// mesh: a thin shell (or cloth) read from a Wavefront OBJ file (framework/geometry/tri_mesh.hpp),
// scaled, translated, given a velocity, optionally scripted, optionally above a ground plane.
// Units are the file's (cm-g-s suggested: gravity defaults to 980 cm/s^2 down). eta defaults to a
// tenth of the shortest edge after scaling (the file's scale is unknown; validation names the
// largest eta free of contact at rest), k to 100 x the stretching stiffness (as cloth_spikes and
// trash_compactor: layer 1 then absorbs a typical vertex impact).
#include <cmath>
#include <filesystem>
#include <limits>

#include "framework/core/error.hpp"
#include "modules/avi/scene_generators.hpp"
#include "modules/avi/shell_builder.hpp"
#include "modules/avi/surface_mesh.hpp"

namespace kinema::avi::scenes {

void declareMesh(ParamSchema& s, const std::string& g) {
  s.addString(g + ".path", "", "OBJ file of the surface (relative to the scene file); open surfaces allowed");
  s.addBool(g + ".closed", false, "require a closed mesh (every edge shared by exactly two triangles)");
  s.addReal(g + ".scale", 1.0, Range::positive(), "scale applied to the file's coordinates (about the origin)");
  s.addRealList(g + ".translation", {0.0, 0.0, 0.0}, 3, "translation applied after scaling");
  s.addRealList(g + ".velocity", {0.0, 0.0, 0.0}, 3, "initial velocity of every vertex");
  s.addBool(g + ".scripted", false, "true: the mesh moves with `velocity` (minv = 0, no elastic potentials)");
  s.addReal(g + ".stretch", 1000.0, Range::nonNegative(), "stretching stiffness (CST Y)");
  s.addReal(g + ".bend", 10.0, Range::nonNegative(), "bending stiffness (hinge k_b)");
  s.addReal(g + ".poisson", 0.3, Range::open(-1.0, 0.5), "CST Poisson ratio");
  s.addReal(g + ".stretch_damping", 0.0, Range::nonNegative(), "stretching damping");
  s.addReal(g + ".bend_damping", 0.0, Range::nonNegative(), "bending damping");
  s.addReal(g + ".areal_density", 0.1, Range::positive(), "mass per area");
  s.addBool(g + ".plane", true, "add the ground plane z = plane_height (normal +z)");
  s.addReal(g + ".plane_height", 0.0, Range::any(), "height of the ground plane");
}

Scene buildMesh(const Context& c) {
  Scene s;
  s.name = "mesh";
  const std::string path = c.path("path");
  if (path.empty()) c.bad("path", "no OBJ file given");
  geometry::TriMesh m = geometry::readObj(path, c.flag("closed"));
  m.transform(c.real("scale"), c.vec("translation"));
  double shortest = std::numeric_limits<double>::infinity();
  for (const Eigen::Vector2i& e : meshEdges(m.faces)) shortest = std::min(shortest, (m.vertices[e[0]] - m.vertices[e[1]]).norm());
  ShellOptions o;
  o.name = std::filesystem::path(path).stem().string();
  o.material = shellMaterial(c);
  o.velocity = c.vec("velocity");
  o.scripted = c.flag("scripted");
  addShell(s, m, o, c.steps(0.0));
  if (o.scripted && o.velocity.squaredNorm() > 0.0) {
    std::vector<std::int32_t> all;
    for (int a = 0; a < s.vertices.size(); ++a) all.push_back(a);
    addScript(s, "mesh", all, {0.0}, {o.velocity});
  }
  if (c.flag("plane")) s.planes.push_back(Plane{Vec3::UnitZ(), c.real("plane_height")});
  PaperValues p;
  p.eta = 0.1 * shortest;
  p.k = 100.0 * (o.material.stretch > 0 ? o.material.stretch : 1000.0);
  p.gravity = Vec3(0.0, 0.0, -980.0);
  c.finish(s, p);
  return s;
}

}  // namespace kinema::avi::scenes

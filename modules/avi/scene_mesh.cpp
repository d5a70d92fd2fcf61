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

namespace {

struct MeshOptions {
  std::string path;
  bool closed = false;
  double scale = 1.0;
  Vec3 translation{0.0, 0.0, 0.0};
  Vec3 velocity{0.0, 0.0, 0.0};
  bool scripted = false;
  bool plane = true;
  double planeHeight = 0.0;
  ShellMaterial material = [] {
    ShellMaterial m;
    m.stretch = 1000.0;
    m.bend = 10.0;
    m.poisson = 0.3;
    m.stretchDamping = 0.0;
    m.bendDamping = 0.0;
    m.arealDensity = 0.1;
    return m;
  }();
};

const ParamBindings<MeshOptions>& bindings() {
  static const ParamBindings<MeshOptions> b = [] {
    using O = MeshOptions;
    using M = ShellMaterial;
    ParamBindings<O> r;
    r.string("path", &O::path, "OBJ file of the surface (relative to the scene file); open surfaces allowed");
    r.boolean("closed", &O::closed, "require a closed mesh (every edge shared by exactly two triangles)");
    r.real("scale", &O::scale, Range::positive(), "scale applied to the file's coordinates (about the origin)");
    vec3(r, "translation", &O::translation, "translation applied after scaling");
    vec3(r, "velocity", &O::velocity, "initial velocity of every vertex");
    r.boolean("scripted", &O::scripted, "true: the mesh moves with `velocity` (minv = 0, no elastic potentials)");
    r.real("stretch", shell<O>(&M::stretch), Range::nonNegative(), "stretching stiffness (CST Y)");
    r.real("bend", shell<O>(&M::bend), Range::nonNegative(), "bending stiffness (hinge k_b)");
    r.real("poisson", shell<O>(&M::poisson), Range::open(-1.0, 0.5), "CST Poisson ratio");
    r.real("stretch_damping", shell<O>(&M::stretchDamping), Range::nonNegative(), "stretching damping");
    r.real("bend_damping", shell<O>(&M::bendDamping), Range::nonNegative(), "bending damping");
    r.real("areal_density", shell<O>(&M::arealDensity), Range::positive(), "mass per area");
    r.boolean("plane", &O::plane, "add the ground plane z = plane_height (normal +z)");
    r.real("plane_height", &O::planeHeight, Range::any(), "height of the ground plane");
    return r;
  }();
  return b;
}

}  // namespace

void declareMesh(ParamSchema& s, const std::string& g) { bindings().declare(s, g); }

Scene buildMesh(const Context& c) {
  const MeshOptions a = c.read(bindings());
  Scene s;
  s.name = "mesh";
  const std::string path = c.path(a.path);
  if (path.empty()) c.bad("path", "no OBJ file given");
  geometry::TriMesh m = geometry::readObj(path, a.closed);
  m.transform(a.scale, a.translation);
  double shortest = std::numeric_limits<double>::infinity();
  for (const Eigen::Vector2i& e : meshEdges(m.faces)) shortest = std::min(shortest, (m.vertices[e[0]] - m.vertices[e[1]]).norm());
  ShellOptions o;
  o.name = std::filesystem::path(path).stem().string();
  o.material = a.material;
  o.velocity = a.velocity;
  o.scripted = a.scripted;
  addShell(s, m, o, c.steps(0.0));
  if (o.scripted && o.velocity.squaredNorm() > 0.0) {
    std::vector<std::int32_t> all;
    for (int a = 0; a < s.vertices.size(); ++a) all.push_back(a);
    addScript(s, "mesh", all, {0.0}, {o.velocity});
  }
  if (a.plane) s.planes.push_back(Plane{Vec3::UnitZ(), a.planeHeight});
  PaperValues p;
  p.eta = 0.1 * shortest;
  p.k = 100.0 * (o.material.stretch > 0 ? o.material.stretch : 1000.0);
  p.gravity = Vec3(0.0, 0.0, -980.0);
  c.finish(s, p);
  return s;
}

}  // namespace kinema::avi::scenes

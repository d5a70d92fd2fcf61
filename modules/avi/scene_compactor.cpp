// trash_compactor (the paper's §8.7, Fig. 13; README decision 44; cm-g-s): coarse thin-shell solids
// in a box of 71.5 x 36.7 x 9.3 cm whose four side walls close in, the length at 20 cm/s and the
// width at 10 cm/s (total rates: each end wall moves at 10 cm/s, each side wall at 5 cm/s; the paper's §8.7
// [DERIVED] shows the rates must be totals), for 3.4 s (footprint 3.5 x 2.7 cm at the end); the
// walls then stop. All objects: stretching 1000, bending 10, stretching damping 15, bending damping
// 0.5, gravity 980 cm/s^2.
//
// Choices: the walls are one scripted mesh (four rectangles sharing their vertical corner edges,
// each corner moving with the velocity of both walls it joins, so the walls shrink with the box
// and never cross); the floor is the plane z = 0 and the lid the plane z = 9.3 cm (the paper
// does not say; without a lid the solids escape over the walls instead of being compacted). Objects, in turn: cube,
// icosahedron, torus (8 x 6), octahedron, dodecahedron, tetrahedron, ... of circumradius
// `object_radius` (torus: R = 0.7 radius, r = 0.3 radius), in a row along x, 0.6 cm above the
// floor. Areal density 0.1 g/cm^2 (not in the paper); eta = 0.1 cm; k = 100 x the stretching
// stiffness = 1e5 (with k = 1000 the solids landing on the floor reach layer 347 and, with the
// default material steps, gain energy; with 1e5 the deepest layer is 6 and energy decays). Plasticity (Bergou et al. [43], missing from the paper's references) is NOT
// implemented: the objects are elastic (non-faithful, README).
#include <cmath>

#include "framework/core/error.hpp"
#include "modules/avi/mesh_generators.hpp"
#include "modules/avi/scene_generators.hpp"
#include "modules/avi/shell_builder.hpp"
#include "modules/avi/surface_mesh.hpp"

namespace kinema::avi::scenes {

namespace {

struct TrashCompactorOptions {
  double boxLength = 71.5;
  double boxWidth = 36.7;
  double boxHeight = 9.3;
  double lengthRate = 20.0;
  double widthRate = 10.0;
  double duration = 3.4;
  int objects = 6;
  double objectRadius = 4.0;
  bool lid = true;
  ShellMaterial material = [] {
    ShellMaterial m;
    m.stretch = 1000.0;
    m.bend = 10.0;
    m.stretchDamping = 15.0;
    m.bendDamping = 0.5;
    m.poisson = 0.3;
    m.arealDensity = 0.1;
    return m;
  }();
};

const ParamBindings<TrashCompactorOptions>& bindings() {
  static const ParamBindings<TrashCompactorOptions> b = [] {
    using O = TrashCompactorOptions;
    using M = ShellMaterial;
    ParamBindings<O> r;
    r.real("box_length", &O::boxLength, Range::positive(), "box length along x [cm] (paper: 71.5)");
    r.real("box_width", &O::boxWidth, Range::positive(), "box width along y [cm] (paper: 36.7)");
    r.real("box_height", &O::boxHeight, Range::positive(), "wall height [cm] (paper: 9.3)");
    r.real("length_rate", &O::lengthRate, Range::nonNegative(),
           "rate the length closes (both end walls together) [cm/s] (paper: 20)");
    r.real("width_rate", &O::widthRate, Range::nonNegative(),
           "rate the width closes (both side walls together) [cm/s] (paper: 10)");
    r.real("duration", &O::duration, Range::positive(), "time the walls move, then stop [s] (paper: 3.4)");
    r.integer("objects", &O::objects, Range::closed(1, 100), "number of solids, in a row along x");
    r.real("object_radius", &O::objectRadius, Range::positive(), "circumradius of each solid [cm]");
    r.real("stretch", shell<O>(&M::stretch), Range::nonNegative(), "stretching stiffness (CST Y) (paper: 1000)");
    r.real("bend", shell<O>(&M::bend), Range::nonNegative(), "bending stiffness (hinge k_b) (paper: 10)");
    r.real("stretch_damping", shell<O>(&M::stretchDamping), Range::nonNegative(), "stretching damping (paper: 15)");
    r.real("bend_damping", shell<O>(&M::bendDamping), Range::nonNegative(), "bending damping (paper: 0.5)");
    r.real("poisson", shell<O>(&M::poisson), Range::open(-1.0, 0.5), "CST Poisson ratio (not in the paper)");
    r.real("areal_density", shell<O>(&M::arealDensity), Range::positive(), "mass per area [g/cm^2] (not in the paper)");
    r.boolean("lid", &O::lid,
              "close the box with the fixed plane z = box_height (else the solids escape over the walls)");
    return r;
  }();
  return b;
}

}  // namespace

void declareTrashCompactor(ParamSchema& s, const std::string& g) { bindings().declare(s, g); }

Scene buildTrashCompactor(const Context& c) {
  const TrashCompactorOptions a = c.read(bindings());
  Scene s;
  s.name = "trash_compactor";
  const StepRule steps = c.steps(0.0);
  const double Lx = a.boxLength, Ly = a.boxWidth, Hz = a.boxHeight;
  const double T = a.duration, vx = 0.5 * a.lengthRate, vy = 0.5 * a.widthRate;
  if (!(2.0 * vx * T < Lx)) c.bad("duration", str("the end walls would meet before ", T, " s (length ", Lx, " cm closing at ", 2 * vx, " cm/s)"));
  if (!(2.0 * vy * T < Ly)) c.bad("duration", str("the side walls would meet before ", T, " s (width ", Ly, " cm closing at ", 2 * vy, " cm/s)"));
  // Walls.
  ShellOptions wall;
  wall.name = "walls";
  wall.scripted = true;
  const int w0 = s.vertices.size();
  addShell(s, wallTube(-Lx / 2, Lx / 2, -Ly / 2, Ly / 2, Hz), wall, steps);
  for (int k = 0; k < 4; ++k) {
    // Corners (x0,y0), (x1,y0), (x1,y1), (x0,y1): each moves towards the box centre.
    const double sx = (k == 0 || k == 3) ? 1.0 : -1.0, sy = k < 2 ? 1.0 : -1.0;
    const Vec3 v(sx * vx, sy * vy, 0.0);
    addScript(s, str("wall_corner_", k), {w0 + k, w0 + k + 4}, {0.0, T}, {v, Vec3::Zero()});
  }
  s.planes.push_back(Plane{Vec3::UnitZ(), 0.0});
  if (a.lid) s.planes.push_back(Plane{-Vec3::UnitZ(), -Hz});
  // Objects.
  ShellOptions o;
  o.material = a.material;
  const int n = a.objects;
  const double r = a.objectRadius;
  const double pitch = (Lx - 2.0) / n;
  if (!(2.0 * r + 0.5 < pitch) || !(2.0 * r + 1.0 < Ly) || !(2.0 * r + 0.6 + 0.25 < Hz))
    c.bad("object_radius", str(n, " solids of radius ", r, " cm do not fit in a row in the ", Lx, " x ", Ly, " x ", Hz, " cm box"));
  static const char* kinds[] = {"cube", "icosahedron", "torus", "octahedron", "dodecahedron", "tetrahedron"};
  for (int i = 0; i < n; ++i) {
    const std::string kind = kinds[i % 6];
    geometry::TriMesh m = kind == "torus" ? torusMesh(0.7 * r, 0.3 * r, 8, 6) : platonicSolid(kind, r);
    double zmin = 1e300;
    for (const Vec3& x : m.vertices) zmin = std::min(zmin, x.z());
    rigidTransform(m, Eigen::Matrix3d::Identity(), Vec3(-Lx / 2 + 1.0 + pitch * (i + 0.5), 0.0, 0.6 - zmin));
    o.name = str(kind, "_", i);
    addShell(s, m, o, steps);
  }
  PaperValues p;
  p.eta = 0.1;
  p.k = 100.0 * (a.material.stretch > 0 ? a.material.stretch : 1000.0);
  p.gravity = Vec3(0.0, 0.0, -980.0);
  c.finish(s, p);
  return s;
}

}  // namespace kinema::avi::scenes

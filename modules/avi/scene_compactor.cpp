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

void declareTrashCompactor(ParamSchema& s, const std::string& g) {
  s.addReal(g + ".box_length", 71.5, Range::positive(), "box length along x [cm] (paper: 71.5)");
  s.addReal(g + ".box_width", 36.7, Range::positive(), "box width along y [cm] (paper: 36.7)");
  s.addReal(g + ".box_height", 9.3, Range::positive(), "wall height [cm] (paper: 9.3)");
  s.addReal(g + ".length_rate", 20.0, Range::nonNegative(), "rate the length closes (both end walls together) [cm/s] (paper: 20)");
  s.addReal(g + ".width_rate", 10.0, Range::nonNegative(), "rate the width closes (both side walls together) [cm/s] (paper: 10)");
  s.addReal(g + ".duration", 3.4, Range::positive(), "time the walls move, then stop [s] (paper: 3.4)");
  s.addInt(g + ".objects", 6, Range::closed(1, 100), "number of solids, in a row along x");
  s.addReal(g + ".object_radius", 4.0, Range::positive(), "circumradius of each solid [cm]");
  s.addReal(g + ".stretch", 1000.0, Range::nonNegative(), "stretching stiffness (CST Y) (paper: 1000)");
  s.addReal(g + ".bend", 10.0, Range::nonNegative(), "bending stiffness (hinge k_b) (paper: 10)");
  s.addReal(g + ".stretch_damping", 15.0, Range::nonNegative(), "stretching damping (paper: 15)");
  s.addReal(g + ".bend_damping", 0.5, Range::nonNegative(), "bending damping (paper: 0.5)");
  s.addReal(g + ".poisson", 0.3, Range::open(-1.0, 0.5), "CST Poisson ratio (not in the paper)");
  s.addReal(g + ".areal_density", 0.1, Range::positive(), "mass per area [g/cm^2] (not in the paper)");
  s.addBool(g + ".lid", true, "close the box with the fixed plane z = box_height (else the solids escape over the walls)");
}

Scene buildTrashCompactor(const Context& c) {
  Scene s;
  s.name = "trash_compactor";
  const StepRule steps = c.steps(0.0);
  const double Lx = c.real("box_length"), Ly = c.real("box_width"), Hz = c.real("box_height");
  const double T = c.real("duration"), vx = 0.5 * c.real("length_rate"), vy = 0.5 * c.real("width_rate");
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
  if (c.flag("lid")) s.planes.push_back(Plane{-Vec3::UnitZ(), -Hz});
  // Objects.
  ShellOptions o;
  o.material = shellMaterial(c);
  const int n = c.integer("objects");
  const double r = c.real("object_radius");
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
  p.k = 100.0 * (c.real("stretch") > 0 ? c.real("stretch") : 1000.0);
  p.gravity = Vec3(0.0, 0.0, -980.0);
  c.finish(s, p);
  return s;
}

}  // namespace kinema::avi::scenes

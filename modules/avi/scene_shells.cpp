// Thin-shell scenes (cm-g-s, README decision 8):
//
// sphere_plate (the paper's §8.3, after Cirak & West): a spherical shell of radius 12.5 cm hits a free
// disc plate of radius 35 cm at 100 m/s (the sphere moves, the plate is at rest), both 0.35 cm
// thick, material steps 1e-7 s, no gravity. Material (not in the paper): steel-like E = 2e12
// dyn/cm^2 (200 GPa), nu = 0.3, rho = 7.8 g/cm^3. Mapping (README decision 8): CST Y = E t,
// hinge k_b = E t^3 / (36 (1 - nu^2)) = D / 3 (for equilateral triangles on a cylinder the hinge
// energy density is (3/2) k_b kappa^2 against the plate's D kappa^2 / 2), areal density rho t.
// Contact: eta = t / 2 (layer 1 starts at the shell thickness), k = E t (contact as stiff as the
// membrane, so layer-1 steps are of the order of the material step).
//
// sphere_wedge (the paper's §8.5, after Pandolfi et al.): a frequency-3 icosphere (92 vertices) of radius
// 4.97 cm, its CENTRE 20.84 cm above the ground plane (the paper does not say which point; the
// centre puts it 1.4 cm above both wedge faces, so it hits them after about 0.05 s and has
// reflected by 0.42 s as in Fig. 8), falling at 100 cm/s without gravity onto two thin-shell
// triangular prisms (base 12.92 cm, height 20.05 cm, length 38.41 cm, 71 vertices each: 3 x 23
// rings + 2 cap centres) standing on the ground plane a small gap apart. Stretching 5e4, bending
// 1e5, nu = 0.3, areal density 0.1 g/cm^2 (not given). The wedge is scripted at rest by default
// (the paper calls the objects rigid); wedge_fixed: false makes the prisms free shells of the same
// material, lifted 3 eta above the ground plane.
//
// two_shells (test M1, README decision 58): two free icospheres colliding off-centre, no gravity, no walls:
// linear and angular momentum are conserved exactly.
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"
#include "modules/avi/mesh_generators.hpp"
#include "modules/avi/scene_generators.hpp"
#include "modules/avi/shell_builder.hpp"
#include "modules/avi/surface_mesh.hpp"

namespace kinema::avi::scenes {

namespace {

double lowestZ(const geometry::TriMesh& m) {
  double z = std::numeric_limits<double>::infinity();
  for (const Vec3& x : m.vertices) z = std::min(z, x.z());
  return z;
}

void translate(geometry::TriMesh& m, const Vec3& t) { rigidTransform(m, Eigen::Matrix3d::Identity(), t); }

}  // namespace

// ---------------------------------------------------------------------------------------------
void declareSpherePlate(ParamSchema& s, const std::string& g) {
  s.addReal(g + ".sphere_radius", 12.5, Range::positive(), "radius of the spherical shell [cm] (paper: 12.5)");
  s.addReal(g + ".plate_radius", 35.0, Range::positive(), "radius of the disc plate [cm] (paper: 35)");
  s.addReal(g + ".thickness", 0.35, Range::positive(), "shell and plate thickness t [cm] (paper: 0.35)");
  s.addReal(g + ".speed", 1e4, Range::positive(), "impact speed of the sphere, plate at rest [cm/s] (paper: 100 m/s)");
  s.addReal(g + ".gap", 1.0, Range::positive(), "initial gap between the sphere's lowest vertex and the plate [cm]");
  s.addReal(g + ".youngs_modulus", 2e12, Range::positive(), "Young's modulus E [dyn/cm^2] (steel-like, not in the paper)");
  s.addReal(g + ".poisson", 0.3, Range::open(-1.0, 0.5), "Poisson ratio nu");
  s.addReal(g + ".density", 7.8, Range::positive(), "density rho [g/cm^3] (steel-like)");
  s.addInt(g + ".sphere_frequency", 4, Range::closed(1, 64), "icosphere frequency nu: 10 nu^2 + 2 vertices");
  s.addInt(g + ".plate_rings", 6, Range::closed(1, 200), "rings of the disc mesh: 1 + 3 rings (rings + 1) vertices");
}

Scene buildSpherePlate(const Context& c) {
  Scene s;
  s.name = "sphere_plate";
  const double R = c.real("sphere_radius"), Rp = c.real("plate_radius"), t = c.real("thickness");
  const double E = c.real("youngs_modulus"), nu = c.real("poisson"), rho = c.real("density");
  if (!(R < Rp)) c.bad("sphere_radius", str("the sphere (", R, " cm) must be smaller than the plate (", Rp, " cm)"));
  ShellOptions o;
  o.material.arealDensity = rho * t;
  o.material.stretch = E * t;
  o.material.poisson = nu;
  o.material.bend = E * t * t * t / (36.0 * (1.0 - nu * nu));
  const StepRule steps = c.steps(1e-7);
  geometry::TriMesh plate = discMesh(Rp, c.integer("plate_rings"));
  o.name = "plate";
  addShell(s, plate, o, steps);
  geometry::TriMesh sphere = icosphere(R, c.integer("sphere_frequency"));
  translate(sphere, Vec3(0.0, 0.0, c.real("gap") - lowestZ(sphere)));
  o.name = "sphere";
  o.velocity = Vec3(0.0, 0.0, -c.real("speed"));
  addShell(s, sphere, o, steps);
  PaperValues p;
  p.eta = 0.5 * t;
  p.k = E * t;
  c.finish(s, p);
  return s;
}

// ---------------------------------------------------------------------------------------------
void declareSphereWedge(ParamSchema& s, const std::string& g) {
  s.addReal(g + ".sphere_radius", 4.97, Range::positive(), "sphere radius [cm] (paper: 4.97)");
  s.addInt(g + ".sphere_frequency", 3, Range::closed(1, 64), "icosphere frequency nu (paper: 92 vertices = nu 3)");
  s.addReal(g + ".height", 20.84, Range::positive(), "height of the sphere's centre above the ground [cm] (paper: 20.84)");
  s.addReal(g + ".speed", 100.0, Range::any(), "initial downward speed [cm/s] (paper: 100)");
  s.addReal(g + ".prism_base", 12.92, Range::positive(), "base width of each prism [cm] (paper: 12.92)");
  s.addReal(g + ".prism_height", 20.05, Range::positive(), "height of each prism [cm] (paper: 20.05)");
  s.addReal(g + ".prism_length", 38.41, Range::positive(), "length of each prism [cm] (paper: 38.41)");
  s.addInt(g + ".prism_segments", 22, Range::closed(1, 1000),
           "segments along the prism length (22 with 1 division per side: the paper's 71 vertices)");
  s.addInt(g + ".prism_side_divisions", 1, Range::closed(1, 100), "divisions of each side of the cross section");
  s.addReal(g + ".wedge_gap", 0.5, Range::positive(), "gap between the two prisms' base edges [cm]");
  s.addBool(g + ".wedge_fixed", true, "true: the prisms are scripted at rest; false: free shells of the same material");
  s.addReal(g + ".stretch", 5e4, Range::nonNegative(), "stretching stiffness (CST Y) (paper: 50000)");
  s.addReal(g + ".bend", 1e5, Range::nonNegative(), "bending stiffness (hinge k_b) (paper: 100000)");
  s.addReal(g + ".poisson", 0.3, Range::open(-1.0, 0.5), "CST Poisson ratio (not in the paper)");
  s.addReal(g + ".areal_density", 0.1, Range::positive(), "mass per area [g/cm^2] (not in the paper)");
}

Scene buildSphereWedge(const Context& c) {
  Scene s;
  s.name = "sphere_wedge";
  ShellOptions o;
  o.material.arealDensity = c.real("areal_density");
  o.material.stretch = c.real("stretch");
  o.material.bend = c.real("bend");
  o.material.poisson = c.real("poisson");
  const StepRule steps = c.steps(0.0);
  const double eta = c.eta(0.1);
  const bool fixed = c.flag("wedge_fixed");
  const double b = c.real("prism_base"), H = c.real("prism_height"), L = c.real("prism_length");
  const double gap = c.real("wedge_gap"), lift = fixed ? 0.0 : 3.0 * eta;
  for (int side = 0; side < 2; ++side) {
    geometry::TriMesh prism = prismShell(b, H, L, c.integer("prism_segments"), c.integer("prism_side_divisions"));
    const double sx = side == 0 ? -1.0 : 1.0;
    translate(prism, Vec3(sx * (0.5 * b + 0.5 * gap), -0.5 * L, lift));
    o.name = side == 0 ? "prism_left" : "prism_right";
    o.scripted = fixed;
    addShell(s, prism, o, steps);
  }
  const double R = c.real("sphere_radius");
  if (!(c.real("height") > R)) c.bad("height", str("the sphere's centre must be above its radius ", R));
  geometry::TriMesh sphere = icosphere(R, c.integer("sphere_frequency"));
  translate(sphere, Vec3(0.0, 0.0, c.real("height")));
  o.name = "sphere";
  o.scripted = false;
  o.velocity = Vec3(0.0, 0.0, -c.real("speed"));
  addShell(s, sphere, o, steps);
  s.planes.push_back(Plane{Vec3::UnitZ(), 0.0});
  PaperValues p;
  p.eta = 0.1;
  p.k = c.real("stretch") > 0 ? c.real("stretch") : 1e4;
  c.finish(s, p);
  return s;
}

// ---------------------------------------------------------------------------------------------
void declareTwoShells(ParamSchema& s, const std::string& g) {
  s.addReal(g + ".radius", 1.0, Range::positive(), "radius of each icosphere");
  s.addInt(g + ".frequency", 2, Range::closed(1, 64), "icosphere frequency nu (10 nu^2 + 2 vertices each)");
  s.addReal(g + ".gap", 0.5, Range::positive(), "initial gap between the two meshes' extents along x");
  s.addReal(g + ".offset", 0.5, Range::any(), "lateral offset of the second sphere along y (off-centre impact)");
  s.addReal(g + ".speed", 1.0, Range::nonNegative(), "speed of each sphere towards the other along x");
  s.addReal(g + ".stretch", 100.0, Range::nonNegative(), "CST Y");
  s.addReal(g + ".bend", 1.0, Range::nonNegative(), "hinge k_b");
  s.addReal(g + ".poisson", 0.3, Range::open(-1.0, 0.5), "CST Poisson ratio");
  s.addReal(g + ".areal_density", 1.0, Range::positive(), "mass per area");
  s.addReal(g + ".stretch_damping", 0.0, Range::nonNegative(), "CST strain-rate damping (keeps both momenta)");
  s.addReal(g + ".bend_damping", 0.0, Range::nonNegative(), "hinge damping (keeps both momenta)");
}

Scene buildTwoShells(const Context& c) {
  Scene s;
  s.name = "two_shells";
  ShellOptions o;
  o.material = shellMaterial(c);
  const StepRule steps = c.steps(0.0);
  const double R = c.real("radius"), v = c.real("speed"), gap = c.real("gap");
  for (int side = 0; side < 2; ++side) {
    geometry::TriMesh m = icosphere(R, c.integer("frequency"));
    const double sx = side == 0 ? -1.0 : 1.0;
    double reach = 0.0;  // the mesh's extent along x (below R: the vertices are not at the poles)
    for (const Vec3& x : m.vertices) reach = std::max(reach, x.x());
    translate(m, Vec3(sx * (reach + 0.5 * gap), side == 0 ? 0.0 : c.real("offset"), 0.0));
    o.name = side == 0 ? "shell_a" : "shell_b";
    o.velocity = Vec3(-sx * v, 0.0, 0.0);
    addShell(s, m, o, steps);
  }
  PaperValues p;
  p.eta = 0.05 * R;
  p.k = c.real("stretch") > 0 ? c.real("stretch") : 100.0;
  c.finish(s, p);
  return s;
}

}  // namespace kinema::avi::scenes

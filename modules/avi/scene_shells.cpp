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
namespace {

struct SpherePlateOptions {
  double sphereRadius = 12.5, plateRadius = 35.0, thickness = 0.35, speed = 1e4, gap = 1.0;
  double youngsModulus = 2e12, poisson = 0.3, density = 7.8;
  int sphereFrequency = 4, plateRings = 6;
};

const ParamBindings<SpherePlateOptions>& spherePlateBindings() {
  static const ParamBindings<SpherePlateOptions> b = [] {
    using O = SpherePlateOptions;
    ParamBindings<O> r;
    r.real("sphere_radius", &O::sphereRadius, Range::positive(), "radius of the spherical shell [cm] (paper: 12.5)");
    r.real("plate_radius", &O::plateRadius, Range::positive(), "radius of the disc plate [cm] (paper: 35)");
    r.real("thickness", &O::thickness, Range::positive(), "shell and plate thickness t [cm] (paper: 0.35)");
    r.real("speed", &O::speed, Range::positive(), "impact speed of the sphere, plate at rest [cm/s] (paper: 100 m/s)");
    r.real("gap", &O::gap, Range::positive(), "initial gap between the sphere's lowest vertex and the plate [cm]");
    r.real("youngs_modulus", &O::youngsModulus, Range::positive(),
           "Young's modulus E [dyn/cm^2] (steel-like, not in the paper)");
    r.real("poisson", &O::poisson, Range::open(-1.0, 0.5), "Poisson ratio nu");
    r.real("density", &O::density, Range::positive(), "density rho [g/cm^3] (steel-like)");
    r.integer("sphere_frequency", &O::sphereFrequency, Range::closed(1, 64),
              "icosphere frequency nu: 10 nu^2 + 2 vertices");
    r.integer("plate_rings", &O::plateRings, Range::closed(1, 200),
              "rings of the disc mesh: 1 + 3 rings (rings + 1) vertices");
    return r;
  }();
  return b;
}

}  // namespace

void declareSpherePlate(ParamSchema& s, const std::string& g) { spherePlateBindings().declare(s, g); }

Scene buildSpherePlate(const Context& c) {
  Scene s;
  s.name = "sphere_plate";
  const SpherePlateOptions a = c.read(spherePlateBindings());
  const double R = a.sphereRadius, Rp = a.plateRadius, t = a.thickness;
  const double E = a.youngsModulus, nu = a.poisson, rho = a.density;
  if (!(R < Rp)) c.bad("sphere_radius", str("the sphere (", R, " cm) must be smaller than the plate (", Rp, " cm)"));
  ShellOptions o;
  o.material.arealDensity = rho * t;
  o.material.stretch = E * t;
  o.material.poisson = nu;
  o.material.bend = E * t * t * t / (36.0 * (1.0 - nu * nu));
  const StepRule steps = c.steps(1e-7);
  geometry::TriMesh plate = discMesh(Rp, a.plateRings);
  o.name = "plate";
  addShell(s, plate, o, steps);
  geometry::TriMesh sphere = icosphere(R, a.sphereFrequency);
  translate(sphere, Vec3(0.0, 0.0, a.gap - lowestZ(sphere)));
  o.name = "sphere";
  o.velocity = Vec3(0.0, 0.0, -a.speed);
  addShell(s, sphere, o, steps);
  PaperValues p;
  p.eta = 0.5 * t;
  p.k = E * t;
  c.finish(s, p);
  return s;
}

// ---------------------------------------------------------------------------------------------
namespace {

struct SphereWedgeOptions {
  double sphereRadius = 4.97;
  int sphereFrequency = 3;
  double height = 20.84, speed = 100.0, prismBase = 12.92, prismHeight = 20.05, prismLength = 38.41;
  int prismSegments = 22, prismSideDivisions = 1;
  double wedgeGap = 0.5;
  bool wedgeFixed = true;
  ShellMaterial material = [] {
    ShellMaterial m;
    m.stretch = 5e4;
    m.bend = 1e5;
    m.poisson = 0.3;
    m.arealDensity = 0.1;
    return m;
  }();
};

const ParamBindings<SphereWedgeOptions>& sphereWedgeBindings() {
  static const ParamBindings<SphereWedgeOptions> b = [] {
    using O = SphereWedgeOptions;
    using M = ShellMaterial;
    ParamBindings<O> r;
    r.real("sphere_radius", &O::sphereRadius, Range::positive(), "sphere radius [cm] (paper: 4.97)");
    r.integer("sphere_frequency", &O::sphereFrequency, Range::closed(1, 64),
              "icosphere frequency nu (paper: 92 vertices = nu 3)");
    r.real("height", &O::height, Range::positive(),
           "height of the sphere's centre above the ground [cm] (paper: 20.84)");
    r.real("speed", &O::speed, Range::any(), "initial downward speed [cm/s] (paper: 100)");
    r.real("prism_base", &O::prismBase, Range::positive(), "base width of each prism [cm] (paper: 12.92)");
    r.real("prism_height", &O::prismHeight, Range::positive(), "height of each prism [cm] (paper: 20.05)");
    r.real("prism_length", &O::prismLength, Range::positive(), "length of each prism [cm] (paper: 38.41)");
    r.integer("prism_segments", &O::prismSegments, Range::closed(1, 1000),
              "segments along the prism length (22 with 1 division per side: the paper's 71 vertices)");
    r.integer("prism_side_divisions", &O::prismSideDivisions, Range::closed(1, 100),
              "divisions of each side of the cross section");
    r.real("wedge_gap", &O::wedgeGap, Range::positive(), "gap between the two prisms' base edges [cm]");
    r.boolean("wedge_fixed", &O::wedgeFixed,
              "true: the prisms are scripted at rest; false: free shells of the same material");
    r.real("stretch", shell<O>(&M::stretch), Range::nonNegative(), "stretching stiffness (CST Y) (paper: 50000)");
    r.real("bend", shell<O>(&M::bend), Range::nonNegative(), "bending stiffness (hinge k_b) (paper: 100000)");
    r.real("poisson", shell<O>(&M::poisson), Range::open(-1.0, 0.5), "CST Poisson ratio (not in the paper)");
    r.real("areal_density", shell<O>(&M::arealDensity), Range::positive(), "mass per area [g/cm^2] (not in the paper)");
    return r;
  }();
  return b;
}

}  // namespace

void declareSphereWedge(ParamSchema& s, const std::string& g) { sphereWedgeBindings().declare(s, g); }

Scene buildSphereWedge(const Context& c) {
  Scene s;
  s.name = "sphere_wedge";
  const SphereWedgeOptions a = c.read(sphereWedgeBindings());
  ShellOptions o;
  o.material.arealDensity = a.material.arealDensity;
  o.material.stretch = a.material.stretch;
  o.material.bend = a.material.bend;
  o.material.poisson = a.material.poisson;
  const StepRule steps = c.steps(0.0);
  const double eta = c.eta(0.1);
  const bool fixed = a.wedgeFixed;
  const double b = a.prismBase, H = a.prismHeight, L = a.prismLength;
  const double gap = a.wedgeGap, lift = fixed ? 0.0 : 3.0 * eta;
  for (int side = 0; side < 2; ++side) {
    geometry::TriMesh prism = prismShell(b, H, L, a.prismSegments, a.prismSideDivisions);
    const double sx = side == 0 ? -1.0 : 1.0;
    translate(prism, Vec3(sx * (0.5 * b + 0.5 * gap), -0.5 * L, lift));
    o.name = side == 0 ? "prism_left" : "prism_right";
    o.scripted = fixed;
    addShell(s, prism, o, steps);
  }
  const double R = a.sphereRadius;
  if (!(a.height > R)) c.bad("height", str("the sphere's centre must be above its radius ", R));
  geometry::TriMesh sphere = icosphere(R, a.sphereFrequency);
  translate(sphere, Vec3(0.0, 0.0, a.height));
  o.name = "sphere";
  o.scripted = false;
  o.velocity = Vec3(0.0, 0.0, -a.speed);
  addShell(s, sphere, o, steps);
  s.planes.push_back(Plane{Vec3::UnitZ(), 0.0});
  PaperValues p;
  p.eta = 0.1;
  p.k = a.material.stretch > 0 ? a.material.stretch : 1e4;
  c.finish(s, p);
  return s;
}

// ---------------------------------------------------------------------------------------------
namespace {

struct TwoShellsOptions {
  double radius = 1.0;
  int frequency = 2;
  double gap = 0.5, offset = 0.5, speed = 1.0;
  ShellMaterial material = [] {
    ShellMaterial m;
    m.stretch = 100.0;
    m.bend = 1.0;
    m.poisson = 0.3;
    m.arealDensity = 1.0;
    m.stretchDamping = 0.0;
    m.bendDamping = 0.0;
    return m;
  }();
};

const ParamBindings<TwoShellsOptions>& twoShellsBindings() {
  static const ParamBindings<TwoShellsOptions> b = [] {
    using O = TwoShellsOptions;
    using M = ShellMaterial;
    ParamBindings<O> r;
    r.real("radius", &O::radius, Range::positive(), "radius of each icosphere");
    r.integer("frequency", &O::frequency, Range::closed(1, 64), "icosphere frequency nu (10 nu^2 + 2 vertices each)");
    r.real("gap", &O::gap, Range::positive(), "initial gap between the two meshes' extents along x");
    r.real("offset", &O::offset, Range::any(), "lateral offset of the second sphere along y (off-centre impact)");
    r.real("speed", &O::speed, Range::nonNegative(), "speed of each sphere towards the other along x");
    r.real("stretch", shell<O>(&M::stretch), Range::nonNegative(), "CST Y");
    r.real("bend", shell<O>(&M::bend), Range::nonNegative(), "hinge k_b");
    r.real("poisson", shell<O>(&M::poisson), Range::open(-1.0, 0.5), "CST Poisson ratio");
    r.real("areal_density", shell<O>(&M::arealDensity), Range::positive(), "mass per area");
    r.real("stretch_damping", shell<O>(&M::stretchDamping), Range::nonNegative(),
           "CST strain-rate damping (keeps both momenta)");
    r.real("bend_damping", shell<O>(&M::bendDamping), Range::nonNegative(), "hinge damping (keeps both momenta)");
    return r;
  }();
  return b;
}

}  // namespace

void declareTwoShells(ParamSchema& s, const std::string& g) { twoShellsBindings().declare(s, g); }

Scene buildTwoShells(const Context& c) {
  Scene s;
  s.name = "two_shells";
  const TwoShellsOptions a = c.read(twoShellsBindings());
  ShellOptions o;
  o.material = a.material;
  const StepRule steps = c.steps(0.0);
  const double R = a.radius, v = a.speed, gap = a.gap;
  for (int side = 0; side < 2; ++side) {
    geometry::TriMesh m = icosphere(R, a.frequency);
    const double sx = side == 0 ? -1.0 : 1.0;
    double reach = 0.0;  // the mesh's extent along x (below R: the vertices are not at the poles)
    for (const Vec3& x : m.vertices) reach = std::max(reach, x.x());
    translate(m, Vec3(sx * (reach + 0.5 * gap), side == 0 ? 0.0 : a.offset, 0.0));
    o.name = side == 0 ? "shell_a" : "shell_b";
    o.velocity = Vec3(-sx * v, 0.0, 0.0);
    addShell(s, m, o, steps);
  }
  PaperValues p;
  p.eta = 0.05 * R;
  p.k = a.material.stretch > 0 ? a.material.stretch : 100.0;
  c.finish(s, p);
  return s;
}

}  // namespace kinema::avi::scenes

#pragma once
// Scene generators (the paper's scenes, §6.3-6.4, and the acceptance tests of
// README decision 43): each builds
// a whole System (particles with gid 0..N-1 in packing order, bonds sorted by (i, j), obstacles,
// grips, one material, gravity) from a small options struct. The options are read from the scene
// file by scene_params.hpp; every generator checks its arguments and throws SceneArgError (an
// InputError) naming the offending key ("<generator>.<arg>", relative to the scene prefix).
//
// Conventions: SI units; gravity along -z; a floor is the plane z = 0; beams lie along x with
// their lower face on z = 0 (or, for three-point bending, centred on x = 0); particle masses are
// rho (4/3) pi r^3 (the mass the paper's time scale T = r sqrt(2 rho / (3E)) assumes, §5.1).
// Unbreakable bonds have sigmaC = tauC = +inf.
#include <limits>
#include <utility>
#include <string>

#include "framework/core/error.hpp"
#include "modules/bdem/packing.hpp"
#include "modules/bdem/system.hpp"

namespace kinema::bdem {

class SceneArgError : public InputError {
 public:
  SceneArgError(std::string key, const std::string& message)
      : InputError(key + ": " + message), key_(std::move(key)), what_(message) {}
  const std::string& key() const { return key_; }
  const std::string& reason() const { return what_; }

 private:
  std::string key_, what_;
};

constexpr double kUnbreakable = std::numeric_limits<double>::infinity();

// What every packed body shares: lattice, jitter, bond tolerance, material, gravity. Packed bodies
// bond pairs within (1 + bondDelta + sqrt(3) jitter)(r_i + r_j): a jittered lattice keeps the bonds
// of the regular one when jitter <= 0.1 (checked). (The yarn sheet is not packed: lattice and jitter do not apply to it.)
struct BodyOptions {
  Lattice lattice = Lattice::Fcc;
  double jitter = 0.0;
  std::uint64_t seed = 1;
  double bondDelta = 5e-3;
  Material material;
  Vec3 gravity = Vec3(0, 0, -9.81);
};

// T-F1 / T-F2: particle i at the origin (fixed), j at (2r, 0, 0) gripped. mode: stretch (j moves
// along +x at `speed`), shear (along +y at `speed`), twist (j spins about the bond axis at
// `angularSpeed`), bend (j spins about z at `angularSpeed`, in place).
struct SingleBondOptions {
  double radius = 0.01;
  std::string mode = "stretch";
  double speed = 1e-3;          // m/s
  double angularSpeed = 0.1;    // rad/s
  BodyOptions body{Lattice::Fcc, 0.0, 1, 5e-3, Material{1e7, 0.3, 1000, 3e4, 3e4}, Vec3::Zero()};
};

// A box beam [0, L] x [-w/2, w/2] x [0, h] packed with spheres of radius r.
struct BeamGeometry {
  double length = 1.0, height = 0.1, width = 0.1, radius = 0.01;
};

// T-CAL: clamped at x = 0 (particles with x < clampLength fixed), gravity.
struct CantileverOptions {
  BeamGeometry beam{0.2, 0.02, 0.02, 0.002};
  double clampLength = 0.02;
  BodyOptions body{Lattice::Fcc, 0.0, 1, 5e-3, Material{1e7, 0.3, 1000, kUnbreakable, kUnbreakable},
                   Vec3(0, 0, -9.81)};
};

// Fig. 10, Table 1 rows 1-2: grip 0 (x < gripLength) holds still; grip 1 (x > L - gripLength)
// moves along +x at `speed` (stretch) or spins about the beam's axis at `angularSpeed` (twist).
struct BeamPullOptions {
  BeamGeometry beam{1.0, 0.1, 0.1, 0.01};
  double gripLength = 0.05;
  double speed = 0.05;        // stretch, m/s
  double angularSpeed = 1.0;  // twist, rad/s
  BodyOptions body{Lattice::Fcc, 0.0, 1, 5e-3, Material{1e7, 0.3, 1000, kUnbreakable, kUnbreakable}, Vec3::Zero()};
};

// Fig. 11: clamped at x < supportLength ("clamp") or at both ends ("both"), gravity.
struct BeamDrapeOptions {
  BeamGeometry beam{1.0, 0.1, 0.1, 0.01};
  std::string support = "clamp";
  double supportLength = 0.05;
  BodyOptions body{Lattice::Fcc, 0.0, 1, 5e-3, Material{1e6, 0.3, 1000, kUnbreakable, kUnbreakable},
                   Vec3(0, 0, -9.81)};
};

// Fig. 3: a disc plate (radius, thickness), tilted about x by `tilt` degrees, its lowest sphere
// `gap` above the floor, moving down at `speed`.
struct PlateDropOptions {
  double plateRadius = 0.1, thickness = 0.01, radius = 0.0025;
  double tilt = 10.0, gap = 0.001, speed = 3.0;
  BodyOptions body{Lattice::Fcc, 0.0, 1, 5e-3, Material{1e9, 0.3, 2400, 1e6, 1e6}, Vec3(0, 0, -9.81)};
};

// Fig. 2 / 8: a bar L x W x T with V grooves (depth, half width at the top) between piecesX x
// piecesY pieces, or the closed OBJ `meshPath` scaled by meshScale; tilted about y by `tilt`
// degrees, lowest sphere `gap` above the floor, moving down at `speed`.
struct ChocolateBarOptions {
  double length = 0.16, width = 0.08, thickness = 0.012, radius = 0.0025;
  int piecesX = 4, piecesY = 2;
  double grooveDepth = 0.004, grooveHalfWidth = 0.004;
  std::string meshPath;  // empty: the analytic grooved bar
  double meshScale = 1.0;
  double tilt = 15.0, gap = 0.001, speed = 5.0;
  BodyOptions body{Lattice::Fcc, 0.0, 1, 5e-3, Material{1e8, 0.3, 1300, 5e4, 5e4}, Vec3(0, 0, -9.81)};
};

// Fig. 4: a plain weave of yarnsX yarns along x (at y = j s) and yarnsY along y (at x = i s),
// s = 2 r particlesPerCell, particles 2r apart along each yarn, each yarn a chain bonded to its
// neighbours; at a crossing the two yarns pass 2r apart vertically (above / below alternately)
// and are bonded. Bend and twist stiffness of every bond times bendingScale (yarn: stiff in
// tension, soft in bending). The bands x < x_min + gripWidth (grip 0) and x > x_max - gripWidth
// (grip 1) move apart along x at speed/2 each.
struct YarnSheetOptions {
  int yarnsX = 12, yarnsY = 12;
  int particlesPerCell = 4;  // even, >= 2
  double radius = 0.001;
  double speed = 0.1;
  double gripWidth = 0.0;    // 0: s/2 + r/2 (the free ends plus the first crossing yarn)
  double bendingScale = 0.01;
  BodyOptions body{Lattice::Fcc, 0.0, 1, 5e-3, Material{1e9, 0.3, 1300, 1e7, 1e7}, Vec3::Zero()};
};

// Fig. 5, Table 2, T-F5: a beam [-L/2, L/2] x [-w/2, w/2] x [0, h] on two cylinder supports
// (axis y) at x = +-span/2 touching its lower face, a cylinder indenter at x = 0 touching its top
// and moving down at indenterSpeed. The radius comes from `resolution` (low / middle / high: about
// 532 / 1.8K / 18K particles, the paper's counts) or from `particles` (> 0) or `radius` (> 0):
// the same geometry at every resolution.
struct ThreePointBendingOptions {
  double length = 0.2, height = 0.04, width = 0.02, span = 0.16;
  double supportRadius = 0.01, indenterRadius = 0.01, indenterSpeed = 0.01;
  std::string resolution = "low";
  long long particles = 0;
  double radius = 0.0;
  BodyOptions body{Lattice::Fcc, 0.0, 1, 5e-3, Material{1e7, 0.3, 1000, 3e4, 3e4}, Vec3(0, 0, -9.81)};
};
long long threePointBendingTarget(const std::string& resolution);  // 532, 1800, 18000

// T-C2: two unbonded spheres on the x axis, surfaces `gap` apart, each moving towards the other at
// `speed`. T-C1: one sphere, its lowest point `gap` above the floor z = 0, moving down at `speed`.
struct TwoSpheresOptions {
  double radius = 0.01, gap = 0.002, speed = 1.0;
  BodyOptions body{Lattice::Fcc, 0.0, 1, 5e-3, Material{1e7, 0.3, 1000, kUnbreakable, kUnbreakable}, Vec3::Zero()};
};
struct SphereOnPlaneOptions {
  double radius = 0.01, gap = 0.0, speed = 0.0;
  BodyOptions body{Lattice::Fcc, 0.0, 1, 5e-3, Material{1e7, 0.3, 1000, kUnbreakable, kUnbreakable},
                   Vec3(0, 0, -9.81)};
};

// Any closed OBJ mesh, scaled, packed with radius r (0: about 2000 particles, at most a quarter of
// the smallest extent); with
// `floor`, placed with its lowest sphere `gap` above the floor z = 0 and moving down at `speed`.
struct MeshSceneOptions {
  std::string path;
  double scale = 1.0, radius = 0.0;
  bool floor = true;
  double gap = 0.001, speed = 0.0;
  BodyOptions body{Lattice::Fcc, 0.0, 1, 5e-3, Material{1e7, 0.3, 1000, 3e4, 3e4}, Vec3(0, 0, -9.81)};
};

System buildSingleBond(const SingleBondOptions& o);
System buildCantilever(const CantileverOptions& o);
System buildBeamStretch(const BeamPullOptions& o);
System buildBeamTwist(const BeamPullOptions& o);
System buildBeamDrape(const BeamDrapeOptions& o);
System buildPlateDrop(const PlateDropOptions& o);
System buildChocolateBar(const ChocolateBarOptions& o);
System buildYarnSheet(const YarnSheetOptions& o);
System buildThreePointBending(const ThreePointBendingOptions& o);
System buildTwoSpheres(const TwoSpheresOptions& o);
System buildSphereOnPlane(const SphereOnPlaneOptions& o);
System buildMeshScene(const MeshSceneOptions& o);

// The solid of the analytic grooved chocolate bar (lower corner at the origin).
Solid chocolateBarSolid(const ChocolateBarOptions& o);

// Checks a built System: finite positions, unit quaternions, gids 0..N-1 unique, radii and masses
// positive, bonds alive with l0 > 0 and valid endpoints, grips and materials indexed in range.
// Throws Error naming the first problem.
void checkSystem(const System& S);

}  // namespace kinema::bdem

// Packings, OBJ meshes, bond creation and the scene generators (paper §3.4, §6.3-6.4; README decisions 20-25).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <set>

#include "framework/core/config.hpp"
#include "framework/core/error.hpp"
#include "framework/core/params.hpp"
#include "modules/bdem/bond_builder.hpp"
#include "modules/bdem/obj_mesh.hpp"
#include "modules/bdem/packing.hpp"
#include "modules/bdem/scene_builder.hpp"
#include "modules/bdem/scene_params.hpp"
#include "test_util.hpp"

namespace kinema::bdem {
namespace {

System packedBox(const Vec3& lo, const Vec3& hi, double r, Lattice lattice, double delta = 5e-3) {
  PackingOptions o;
  o.radius = r;
  o.lattice = lattice;
  System S;
  addParticles(S.P, pack(boxSolid(lo, hi), o), r, 1000.0);
  buildBonds(S, delta);
  return S;
}

std::vector<int> degrees(const System& S) {
  std::vector<int> d(S.P.size(), 0);
  for (const Bond& b : S.bonds) {
    ++d[static_cast<std::size_t>(b.i)];
    ++d[static_cast<std::size_t>(b.j)];
  }
  return d;
}

// O(N^2) reference count of the pairs within (1 + delta) 2r.
std::size_t bruteForceBonds(const Particles& P, double delta) {
  std::size_t n = 0;
  for (std::size_t a = 0; a < P.size(); ++a)
    for (std::size_t b = a + 1; b < P.size(); ++b)
      n += (P.p[a] - P.p[b]).norm() <= (1 + delta) * (P.r[a] + P.r[b]) ? 1 : 0;
  return n;
}

TEST(BdemPacking, CloseLatticesHaveCoordination12InTheBulkCubic6) {
  const double r = 0.01;
  for (Lattice lat : {Lattice::Fcc, Lattice::Hcp, Lattice::Cubic}) {
    const Vec3 lo(0, 0, 0), hi(0.3, 0.3, 0.3);
    const System S = packedBox(lo, hi, r, lat);
    const auto d = degrees(S);
    const int expected = lat == Lattice::Cubic ? 6 : 12;
    int bulk = 0, maxDeg = 0;
    for (std::size_t a = 0; a < S.P.size(); ++a) {
      maxDeg = std::max(maxDeg, d[a]);
      const Vec3& p = S.P.p[a];
      // Bulk: every lattice neighbour (within 2r per axis) is a packed point: inside the box and
      // not below the lattice anchor lo + r.
      if (((p - lo).array() > 3.01 * r).all() && ((hi - p).array() > 2.01 * r).all()) {
        EXPECT_EQ(d[a], expected) << toString(lat) << " particle " << a;
        ++bulk;
      }
    }
    EXPECT_GT(bulk, 500) << toString(lat);
    EXPECT_EQ(maxDeg, expected) << toString(lat);
    // About 6 bonds per particle (close packing) tending to 6 with size; 3 for cubic.
    const double perParticle = static_cast<double>(S.bonds.size()) / static_cast<double>(S.P.size());
    EXPECT_GT(perParticle, 0.8 * expected / 2.0) << toString(lat);
    EXPECT_LT(perParticle, expected / 2.0) << toString(lat);
    std::cout << toString(lat) << ": " << S.P.size() << " particles, " << S.bonds.size() << " bonds, "
              << perParticle << " bonds/particle, " << bulk << " bulk\n";
  }
}

TEST(BdemPacking, BondCountOfKnownBoxes) {
  // Cubic lattice in a box of 3 x 4 x 5 cells: (n-1) m k + n (m-1) k + n m (k-1) = 133 bonds.
  const double r = 0.5;
  const System C = packedBox(Vec3::Zero(), Vec3(3.2, 4.2, 5.2), r, Lattice::Cubic);
  EXPECT_EQ(C.P.size(), 60u);
  EXPECT_EQ(C.bonds.size(), 133u);
  // Close packings against the O(N^2) distance count, and the bond data of makeBond.
  for (Lattice lat : {Lattice::Fcc, Lattice::Hcp}) {
    const System S = packedBox(Vec3::Zero(), Vec3(0.09, 0.08, 0.07), 0.01, lat);
    EXPECT_EQ(S.bonds.size(), bruteForceBonds(S.P, 5e-3)) << toString(lat);
    std::set<std::pair<GlobalId, GlobalId>> unique;
    for (std::size_t k = 0; k < S.bonds.size(); ++k) {
      const Bond& b = S.bonds[k];
      EXPECT_LT(b.gi, b.gj);
      EXPECT_NEAR(b.l0, 0.02, 1e-12);
      EXPECT_TRUE(unique.insert({b.gi, b.gj}).second);
      if (k > 0) {
        EXPECT_TRUE(std::make_pair(S.bonds[k - 1].gi, S.bonds[k - 1].gj) < std::make_pair(b.gi, b.gj));
      }
    }
  }
  // A jittered packing: the spatial-hash pairs equal the brute force ones with a larger delta.
  PackingOptions o;
  o.radius = 0.01;
  o.jitter = 0.05;
  System J;
  addParticles(J.P, pack(boxSolid(Vec3::Zero(), Vec3(0.1, 0.1, 0.1)), o), 0.01, 1000.0);
  buildBonds(J, 0.08);
  EXPECT_EQ(J.bonds.size(), bruteForceBonds(J.P, 0.08));
  EXPECT_GT(J.bonds.size(), 0u);
}

TEST(BdemPacking, VolumeFractionOfClosePackingIsPiOver3Sqrt2) {
  const double r = 0.01;
  for (Lattice lat : {Lattice::Fcc, Lattice::Hcp, Lattice::Cubic}) {
    PackingOptions o;
    o.radius = r;
    o.lattice = lat;
    const auto pts = pack(boxSolid(Vec3::Zero(), Vec3(0.4, 0.4, 0.4)), o);
    // A half-open window of whole lattice periods inside the bulk holds exactly one period's points.
    const bool close = lat != Lattice::Cubic;
    const double dz = close ? 2 * r * std::sqrt(2.0 / 3.0) : 2 * r;
    const Vec3 period(2 * r, close ? 2 * std::sqrt(3.0) * r : 2 * r, lat == Lattice::Fcc ? 3 * dz : (close ? 2 * dz : dz));
    const Vec3 lo = Vec3::Constant(0.0531);
    const Vec3 size(6 * period[0], 4 * period[1], 3 * period[2]);
    std::size_t n = 0;
    for (const Vec3& p : pts) n += ((p - lo).array() >= 0).all() && ((p - lo - size).array() < 0).all() ? 1 : 0;
    const double phi = static_cast<double>(n) * 4.0 / 3.0 * std::numbers::pi * r * r * r / size.prod();
    const double expected = close ? std::numbers::pi / (3 * std::sqrt(2.0)) : std::numbers::pi / 6;
    EXPECT_NEAR(phi, expected, 1e-9) << toString(lat) << ": " << n << " points";
  }
}

TEST(BdemPacking, JitterIsReproducibleBoundedAndSeedDependent) {
  PackingOptions o;
  o.radius = 0.01;
  const Solid box = boxSolid(Vec3::Zero(), Vec3(0.1, 0.1, 0.1));
  const auto plain = pack(box, o);
  o.jitter = 0.1;
  o.seed = 7;
  const auto a = pack(box, o), b = pack(box, o);
  o.seed = 8;
  const auto c = pack(box, o);
  ASSERT_EQ(a.size(), plain.size());
  ASSERT_EQ(c.size(), plain.size());
  std::size_t differ = 0;
  double maxShift = 0, meanShift = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k], b[k]);  // bit for bit
    differ += (a[k] - c[k]).norm() > 1e-6 ? 1 : 0;
    maxShift = std::max(maxShift, (a[k] - plain[k]).cwiseAbs().maxCoeff());
    meanShift += (a[k] - plain[k]).sum();
  }
  EXPECT_EQ(differ, a.size());
  EXPECT_LE(maxShift, 0.1 * 0.01);
  EXPECT_GT(maxShift, 0.08 * 0.01);  // uses the range
  EXPECT_LT(std::abs(meanShift / (3.0 * a.size())), 0.01 * 0.01);
  // The displacement of a point depends on its lattice cell only, not on the clipping.
  o.seed = 7;
  const auto smaller = pack(boxSolid(Vec3::Zero(), Vec3(0.1, 0.1, 0.05)), o);
  ASSERT_LT(smaller.size(), a.size());
  for (std::size_t k = 0; k < smaller.size(); ++k) EXPECT_EQ(smaller[k], a[k]);
}

TEST(BdemPacking, CylinderAndDiscPlate) {
  const double r = 0.01, R = 0.2, L = 0.5;
  const Vec3 c(0.1, -0.2, 0.3), axis = Vec3(1, 2, 2) / 3.0;
  PackingOptions o;
  o.radius = r;
  const auto pts = pack(cylinderSolid(c, axis, R, L), o);
  for (const Vec3& p : pts) {
    const double t = (p - c).dot(axis);
    EXPECT_LE(std::abs(t), 0.5 * L + 1e-12);
    EXPECT_LE((p - c - t * axis).norm(), R + 1e-12);
  }
  // Count between the close-packing estimates of the cylinder shrunk and grown by a radius.
  const double perSphere = 4.0 / 3.0 * std::numbers::pi * r * r * r / (std::numbers::pi / (3 * std::sqrt(2.0)));
  const double lo = std::numbers::pi * (R - r) * (R - r) * (L - 2 * r) / perSphere;
  const double hi = std::numbers::pi * (R + r) * (R + r) * (L + 2 * r) / perSphere;
  EXPECT_GT(static_cast<double>(pts.size()), 0.97 * lo);
  EXPECT_LT(static_cast<double>(pts.size()), 1.03 * hi);
  // The disc plate is the z-axis cylinder.
  const auto disc = pack(discPlateSolid(c, R, 0.05), o);
  const auto cyl = pack(cylinderSolid(c, Vec3::UnitZ(), R, 0.05), o);
  ASSERT_EQ(disc.size(), cyl.size());
  EXPECT_EQ(disc, cyl);
  EXPECT_GT(disc.size(), 0u);
  // A radius too large for the shape is an InputError.
  o.radius = 1.0;
  EXPECT_THROW(pack(discPlateSolid(c, R, 0.05), o), InputError);
}

const char* kCubeObj =
    "# unit cube, quads, mixed corner forms\n"
    "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
    "vt 0 0\nvn 0 0 1\n"
    "f 1 4 3 2\n"
    "f 5/1 6/1 7/1 8/1\n"
    "f 1//1 2//1 6//1 5//1\n"
    "f 2/1/1 3/1/1 7/1/1 6/1/1\n"
    "f -5 -1 -2 -6\n"  // 4 8 7 3
    "f 1 5 8 4\n";

std::string writeFile(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(BdemObjMesh, CubeParsesAndPacksLikeTheBox) {
  const TriMesh cube = parseObj(kCubeObj, "cube.obj");
  ASSERT_EQ(cube.vertices.size(), 8u);
  ASSERT_EQ(cube.faces.size(), 12u);  // 6 quads as fans
  EXPECT_EQ(cube.faces[8], Eigen::Vector3i(3, 7, 6));  // negative indices: 4 8 7 -> 0-based 3 7 6
  EXPECT_NO_THROW(checkClosed(cube));
  EXPECT_NEAR(cube.volume(), 1.0, 1e-14);
  EXPECT_NEAR(std::abs(cube.windingNumber(Vec3(0.3, 0.6, 0.2))), 1.0, 1e-12);
  EXPECT_NEAR(cube.windingNumber(Vec3(1.3, 0.6, 0.2)), 0.0, 1e-12);
  EXPECT_NEAR(cube.windingNumber(Vec3(0.5, 0.5, 2.0)), 0.0, 1e-12);
  TriMesh scaled = cube;
  const double a = 0.1037;  // no lattice point on the faces
  scaled.transform(a, Vec3(0.2, -0.1, 0.05));
  for (Lattice lat : {Lattice::Fcc, Lattice::Hcp, Lattice::Cubic}) {
    PackingOptions o;
    o.radius = 0.006;
    o.lattice = lat;
    const auto fromMesh = pack(meshSolid(scaled), o);
    const auto fromBox = pack(boxSolid(Vec3(0.2, -0.1, 0.05), Vec3(0.2 + a, -0.1 + a, 0.05 + a)), o);
    ASSERT_EQ(fromMesh.size(), fromBox.size()) << toString(lat);
    for (std::size_t k = 0; k < fromBox.size(); ++k) EXPECT_EQ(fromMesh[k], fromBox[k]);
  }
}

TEST(BdemObjMesh, ChocolateBarMeshMatchesTheAnalyticBar) {
  const std::string path = std::string(KINEMA_SOURCE_DIR) + "/modules/bdem/scenes/meshes/chocolate_bar.obj";
  ASSERT_LE(std::filesystem::file_size(path), 50u * 1024u);
  const TriMesh bar = readObj(path);  // closed, no degenerate faces
  ChocolateBarOptions o;
  // Volume: box minus the grooves, prisms of cross-section d hw, minus their overlaps at the
  // crossings (two perpendicular V prisms share 4 hw^2 d / 3). The mesh interpolates the crossings
  // linearly on its grid, hence the 1e-3 tolerance (the uncorrected formula is 1.3e-3 off).
  EXPECT_GT(bar.volume(), 0.0);  // outward orientation
  const double d = o.grooveDepth, hw = o.grooveHalfWidth;
  const double grooves = d * hw * ((o.piecesX - 1) * o.width + (o.piecesY - 1) * o.length) -
                         (o.piecesX - 1) * (o.piecesY - 1) * 4.0 * hw * hw * d / 3.0;
  const double volume = o.length * o.width * o.thickness - grooves;
  EXPECT_NEAR(bar.volume(), volume, 1e-3 * volume);
  PackingOptions p;
  p.radius = o.radius;
  const auto a = pack(meshSolid(bar), p), b = pack(chocolateBarSolid(o), p);
  EXPECT_NEAR(static_cast<double>(a.size()), static_cast<double>(b.size()), 0.02 * b.size());
}

TEST(BdemObjMesh, DefectsAreInputErrorsNamingFileLineOrEdge) {
  const std::string dir = test::scratchDir("bdem_obj");
  // Open: the cube without its last face.
  std::string text = kCubeObj;
  text = text.substr(0, text.rfind("f 1 5 8 4"));
  const std::string open = writeFile(dir, "open.obj", text);
  std::string msg = test::messageOf<InputError>([&] { readObj(open); });
  EXPECT_NE(msg.find("open.obj"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not closed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("edge 1-4"), std::string::npos) << msg;  // the first open edge, 1-based
  // Malformed lines.
  msg = test::messageOf<InputError>([] { parseObj("v 0 0 0\nv 1 0\n", "bad.obj"); });
  EXPECT_NE(msg.find("bad.obj:2:"), std::string::npos) << msg;
  msg = test::messageOf<InputError>([] { parseObj("v 0 0 0\nv 1 0 x\n", "bad.obj"); });
  EXPECT_NE(msg.find("bad.obj:2:"), std::string::npos) << msg;
  msg = test::messageOf<InputError>([] { parseObj("v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 a\n", "bad.obj"); });
  EXPECT_NE(msg.find("bad.obj:5:"), std::string::npos) << msg;
  msg = test::messageOf<InputError>([] { parseObj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", "bad.obj"); });
  EXPECT_NE(msg.find("bad.obj:4:"), std::string::npos) << msg;
  // Index out of range, positive and negative, and 0.
  msg = test::messageOf<InputError>([] { parseObj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n", "bad.obj"); });
  EXPECT_NE(msg.find("bad.obj:4:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("vertex 9"), std::string::npos) << msg;
  msg = test::messageOf<InputError>([] { parseObj("v 0 0 0\nv 1 0 0\nf -1 -2 -4\n", "bad.obj"); });
  EXPECT_NE(msg.find("bad.obj:3:"), std::string::npos) << msg;
  msg = test::messageOf<InputError>([] { parseObj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", "bad.obj"); });
  EXPECT_NE(msg.find("bad.obj:4:"), std::string::npos) << msg;
  // Degenerate faces.
  TriMesh deg = parseObj(std::string(kCubeObj) + "f 1 1 2\n", "deg.obj");
  msg = test::messageOf<InputError>([&] { checkClosed(deg); });
  EXPECT_NE(msg.find("face 13"), std::string::npos) << msg;
  EXPECT_NE(msg.find("degenerate"), std::string::npos) << msg;
  deg = parseObj(std::string(kCubeObj) + "v 2 0 0\nf 1 2 9\n", "deg.obj");
  msg = test::messageOf<InputError>([&] { checkClosed(deg); });
  EXPECT_NE(msg.find("zero area"), std::string::npos) << msg;
  // A missing file.
  msg = test::messageOf<InputError>([&] { readObj(dir + "/missing.obj"); });
  EXPECT_NE(msg.find("missing.obj"), std::string::npos) << msg;
}

// ---------------------------------------------------------------------------------------------

ParamSchema sceneSchema() {
  ParamSchema s;
  declareSceneParams(s, "bdem.scene");
  return s;
}

System build(const std::string& yaml, const std::string& source = "<test>") {
  static const ParamSchema schema = sceneSchema();
  Config c = Config::fromString(yaml, source);
  c.validate(schema);
  return buildScene(c, "bdem.scene");
}

// The checks of the brief, written out here (not only checkSystem).
void expectValid(const System& S, const std::string& what) {
  ASSERT_GT(S.P.size(), 0u) << what;
  EXPECT_EQ(S.P.numOwned, S.P.size()) << what;
  std::set<GlobalId> gids;
  for (std::size_t a = 0; a < S.P.size(); ++a) {
    EXPECT_TRUE(S.P.p[a].allFinite()) << what;
    EXPECT_NEAR(S.P.q[a].norm(), 1.0, 1e-14) << what;
    EXPECT_GT(S.P.m[a], 0.0) << what;
    EXPECT_GT(S.P.r[a], 0.0) << what;
    EXPECT_TRUE(gids.insert(S.P.gid[a]).second) << what << ": gid " << S.P.gid[a] << " repeats";
    if (S.P.dof[a] == Dof::Grip) {
      EXPECT_LT(static_cast<std::size_t>(S.P.grip[a]), S.grips.size()) << what;
    }
  }
  EXPECT_EQ(*gids.begin(), 0) << what;
  EXPECT_EQ(*gids.rbegin(), static_cast<GlobalId>(S.P.size() - 1)) << what;
  for (const Bond& b : S.bonds) {
    EXPECT_TRUE(b.alive) << what;
    EXPECT_GT(b.l0, 0.0) << what;
    EXPECT_NEAR(b.l0, (S.P.p[static_cast<std::size_t>(b.j)] - S.P.p[static_cast<std::size_t>(b.i)]).norm(), 1e-15)
        << what;
    EXPECT_GT(b.kn, 0.0) << what;
  }
  EXPECT_NO_THROW(checkSystem(S)) << what;
}

TEST(BdemScenes, EveryGeneratorBuildsAValidSystem) {
  const std::string dir = test::scratchDir("bdem_scenes");
  std::filesystem::copy_file(std::string(KINEMA_SOURCE_DIR) + "/modules/bdem/scenes/meshes/chocolate_bar.obj",
                             dir + "/bar.obj", std::filesystem::copy_options::overwrite_existing);
  for (const std::string& g : sceneGenerators()) {
    std::string yaml = "bdem:\n  scene:\n    generator: " + g + "\n";
    std::string source = "<test>";
    if (g == "file") {  // a particle CSV (particle_file.hpp), relative to the scene file
      writeFile(dir, "particles.csv", "x,y,z,r\n0,0,0,0.01\n0.02,0,0,0.01\n0.04,0,0,0.01\n");
      yaml += "    file:\n      path: particles.csv\n";
      source = writeFile(dir, "file_scene.yaml", yaml);
    }
    if (g == "mesh") {
      // A relative path, resolved against the scene file's directory.
      yaml += "    mesh:\n      path: bar.obj\n      radius: 0.003\n";
      source = writeFile(dir, "mesh_scene.yaml", yaml);
    }
    const System S = source == "<test>" ? build(yaml) : [&] {
      static const ParamSchema schema = sceneSchema();
      Config c = Config::loadFile(source);
      c.validate(schema);
      return buildScene(c, "bdem.scene");
    }();
    expectValid(S, g);
    std::cout << g << ": " << S.P.size() << " particles, " << S.bonds.size() << " bonds, " << S.obstacles.size()
              << " obstacles, " << S.grips.size() << " grips\n";
  }
  // Generator-specific facts.
  const System one = build("bdem: {scene: {generator: single_bond}}");
  ASSERT_EQ(one.P.size(), 2u);
  ASSERT_EQ(one.bonds.size(), 1u);
  EXPECT_EQ(one.P.dof[0], Dof::Fixed);
  EXPECT_EQ(one.P.dof[1], Dof::Grip);
  EXPECT_GT(one.grips[0].velocity[0], 0.0);
  EXPECT_DOUBLE_EQ(one.materials[0].sigmaC, 3e4);
  const System twist = build("bdem: {scene: {generator: single_bond, single_bond: {mode: twist}}}");
  EXPECT_EQ(twist.grips[0].velocity, Vec3::Zero());
  EXPECT_GT(twist.grips[0].angularVelocity[0], 0.0);
  EXPECT_EQ(build("bdem: {scene: {generator: two_spheres}}").bonds.size(), 0u);
  // Yarn sheet: chain bonds plus one bond per crossing.
  const System y = build("bdem: {scene: {generator: yarn_sheet, yarn_sheet: {yarns_x: 3, yarns_y: 4}}}");
  const std::size_t k = 4, chains = 3 * (4 * k) + 4 * (3 * k);
  EXPECT_EQ(y.P.size(), 3 * (4 * k + 1) + 4 * (3 * k + 1));
  EXPECT_EQ(y.bonds.size(), chains + 3 * 4);
  // Shared keys override the generator's values only when set.
  const System drape = build("bdem: {scene: {generator: beam_drape}}");
  EXPECT_DOUBLE_EQ(drape.materials[0].E, 1e6);
  const System drape9 = build("bdem: {scene: {generator: beam_drape, material: {E: 1.0e9}, gravity: [0, 0, -1]}}");
  EXPECT_DOUBLE_EQ(drape9.materials[0].E, 1e9);
  EXPECT_DOUBLE_EQ(drape9.gravity[2], -1.0);
  EXPECT_DOUBLE_EQ(build("bdem: {scene: {generator: beam_stretch}}").gravity.norm(), 0.0);
  // The mesh generator's automatic radius aims at about 2000 particles.
  MeshSceneOptions m;
  m.path = std::string(KINEMA_SOURCE_DIR) + "/modules/bdem/scenes/meshes/chocolate_bar.obj";
  const System auto2000 = buildMeshScene(m);
  EXPECT_NEAR(static_cast<double>(auto2000.P.size()), 2000.0, 500.0);
  for (std::size_t a = 0; a < auto2000.P.size(); ++a) EXPECT_GE(auto2000.P.p[a][2] - auto2000.P.r[a], m.gap - 1e-12);
}

TEST(BdemScenes, BadArgumentsNameTheKey) {
  std::string msg = test::messageOf<InputError>(
      [] { build("bdem:\n  scene:\n    generator: cantilever\n    cantilever:\n      radius: 0.5\n"); });
  EXPECT_NE(msg.find("<test>:5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bdem.scene.cantilever.radius"), std::string::npos) << msg;
  msg = test::messageOf<InputError>(
      [] { build("bdem: {scene: {generator: three_point_bending, three_point_bending: {span: 0.5}}}"); });
  EXPECT_NE(msg.find("bdem.scene.three_point_bending.span"), std::string::npos) << msg;
  msg = test::messageOf<InputError>([] { build("bdem: {scene: {generator: yarn_sheet, yarn_sheet: {particles_per_cell: 3}}}"); });
  EXPECT_NE(msg.find("bdem.scene.yarn_sheet.particles_per_cell"), std::string::npos) << msg;
  msg = test::messageOf<InputError>([] { build("bdem: {scene: {generator: mesh, mesh: {path: nowhere.obj}}}"); });
  EXPECT_NE(msg.find("bdem.scene.mesh.path"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nowhere.obj"), std::string::npos) << msg;
  msg = test::messageOf<InputError>([] { build("bdem: {scene: {generator: plate_drop, plate_drop: {radius: 0.02}}}"); });
  EXPECT_NE(msg.find("bdem.scene.plate_drop.radius"), std::string::npos) << msg;
  // Too many pieces: the piece count is blamed, not the groove that no longer fits.
  msg = test::messageOf<InputError>(
      [] { build("bdem: {scene: {generator: chocolate_bar, chocolate_bar: {pieces_x: 1000000000}}}"); });
  EXPECT_NE(msg.find("bdem.scene.chocolate_bar.pieces_x"), std::string::npos) << msg;
  EXPECT_NE(msg.find("narrower than a particle diameter"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("groove_half_width"), std::string::npos) << msg;
}

TEST(BdemScenes, ThreePointBendingResolutionsShareTheGeometry) {
  const std::pair<const char*, double> levels[] = {{"low", 500}, {"middle", 2000}, {"high", 18000}};
  std::vector<Obstacle> first;
  for (const auto& [name, target] : levels) {
    const System S = build(std::string("bdem: {scene: {generator: three_point_bending, three_point_bending: "
                                       "{resolution: ") + name + "}}}");
    const double n = static_cast<double>(S.P.size());
    std::cout << name << ": " << S.P.size() << " particles, r = " << S.P.r[0] << ", " << S.bonds.size() << " bonds\n";
    EXPECT_NEAR(n, target, 0.25 * target) << name;
    EXPECT_DOUBLE_EQ(S.materials[0].E, 1e7);
    EXPECT_DOUBLE_EQ(S.materials[0].nu, 0.3);
    EXPECT_DOUBLE_EQ(S.materials[0].sigmaC, 3e4);
    EXPECT_DOUBLE_EQ(S.materials[0].tauC, 3e4);
    ASSERT_EQ(S.obstacles.size(), 3u);
    if (first.empty()) {
      first = S.obstacles;
    } else {
      for (int k = 0; k < 2; ++k) EXPECT_EQ(S.obstacles[static_cast<std::size_t>(k)].point, first[static_cast<std::size_t>(k)].point);
      // The indenter touches the top sphere: its height follows the packing within one radius.
      EXPECT_NEAR(S.obstacles[2].point[2], first[2].point[2], 0.01);
    }
    // Every sphere inside the beam's box and above the supports; the lowest touches them.
    double zmin = 1e9;
    for (std::size_t a = 0; a < S.P.size(); ++a) {
      EXPECT_LE(std::abs(S.P.p[a][0]), 0.1);
      zmin = std::min(zmin, S.P.p[a][2] - S.P.r[a]);
    }
    EXPECT_NEAR(zmin, 0.0, 1e-12);
  }
}

TEST(BdemScenes, JitteredBodiesKeepTheLatticeBonds) {
  const System plain = build("bdem: {scene: {generator: chocolate_bar}}");
  const System jittered = build("bdem: {scene: {generator: chocolate_bar, jitter: 0.1, seed: 5}}");
  ASSERT_EQ(plain.P.size(), jittered.P.size());
  ASSERT_EQ(plain.bonds.size(), jittered.bonds.size());
  double moved = 0;
  for (std::size_t k = 0; k < plain.bonds.size(); ++k) {
    EXPECT_EQ(plain.bonds[k].gi, jittered.bonds[k].gi);
    EXPECT_EQ(plain.bonds[k].gj, jittered.bonds[k].gj);
    moved = std::max(moved, std::abs(jittered.bonds[k].l0 - plain.bonds[k].l0) / plain.bonds[k].l0);
  }
  EXPECT_GT(moved, 0.05);  // the jitter did change the rest lengths
}

TEST(BdemScenes, BuildsAreDeterministic) {
  for (const std::string g : {"three_point_bending", "chocolate_bar", "yarn_sheet", "plate_drop"}) {
    const std::string yaml = "bdem: {scene: {generator: " + g + ", jitter: 0.05, seed: 3, bond_delta: 0.12}}";
    const System a = build(yaml), b = build(yaml);
    ASSERT_EQ(a.P.size(), b.P.size()) << g;
    ASSERT_EQ(a.bonds.size(), b.bonds.size()) << g;
    for (std::size_t k = 0; k < a.P.size(); ++k) {
      EXPECT_EQ(a.P.p[k], b.P.p[k]) << g;
      EXPECT_EQ(a.P.v[k], b.P.v[k]) << g;
      EXPECT_EQ(a.P.dof[k], b.P.dof[k]) << g;
    }
    for (std::size_t k = 0; k < a.bonds.size(); ++k) {
      EXPECT_EQ(a.bonds[k].gi, b.bonds[k].gi) << g;
      EXPECT_EQ(a.bonds[k].gj, b.bonds[k].gj) << g;
      EXPECT_EQ(a.bonds[k].l0, b.bonds[k].l0) << g;
    }
    const System c = build("bdem: {scene: {generator: " + g + ", jitter: 0.05, seed: 4, bond_delta: 0.12}}");
    bool differs = c.P.size() != a.P.size();
    for (std::size_t k = 0; !differs && k < a.P.size(); ++k) differs = a.P.p[k] != c.P.p[k];
    if (g != "yarn_sheet") {
      EXPECT_TRUE(differs) << g;  // the yarn sheet is not packed
    }
  }
}

}  // namespace
}  // namespace kinema::bdem

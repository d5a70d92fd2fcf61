// The scenes of the avi module (the paper's §8.1-8.7; tests R1-R7 of
// modules/avi/README.md, decision 58): mesh generators and the
// OBJ reader, the shell / rod / particle builders, Scene::validate, every generator and every
// shipped YAML scene. Oracles: the counting formulas (icosphere 10 nu^2 + 2 vertices,
// Euler characteristic), masses = density * area, closed meshes with every edge shared twice,
// the spike's apex angle, the spring scene's exact energy 3 (the paper's §8.1).
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <random>
#include <set>
#include <sstream>

#include "framework/core/config.hpp"
#include "framework/core/error.hpp"
#include "framework/geometry/tri_mesh.hpp"
#include "framework/run/runner.hpp"
#include "framework/run/scene.hpp"
#include "modules/avi/avi_params.hpp"
#include "modules/avi/candidate_pairs.hpp"
#include "modules/avi/mesh_generators.hpp"
#include "modules/avi/particle_builder.hpp"
#include "modules/avi/rod_builder.hpp"
#include "modules/avi/scene_params.hpp"
#include "modules/avi/shell_builder.hpp"
#include "modules/avi/surface_mesh.hpp"
#include "test_util.hpp"

using namespace kinema;
using namespace kinema::avi;
using geometry::TriMesh;

namespace {

ParamSchema sceneSchema() {
  ParamSchema s;
  declareSceneParams(s, "avi.scene");
  return s;
}

Scene build(const std::string& yaml, const std::string& source = "<test>") {
  static const ParamSchema schema = sceneSchema();
  Config c = Config::fromString(yaml, source);
  c.validate(schema);
  return buildScene(c, "avi.scene");
}

std::string writeFile(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

int eulerCharacteristic(const TriMesh& m) {
  return static_cast<int>(m.vertices.size()) - static_cast<int>(meshEdges(m.faces).size()) +
         static_cast<int>(m.faces.size());
}

// Every edge in exactly two triangles, traversed in opposite directions.
void expectClosedOriented(const TriMesh& m, const std::string& what) {
  std::map<std::pair<int, int>, int> directed;
  for (const auto& f : m.faces)
    for (int k = 0; k < 3; ++k) ++directed[{f[k], f[(k + 1) % 3]}];
  for (const auto& [e, n] : directed) {
    EXPECT_EQ(n, 1) << what << ": directed edge " << e.first << "-" << e.second << " used " << n << " times";
    EXPECT_EQ(directed.count({e.second, e.first}), 1u) << what << ": edge " << e.first << "-" << e.second << " is open";
  }
  EXPECT_TRUE(isClosed(m.faces)) << what;
  EXPECT_NO_THROW(geometry::checkClosed(m)) << what;
}

double signedVolume(const TriMesh& m) {
  double v = 0.0;
  for (const auto& f : m.faces) v += m.vertices[f[0]].dot(m.vertices[f[1]].cross(m.vertices[f[2]]));
  return v / 6.0;
}

double totalMass(const Scene& s, int object) {
  const ObjectInfo& o = s.objects[static_cast<std::size_t>(object)];
  double m = 0.0;
  for (int a = o.firstVertex; a < o.firstVertex + o.numVertices; ++a) m += s.vertices.mass[a];
  return m;
}

int countKind(const Scene& s, ForceKind k) {
  int n = 0;
  for (const ForceElement& e : s.forces) n += e.kind == k;
  return n;
}

const char* kCubeObj =
    "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
    "f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\nf 2 3 7\nf 2 7 6\nf 3 4 8\nf 3 8 7\nf 4 1 5\nf 4 5 8\n";

}  // namespace

// ---------------------------------------------------------------------------------------------
// Mesh generators: counts from the counting formulas, closedness, orientation.

TEST(AviMeshes, IcosphereCountsAndShape) {
  for (int nu = 1; nu <= 5; ++nu) {
    const TriMesh m = icosphere(2.0, nu);
    EXPECT_EQ(m.vertices.size(), static_cast<std::size_t>(10 * nu * nu + 2)) << nu;
    EXPECT_EQ(m.faces.size(), static_cast<std::size_t>(20 * nu * nu)) << nu;
    EXPECT_EQ(meshEdges(m.faces).size(), static_cast<std::size_t>(30 * nu * nu)) << nu;
    EXPECT_EQ(eulerCharacteristic(m), 2);
    expectClosedOriented(m, "icosphere");
    for (const auto& x : m.vertices) EXPECT_NEAR(x.norm(), 2.0, 1e-12);
    // Inscribed polyhedron: volume below the sphere's, approaching it as nu grows.
    const double ball = 4.0 / 3.0 * std::numbers::pi * 8.0;
    EXPECT_GT(signedVolume(m), 0.0);
    EXPECT_LT(signedVolume(m), ball);
    if (nu == 5) {
      EXPECT_GT(signedVolume(m), 0.97 * ball);
    }
    // Hinges = interior edges = all edges of a closed mesh.
    EXPECT_EQ(meshHinges(m.faces).size(), meshEdges(m.faces).size());
  }
  EXPECT_EQ(icosphere(4.97, 3).vertices.size(), 92u);  // the paper's §8.5
}

TEST(AviMeshes, OpenMeshesCountsAndHinges) {
  const TriMesh g = gridMesh(15.0, 50.0, 6, 20);
  EXPECT_EQ(g.vertices.size(), 7u * 21u);
  EXPECT_EQ(g.faces.size(), 2u * 6u * 20u);
  EXPECT_EQ(eulerCharacteristic(g), 1);  // a disc
  EXPECT_TRUE(consistentlyOriented(g.faces));
  const std::size_t E = meshEdges(g.faces).size(), B = boundaryEdges(g.faces).size();
  EXPECT_EQ(B, 2u * (6u + 20u));
  const std::vector<HingeStencil> hinges = meshHinges(g.faces);
  EXPECT_EQ(hinges.size(), E - B);
  // Every hinge: (a, b, c) is a triangle in that cyclic order and (b, a, d) is the other one.
  std::set<std::array<int, 3>> cyc;
  for (const auto& f : g.faces)
    for (int k = 0; k < 3; ++k) cyc.insert({f[k], f[(k + 1) % 3], f[(k + 2) % 3]});
  for (const HingeStencil& h : hinges) {
    EXPECT_TRUE(cyc.count({h.a, h.b, h.c})) << h.a << " " << h.b << " " << h.c;
    EXPECT_TRUE(cyc.count({h.b, h.a, h.d})) << h.b << " " << h.a << " " << h.d;
    EXPECT_NE(h.c, h.d);
  }
  // Areas: lumped vertex areas sum to the area.
  const std::vector<double> va = vertexAreas(g);
  double sum = 0.0;
  for (double a : va) sum += a;
  EXPECT_NEAR(sum, 15.0 * 50.0, 1e-9);
  EXPECT_NEAR(surfaceArea(g), 750.0, 1e-9);

  for (int rings = 1; rings <= 6; ++rings) {
    const TriMesh d = discMesh(3.0, rings);
    EXPECT_EQ(d.vertices.size(), static_cast<std::size_t>(1 + 3 * rings * (rings + 1)));
    EXPECT_EQ(d.faces.size(), static_cast<std::size_t>(6 * rings * rings));
    EXPECT_EQ(eulerCharacteristic(d), 1);
    EXPECT_TRUE(consistentlyOriented(d.faces));
    for (const auto& f : d.faces)  // all normals +z
      EXPECT_GT((d.vertices[f[1]] - d.vertices[f[0]]).cross(d.vertices[f[2]] - d.vertices[f[0]]).z(), 0.0);
    // Area of the inscribed 6-ring polygon is below pi R^2 and close to it.
    EXPECT_LT(surfaceArea(d), std::numbers::pi * 9.0);
    EXPECT_GT(surfaceArea(d), 0.82 * std::numbers::pi * 9.0);
  }
}

TEST(AviMeshes, ClosedSolidsPrismAndSpike) {
  // Prism: 3 s (n + 1) + 2 vertices; 71 for the paper's wedge (the paper's §8.5).
  const TriMesh p = prismShell(12.92, 20.05, 38.41, 22, 1);
  EXPECT_EQ(p.vertices.size(), 71u);
  EXPECT_EQ(p.faces.size(), static_cast<std::size_t>(6 * 22 + 6));
  expectClosedOriented(p, "prism");
  EXPECT_NEAR(signedVolume(p), 0.5 * 12.92 * 20.05 * 38.41, 1e-9 * 5000);
  const TriMesh p3 = prismShell(2.0, 3.0, 4.0, 5, 3);
  EXPECT_EQ(p3.vertices.size(), static_cast<std::size_t>(9 * 6 + 2));
  expectClosedOriented(p3, "prism 3");
  EXPECT_NEAR(signedVolume(p3), 0.5 * 2 * 3 * 4, 1e-12);

  const struct {
    const char* name;
    std::size_t v, f;
  } solids[] = {{"tetrahedron", 4, 4}, {"cube", 8, 12}, {"octahedron", 6, 8}, {"icosahedron", 12, 20}, {"dodecahedron", 32, 60}};
  for (const auto& s : solids) {
    const TriMesh m = platonicSolid(s.name, 2.0);
    EXPECT_EQ(m.vertices.size(), s.v) << s.name;
    EXPECT_EQ(m.faces.size(), s.f) << s.name;
    EXPECT_EQ(eulerCharacteristic(m), 2) << s.name;
    expectClosedOriented(m, s.name);
    EXPECT_GT(signedVolume(m), 0.0) << s.name;
  }
  // Cube of circumradius 2: side 4 / sqrt(3).
  EXPECT_NEAR(signedVolume(platonicSolid("cube", 2.0)), std::pow(4.0 / std::sqrt(3.0), 3), 1e-12);
  EXPECT_THROW(platonicSolid("sphere", 1.0), InputError);

  const TriMesh t = torusMesh(3.0, 1.0, 12, 8);
  EXPECT_EQ(t.vertices.size(), 96u);
  EXPECT_EQ(t.faces.size(), 192u);
  EXPECT_EQ(eulerCharacteristic(t), 0);
  expectClosedOriented(t, "torus");
  const double exact = 2.0 * std::numbers::pi * std::numbers::pi * 3.0 * 1.0;  // 2 pi^2 R r^2
  EXPECT_GT(signedVolume(t), 0.7 * exact);
  EXPECT_LT(signedVolume(t), exact);

  // Spike (the paper's §8.6): six sliver triangles, apex angle 3.47 degrees, height 7.8.
  const TriMesh sp = spikeMesh(7.8, 3.47);
  ASSERT_EQ(sp.faces.size(), 6u);
  for (const auto& f : sp.faces) {
    const Eigen::Vector3d apex = sp.vertices[f[2]];
    EXPECT_NEAR(apex.z(), 7.8, 1e-12);
    const Eigen::Vector3d u = (sp.vertices[f[0]] - apex).normalized(), w = (sp.vertices[f[1]] - apex).normalized();
    EXPECT_NEAR(std::acos(u.dot(w)) * 180.0 / std::numbers::pi, 3.47, 1e-9);
  }
  EXPECT_NEAR(sp.vertices[0].norm(), 0.4731, 5e-4);  // base side 0.47 cm (derived from the paper's §8.6)
  EXPECT_TRUE(consistentlyOriented(sp.faces));

  const TriMesh w = wallTube(-2, 2, -1, 1, 3);
  EXPECT_EQ(w.faces.size(), 8u);
  EXPECT_EQ(boundaryEdges(w.faces).size(), 8u);  // top and bottom rims
  EXPECT_NEAR(surfaceArea(w), 2 * (4 + 2) * 3, 1e-12);
}

// ---------------------------------------------------------------------------------------------
// OBJ reader (framework/geometry/tri_mesh.hpp).

TEST(AviMeshes, ObjReaderOpenAndClosed) {
  const std::string dir = test::scratchDir("avi_obj");
  // Out-of-range index: file:line.
  std::string msg = test::messageOf<InputError>([] { geometry::parseObj("v 0 0 0\nv 1 0 0\n\nv 0 1 0\nf 1 2 7\n", "bad.obj"); });
  EXPECT_NE(msg.find("bad.obj:5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("vertex 7"), std::string::npos) << msg;
  // An open quad: fine as an open surface, refused as a closed one.
  const std::string quad = writeFile(dir, "quad.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n");
  const TriMesh q = geometry::readObj(quad, false);
  EXPECT_EQ(q.faces.size(), 2u);
  msg = test::messageOf<InputError>([&] { geometry::readObj(quad); });
  EXPECT_NE(msg.find("not closed"), std::string::npos) << msg;
  msg = test::messageOf<InputError>([&] { geometry::readObj(quad, true); });
  EXPECT_NE(msg.find("not closed"), std::string::npos) << msg;
  // A non-manifold surface (three triangles on one edge) is refused even when open.
  const std::string fan = writeFile(dir, "fan.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 -1 0\nv 0 0 1\nf 1 2 3\nf 2 1 4\nf 1 2 5\n");
  msg = test::messageOf<InputError>([&] { geometry::readObj(fan, false); });
  EXPECT_NE(msg.find("edge 1-2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("3 faces"), std::string::npos) << msg;
  // A closed cube passes both.
  const std::string cube = writeFile(dir, "cube.obj", kCubeObj);
  EXPECT_EQ(geometry::readObj(cube, true).faces.size(), 12u);
  expectClosedOriented(geometry::readObj(cube), "cube.obj");
}

// ---------------------------------------------------------------------------------------------
// Builders.

TEST(AviBuilders, ShellMassesForcesAndContact) {
  Scene s;
  ShellOptions o;
  o.name = "sphere";
  o.material.arealDensity = 0.3;
  o.material.stretch = 100.0;
  o.material.bend = 1.0;
  const TriMesh m = icosphere(1.5, 3);
  addShell(s, m, o, StepRule{});
  EXPECT_NEAR(totalMass(s, 0), 0.3 * surfaceArea(m), 1e-12);
  EXPECT_EQ(countKind(s, ForceKind::Cst), 180);
  EXPECT_EQ(countKind(s, ForceKind::Hinge), 270);  // interior edges of a closed mesh: all 30 nu^2
  EXPECT_EQ(s.contactPoints.size(), 92u);
  EXPECT_EQ(s.contactEdges.size(), 270u);
  EXPECT_EQ(s.contactTriangles.size(), 180u);
  for (const ForceElement& e : s.forces) {
    EXPECT_GT(e.h, 0.0);
    EXPECT_TRUE(std::isfinite(e.h));
  }
  // An open grid: hinges = interior edges; fixed step rule.
  Scene c;
  o.name = "cloth";
  const TriMesh g = gridMesh(2.0, 1.0, 4, 2);
  addShell(c, g, o, StepRule{0.01, 0.2});
  EXPECT_EQ(countKind(c, ForceKind::Hinge), static_cast<int>(meshEdges(g.faces).size() - boundaryEdges(g.faces).size()));
  for (const ForceElement& e : c.forces) EXPECT_EQ(e.h, 0.01);
  // Steps shrink with stiffness like 1 / sqrt(k) (omega ~ sqrt(k / m)).
  Scene soft, stiff;
  o.material.bend = 0.0;
  o.material.stretch = 1.0;
  addShell(soft, g, o, StepRule{});
  o.material.stretch = 100.0;
  addShell(stiff, g, o, StepRule{});
  EXPECT_NEAR(soft.forces[0].h / stiff.forces[0].h, 10.0, 1e-3);
  // Scripted shells: no elastic potentials, minv = 0.
  Scene w;
  o.scripted = true;
  addShell(w, g, o, StepRule{});
  EXPECT_TRUE(w.forces.empty());
  for (int a = 0; a < w.vertices.size(); ++a) EXPECT_TRUE(w.vertices.scripted(a));
}

TEST(AviBuilders, RodAndParticles) {
  Scene s;
  RodOptions o;
  o.linearDensity = 2.0;
  o.axial = 10.0;
  o.bend = 0.5;
  std::vector<Vec3> pts;
  for (int i = 0; i <= 5; ++i) pts.emplace_back(0.5 * i, 0.1 * i * i, 0.0);
  addRod(s, pts, o, StepRule{});
  double length = 0.0;
  for (int i = 0; i < 5; ++i) length += (pts[i + 1] - pts[i]).norm();
  EXPECT_NEAR(totalMass(s, 0), 2.0 * length, 1e-12);
  EXPECT_EQ(countKind(s, ForceKind::Spring), 5);
  EXPECT_EQ(countKind(s, ForceKind::RodBend), 4);
  EXPECT_EQ(s.contactEdges.size(), 5u);
  EXPECT_EQ(s.drawEdges.size(), 5u);
  for (const ForceElement& e : s.forces)
    if (e.kind == ForceKind::Spring) {
      EXPECT_NEAR(e.k * e.rest, 10.0, 1e-12);  // k_s = EA / L
    }
  const int first = addParticles(s, "p", {Vec3(5, 5, 5), Vec3(6, 5, 5)}, {Vec3::Zero(), Vec3::UnitX()}, 3.0);
  EXPECT_EQ(first, 6);
  EXPECT_TRUE(s.isolated[6] && s.isolated[7]);
  EXPECT_FALSE(s.isolated[0]);
  EXPECT_EQ(s.objects.size(), 3u);
  EXPECT_EQ(s.vertices.object[7], 2);
}

// ---------------------------------------------------------------------------------------------
// Scene::validate.

TEST(AviSceneValidate, RejectsLayerActiveAtRestAndNamesPrimitives) {
  // Spring: the bottom mass at z = 1 over the plane and the two masses 1 apart (they meet as a
  // point-point pair, README decision 38); eta = 0.6 puts layer 1 (onset 1.2) active for both.
  // The closest offending pair is named: the two masses (distance 1 ties with the plane's; the
  // pair list puts point-point first).
  std::string msg = test::messageOf<InputError>(
      [] { build("avi: {scene: {generator: spring_on_plane, eta: 0.6}}"); });
  EXPECT_NE(msg.find("vertex 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("largest eta that works is 0.5"), std::string::npos) << msg;
  // Raised by 1, the masses are still 1 apart but the plane is 2 away: only the pair is named.
  msg = test::messageOf<InputError>(
      [] { build("avi: {scene: {generator: spring_on_plane, eta: 0.6, spring_on_plane: {height: 2}}}"); });
  EXPECT_NE(msg.find("vertex 1"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("plane 0"), std::string::npos) << msg;
  // Masses 3 apart (rest length 3) at height 1: now the plane is the closest offender.
  msg = test::messageOf<InputError>([] {
    build("avi: {scene: {generator: spring_on_plane, eta: 0.6, spring_on_plane: {rest_length: 3}}}");
  });
  EXPECT_NE(msg.find("plane 0"), std::string::npos) << msg;
  EXPECT_NO_THROW(build("avi: {scene: {generator: spring_on_plane, eta: 0.5}}"));  // d = 2 eta: inactive
  // Two shells 0.2 apart: eta = 0.15 activates a point-triangle or edge-edge pair between them
  // (within one shell the closest non-adjacent primitives are 0.45 apart).
  msg = test::messageOf<InputError>([] { build("avi: {scene: {generator: two_shells, eta: 0.15, two_shells: {gap: 0.2, offset: 0}}}"); });
  EXPECT_NE(msg.find("layer is active at t = 0"), std::string::npos) << msg;
  EXPECT_TRUE(msg.find("triangle") != std::string::npos || msg.find("edge") != std::string::npos) << msg;
  EXPECT_NE(msg.find("shell_a"), std::string::npos) << msg;
  EXPECT_NE(msg.find("shell_b"), std::string::npos) << msg;
  // Balls closer than 2 eta.
  Scene s;
  addParticles(s, "p", {Vec3(0, 0, 0), Vec3(0.15, 0, 0)}, {Vec3::Zero(), Vec3::Zero()}, 1.0);
  s.eta = 0.1;
  s.k = 1.0;
  msg = test::messageOf<InputError>([&] { s.validate(); });
  EXPECT_NE(msg.find("point vertex 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("point vertex 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0.075"), std::string::npos) << msg;  // largest eta = 0.15 / 2
  s.eta = 0.075;
  EXPECT_NO_THROW(s.validate());
  // Scripted-scripted pairs are never formed: no complaint.
  s.eta = 0.1;
  s.vertices.minv = {0.0, 0.0};
  EXPECT_NO_THROW(s.validate());
}

// A scene of more primitives than one hash call takes (scene.cpp checks it slab by slab): an
// offending pair is found wherever it lies, slab boundaries included, and a valid grid passes.
TEST(AviSceneValidate, LargeScenesFindTheOffendingPairInEverySlab) {
  const int n = 200;  // 40,000 balls on a unit grid: 3 slabs of lower corners along x
  const auto grid = [&] {
    std::vector<Vec3> x;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) x.emplace_back(i, j, 0.0);
    return x;
  };
  Scene s;
  addParticles(s, "p", grid(), std::vector<Vec3>(static_cast<std::size_t>(n * n), Vec3::Zero()), 1.0);
  s.eta = 0.1;
  s.k = 1.0;
  EXPECT_NO_THROW(s.validate());
  // Columns at the slab boundaries (quantiles 13333 and 26666 of the sorted lower x: columns 66
  // and 133) and elsewhere: ball (c, 100) moved to 0.15 from ball (c + 1, 100).
  for (int c : {0, 65, 66, 67, 132, 133, 134, 198}) {
    const std::vector<Vec3> x0 = s.vertices.x;
    const int a = c * n + 100, b = (c + 1) * n + 100;
    s.vertices.x[static_cast<std::size_t>(a)].x() = c + 0.85;
    const std::string msg = test::messageOf<InputError>([&] { s.validate(); });
    EXPECT_NE(msg.find(str("point vertex ", a, " ")), std::string::npos) << "column " << c << ": " << msg;
    EXPECT_NE(msg.find(str("point vertex ", b, " ")), std::string::npos) << "column " << c << ": " << msg;
    s.vertices.x = x0;
  }
}

TEST(AviSceneValidate, RejectsInconsistentScenes) {
  auto base = [] {
    Scene s;
    addParticles(s, "p", {Vec3(0, 0, 0), Vec3(1, 0, 0)}, {Vec3::Zero(), Vec3::Zero()}, 1.0);
    s.eta = 0.1;
    s.k = 1.0;
    return s;
  };
  Scene s = base();
  EXPECT_NO_THROW(s.validate());
  s.vertices.x[1].x() = std::nan("");
  EXPECT_NE(test::messageOf<InputError>([&] { s.validate(); }).find("NaN"), std::string::npos);
  s = base();
  s.vertices.mass[0] = 0.0;
  EXPECT_NE(test::messageOf<InputError>([&] { s.validate(); }).find("mass"), std::string::npos);
  s = base();
  s.k = 0.0;
  EXPECT_NE(test::messageOf<InputError>([&] { s.validate(); }).find("k = 0"), std::string::npos);
  s = base();
  s.dim = 2;
  s.vertices.x[1].z() = 0.5;
  EXPECT_NE(test::messageOf<InputError>([&] { s.validate(); }).find("2D"), std::string::npos);
  s = base();
  s.forces.push_back(makeSpring(0, 1, s.vertices.x[0], s.vertices.x[1], 1.0, 0.0));
  EXPECT_NE(test::messageOf<InputError>([&] { s.validate(); }).find("step h = 0"), std::string::npos);
  s.forces[0].h = 0.1;
  s.forces[0].v[1] = 5;
  EXPECT_NE(test::messageOf<InputError>([&] { s.validate(); }).find("refers to vertex 5"), std::string::npos);
  s = base();
  addScript(s, "move", {0}, {0.0}, {Vec3::UnitX()});
  EXPECT_NE(test::messageOf<InputError>([&] { s.validate(); }).find("not scripted"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Generators.

TEST(AviSceneGenerators, EveryGeneratorBuildsAndValidatesAtItsDefaults) {
  const std::string dir = test::scratchDir("avi_generators");
  writeFile(dir, "cube.obj", kCubeObj);
  for (const std::string& g : sceneGenerators()) {
    std::string yaml = "avi:\n  scene:\n    generator: " + g + "\n", source = "<test>";
    if (g == "mesh") {
      yaml += "    mesh: {path: cube.obj, closed: true, translation: [0, 0, 1]}\n";
      source = writeFile(dir, "mesh_scene.yaml", yaml);
    }
    Scene s;
    if (source == "<test>") {
      ASSERT_NO_THROW(s = build(yaml)) << g;
    } else {
      static const ParamSchema schema = sceneSchema();
      Config c = Config::loadFile(source);
      c.validate(schema);
      ASSERT_NO_THROW(s = buildScene(c, "avi.scene")) << g;
    }
    EXPECT_GT(s.vertices.size(), 0) << g;
    EXPECT_FALSE(s.objects.empty()) << g;
    EXPECT_GT(s.eta, 0.0) << g;
    for (const ForceElement& e : s.forces) {
      ASSERT_TRUE(e.h > 0.0 && std::isfinite(e.h)) << g;
      for (int a = 0; a < e.n; ++a) ASSERT_GT(s.vertices.mass[e.v[a]], 0.0) << g;
    }
    // Objects tile the vertices in order.
    int next = 0;
    for (const ObjectInfo& o : s.objects) {
      EXPECT_EQ(o.firstVertex, next) << g;
      next += o.numVertices;
    }
    EXPECT_EQ(next, s.vertices.size()) << g;
  }
}

TEST(AviSceneGenerators, PaperNumbers) {
  // Spring (the paper's §8.1): energy 3 at t = 0 (kinetic 0, spring at rest length, m g z = 1 + 2).
  const Scene sp = build("avi: {scene: {generator: spring_on_plane}}");
  double E = 0.0;
  for (const ForceElement& e : sp.forces) {
    Vec3 x[4];
    for (int a = 0; a < e.n; ++a) x[a] = sp.vertices.x[e.v[a]];
    E += energy(e, x);
    EXPECT_EQ(e.h, 0.01);
  }
  for (int a = 0; a < sp.vertices.size(); ++a) E += 0.5 * sp.vertices.mass[a] * sp.vertices.v[a].squaredNorm();
  EXPECT_NEAR(E, 3.0, 1e-14);
  EXPECT_EQ(sp.eta, 0.1);
  EXPECT_EQ(sp.k, 1000.0);
  EXPECT_EQ(countKind(sp, ForceKind::Gravity), 2);
  // With an initial speed the kinetic part adds m v^2 (two masses of 1).
  const Scene sv = build("avi: {scene: {generator: spring_on_plane, spring_on_plane: {speed: -0.5}}}");
  EXPECT_NEAR(sv.vertices.v[0].z(), -0.5, 0);

  // Sphere-wedge (the paper's §8.5): 92 + 2 x 71 vertices, sphere centre at 20.84.
  const Scene sw = build("avi: {scene: {generator: sphere_wedge}}");
  ASSERT_EQ(sw.objects.size(), 3u);
  EXPECT_EQ(sw.objects[0].numVertices, 71);
  EXPECT_EQ(sw.objects[1].numVertices, 71);
  EXPECT_EQ(sw.objects[2].numVertices, 92);
  Vec3 centre = Vec3::Zero();
  for (int a = sw.objects[2].firstVertex; a < sw.vertices.size(); ++a) centre += sw.vertices.x[a] / 92.0;
  EXPECT_NEAR(centre.z(), 20.84, 1e-9);
  EXPECT_EQ(countKind(sw, ForceKind::Cst), 180);  // the fixed wedge has none
  EXPECT_EQ(countKind(sw, ForceKind::Hinge), 270);
  EXPECT_NEAR(sw.vertices.v.back().z(), -100.0, 0);
  const Scene swFree = build("avi: {scene: {generator: sphere_wedge, sphere_wedge: {wedge_fixed: false}}}");
  EXPECT_EQ(countKind(swFree, ForceKind::Cst), 180 + 2 * (6 * 22 + 6));

  // Sphere-plate (the paper's §8.3): material steps 1e-7, masses rho t area, eta = t / 2.
  const Scene pl = build("avi: {scene: {generator: sphere_plate}}");
  for (const ForceElement& e : pl.forces) EXPECT_EQ(e.h, 1e-7);
  EXPECT_NEAR(totalMass(pl, 0), 7.8 * 0.35 * surfaceArea(discMesh(35.0, 6)), 1e-9);
  EXPECT_NEAR(totalMass(pl, 1), 7.8 * 0.35 * surfaceArea(icosphere(12.5, 4)), 1e-9);
  EXPECT_NEAR(pl.eta, 0.175, 1e-15);
  double zmin = 1e9, vz = 0.0;
  for (int a = pl.objects[1].firstVertex; a < pl.vertices.size(); ++a) {
    zmin = std::min(zmin, pl.vertices.x[a].z());
    vz = pl.vertices.v[a].z();
  }
  EXPECT_NEAR(zmin, 1.0, 1e-12);
  EXPECT_EQ(vz, -1e4);  // 100 m/s in cm/s

  // Cloth on spikes (the paper's §8.6): 36 spikes x 6 slivers, two 15 x 50 cloths, fixed plate.
  const Scene cs = build("avi: {scene: {generator: cloth_spikes}}");
  ASSERT_EQ(cs.objects.size(), 4u);
  EXPECT_EQ(cs.objects[1].numVertices, 36 * 7);
  EXPECT_EQ(cs.objects[2].numVertices, 7 * 21);
  EXPECT_NEAR(totalMass(cs, 2), 0.005 * 15 * 50, 1e-12);
  EXPECT_EQ(cs.gravity.z(), -980.0);
  for (int a = 0; a < cs.objects[2].firstVertex; ++a) EXPECT_TRUE(cs.vertices.scripted(a));
  const Scene csPaper = build("avi: {scene: {generator: cloth_spikes, cloth_spikes: {resolution: 24, cloths: 1}}}");
  EXPECT_EQ(csPaper.objects[2].numVertices, 25 * 81);  // near the paper's 1994
  const Scene csPull = build("avi: {scene: {generator: cloth_spikes, cloth_spikes: {pull: true}}}");
  ASSERT_EQ(csPull.scripts.size(), 1u);
  EXPECT_EQ(csPull.scripts[0].vertices.size(), 7u);
  EXPECT_EQ(csPull.scripts[0].velocities[1].x(), 10.0);

  // Trash compactor (the paper's §8.7): walls close 20 and 10 cm/s in total, stop at 3.4 s.
  const Scene tc = build("avi: {scene: {generator: trash_compactor}}");
  ASSERT_EQ(tc.scripts.size(), 4u);
  const Vec3 v0 = tc.scripts[0].velocities[0], v2 = tc.scripts[2].velocities[0];
  EXPECT_NEAR((v0 - v2).x(), 20.0, 1e-12);  // the two ends approach at 20 cm/s
  EXPECT_NEAR((v0 - v2).y(), 10.0, 1e-12);
  EXPECT_EQ(tc.scripts[0].times[1], 3.4);
  EXPECT_EQ(tc.objects.size(), 7u);

  // Balls (the paper's §8.2): 900 balls r = 0.1 in the 3 m cube, speeds in [0, 10], eta = r, 6 planes.
  const Scene b3 = build("avi: {scene: {generator: balls_3d}}");
  EXPECT_EQ(b3.vertices.size(), 900);
  EXPECT_EQ(b3.planes.size(), 6u);
  EXPECT_EQ(b3.eta, 0.1);
  double vmax = 0.0, ke = 0.0;
  for (int a = 0; a < 900; ++a) {
    vmax = std::max(vmax, b3.vertices.v[a].norm());
    ke += 0.5 * b3.vertices.v[a].squaredNorm();
    for (int k = 0; k < 3; ++k) {
      EXPECT_GT(b3.vertices.x[a][k], 0.1);
      EXPECT_LT(b3.vertices.x[a][k], 2.9);
    }
  }
  EXPECT_LE(vmax, 10.0);
  EXPECT_GT(vmax, 9.0);
  EXPECT_NEAR(ke / 900, 100.0 / 6.0, 1.5);  // E[1/2 s^2] = 100/6 for s ~ U[0, 10] (the paper's §8.2)
  const Scene b2 = build("avi: {scene: {generator: balls_2d, balls_2d: {count: 50, seed: 7}}}");
  EXPECT_EQ(b2.dim, 2);
  EXPECT_EQ(b2.planes.size(), 4u);
  for (int a = 0; a < b2.vertices.size(); ++a) EXPECT_EQ(b2.vertices.x[a].z(), 0.0);
  // Seeds: same seed, same scene; another seed, another.
  const Scene b2b = build("avi: {scene: {generator: balls_2d, balls_2d: {count: 50, seed: 7}}}");
  const Scene b2c = build("avi: {scene: {generator: balls_2d, balls_2d: {count: 50, seed: 8}}}");
  EXPECT_EQ(b2.vertices.x, b2b.vertices.x);
  EXPECT_NE(b2.vertices.x, b2c.vertices.x);

  // Rod knot: ends scripted, pulled apart.
  const Scene rk = build("avi: {scene: {generator: rod_knot}}");
  EXPECT_EQ(rk.scripts.size(), 2u);
  EXPECT_TRUE(rk.vertices.scripted(0));
  EXPECT_TRUE(rk.vertices.scripted(rk.vertices.size() - 1));
  EXPECT_NEAR(rk.vertices.v[0].norm(), 10.0, 1e-12);  // each end at the pull speed
  EXPECT_NEAR(rk.vertices.v.back().norm(), 10.0, 1e-12);
  EXPECT_GT((rk.vertices.v[0] - rk.vertices.v.back()).dot(rk.vertices.x[0] - rk.vertices.x.back()), 0.0);  // apart
  EXPECT_EQ(rk.eta, 0.2);

  // Shared overrides win over the generator's values.
  const Scene ov = build("avi: {scene: {generator: sphere_wedge, k: 7, material_step: 1e-5, gravity: [0, 0, -980]}}");
  EXPECT_EQ(ov.k, 7.0);
  for (const ForceElement& e : ov.forces)
    if (e.kind != ForceKind::Gravity) {
      EXPECT_EQ(e.h, 1e-5);
    }
  EXPECT_EQ(countKind(ov, ForceKind::Gravity), 92);  // the free sphere only
}

TEST(AviSceneGenerators, BadArgumentsNameTheKey) {
  // Range checks of the schema name the key.
  std::string msg = test::messageOf<InputError>([] { build("avi: {scene: {generator: balls_3d, balls_3d: {radius: -1}}}"); });
  EXPECT_NE(msg.find("avi.scene.balls_3d.radius"), std::string::npos) << msg;
  // Generator checks name the key and where it was set.
  msg = test::messageOf<InputError>(
      [] { build("avi:\n  scene:\n    generator: balls_3d\n    balls_3d:\n      count: 100000\n", "balls.yaml"); });
  EXPECT_NE(msg.find("balls.yaml:5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("avi.scene.balls_3d.count"), std::string::npos) << msg;
  msg = test::messageOf<InputError>([] { build("avi: {scene: {generator: trash_compactor, trash_compactor: {duration: 4}}}"); });
  EXPECT_NE(msg.find("avi.scene.trash_compactor.duration"), std::string::npos) << msg;
  msg = test::messageOf<InputError>([] { build("avi: {scene: {generator: mesh}}"); });
  EXPECT_NE(msg.find("avi.scene.mesh.path"), std::string::npos) << msg;
  msg = test::messageOf<InputError>([] { build("avi: {scene: {generator: balls_2d, gravity: [0, 0, -9.8]}}"); });
  EXPECT_NE(msg.find("avi.scene.gravity"), std::string::npos) << msg;
  msg = test::messageOf<InputError>([] { build("avi: {scene: {generator: sphere_plate, sphere_plate: {sphere_radius: 40}}}"); });
  EXPECT_NE(msg.find("avi.scene.sphere_plate.sphere_radius"), std::string::npos) << msg;
  msg = test::messageOf<InputError>([] { build("avi: {scene: {generator: rod_knot, rod_knot: {segments: 200}}}"); });
  EXPECT_NE(msg.find("avi.scene.rod_knot.segments"), std::string::npos) << msg;
  // An OBJ with an out-of-range index: file:line of the OBJ.
  const std::string dir = test::scratchDir("avi_bad_obj");
  writeFile(dir, "bad.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n");
  const std::string scene = writeFile(dir, "s.yaml", "avi: {scene: {generator: mesh, mesh: {path: bad.obj}}}\n");
  static const ParamSchema schema = sceneSchema();
  Config c = Config::loadFile(scene);
  c.validate(schema);
  msg = test::messageOf<InputError>([&] { buildScene(c, "avi.scene"); });
  EXPECT_NE(msg.find("bad.obj:4"), std::string::npos) << msg;
}

// ---------------------------------------------------------------------------------------------
// The shipped YAML scenes: each loads with the module's schema and its scene validates.

TEST(AviSceneFiles, EveryShippedSceneBuilds) {
  const std::string dirPath = std::string(KINEMA_SOURCE_DIR) + "/modules/avi/scenes";
  int n = 0;
  std::set<std::string> generators;
  for (const auto& entry : std::filesystem::directory_iterator(dirPath)) {
    if (entry.path().extension() != ".yaml") continue;
    ++n;
    ParamSchema schema;
    run::declareFrameworkParams(schema);
    declareAviParams(schema);
    run::SceneOptions o;
    o.path = entry.path().string();
    Config c = run::loadScene(o, schema);
    EXPECT_EQ(*c.rawScalar("module"), "avi") << o.path;
    Scene s;
    ASSERT_NO_THROW(s = buildScene(c, "avi.scene")) << o.path;
    generators.insert(c.getString("avi.scene.generator"));
    EXPECT_NO_THROW(readAviParams(c)) << o.path;
  }
  EXPECT_GE(n, 10);
  for (const char* g : {"spring_on_plane", "balls_2d", "balls_3d", "sphere_plate", "sphere_wedge", "cloth_spikes",
                        "trash_compactor", "rod_knot", "two_shells", "mesh", "particles"})
    EXPECT_TRUE(generators.count(g)) << g << " has no shipped scene";
}

// Particles placed from the scene file (generator `particles`): positions, velocities, masses and
// walls as written; bad lists are named by key and particle.
TEST(AviSceneGenerators, ParticlesFromTheSceneFile) {
  const Scene s = build(R"(avi: {scene: {generator: particles, particles: {dimension: 2, radius: 0.05,
      list: [0, 0, 0, 2, 0, 0, 1.5,  1, 0.2, 0, -1, 0.5, 0, 3.0,  -1, 0.3, 0, 0, 0, 0, 0.25],
      walls: [0, -1, 0, 0, 1, 0]}}})");
  ASSERT_EQ(s.vertices.size(), 3);
  EXPECT_EQ(s.dim, 2);
  EXPECT_EQ(s.vertices.x[1], Vec3(1, 0.2, 0));
  EXPECT_EQ(s.vertices.v[1], Vec3(-1, 0.5, 0));
  EXPECT_DOUBLE_EQ(s.vertices.mass[2], 0.25);
  EXPECT_NE(s.vertices.object[0], s.vertices.object[1]);  // each particle its own object
  ASSERT_EQ(s.planes.size(), 1u);
  // The wall y = -1 with normal +y: the plane eta behind it (a ball touches it at centre y = -0.95).
  EXPECT_EQ(s.planes[0].normal, Vec3(0, 1, 0));
  EXPECT_DOUBLE_EQ(s.planes[0].offset, -1.05);
  const auto fails = [](const std::string& particles, const std::string& what) {
    try {
      build("avi: {scene: {generator: particles, particles: {" + particles + "}}}");
      ADD_FAILURE() << "no error for " << particles;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  fails("list: [0, 0, 0, 1, 0, 0]", "7 numbers per particle");
  fails("list: [0, 0, 0, 1, 0, 0, 1,  0.15, 0, 0, 0, 0, 0, 1]", "particles 0 and 1 start 0.15 apart");
  fails("list: [0, 0, 0, 1, 0, 0, -1]", "particle 0: mass must be > 0");
  fails("dimension: 2, list: [0, 0, 1, 1, 0, 0, 1]", "particle 0: z and vz must be 0 in 2D");
  fails("list: [0, 0, 0, 1, 0, 0, 1], walls: [0.05, 0, 0, 1, 0, 0]", "wall 0: particle 0 starts less than eta");
}

// Two balls meeting head-on (modules/avi/scenes/head_on.yaml): they touch, exchange their
// velocities and separate; momentum stays 0, energy within the layers' O(h) error.
TEST(AviSceneFiles, HeadOnBallsExchangeTheirVelocities) {
  const std::string dir = test::scratchDir("avi_head_on");
  run::SceneOptions o;
  o.path = std::string(KINEMA_SOURCE_DIR) + "/modules/avi/scenes/head_on.yaml";
  o.output = dir + "/out";
  o.overwrite = true;
  run::runScene(o);
  std::ifstream csv(dir + "/out/diagnostics.csv");
  std::string header, line, last;
  std::getline(csv, header);
  std::vector<std::string> names;
  std::stringstream hs(header);
  for (std::string n; std::getline(hs, n, ',');) names.push_back(n);
  const auto column = [&](const std::string& n) {
    return static_cast<std::size_t>(std::find(names.begin(), names.end(), n) - names.begin());
  };
  bool touched = false, separated = false;
  std::vector<double> row;
  while (std::getline(csv, line)) {
    row.clear();
    std::stringstream ls(line);
    for (std::string v; std::getline(ls, v, ',');) row.push_back(std::stod(v));
    EXPECT_EQ(row[column("intersections")], 0.0);
    EXPECT_NEAR(row[column("momentum_x")], 0.0, 1e-12);
    if (row[column("active_pairs")] > 0) touched = true;
    // After the touch (centres 2 eta = 0.2 apart) the gap grows again: they move apart.
    if (touched && row[column("min_distance")] > 0.3) separated = true;
  }
  EXPECT_TRUE(touched) << "the balls never met";
  EXPECT_TRUE(separated) << "the balls did not bounce back";
  EXPECT_NEAR(row[column("kinetic_energy")], 1.0, 1e-3);
  EXPECT_EQ(row[column("active_pairs")], 0.0);
}

// The broad phase of a partitioned engine hashes only the primitives near its owned vertices
// (CandidatePairs::find with `near`, a coarse grid of the cells the owned boxes meet). It must find
// every pair with an owned vertex that the full search finds, and nothing the full search does
// not: checked on the cloth on spikes (cloths, spikes, plate: edges, triangles, points) for a
// half-space, a checkerboard and a scattered random set of owned vertices.
TEST(AviBroadPhase, NearSearchFindsEveryPairOfTheOwnedVertices) {
  const Scene s = build("avi:\n  scene:\n    generator: cloth_spikes\n    cloth_spikes:\n      resolution: 4\n");
  const auto n = static_cast<std::size_t>(s.vertices.size());
  CandidatePairs full, part;
  full.setup(s, "hash", 0.0);
  part.setup(s, "hash", 0.0);
  std::vector<PairKey> all;
  full.find(s, s.vertices, 0.0, all);
  ASSERT_GT(all.size(), 100u);
  double xmid = 0.0;
  Vec3 lo = s.vertices.x[0], hi = s.vertices.x[0];
  for (const Vec3& x : s.vertices.x) {
    xmid += x.x() / static_cast<double>(n);
    lo = lo.cwiseMin(x);
    hi = hi.cwiseMax(x);
  }
  const Vec3 square = (hi - lo) / 3.0;  // checkerboard squares: a third of the scene
  std::mt19937 rng(7);
  std::vector<std::vector<std::uint8_t>> masks(3, std::vector<std::uint8_t>(n, 0));
  for (std::size_t a = 0; a < n; ++a) {
    const Vec3& x = s.vertices.x[a];
    masks[0][a] = x.x() < xmid;
    masks[1][a] = (static_cast<long>(std::floor((x.x() - lo.x()) / square.x())) +
                   static_cast<long>(std::floor((x.y() - lo.y()) / square.y()))) % 2 == 0;
    masks[2][a] = rng() % 7 == 0;
  }
  for (std::size_t m = 0; m < masks.size(); ++m) {
    std::vector<PairKey> found;
    part.find(s, s.vertices, 0.0, found, &masks[m]);
    const std::set<PairKey> fullSet(all.begin(), all.end()), foundSet(found.begin(), found.end());
    std::size_t owned = 0;
    for (const PairKey& k : all) {
      bool touches = false;
      for (std::int32_t a : k.a) touches = touches || (a >= 0 && masks[m][static_cast<std::size_t>(a)]);
      if (k.kind != PairKind::PointPlane)
        for (std::int32_t b : k.b) touches = touches || (b >= 0 && masks[m][static_cast<std::size_t>(b)]);
      if (!touches) continue;
      ++owned;
      EXPECT_TRUE(foundSet.count(k)) << "mask " << m << ": a pair with an owned vertex was missed";
    }
    for (const PairKey& k : found) EXPECT_TRUE(fullSet.count(k)) << "mask " << m << ": a pair the full search lacks";
    EXPECT_GT(owned, 0u) << "mask " << m;
    EXPECT_LT(found.size(), all.size()) << "mask " << m << ": the near search kept everything";
    std::printf("[ near search ] mask %zu: %zu of %zu pairs, %zu with an owned vertex\n", m, found.size(), all.size(),
                owned);
  }
}

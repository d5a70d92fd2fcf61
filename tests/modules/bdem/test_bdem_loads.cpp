// Loads, supports, probes and particles from a file (docs/modules/bdem.md, "Loads, supports and
// probes", "Particles from a file").
//
// Oracles:
//   - static equilibrium: a cantilever with a point force P at its tip face, solved by steps far
//     longer than its period: the clamp's probe reads the reaction +P (to 1e-3), the tip's probe
//     the applied -P exactly;
//   - beam theory: the tip deflection under P and under the beam's own weight q give the same
//     bending stiffness EI (P L^3 / (3 u_P) against q L^4 / (8 u_q), within 5 %): the loads act
//     as Euler-Bernoulli's point and distributed loads; and the tip deflection under P is
//     P L^3 / (3 E I) with the nominal E within 5 % (the lattice is calibrated by default; L is
//     the free length 0.19 m, the clamp's edge taken at x = 10 mm);
//   - a body force equal to g on every particle is gravity: the explicit trajectories are bitwise
//     equal, the implicit ones within the solver tolerance;
//   - a prescribed displacement support moves its set by exactly u, and the reactions of the two
//     supports of a stretched bar balance;
//   - round trip: a generator's packing written as particle and bond CSV (and as HDF5) and read
//     back is the same scene (positions, radii, masses, bonds), and a file scene runs the same
//     trajectory as the generator's;
//   - frames: frame 0 is the rest state at t = 0, every frame's displacement is p - p(0);
//   - bad input stops the run before any step with an error naming the key or the file's line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <string>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/core/error.hpp"
#include "framework/io/hdf5_file.hpp"
#include "modules/bdem/particle_file.hpp"
#include "modules/bdem/scene_builder.hpp"
#include "scene_test_util.hpp"
#include "test_util.hpp"

using namespace kinema;
using namespace kinema::bdem;

namespace {

// A cantilever 0.2 x 0.02 x 0.02 m (fcc, r = 2.5 mm, 880 particles), clamped over x <= 10 mm by
// a support on the set `root` (the generator's own clamp, x < 10 mm, is inside it), no gravity, a point force
// on the tip face; steps of 2 s (the period is 0.11 s): static solves.
const char* kCantilever = R"(module: bdem
backend: eigen
bdem:
  integrator: implicit
  dt: 2.0
  steps: 3
  tolerance: 1.0e-8
  scene:
    generator: cantilever
    gravity: [0, 0, 0]
    material: {E: 1.0e7, density: 1000}
    cantilever: {length: 0.2, height: 0.02, width: 0.02, radius: 0.0025, clamp_length: 0.01}
  sets:
    tip: {face: x_max}
    root: {box: [-1, -1, -1, 0.01, 1, 1]}
  supports:
    clamp: {set: root, fixed: true}
  loads:
    tip_load: {set: tip, force: [0, 0, -0.1]}
  probes: [tip, root]
run: {progress_seconds: 1000}
output: {frame_every: 1}
)";

double last(const std::string& dir, const std::string& column) { return test::csvColumn(dir, column).back(); }

TEST(BdemLoads, CantileverTipLoadReactionAndBeamTheory) {
  const std::string dir = test::scratchDir("bdem_loads_cantilever");
  const std::string scene = test::writeScene(dir, kCantilever);
  test::runIn(dir + "/point", scene);
  const double P = 0.1;
  EXPECT_NEAR(last(dir + "/point", "probe_tip_fz"), -P, 1e-12);
  EXPECT_NEAR(last(dir + "/point", "probe_root_fz"), P, 1e-3 * P) << "the clamp's reaction balances the tip load";
  EXPECT_NEAR(last(dir + "/point", "probe_root_fx"), 0.0, 1e-3 * P);
  EXPECT_NEAR(last(dir + "/point", "probe_root_fy"), 0.0, 1e-3 * P);
  EXPECT_NEAR(last(dir + "/point", "probe_root_uz"), 0.0, 1e-15) << "the clamp does not move";
  const double uP = -last(dir + "/point", "probe_tip_uz");

  // The same beam under its own weight instead.
  test::runIn(dir + "/weight", scene, {"bdem.scene.gravity=[0, 0, -9.81]", "bdem.loads.tip_load.force=[0, 0, 0]"});
  const double uq = -last(dir + "/weight", "probe_tip_uz");
  const double L = 0.19, E = 1e7, I = 0.02 * std::pow(0.02, 3) / 12.0, q = 1000 * 0.02 * 0.02 * 9.81;
  const double eiPoint = P * L * L * L / (3.0 * uP), eiWeight = q * L * L * L * L / (8.0 * uq);
  std::printf("[bdem loads] tip deflection under P = 0.1 N: %.4e m (Euler-Bernoulli, nominal E: %.4e m, ratio %.3f); "
              "under its weight %.4e m (%.4e m, ratio %.3f); EI from P %.4e, from q %.4e; clamp reaction %.8f N\n",
              uP, P * L * L * L / (3 * E * I), uP / (P * L * L * L / (3 * E * I)), uq, q * std::pow(L, 4) / (8 * E * I),
              uq / (q * std::pow(L, 4) / (8 * E * I)), eiPoint, eiWeight, last(dir + "/point", "probe_root_fz"));
  EXPECT_NEAR(eiPoint / eiWeight, 1.0, 0.05);
  // Against Euler-Bernoulli with the nominal E (the module calibrates the lattice by default).
  EXPECT_NEAR(uP / (P * L * L * L / (3 * E * I)), 1.0, 0.05);
  // The clamp holds the weight of the free part (its own weight is on the support: not counted).
  EXPECT_GT(last(dir + "/weight", "probe_root_fz"), 0.9 * q * L);

  // Frames: frame 0 at t = 0 is the rest state, then one per step; displacement = p - p(0).
  io::H5File f(dir + "/point/frames.h5", io::H5File::Mode::read, Comm::world());
  const auto names = f.children("/frames");
  ASSERT_EQ(names.size(), 4u);
  EXPECT_EQ(f.readAttributeReal("/frames/" + names[0], "time"), 0.0);
  const auto p0 = f.readAll("/frames/" + names[0] + "/positions");
  for (double d : f.readAll("/frames/" + names[0] + "/displacement")) EXPECT_EQ(d, 0.0);
  const auto p3 = f.readAll("/frames/" + names[3] + "/positions");
  const auto d3 = f.readAll("/frames/" + names[3] + "/displacement");
  ASSERT_EQ(d3.size(), p3.size());
  double err = 0, dmax = 0;
  for (std::size_t k = 0; k < p3.size(); ++k) {
    err = std::max(err, std::abs(d3[k] - (p3[k] - p0[k])));
    dmax = std::max(dmax, std::abs(d3[k]));
  }
  EXPECT_LE(err, 1e-15);
  EXPECT_GT(dmax, 1e-3);
}

// A small cantilever falling under gravity, or under a body force equal to g.
const char* kSmall = R"(module: bdem
backend: eigen
bdem:
  integrator: explicit
  steps: 4
  substeps: 25
  scene:
    generator: cantilever
    material: {E: 1.0e6}
    cantilever: {length: 0.04, height: 0.01, width: 0.01, radius: 0.0025, clamp_length: 0.005}
run: {progress_seconds: 1000}
output: {frame_every: 4}
)";

TEST(BdemLoads, BodyForceEqualToGravityIsGravity) {
  const std::string dir = test::scratchDir("bdem_loads_body_force");
  const std::string scene = test::writeScene(dir, kSmall);
  const std::vector<std::string> asLoad = {"bdem.scene.gravity=[0, 0, 0]",
                                           "bdem.loads.weight={set: all, body_force: [0, 0, -9.81]}"};
  for (const char* integrator : {"explicit", "implicit"}) {
    const std::string in = std::string("bdem.integrator=") + integrator;
    // explicit: the stable step (dt = 0); implicit: 8x it.
    const std::string dt = std::string(integrator) == "explicit" ? "bdem.dt=0" : "bdem.dt=1e-4";
    test::runIn(dir + "/g_" + integrator, scene, {in, dt});
    std::vector<std::string> sets = asLoad;
    sets.push_back(in);
    sets.push_back(dt);
    test::runIn(dir + "/b_" + integrator, scene, sets);
    const auto g = test::framePositions(dir + "/g_" + integrator);
    const auto b = test::framePositions(dir + "/b_" + integrator);
    ASSERT_EQ(g.size(), b.size());
    const double moved = test::maxDiff(g.back(), g.front());
    EXPECT_GT(moved, 1e-6) << "gravity must move the beam";
    const double diff = test::maxDiff(g.back(), b.back());
    std::printf("[bdem loads] %s: body force g vs gravity: max |dx| = %.3e m (motion %.3e m)\n", integrator, diff, moved);
    if (std::string(integrator) == "explicit")
      EXPECT_EQ(diff, 0.0);
    else
      EXPECT_LE(diff, 1e-6 * moved);
    const auto eg = test::csvColumn(dir + "/g_" + integrator, "potential_energy");
    const auto eb = test::csvColumn(dir + "/b_" + integrator, "potential_energy");
    ASSERT_EQ(eg.size(), eb.size());
    for (std::size_t k = 0; k < eg.size(); ++k) EXPECT_NEAR(eg[k], eb[k], 1e-9 * std::abs(eg[k])) << "-f.p is -m g.p";
  }
}

TEST(BdemLoads, DisplacementAndVelocitySupportsAndBalancedReactions) {
  const std::string dir = test::scratchDir("bdem_loads_supports");
  const std::string scene = test::writeScene(dir, R"(module: bdem
backend: eigen
bdem:
  integrator: implicit
  dt: 1.0
  steps: 3
  tolerance: 1.0e-9
  scene:
    generator: cantilever
    gravity: [0, 0, 0]
    material: {E: 1.0e6}
    cantilever: {length: 0.04, height: 0.01, width: 0.01, radius: 0.0025, clamp_length: 0.004}
  sets:
    left: {face: x_min}
    right: {face: x_max}
    middle: {indices: [10, 11, 12]}
  supports:
    hold: {set: left, fixed: true}
    pull: {set: right, displacement: [0.0002, 0, 0], ramp_time: 1.0}
  probes: [left, right, middle]
run: {progress_seconds: 1000}
output: {frame_every: 3}
)");
  test::runIn(dir + "/run", scene);
  const std::string r = dir + "/run";
  EXPECT_NEAR(last(r, "probe_right_ux"), 2e-4, 1e-15);
  EXPECT_NEAR(last(r, "probe_right_uy"), 0.0, 1e-15);
  EXPECT_NEAR(last(r, "probe_left_ux"), 0.0, 1e-15);
  const double pull = last(r, "probe_right_fx");
  EXPECT_GT(pull, 0.0) << "the support pulls the stretched bar";
  EXPECT_NEAR(last(r, "probe_left_fx"), -pull, 1e-3 * pull) << "the reactions balance";
  EXPECT_NEAR(last(r, "probe_middle_fx"), 0.0, 1e-15) << "no load on free particles";
  const auto vx = test::csvColumn(r, "probe_right_vx");
  EXPECT_NEAR(vx.front(), 2e-4, 1e-12) << "moving at u / ramp_time during the ramp";
  EXPECT_NEAR(vx.back(), 0.0, 1e-12) << "held after the ramp";

  // A velocity support: moves at v until `until`, then holds.
  test::runIn(dir + "/velocity", scene,
              {"bdem.supports.pull={set: right, velocity: [0.0001, 0, 0], until: 2.5}"});
  const auto ux = test::csvColumn(dir + "/velocity", "probe_right_ux");
  ASSERT_EQ(ux.size(), 3u);
  EXPECT_NEAR(ux[0], 1e-4, 1e-15);
  EXPECT_NEAR(ux[1], 2e-4, 1e-15);
  EXPECT_NEAR(ux[2], 2.5e-4, 1e-15);
  EXPECT_NEAR(last(dir + "/velocity", "probe_left_fx"), -last(dir + "/velocity", "probe_right_fx"),
              1e-3 * last(dir + "/velocity", "probe_right_fx"));
}

TEST(BdemLoads, TractionOnAFaceAndTheFileColumnScene) {
  // modules/bdem/scenes/file_column.yaml: a 3 x 3 x 10 cubic column, r = 5 mm, 2 kPa on its top
  // face (the face of the spheres' bounding box: 0.03 x 0.03 m^2), gravity.
  const std::string dir = test::scratchDir("bdem_loads_traction");
  const std::string scene = std::string(KINEMA_SOURCE_DIR) + "/modules/bdem/scenes/file_column.yaml";
  test::runIn(dir + "/run", scene, {"bdem.steps=2", "output.frame_every=2"});
  const double r = 0.005, m = 1000 * 4.0 / 3.0 * std::numbers::pi * r * r * r, g = 9.81;
  EXPECT_NEAR(last(dir + "/run", "probe_top_fz"), -2000 * 0.03 * 0.03 - 9 * m * g, 1e-12);
  EXPECT_LT(last(dir + "/run", "probe_top_uz"), 0.0);
}

TEST(BdemLoads, RestartKeepsTheRestFrame) {
  const std::string dir = test::scratchDir("bdem_loads_restart");
  const std::string scene = test::writeScene(dir, kSmall);
  const std::vector<std::string> sets = {"run.checkpoint_every=2", "output.frame_every=1"};
  test::runIn(dir + "/a", scene, sets);
  const auto a = test::framePositions(dir + "/a");
  ASSERT_EQ(a.size(), 5u) << "frame 0 (rest) and one per step";
  const std::string r = dir + "/r";
  if (Comm::world().isRoot()) std::filesystem::copy(dir + "/a", r, std::filesystem::copy_options::recursive);
  Comm::world().barrier();
  test::runIn(r, scene, sets, r + "/checkpoints/checkpoint_000002.h5");
  const auto b = test::framePositions(r);
  ASSERT_EQ(b.size(), a.size()) << "a restart writes no second rest frame";
  EXPECT_EQ(test::maxDiff(a.front(), b.front()), 0.0);
  EXPECT_EQ(test::maxDiff(a.back(), b.back()), 0.0);
}

System smallBeam() {
  CantileverOptions o;
  o.beam = {0.03, 0.01, 0.01, 0.0025};
  o.clampLength = 0.004;
  o.body.material.E = 1e6;
  return buildCantilever(o);
}

void expectSameScene(const System& a, const System& b) {
  ASSERT_EQ(a.P.size(), b.P.size());
  for (std::size_t k = 0; k < a.P.size(); ++k) {
    EXPECT_EQ(a.P.p[k], b.P.p[k]) << k;
    EXPECT_EQ(a.P.r[k], b.P.r[k]) << k;
    EXPECT_NEAR(a.P.m[k], b.P.m[k], 1e-15 * a.P.m[k]) << k;
    EXPECT_EQ(a.P.q[k], b.P.q[k]) << k;
    EXPECT_EQ(a.P.v[k], b.P.v[k]) << k;
  }
  ASSERT_EQ(a.bonds.size(), b.bonds.size());
  for (std::size_t k = 0; k < a.bonds.size(); ++k) {
    EXPECT_EQ(a.bonds[k].gi, b.bonds[k].gi);
    EXPECT_EQ(a.bonds[k].gj, b.bonds[k].gj);
    EXPECT_EQ(a.bonds[k].l0, b.bonds[k].l0);
    EXPECT_EQ(a.bonds[k].kn, b.bonds[k].kn);
  }
}

TEST(BdemLoads, ParticleFileRoundTrip) {
  const std::string dir = test::scratchDir("bdem_loads_file");
  System s = smallBeam();
  s.P.v[3] = Vec3(0.1, -0.2, 0.3);
  ParticleFileOptions o;
  o.materials = s.materials;
  o.gravity = s.gravity;
  if (Comm::world().isRoot()) writeParticleCsv(s, dir + "/beam.csv", dir + "/beam_bonds.csv");
  Comm::world().barrier();
  o.path = dir + "/beam.csv";
  o.bondsPath = dir + "/beam_bonds.csv";
  expectSameScene(s, readParticleFile(o));
  // Without the bond list, the distance rule of the generators gives the same bonds.
  o.bondsPath.clear();
  expectSameScene(s, readParticleFile(o));

  // HDF5: the same scene from /particles/* and /bonds.
  if (Comm::world().isRoot()) {
    io::H5File h(dir + "/beam.h5", io::H5File::Mode::create, Comm::self());
    const std::uint64_t n = s.P.size();
    std::vector<double> pos, rad, vel;
    for (std::size_t a = 0; a < n; ++a) {
      for (int k = 0; k < 3; ++k) pos.push_back(s.P.p[a][k]);
      for (int k = 0; k < 3; ++k) vel.push_back(s.P.v[a][k]);
      rad.push_back(s.P.r[a]);
    }
    std::vector<std::int64_t> bonds;
    for (const Bond& b : s.bonds) {
      bonds.push_back(b.gi);
      bonds.push_back(b.gj);
    }
    h.writeArray("/particles/position", {n, 3}, pos);
    h.writeArray("/particles/velocity", {n, 3}, vel);
    h.writeArray("/particles/radius", {n}, rad);
    h.writeArray("/bonds", {static_cast<std::uint64_t>(s.bonds.size()), 2}, bonds);
  }
  Comm::world().barrier();
  o.path = dir + "/beam.h5";
  expectSameScene(s, readParticleFile(o));
}

TEST(BdemLoads, FileSceneRunsLikeTheGenerator) {
  const std::string dir = test::scratchDir("bdem_loads_file_scene");
  if (Comm::world().isRoot()) writeParticleCsv(smallBeam(), dir + "/beam.csv", dir + "/beam_bonds.csv");
  const std::string body = R"(module: bdem
backend: eigen
bdem:
  integrator: explicit
  steps: 3
  substeps: 20
  scene:
    material: {E: 1.0e6, calibration: none}
    cantilever: {length: 0.03, height: 0.01, width: 0.01, radius: 0.0025, clamp_length: 0.004}
    file: {path: beam.csv, bonds: beam_bonds.csv}
run: {progress_seconds: 1000}
output: {frame_every: 3}
)";
  const std::string scene = test::writeScene(dir, body);
  test::runIn(dir + "/gen", scene, {"bdem.scene.generator=cantilever"});
  // The file has no clamp: the same particles (x < 4 mm) are held by a support.
  test::runIn(dir + "/file", scene,
              {"bdem.scene.generator=file", "bdem.sets.clamp={box: [-1, -1, -1, 0.004, 1, 1]}",
               "bdem.supports.clamp={set: clamp, fixed: true}"});
  const auto g = test::framePositions(dir + "/gen");
  const auto f = test::framePositions(dir + "/file");
  ASSERT_EQ(g.size(), f.size());
  EXPECT_GT(test::maxDiff(g.back(), g.front()), 1e-7);
  EXPECT_EQ(test::maxDiff(g.back(), f.back()), 0.0);
}

// Each bad input: the error names the key (with its file:line) or the data file's line, and
// nothing is written (the run stops in setup, before any step).
void expectSetupError(const std::string& name, const std::string& yamlTail, const std::vector<std::string>& files,
                      const std::vector<std::string>& needles) {
  const std::string dir = test::scratchDir("bdem_loads_bad_" + name);
  if (Comm::world().isRoot())
    for (std::size_t k = 0; k + 1 < files.size(); k += 2) std::ofstream(dir + "/" + files[k]) << files[k + 1];
  const std::string scene = test::writeScene(dir, std::string(R"(module: bdem
backend: eigen
bdem:
  integrator: explicit
  steps: 1
  scene:
)") + yamlTail);
  const std::string msg = test::messageOf<InputError>([&] { test::runIn(dir + "/out", scene); });
  for (const std::string& n : needles) EXPECT_NE(msg.find(n), std::string::npos) << name << ": '" << n << "' not in: " << msg;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/diagnostics.csv")) << name;
}

const std::string kBeam =
    "    generator: cantilever\n    cantilever: {length: 0.03, height: 0.01, width: 0.01, radius: 0.0025, clamp_length: 0.004}\n";

TEST(BdemLoads, BadInputNamesTheKeyOrLine) {
  expectSetupError("empty_set", kBeam + "  sets:\n    far: {box: [1, 1, 1, 2, 2, 2]}\n", {}, {"scene.yaml:10", "bdem.sets.far.box", "empty"});
  expectSetupError("probe_missing_set", kBeam + "  sets:\n    tip: {face: x_max}\n  probes: [tip, nope]\n", {},
                   {"scene.yaml:11", "bdem.probes", "'nope'"});
  expectSetupError("load_missing_set", kBeam + "  loads:\n    push: {set: nope, force: [1, 0, 0]}\n", {},
                   {"scene.yaml:10", "bdem.loads.push.set", "'nope'"});
  expectSetupError("two_kinds", kBeam + "  loads:\n    push: {set: all, force: [1, 0, 0], body_force: [0, 0, 1]}\n", {},
                   {"bdem.loads.push", "exactly one"});
  expectSetupError("unknown_field", kBeam + "  sets:\n    s: {boxx: [0, 0, 0, 1, 1, 1]}\n", {}, {"bdem.sets.s.boxx", "unknown field"});
  expectSetupError("support_missing_set", kBeam + "  supports:\n    hold: {set: nope, fixed: true}\n", {},
                   {"bdem.supports.hold.set", "'nope'"});
  expectSetupError("index_out_of_range", kBeam + "  sets:\n    s: {indices: [0, 100000]}\n", {}, {"bdem.sets.s.indices", "100000"});
  const std::string fileScene = "    generator: file\n    file: {path: p.csv, bonds: b.csv}\n";
  const std::string good = "x,y,z,r\n0,0,0,0.01\n0.02,0,0,0.01\n0.04,0,0,0.01\n";
  expectSetupError("nan", fileScene, {"p.csv", "x,y,z,r\n0,0,0,0.01\nnan,0,0,0.01\n", "b.csv", "i,j\n"}, {"p.csv:3", "not finite"});
  expectSetupError("negative_radius", fileScene, {"p.csv", "# comment\nx,y,z,r\n0,0,0,-0.01\n", "b.csv", "i,j\n"},
                   {"p.csv:3", "radius"});
  expectSetupError("columns", fileScene, {"p.csv", "x,y,z,r\n0,0,0,0.01\n0,0\n", "b.csv", "i,j\n"}, {"p.csv:3", "columns"});
  expectSetupError("unknown_column", fileScene, {"p.csv", "x,y,z,radius\n0,0,0,0.01\n", "b.csv", "i,j\n"},
                   {"p.csv:1", "'radius'"});
  expectSetupError("missing_particle", fileScene, {"p.csv", good, "b.csv", "i,j\n0,1\n1,3\n"}, {"b.csv:3", "particle 3"});
  expectSetupError("duplicate_bond", fileScene, {"p.csv", good, "b.csv", "i,j\n0,1\n1,2\n1,0\n"}, {"b.csv:4", "duplicate"});
  expectSetupError("self_bond", fileScene, {"p.csv", good, "b.csv", "i,j\n1,1\n"}, {"b.csv:2", "itself"});
  expectSetupError("no_file", "    generator: file\n", {}, {"bdem.scene.file.path"});
}

}  // namespace

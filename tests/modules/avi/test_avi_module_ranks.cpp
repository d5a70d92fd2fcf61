// The avi module through the runner at 1, 2 and 3 ranks (eigen at 1 rank; petsc and trilinos at
// every rank count), the paper's §8.1-8.2, README decision 58 and the restart contract of
// framework/run:
//  - spring on a plane (the paper's §8.1, paper values eta = 0.1, k = 1000, g = 1): the diagnostics CSV has
//    the module's columns, all finite; E(0) = 3 (closed form); E(t) stays in a band of C_safe-size
//    around 3; only layer 1 ever activates (layer 2 needs stored energy >= 10 > 3); the bottom
//    stays above the energy bound 0.2 - sqrt(3 / 1000) = 0.145; no horizontal momentum;
//  - a few balls in 2D (the paper's §8.2, e = 1): finite columns, energy in a band of C_safe-size around
//    E(0), contact happened, no intersection, z-momentum and in-plane angular momentum exactly 0;
//  - a restart from a checkpoint reproduces the uninterrupted run: bitwise at 1 rank (positions
//    and every diagnostics column but wall times, event counts included, which shows it continued
//    from the checkpoint rather than replaying from t = 0), to 1e-10 (relative to the scene's
//    size) at 2 and 3 ranks;
//  - at 2 and 3 ranks with the dyadic base set, the balls run equals the module driven serially on
//    Comm::self to 1e-8 of the box (option A, README decision 57: equal up to round-off of drift splitting,
//    amplified by the collisions);
//  - bad keys and values are InputErrors naming the key, before any output exists;
//  - `kinema help avi` (the schema it prints) lists every avi parameter;
//  - a run that goes wrong stops with an Error naming the time, status.yaml records the failure
//    and the last checkpoint.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "framework/core/error.hpp"
#include "framework/io/checkpoint.hpp"
#include "framework/io/hdf5_file.hpp"
#include "framework/la/backend.hpp"
#include "framework/run/module.hpp"
#include "framework/run/runner.hpp"
#include "framework/run/scene.hpp"
#include "modules/avi/avi_module.hpp"
#include "modules/avi/scene_params.hpp"
#include "scene_test_util.hpp"
#include "test_util.hpp"

using namespace kinema;

namespace {

// The paper's §8.1: unit spring, unit masses, bottom at z = 1, top at z = 2, plane z = 0, g = 1,
// eta = 0.1, k = 1000. The first contact is at t ~ sqrt(2 * 0.8) = 1.26; 4 time units hold it.
const char* kSpring = R"(module: avi
backend: eigen
avi:
  end_time: 4.0
  frame_dt: 0.1
  integrator: {c_safe: 0.05}
  scene:
    generator: spring_on_plane
run: {checkpoint_every: 10, checkpoint_keep: 10, progress_seconds: 1000}
output: {frame_every: 1}
)";

// The paper's §8.2 in 2D, few enough balls to be quick; e = 1, no gravity.
const char* kBalls = R"(module: avi
backend: eigen
avi:
  end_time: 1.0
  frame_dt: 0.05
  integrator: {c_safe: 0.05, restitution: 1.0}
  scene:
    generator: balls_2d
    balls_2d: {count: 20, radius: 0.05, box: 2.0}
run: {checkpoint_every: 8, checkpoint_keep: 10, progress_seconds: 1000}
output: {frame_every: 1}
)";

const std::vector<std::string>& expectedColumns() {
  static const std::vector<std::string> c = [] {
    std::vector<std::string> v = {"step", "time", "kinetic_energy", "elastic_energy", "gravity_energy",
                                  "contact_energy", "total_energy", "energy_change", "momentum_x", "momentum_y",
                                  "momentum_z", "angular_momentum_x", "angular_momentum_y", "angular_momentum_z",
                                  "min_distance", "intersections", "candidate_pairs", "active_pairs"};
    for (int l = 1; l <= avi::kLayerColumns; ++l) v.push_back("layers_" + std::to_string(l));
    for (const char* s : {"layers_deeper", "deepest_layer", "deepest_layer_run", "events", "rate_force",
                          "rate_penalty_kick", "rate_penalty_zero", "rate_cert_expiry", "rate_reschedule",
                          "rate_script", "reschedules_per_event", "activations", "deactivations",
                          "broad_phase_rebuilds", "epochs", "windows", "rollbacks", "migrations", "wall_sync",
                          "wall_queue", "wall_broad_phase", "wall_certificates", "wall_forces", "wall_events",
                          "wall_seconds"})
      v.push_back(s);
    return v;
  }();
  return c;
}

using Table = std::vector<std::vector<double>>;  // [column][row] in expectedColumns() order

// Every expected column of <dir>/diagnostics.csv, each with `rows` finite values.
Table readTable(const std::string& dir, long rows) {
  Table t;
  for (const std::string& c : expectedColumns()) {
    t.push_back(test::csvColumn(dir, c));
    EXPECT_EQ(static_cast<long>(t.back().size()), rows) << c;
    for (double v : t.back()) EXPECT_TRUE(std::isfinite(v)) << c << " = " << v;
  }
  return t;
}

const std::vector<double>& col(const Table& t, const std::string& name) {
  const auto& c = expectedColumns();
  return t[static_cast<std::size_t>(std::find(c.begin(), c.end(), name) - c.begin())];
}

using test::framePositions;
using test::maxDiff;

double extent(const std::vector<double>& x) {
  double lo = 0, hi = 0;
  for (double v : x) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  return std::max(hi - lo, 1.0);
}

// False only for eigen at more than one rank (a single-rank backend; the petsc and trilinos runs
// cover those rank counts). A backend missing from the build is a failure, not a skip: the test
// suite's build has every backend (a missing one is a configure error).
bool available(const std::string& backend) {
  if (backend == "eigen" && Comm::world().size() > 1) return false;
  EXPECT_TRUE(la::backends().has(backend)) << backend << " is not built: configure with every backend";
  return la::backends().has(backend);
}

std::string anyBackend() { return Comm::world().size() > 1 ? "petsc" : "eigen"; }

// Runs `scene` uninterrupted into <dir>/a and restarted from checkpoint `k` into <dir>/r; checks
// that the restart reproduces the run (bitwise at one rank, to 1e-10 of the scene size else).
// Returns the table of the uninterrupted run.
Table runAndRestart(const std::string& dir, const std::string& scene, const std::string& backend, long steps,
                    long k) {
  Comm world = Comm::world();
  const std::string a = dir + "/a", r = dir + "/r";
  test::runIn(a, scene, {"backend.name=" + backend});
  Table t = readTable(a, steps);
  const auto frames = framePositions(a);
  EXPECT_EQ(static_cast<long>(frames.size()), steps);

  if (world.isRoot()) std::filesystem::copy(a, r, std::filesystem::copy_options::recursive);
  world.barrier();
  char name[64];
  std::snprintf(name, sizeof name, "/checkpoints/checkpoint_%06ld.h5", k);
  test::runIn(r, scene, {"backend.name=" + backend}, r + name);
  const auto restarted = framePositions(r);
  EXPECT_EQ(restarted.size(), frames.size());
  const Table tr = readTable(r, steps);
  if (restarted.size() != frames.size() || frames.empty()) return t;
  if (world.size() == 1) {
    for (std::size_t s = static_cast<std::size_t>(k); s < frames.size(); ++s)
      EXPECT_EQ(std::memcmp(restarted[s].data(), frames[s].data(), frames[s].size() * sizeof(double)), 0)
          << backend << ": the restart from step " << k << " differs from the uninterrupted run at step " << s + 1;
    // Every column but the wall times, bitwise; the event counts per step show that the restart
    // continued from the checkpoint (a run replayed from t = 0 reproduces the positions too, but
    // its first step would hold every event since t = 0).
    const auto& names = expectedColumns();
    for (std::size_t c = 0; c < names.size(); ++c)
      if (names[c].rfind("wall_", 0) != 0) {
        EXPECT_EQ(tr[c], t[c]) << backend << ": column " << names[c];
      }
  } else {
    const double L = extent(frames.back());
    double dx = 0;
    for (std::size_t s = static_cast<std::size_t>(k); s < frames.size(); ++s)
      dx = std::max(dx, maxDiff(restarted[s], frames[s]));
    EXPECT_LE(dx, 1e-10 * L) << backend << ": the restart from step " << k << " differs from the uninterrupted run";
    const auto& e = col(t, "total_energy");
    const auto& er = col(tr, "total_energy");
    for (std::size_t s = 0; s < e.size(); ++s) EXPECT_NEAR(er[s], e[s], 1e-10 * std::max(1.0, std::abs(e[s])));
    // The restarted run continued from the checkpoint: its first step did not replay the events
    // since t = 0 (the domain may pop a few more certificate events at the new epoch start).
    const auto& ev = col(t, "events");
    const auto& evr = col(tr, "events");
    double before = 0;
    for (long s = 0; s <= k; ++s) before += ev[static_cast<std::size_t>(s)];
    const auto kk = static_cast<std::size_t>(k);
    EXPECT_LE(evr[kk], 2.0 * ev[kk] + 10.0) << "events of the first restarted step; " << before << " since t = 0";
    if (world.isRoot())
      std::cout << "[avi module] " << backend << " at " << world.size() << " ranks: restart max |dx| = " << dx << "\n";
  }
  return t;
}

// Final frame positions of the module driven directly on Comm::self with the eigen backend.
std::vector<double> serialFinalPositions(const std::string& scene, const std::vector<std::string>& sets) {
  run::SceneOptions o;
  o.path = scene;
  o.sets = sets;
  o.sets.push_back("backend.name=eigen");
  ParamSchema schema;
  const Config config = run::loadScene(o, schema);
  la::BackendPtr backend = la::createBackend("eigen");
  run::RunContext ctx{config, *backend, Comm::self(), "."};
  avi::AviModule m;
  m.setup(ctx);
  for (long k = 0; k < m.totalSteps(); ++k) {
    io::Diagnostics::Row row;
    m.step(ctx, row);
  }
  std::vector<avi::Vec3> x;
  m.domain().gatherPositions(m.time(), x);
  std::vector<double> out;
  for (const avi::Vec3& p : x) out.insert(out.end(), {p[0], p[1], p[2]});
  return out;
}

void checkSpring(const std::string& backend) {
  if (!available(backend)) GTEST_SKIP() << backend << " is not available at this rank count";
  const std::string dir = test::scratchDir("avi_module_spring_" + backend);
  const std::string scene = test::writeScene(dir, kSpring);
  const long steps = 40;
  const Table t = runAndRestart(dir, scene, backend, steps, 10);
  if (::testing::Test::HasFatalFailure()) return;
  const auto& E = col(t, "total_energy");
  const auto& dE = col(t, "energy_change");
  ASSERT_EQ(static_cast<long>(E.size()), steps);
  EXPECT_NEAR(E[0] - dE[0], 3.0, 1e-12) << "E(0) = sum m g z = 1 + 2 (the paper's §8.1)";
  double band = 0, zmin = 1e300;
  for (long s = 0; s < steps; ++s) {
    const auto k = static_cast<std::size_t>(s);
    band = std::max(band, std::abs(E[k] - 3.0));
    // The bottom is the pair closest to the plane (the top never gets below 1); -1: no candidate
    // pair at that time (the bottom is beyond the broad-phase margin).
    const double md = col(t, "min_distance")[k];
    if (md == -1.0) {
      EXPECT_EQ(col(t, "candidate_pairs")[k], 0.0);
    } else {
      zmin = std::min(zmin, md);
    }
    EXPECT_EQ(col(t, "intersections")[k], 0.0);
    for (int l = 2; l <= avi::kLayerColumns; ++l) EXPECT_EQ(col(t, "layers_" + std::to_string(l))[k], 0.0) << l;
    EXPECT_EQ(col(t, "layers_deeper")[k], 0.0);
    EXPECT_LE(std::abs(col(t, "momentum_x")[k]) + std::abs(col(t, "momentum_y")[k]), 1e-12);
    EXPECT_NEAR(col(t, "time")[k], 0.1 * static_cast<double>(s + 1), 1e-12);
  }
  // Band: the frame energy uses segment velocities (README decision 58), off by about h omega / 2 of the
  // energy exchanged per potential; 0.15 = 5% of E covers C_safe = 0.05 and the material steps
  // (Appendix A: [2.94, 3.07] at h = 0.01).
  EXPECT_LE(band, 0.15) << "spring on a plane: energy band around 3";
  EXPECT_EQ(col(t, "deepest_layer_run").back(), 1.0) << "only layer 1 activates (the paper's §8.1), and it did";
  EXPECT_LT(zmin, 1.0) << "the bottom vertex never was a candidate pair";
  EXPECT_GE(zmin, 0.14) << "z_min >= 0.2 - sqrt(3/1000) = 0.145 (the paper's §8.1), less the band";
  double kicks = 0;
  for (double v : col(t, "rate_penalty_kick")) kicks += v;
  EXPECT_GT(kicks, 0.0);
  if (Comm::world().isRoot())
    std::cout << "[avi module] spring " << backend << " at " << Comm::world().size() << " ranks: max |E - 3| = " << band
              << ", min sampled bottom height " << zmin << ", deepest layer " << col(t, "deepest_layer_run").back()
              << "\n";
}

void checkBalls(const std::string& backend) {
  if (!available(backend)) GTEST_SKIP() << backend << " is not available at this rank count";
  Comm world = Comm::world();
  const std::string dir = test::scratchDir("avi_module_balls_" + backend);
  const std::string scene = test::writeScene(dir, kBalls);
  const long steps = 20;
  const Table t = runAndRestart(dir, scene, backend, steps, 8);
  if (::testing::Test::HasFatalFailure()) return;
  const auto& E = col(t, "total_energy");
  const auto& dE = col(t, "energy_change");
  ASSERT_EQ(static_cast<long>(E.size()), steps);
  const double E0 = E[0] - dE[0];
  ASSERT_GT(E0, 0.0);
  double band = 0;
  for (std::size_t k = 0; k < E.size(); ++k) {
    band = std::max(band, std::abs(dE[k]));
    EXPECT_EQ(col(t, "intersections")[k], 0.0);
    const double md = col(t, "min_distance")[k];
    EXPECT_TRUE(md > 0.0 || (md == -1.0 && col(t, "candidate_pairs")[k] == 0.0)) << md;
    // 2D (every z and v_z exactly 0): no z momentum, no in-plane angular momentum.
    EXPECT_EQ(col(t, "momentum_z")[k], 0.0);
    EXPECT_EQ(col(t, "angular_momentum_x")[k], 0.0);
    EXPECT_EQ(col(t, "angular_momentum_y")[k], 0.0);
  }
  // e = 1, no gravity: the measured energy stays within about C_safe E(0) of E(0) (see above).
  EXPECT_LE(band, 0.05 * E0) << "balls: energy band";
  EXPECT_GE(col(t, "deepest_layer_run").back(), 1.0) << "the balls collided within the run";
  if (world.isRoot())
    std::cout << "[avi module] balls " << backend << " at " << world.size() << " ranks: E(0) = " << E0
              << ", max |E - E0| / E0 = " << band / E0 << ", deepest layer " << col(t, "deepest_layer_run").back()
              << "\n";

  // Option A (README decision 57): at more ranks, with the dyadic base set on both sides, the run equals the
  // serial one up to round-off of drift splitting.
  if (world.size() > 1) {
    const std::string s = dir + "/s";
    const std::vector<std::string> sets = {"avi.integrator.dyadic_base=0.001"};
    std::vector<std::string> all = sets;
    all.push_back("backend.name=" + backend);
    test::runIn(s, scene, all);
    const auto frames = framePositions(s);
    ASSERT_FALSE(frames.empty());
    const std::vector<double> ref = serialFinalPositions(scene, sets);
    const double dx = maxDiff(frames.back(), ref);
    // 1e-8: round-off of drift splitting (~1e-16) grows by about (free path / radius) ~ 20 at each
    // ball-ball collision, a few per ball over the run.
    EXPECT_LE(dx, 1e-8 * extent(ref)) << backend << ": the distributed run differs from the serial one";
    if (world.isRoot()) std::cout << "[avi module] balls " << backend << " vs serial: max |dx| = " << dx << "\n";
  }
}

}  // namespace

TEST(AviModuleRanks, SpringOnPlaneEigen) { checkSpring("eigen"); }
TEST(AviModuleRanks, SpringOnPlanePetsc) { checkSpring("petsc"); }
TEST(AviModuleRanks, SpringOnPlaneTrilinos) { checkSpring("trilinos"); }
TEST(AviModuleRanks, Balls2dEigen) { checkBalls("eigen"); }
TEST(AviModuleRanks, Balls2dPetsc) { checkBalls("petsc"); }
TEST(AviModuleRanks, Balls2dTrilinos) { checkBalls("trilinos"); }

TEST(AviModuleRanks, BadInputIsAnInputErrorBeforeAnyOutput) {
  const std::string dir = test::scratchDir("avi_module_bad");
  const std::string scene = test::writeScene(dir, kSpring);
  const std::string backend = "backend.name=" + anyBackend();
  const auto expectKey = [&](const std::vector<std::string>& sets, const std::string& key) {
    std::vector<std::string> all = sets;
    all.push_back(backend);
    const std::string msg = test::messageOf<InputError>([&] { test::runIn(dir + "/o", scene, all); });
    EXPECT_NE(msg.find(key), std::string::npos) << msg;
    EXPECT_FALSE(std::filesystem::exists(dir + "/o")) << "bad input must not create the output directory";
  };
  expectKey({"avi.integrator.c_saf=0.1"}, "avi.integrator.c_saf");  // unknown key
  expectKey({"avi.integrator.c_safe=1.5"}, "avi.integrator.c_safe");
  expectKey({"avi.integrator.c_safe=0"}, "avi.integrator.c_safe");
  expectKey({"avi.integrator.restitution=1.5"}, "avi.integrator.restitution");
  expectKey({"avi.frame_dt=0"}, "avi.frame_dt");
  expectKey({"avi.integrator.mode=exhaustive"}, "brute_force");
  // Cross-key checks of readAviParams.
  expectKey({"avi.integrator.brute_force_layers=4"}, "avi.integrator.brute_force_layers");
  expectKey({"avi.integrator.mode=brute_force", "avi.integrator.restart_clocks=true"},
            "avi.integrator.restart_clocks");
  expectKey({"avi.integrator.mode=brute_force", "avi.integrator.brute_force_layers=20",
             "avi.integrator.max_layer=10"},
            "avi.integrator.brute_force_layers");
  expectKey({"avi.end_time=1e9", "avi.frame_dt=1e-3"}, "avi.frame_dt");
  if (Comm::world().size() > 1) {
    const std::string msg = test::messageOf<InputError>([&] { test::runIn(dir + "/o", scene); });
    EXPECT_NE(msg.find("distributed backend"), std::string::npos) << msg;
  }
}

// What `kinema help avi` prints: the module's help line and every avi parameter with its help.
TEST(AviModuleRanks, HelpListsEveryParameter) {
  ASSERT_TRUE(run::modules().has("avi"));
  EXPECT_NE(run::modules().get("avi").help.find("asynchronous"), std::string::npos);
  const ParamSchema schema = run::schemaFor("avi");
  const std::string text = schema.describe("avi");
  for (const char* key :
       {"avi.end_time", "avi.frame_dt", "avi.integrator.c_safe", "avi.integrator.restitution",
        "avi.integrator.friction", "avi.integrator.tau_min_factor", "avi.integrator.max_layer",
        "avi.integrator.mode", "avi.integrator.brute_force_layers", "avi.integrator.debug_invariant",
        "avi.integrator.restart_clocks", "avi.integrator.uniform_step", "avi.integrator.dyadic_base",
        "avi.integrator.dyadic_steps",
        "avi.broad_phase.method", "avi.broad_phase.margin", "avi.scene.generator"}) {
    const ParamSpec* spec = schema.find(key);
    ASSERT_NE(spec, nullptr) << key;
    EXPECT_FALSE(spec->help.empty()) << key;
    EXPECT_NE(text.find(key), std::string::npos) << key << " missing from kinema help avi";
  }
  // The defaults are EngineOptions' (one source of numbers).
  const avi::EngineOptions d;
  EXPECT_EQ(std::get<double>(schema.find("avi.integrator.c_safe")->defaultValue), d.cSafe);
  EXPECT_EQ(std::get<long long>(schema.find("avi.integrator.max_layer")->defaultValue), d.maxLayer);
  EXPECT_EQ(std::get<std::string>(schema.find("avi.broad_phase.method")->defaultValue), d.broadPhase);
}

// A run that goes wrong (here the synchronous baseline with a step of 0.5, far beyond the layer's
// stability: the bottom vertex falls deep below the onset between two ticks and would need more
// than max_layer layers) stops with an Error naming the time, after the runner has recorded the
// failure, the last checkpoint and the restart command in status.yaml.
TEST(AviModuleRanks, BrokenRunIsAnErrorNamingTheTime) {
  ASSERT_TRUE(available(anyBackend()));
  const std::string dir = test::scratchDir("avi_module_broken");
  const std::string scene = test::writeScene(dir, kSpring);
  const std::string msg = test::messageOf<Error>([&] {
    test::runIn(dir + "/o", scene, {"backend.name=" + anyBackend(), "avi.integrator.uniform_step=0.5"});
  });
  EXPECT_NE(msg.find("t = "), std::string::npos) << msg;
  EXPECT_NE(msg.find("--restart"), std::string::npos) << msg;
  std::ifstream status(dir + "/o/status.yaml");
  std::stringstream text;
  text << status.rdbuf();
  EXPECT_NE(text.str().find("failed"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("checkpoint_000010.h5"), std::string::npos) << text.str();
}

// The dyadic base a run on several ranks uses when none is set (README decision 16): the largest
// step of the run, so that rounding down shortens no step by a factor 2 or more. Spring on a
// plane: spring and gravity steps 0.01 (README decision 58) against h_1 = C_safe sqrt(m / (4k)) =
// 0.05 sqrt(1 / 4000) = 7.9e-4; uniform_step wins when set. And the common times of the frames.
TEST(AviModuleRanks, DyadicDefaultAndFrameTimes) {
  const std::string dir = test::scratchDir("avi_module_dyadic");
  const std::string scene = test::writeScene(dir, kSpring);
  run::SceneOptions o;
  o.path = scene;
  ParamSchema schema;
  const Config config = run::loadScene(o, schema);
  avi::AviParams p = avi::readAviParams(config);
  const avi::Scene s = avi::buildScene(config, "avi.scene");
  double hMax = 0;
  for (const avi::ForceElement& e : s.forces) hMax = std::max(hMax, e.h);
  EXPECT_EQ(hMax, 0.01);
  EXPECT_EQ(avi::defaultDyadicBase(s, p.engine, p.frameDt), 0.01);
  p.engine.cSafe = 1.0;  // h_1 = sqrt(1 / 4000) = 0.0158 > 0.01
  EXPECT_NEAR(avi::defaultDyadicBase(s, p.engine, p.frameDt), std::sqrt(1.0 / 4000.0), 1e-15);
  p.engine.uniformStep = 0.003;
  EXPECT_EQ(avi::defaultDyadicBase(s, p.engine, p.frameDt), 0.003);

  EXPECT_EQ(p.steps, 40);
  EXPECT_EQ(avi::frameTime(p, 40), 4.0);
  EXPECT_EQ(avi::frameTime(p, 7), 0.7000000000000001);
  p.frameDt = 0.3;
  p.steps = 14;  // ceil(4.0 / 0.3): the last interval is shorter
  EXPECT_EQ(avi::frameTime(p, 13), 13 * 0.3);
  EXPECT_EQ(avi::frameTime(p, 14), 4.0);
  // 0.07 / 0.01 = 7.000000000000001 in floating point: still 7 frames, the last exactly at 0.07.
  o.sets = {"avi.end_time=0.07", "avi.frame_dt=0.01"};
  ParamSchema schema2;
  const avi::AviParams q = avi::readAviParams(run::loadScene(o, schema2));
  ASSERT_GT(0.07 / 0.01, 7.0);
  EXPECT_EQ(q.steps, 7);
  EXPECT_EQ(avi::frameTime(q, 7), 0.07);
}

// The runnable module `impact` (modules/impact/impact_module.hpp): scenes through the runner,
// frames, diagnostics, checkpoint/restart, and input errors that name the key.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "framework/core/error.hpp"
#include "framework/io/hdf5_file.hpp"
#include "framework/run/runner.hpp"
#include "scene_test_util.hpp"
#include "test_util.hpp"

using namespace kinema;

namespace {

using test::runIn;
using test::writeScene;


bool bitwiseEqual(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

std::string inputErrorOf(const std::string& dir, const std::string& body, std::vector<std::string> sets = {}) {
  const std::string scene = writeScene(dir, body);
  try {
    runIn(dir + "/out", scene, std::move(sets));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const char* kCradle = R"(module: impact
backend: eigen
impact:
  scene: {type: cradle, count: 5, speed: 1.0}
  sim: {dt: 0.01, steps: 30}
  resolver: {operator: gs-lexicographic}
run: {checkpoint_every: 10, progress_seconds: 1000}
output: {frame_every: 10}
)";

// A small 2D pile with restitution and a random operator seed: a trajectory sensitive to every bit.
const char* kPile = R"(module: impact
backend: eigen
impact:
  scene: {type: pile, dimension: 2, count: 80, radius: 0.05, width: 0.6, jitter: 0.1, seed: 3}
  sim: {dt: 0.004, steps: 60, gravity: 9.81}
  resolver: {operator: gs-random, restitution: 0.3, qp_tolerance: 1.0e-10}
run: {checkpoint_every: 1, progress_seconds: 1000}
output: {frame_every: 1}
)";

}  // namespace

TEST(ImpactModule, CradleRunsThroughTheRunnerWithFramesAndDiagnostics) {
  const std::string dir = test::scratchDir("impact_cradle");
  const run::RunResult r = runIn(dir + "/out", writeScene(dir, kCradle));
  EXPECT_EQ(r.stepsCompleted, 30);
  const auto ke = kinema::test::csvColumn(dir + "/out", "kinetic_energy");
  ASSERT_EQ(ke.size(), 30u);
  for (double e : ke) EXPECT_NEAR(e, 0.5, 1e-14);
  const auto it = kinema::test::csvColumn(dir + "/out", "iterations_max");
  EXPECT_EQ(it[0], 4.0);  // test A1: lexicographic GS hands the velocity along in 4 iterations
  EXPECT_EQ(kinema::test::csvColumn(dir + "/out", "caps")[0], 0.0);
  EXPECT_EQ(kinema::test::csvColumn(dir + "/out", "contacts")[0], 4.0);
  io::H5File f(dir + "/out/frames.h5", io::H5File::Mode::read, Comm::world());
  const auto frames = f.children("/frames");
  ASSERT_GE(frames.size(), 2u);
  const std::string last = "/frames/" + frames.back();
  const auto v = f.readAll(last + "/velocity");
  const auto radius = f.readAll(last + "/radius");
  const auto id = f.readAllInt(last + "/body_id");
  ASSERT_EQ(v.size(), 15u);
  EXPECT_NEAR(v[12], 1.0, 1e-12);  // the last ball flies off
  EXPECT_NEAR(v[0], 0.0, 1e-12);
  EXPECT_EQ(radius, std::vector<double>(5, 1.0));
  EXPECT_EQ(id, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
}

TEST(ImpactModule, RestartReproducesTheUninterruptedRunBitwise) {
  const std::string dir = test::scratchDir("impact_restart");
  const std::string scene = writeScene(dir, kPile);
  runIn(dir + "/full", scene);
  EXPECT_THROW(runIn(dir + "/crash", scene, {"run.fail_at_step=45"}), Error);
  const std::string cp = dir + "/crash/checkpoints/checkpoint_000044.h5";
  ASSERT_TRUE(std::filesystem::exists(cp)) << cp;
  runIn(dir + "/crash", scene, {}, cp);
  io::H5File a(dir + "/full/frames.h5", io::H5File::Mode::read, Comm::world());
  io::H5File b(dir + "/crash/frames.h5", io::H5File::Mode::read, Comm::world());
  const auto fa = a.children("/frames"), fb = b.children("/frames");
  ASSERT_EQ(fa, fb);
  for (const char* field : {"positions", "velocity"})
    EXPECT_TRUE(bitwiseEqual(a.readAll("/frames/" + fa.back() + "/" + field), b.readAll("/frames/" + fb.back() + "/" + field)))
        << field;
  // The crash and restart really changed something over the 15 restarted steps.
  EXPECT_FALSE(bitwiseEqual(a.readAll("/frames/" + fa[fa.size() - 16] + "/positions"),
                            a.readAll("/frames/" + fa.back() + "/positions")));
  // Contacts happened (the pile is not in free fall only).
  const auto contacts = kinema::test::csvColumn(dir + "/full", "contacts");
  EXPECT_GT(*std::max_element(contacts.begin(), contacts.end()), 10.0);
  EXPECT_EQ(kinema::test::csvColumn(dir + "/crash", "kinetic_energy"), kinema::test::csvColumn(dir + "/full", "kinetic_energy"));
}

TEST(ImpactModule, BadInputNamesTheKey) {
  const std::string dir = test::scratchDir("impact_bad_input");
  std::string e = inputErrorOf(dir, kCradle, {"impact.scene.type=snooker"});
  EXPECT_NE(e.find("impact.scene.type"), std::string::npos) << e;
  e = inputErrorOf(dir, kCradle, {"impact.scene.radius=-1"});
  EXPECT_NE(e.find("impact.scene.radius"), std::string::npos) << e;
  e = inputErrorOf(dir, R"(module: impact
backend: eigen
impact:
  scene: {type: balls, balls: [0, 0, 0, 1, 0, 0, 1, 1,  3, 0, 0, 0, 0, 0, -0.5, 1]}
)");
  EXPECT_NE(e.find("impact.scene.balls"), std::string::npos) << e;
  EXPECT_NE(e.find("ball 1"), std::string::npos) << e;
  e = inputErrorOf(dir, R"(module: impact
backend: eigen
impact:
  scene: {type: balls, balls: [0, 0, 0, 1, 0, 0, 1]}
)");
  EXPECT_NE(e.find("impact.scene.balls"), std::string::npos) << e;
  e = inputErrorOf(dir, kCradle, {"impact.resolver.operator=gauss-seidl"});
  EXPECT_NE(e.find("impact.resolver.operator"), std::string::npos) << e;
  e = inputErrorOf(dir, kCradle, {"impact.sim.broad_phase=octree"});
  EXPECT_NE(e.find("impact.sim.broad_phase"), std::string::npos) << e;
  // The checks bound with a scene key (impact_module.cpp) name it, for the scene type they concern only.
  e = inputErrorOf(dir, kCradle, {"impact.scene.type=pile", "impact.scene.width=1.5"});
  EXPECT_NE(e.find("impact.scene.width: the box (1.5) is narrower than one ball of radius 1"), std::string::npos) << e;
  e = inputErrorOf(dir, kCradle, {"impact.scene.type=box_drop", "impact.scene.half_extents=[0.5, 0, 0.2]"});
  EXPECT_NE(e.find("impact.scene.half_extents must be > 0"), std::string::npos) << e;
  e = inputErrorOf(dir, R"(module: impact
backend: eigen
impact:
  scene: {type: balls, balls: [0, 0, 0, 1, 0, 0, 1, 1], planes: [0, -2, 0, 0, 0, 0]}
)");
  EXPECT_NE(e.find("impact.scene.planes: plane 0: the normal must be nonzero"), std::string::npos) << e;
  EXPECT_EQ(inputErrorOf(dir, kCradle, {"impact.scene.width=1.5", "impact.scene.half_extents=[0, 0, 0]",
                                        "impact.scene.planes=[0, 0, 0]", "impact.sim.steps=2"}),
            "");
}

TEST(ImpactModule, ExplicitBallsAndPlanes) {
  const std::string dir = test::scratchDir("impact_balls");
  // Two balls and a floor: one falls onto the other, which rests on the floor (2D).
  runIn(dir + "/out", writeScene(dir, R"(module: impact
backend: eigen
impact:
  scene:
    type: balls
    balls: [0, 1, 0, 0, 0, 0, 1, 1,   0, 3.5, 0, 0, 0, 0, 1, 1]
    planes: [0, 0, 0, 0, 1, 0]
  sim: {dt: 0.001, steps: 1500, gravity: 9.81}
  resolver: {operator: gr, restitution: 0.0}
run: {checkpoint_every: 0, progress_seconds: 1000}
output: {frame_every: 0}
)"));
  const auto ke = kinema::test::csvColumn(dir + "/out", "kinetic_energy");
  EXPECT_LT(ke.back(), 1e-3);  // inelastic: both at rest, stacked
  const auto pe = kinema::test::csvColumn(dir + "/out", "potential_energy");
  EXPECT_NEAR(pe.back(), 9.81 * (1.0 + 3.0), 0.05);  // centres at 1 and 3
}

// Limits before any work (framework/run/limits.hpp): a pile far larger than the memory limit is
// refused with the estimate, and nothing is written.
TEST(ImpactModule, AScenePastTheMemoryLimitIsRefusedBeforeAnythingIsWritten) {
  const std::string dir = test::scratchDir("impact_limits");
  const std::string path = dir + "/scene.yaml";
  std::ofstream(path) << "module: impact\nimpact:\n  scene: {type: pile, dimension: 3, count: 2000000, radius: 0.05, width: 4}\n"
                         "  sim: {steps: 2}\nrun: {max_memory: 1GiB}\n";
  run::SceneOptions o;
  o.path = path;
  o.output = dir + "/out";
  o.overwrite = true;
  try {
    run::runScene(o);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("2e+06 bodies (pile)"), std::string::npos) << m;
    EXPECT_NE(m.find("run.max_memory"), std::string::npos) << m;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

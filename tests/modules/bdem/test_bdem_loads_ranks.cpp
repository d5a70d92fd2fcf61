// Loads, supports and probes at 1, 2 and 3 ranks (docs/modules/bdem.md, "Loads, supports and
// probes"): the probes' columns of a distributed run (petsc) equal those of the serial eigen run
// (Comm::self, same process) to round-off, for a generator scene with a fixed and a displacement
// support and a point force, and for a particle file with two materials, a traction and gravity.
// Oracle besides: the reactions of the supports balance the loads (static equilibrium).
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>
#include <string>

#include "framework/core/comm.hpp"
#include "framework/la/backend.hpp"
#include "framework/run/scene.hpp"
#include "modules/bdem/bdem_module.hpp"
#include "scene_test_util.hpp"
#include "test_util.hpp"

using namespace kinema;

namespace {

const char* kPull = R"(module: bdem
backend: eigen
bdem:
  integrator: implicit
  dt: 1.0
  steps: 3
  tolerance: 1.0e-10
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
  loads:
    push: {set: middle, force: [0, 0.01, 0]}
  probes: [left, right, middle]
run: {progress_seconds: 1000}
output: {frame_every: 3}
)";

// The probes' columns of the last step of a serial eigen run of `scene`.
std::map<std::string, double> serialProbes(const std::string& scene) {
  run::SceneOptions o;
  o.path = scene;
  ParamSchema schema;
  const Config config = run::loadScene(o, schema);
  la::BackendPtr backend = la::createBackend("eigen");
  run::RunContext ctx{config, *backend, Comm::self(), "."};
  bdem::BdemModule m;
  m.setup(ctx);
  std::map<std::string, double> out;
  for (long k = 0; k < m.totalSteps(); ++k) {
    io::Diagnostics::Row row;
    m.step(ctx, row);
    for (const auto& [name, v] : row)
      if (name.rfind("probe_", 0) == 0) out[name] = v;
  }
  return out;
}

void compare(const std::string& name, const std::string& body, const std::vector<std::string>& sets,
             double forceScale) {
  const std::string dir = test::scratchDir("bdem_loads_ranks_" + name);
  const std::string scene = test::writeScene(dir, body);
  const auto ref = serialProbes(scene);
  ASSERT_FALSE(ref.empty());
  std::vector<std::string> s = sets;
  s.push_back("backend.name=petsc");
  test::runIn(dir + "/run", scene, s);
  double worstX = 0, worstF = 0;
  for (const auto& [column, v] : ref) {
    const double got = test::csvColumn(dir + "/run", column).back();
    const bool force = column.find("_f") != std::string::npos;
    (force ? worstF : worstX) = std::max(force ? worstF : worstX, std::abs(got - v));
  }
  if (Comm::world().isRoot())
    std::cout << "[bdem loads ranks] " << name << " at " << Comm::world().size()
              << " ranks: max |probe - serial|: positions / velocities " << worstX << ", forces " << worstF << " N\n";
  EXPECT_LE(worstX, 1e-12) << name;
  EXPECT_LE(worstF, 1e-9 * forceScale) << name;
}

TEST(BdemLoadsRanks, SupportsAndPointForceMatchTheSerialRun) {
  compare("pull", kPull, {}, 0.4);
  // Static equilibrium at the final (held) state: the reactions balance the push.
  const std::string r = "scratch/bdem_loads_ranks_pull_np" + std::to_string(Comm::world().size()) + "/run";
  for (const char* c : {"x", "y", "z"}) {
    const double sum = test::csvColumn(r, std::string("probe_left_f") + c).back() +
                       test::csvColumn(r, std::string("probe_right_f") + c).back() +
                       test::csvColumn(r, std::string("probe_middle_f") + c).back();
    EXPECT_NEAR(sum, 0.0, 1e-6) << c;
  }
}

TEST(BdemLoadsRanks, ParticleFileWithTractionMatchesTheSerialRun) {
  const std::string path = std::string(KINEMA_SOURCE_DIR) + "/modules/bdem/scenes/particles/column.csv";
  const std::string body = std::string(R"(module: bdem
backend: eigen
bdem:
  integrator: implicit
  dt: 5.0e-3
  steps: 6
  tolerance: 1.0e-10
  scene:
    generator: file
    file: {path: )") + path + R"(, materials: [{E: 1.0e7}]}
    material: {E: 1.0e6, density: 1000}
  sets:
    base: {face: z_min}
    top: {face: z_max}
  supports:
    hold: {set: base, fixed: true}
  loads:
    press: {set: top, traction: [0, 0, -2000]}
  probes: [top, base]
run: {progress_seconds: 1000}
output: {frame_every: 6}
)";
  compare("column", body, {}, 2.0);
}

}  // namespace

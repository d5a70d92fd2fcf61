// The bdem module through the runner at 1, 2 and 3 ranks (README decision 43: T-B1 / T-B2, and the
// restart contract of framework/run): a small beam pulled to failure (beam_stretch generator).
//  - Before the first bond breaks, the positions of every frame equal those of a serial run of the
//    same module in this process (Comm::self, eigen backend) to 1e-8 L with tight Newton
//    tolerances, on every backend that can run at this rank count (eigen at 1 rank only).
//  - After fracture, bond-break count within 10% and fragment count within 15% of the serial run.
//  - A restart from a checkpoint reproduces the uninterrupted run bitwise at the same rank count,
//    and a checkpoint written at this rank count continues in the serial module (another rank count).
//  - Bad scene keys and values are InputErrors naming the key.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <iostream>

#include "framework/core/error.hpp"
#include "framework/io/checkpoint.hpp"
#include "framework/io/hdf5_file.hpp"
#include "framework/la/backend.hpp"
#include "framework/run/runner.hpp"
#include "framework/run/scene.hpp"
#include "modules/bdem/bdem_module.hpp"
#include "scene_test_util.hpp"
#include "test_util.hpp"

using namespace kinema;

namespace {

constexpr double kLength = 0.03;
constexpr int kSteps = 12;

const char* kScene = R"(module: bdem
backend: eigen
bdem:
  integrator: implicit
  dt: 2.0e-4
  steps: 12
  tolerance: 1.0e-9
  newton: {forcing: quadratic, forcing_min: 1.0e-12}
  scene:
    generator: beam_stretch
    material: {E: 1.0e7, sigma_c: 3.0e4, tau_c: 3.0e4}
    beam_stretch: {length: 0.03, height: 0.01, width: 0.01, radius: 0.00125, grip_length: 0.004, speed: 0.05}
run: {checkpoint_every: 4, checkpoint_keep: 3, progress_seconds: 1000}
output: {frame_every: 1}
)";

struct Trajectory {
  std::vector<std::vector<double>> x;  // per step, 3 N positions in global order
  std::vector<double> broken, fragments;
};

// The module driven directly on Comm::self with the eigen backend (the serial reference), from
// t = 0 or from a checkpoint.
Trajectory serialRun(const std::string& scene, const std::string& checkpoint = "") {
  run::SceneOptions o;
  o.path = scene;
  ParamSchema schema;
  const Config config = run::loadScene(o, schema);
  la::BackendPtr backend = la::createBackend("eigen");
  run::RunContext ctx{config, *backend, Comm::self(), "."};
  bdem::BdemModule m;
  m.setup(ctx);
  long first = 0;
  if (!checkpoint.empty()) {
    io::CheckpointReader in(checkpoint, Comm::self());
    first = in.readInt("runner_step");
    m.loadCheckpoint(ctx, in);
  }
  Trajectory t;
  for (long k = first; k < m.totalSteps(); ++k) {
    io::Diagnostics::Row row;
    m.step(ctx, row);
    std::vector<double> x;
    for (const bdem::Vec3& p : m.system().P.p) x.insert(x.end(), {p[0], p[1], p[2]});
    t.x.push_back(std::move(x));
    for (const auto& [name, v] : row) {
      if (name == "bonds_broken") t.broken.push_back(v);
      if (name == "fragments") t.fragments.push_back(v);
    }
  }
  return t;
}

using test::framePositions;
using test::maxDiff;

const Trajectory& reference(const std::string& scene) {
  static Trajectory ref = serialRun(scene);
  return ref;
}

void checkBackend(const std::string& backend) {
  Comm world = Comm::world();
  const std::string dir = test::scratchDir("bdem_module_" + backend);
  const std::string scene = test::writeScene(dir, kScene);
  const Trajectory& ref = reference(scene);
  ASSERT_EQ(static_cast<int>(ref.x.size()), kSteps);
  // The scene must break bonds within the run but not at once (else the test says nothing).
  ASSERT_EQ(ref.broken.front(), 0.0);
  ASSERT_GT(ref.broken.back(), 0.0);

  // Uninterrupted run at this rank count, with a fresh Hessian pattern and preconditioner set-up
  // at every step and Newton iteration (bdem.fresh_pattern true, reuse_preconditioner none).
  const std::vector<std::string> fresh = {"backend.name=" + backend, "bdem.fresh_pattern=true",
                                          "bdem.newton.linear.reuse_preconditioner=none"};
  const std::string a = dir + "/a";
  test::runIn(a, scene, fresh);
  const auto frames = framePositions(a);
  ASSERT_EQ(static_cast<int>(frames.size()), kSteps + 1);  // frame 0: the rest state
  double pre = 0;
  int preSteps = 0;
  for (int k = 0; k < kSteps && ref.broken[k] == 0.0; ++k, ++preSteps)
    pre = std::max(pre, maxDiff(frames[k + 1], ref.x[k]));
  ASSERT_GE(preSteps, 3);
  EXPECT_LE(pre, 1e-8 * kLength) << backend << ": trajectory differs from the serial one before fracture";
  const auto broken = test::csvColumn(a, "bonds_broken");
  const auto fragments = test::csvColumn(a, "fragments");
  ASSERT_EQ(static_cast<int>(broken.size()), kSteps);
  EXPECT_LE(std::abs(broken.back() - ref.broken.back()), 0.10 * ref.broken.back()) << backend;
  EXPECT_LE(std::abs(fragments.back() - ref.fragments.back()), 0.15 * ref.fragments.back()) << backend;
  if (world.isRoot())
    std::cout << "[bdem ranks] " << backend << " at " << world.size() << " ranks: max |x - x_serial| over "
              << preSteps << " pre-fracture steps = " << pre << " m (" << pre / kLength
              << " L); bonds broken " << broken.back() << " vs " << ref.broken.back() << ", fragments "
              << fragments.back() << " vs " << ref.fragments.back() << "\n";

  // Restart from the step-4 checkpoint (before fracture; the rest of the run breaks bonds):
  // bitwise the uninterrupted run at the same rank count.
  const std::string r = dir + "/r";
  if (world.isRoot()) std::filesystem::copy(a, r, std::filesystem::copy_options::recursive);
  world.barrier();
  test::runIn(r, scene, fresh, r + "/checkpoints/checkpoint_000004.h5");
  const auto restarted = framePositions(r);
  ASSERT_EQ(restarted.size(), frames.size());
  // bdem.fresh_pattern true makes this hold on trilinos at several ranks too.
  EXPECT_EQ(std::memcmp(restarted.back().data(), frames.back().data(), frames.back().size() * sizeof(double)), 0)
      << backend << ": restart does not reproduce the uninterrupted run";
  EXPECT_EQ(test::csvColumn(r, "bonds_broken"), broken);

  // The same with the defaults, the pattern and the preconditioner kept across steps
  // (bdem.fresh_pattern false, reuse_preconditioner full, set up again when a solve takes twice the
  // iterations): renewed at the first step after each checkpoint, as the restarted run builds them
  // there, so the restart is bitwise too (README decision 12).
  const std::vector<std::string> kept = {"backend.name=" + backend};
  const std::string ka = dir + "/kept_a", kr = dir + "/kept_r";
  test::runIn(ka, scene, kept);
  if (world.isRoot()) std::filesystem::copy(ka, kr, std::filesystem::copy_options::recursive);
  world.barrier();
  test::runIn(kr, scene, kept, kr + "/checkpoints/checkpoint_000004.h5");
  const auto keptFrames = framePositions(ka), keptRestarted = framePositions(kr);
  ASSERT_EQ(keptFrames.size(), frames.size());
  ASSERT_EQ(keptRestarted.size(), keptFrames.size());
  EXPECT_EQ(std::memcmp(keptRestarted.back().data(), keptFrames.back().data(),
                        keptFrames.back().size() * sizeof(double)),
            0)
      << backend << ": with the pattern kept, the restart does not reproduce the uninterrupted run";
  EXPECT_EQ(test::csvColumn(kr, "bonds_broken"), test::csvColumn(ka, "bonds_broken"));

  // The checkpoint written at this rank count, continued by the serial module.
  const Trajectory cont = serialRun(scene, a + "/checkpoints/checkpoint_000004.h5");
  ASSERT_EQ(static_cast<int>(cont.x.size()), kSteps - 4);
  if (ref.broken[4] == 0.0) {
    EXPECT_LE(maxDiff(cont.x[0], ref.x[4]), 1e-8 * kLength) << backend << ": restart at another rank count";
  }
  EXPECT_LE(std::abs(cont.broken.back() - ref.broken.back()), 0.10 * ref.broken.back()) << backend;
}

}  // namespace

TEST(BdemModuleRanks, EigenAtOneRank) {
  if (Comm::world().size() > 1) GTEST_SKIP() << "eigen is a single-rank backend";
  checkBackend("eigen");
}

TEST(BdemModuleRanks, Petsc) { checkBackend("petsc"); }

TEST(BdemModuleRanks, Trilinos) { checkBackend("trilinos"); }

TEST(BdemModuleRanks, BadInputIsAnInputError) {
  const std::string dir = test::scratchDir("bdem_module_bad");
  const std::string scene = test::writeScene(dir, kScene);
  const std::string backend = Comm::world().size() > 1 ? "backend.name=petsc" : "backend.name=eigen";
  std::string msg = test::messageOf<InputError>(
      [&] { test::runIn(dir + "/o", scene, {"bdem.scene.beam_stretch.lenght=0.1", backend}); });
  EXPECT_NE(msg.find("bdem.scene.beam_stretch.lenght"), std::string::npos) << msg;
  msg = test::messageOf<InputError>([&] { test::runIn(dir + "/o", scene, {"bdem.dt=-1", backend}); });
  EXPECT_NE(msg.find("bdem.dt"), std::string::npos) << msg;
  msg = test::messageOf<InputError>([&] { test::runIn(dir + "/o", scene, {"bdem.model.shear_form=halfway", backend}); });
  EXPECT_NE(msg.find("consistent"), std::string::npos) << msg;
  msg = test::messageOf<InputError>([&] { test::runIn(dir + "/o", scene, {"bdem.steps=0", backend}); });
  EXPECT_NE(msg.find("bdem.end_time"), std::string::npos) << msg;
  msg = test::messageOf<InputError>(
      [&] { test::runIn(dir + "/o", scene, {"bdem.scene.beam_stretch.radius=0.5", backend}); });
  EXPECT_NE(msg.find("radius"), std::string::npos) << msg;
  if (Comm::world().size() > 1) {
    msg = test::messageOf<InputError>([&] { test::runIn(dir + "/o", scene); });
    EXPECT_NE(msg.find("distributed backend"), std::string::npos) << msg;
  }
}

// A Newton solve that hits its cap (allow_unconverged false) stops the run with an Error naming
// the step, after the runner has recorded the failure in status.yaml.
TEST(BdemModuleRanks, UnconvergedStepIsAnError) {
  const std::string dir = test::scratchDir("bdem_module_fail");
  const std::string scene = test::writeScene(dir, kScene);
  const std::string backend = Comm::world().size() > 1 ? "backend.name=petsc" : "backend.name=eigen";
  const std::string msg = test::messageOf<Error>(
      [&] { test::runIn(dir + "/o", scene, {"bdem.newton.max_iterations=2", backend}); });
  EXPECT_NE(msg.find("did not converge"), std::string::npos) << msg;
  EXPECT_NE(msg.find("step 1"), std::string::npos) << msg;
  std::ifstream status(dir + "/o/status.yaml");
  std::stringstream text;
  text << status.rdbuf();
  EXPECT_NE(text.str().find("failed"), std::string::npos) << text.str();
}

// Limits checked before any work (issue 20 item 5, docs/reliability.md "Limits"): a scene whose
// estimated memory exceeds run.max_memory (default: the machine's available memory) or whose
// lower bound of wall time exceeds run.max_wall is refused by the kinema binary with exit status 2,
// a message stating the estimate and the limit, in about the time of start-up, and without
// creating its output directory, at 1 and 2 ranks; so is a scene with more ranks than it can use.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "apps/kinema_cli.hpp"
#include "framework/run/limits.hpp"
#include "framework/run/module.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using namespace kinema;
using namespace kinema_cli;

namespace {

std::string launcher(int np) { return np > 1 ? mpiexec(np) : ""; }

struct Timed {
  Result r;
  double seconds;
};

// `kinema run SCENE ARGS --output DIR/out` at `np` ranks.
Timed run(int np, const std::string& dir, const std::string& scene, const std::string& args) {
  const auto t0 = std::chrono::steady_clock::now();
  Result r = runCmd(launcher(np) + kinemaBin() + " run " + scene + " " + args + " --output " + dir + "/out",
                    dir + "/run.log");
  return {r, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
}

// Refused with exit status 2 and `text` in the output, in under `seconds`, nothing written.
void expectRefused(int np, const std::string& name, const std::string& scene, const std::string& args,
                   const std::vector<std::string>& texts, double seconds = 20) {
  const std::string dir = test::scratchDir("limits_" + name + "_" + std::to_string(np));
  const Timed t = run(np, dir, scene, args);
  EXPECT_EQ(t.r.status, 2) << t.r.output;
  for (const auto& text : texts) EXPECT_TRUE(has(t.r.output, text)) << "missing '" << text << "' in\n" << t.r.output;
  EXPECT_FALSE(fs::exists(dir + "/out")) << "the refused run created its output directory";
  EXPECT_LT(t.seconds, seconds) << t.r.output;
}

std::string source(const std::string& path) { return std::string(KINEMA_SOURCE_DIR) + "/" + path; }

std::string poisson(const std::string& dir, int n, int levels = 1) {
  return writeScene(dir, "poisson.yaml",
                    "module: poisson\nbackend: petsc\npoisson: {n: " + std::to_string(n) +
                        ", levels: " + std::to_string(levels) + "}\n");
}

}  // namespace

TEST(Limits, BytesWithUnits) {
  EXPECT_EQ(run::parseBytes("2e9"), 2e9);
  EXPECT_EQ(run::parseBytes("500MB"), 500e6);
  EXPECT_EQ(run::parseBytes("500 MB"), 500e6);
  EXPECT_EQ(run::parseBytes("64GiB"), 64.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(run::parseBytes("1.5 Ti"), 1.5 * 1024.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(run::parseBytes("3k"), 3000);
  EXPECT_LT(run::parseBytes("12XB"), 0);
  EXPECT_LT(run::parseBytes("GB"), 0);
  EXPECT_LT(run::parseBytes("-1GB"), 0);
  EXPECT_LT(run::parseBytes(""), 0);
  EXPECT_EQ(run::formatBytes(1.5 * 1024 * 1024 * 1024), "1.5 GiB");
  EXPECT_GT(run::availableMemory(), 0);
}

TEST(Limits, EveryBuiltInModuleHasAnEstimate) {
  // poisson, bdem and avi here; der and impact register theirs in their own modules.
  for (const std::string& m : run::modules().names()) EXPECT_TRUE(run::estimators().has(m)) << m;
  // A module without one is unknown: nothing is checked.
  EXPECT_LT(run::estimateFor("no_such_module", Config::fromString("module: x\n", "x"), 1).bytes, 0);
}

TEST(Limits, MemoryBeyondTheMachineIsRefusedBeforeAnyWork) {
  for (int np : {1, 2}) {
    const std::string dir = test::scratchDir("limits_scene_" + std::to_string(np));
    // poisson.n = 4096: 6.9e10 unknowns, about 32 TiB (it used to die of std::bad_alloc).
    expectRefused(np, "poisson_big", poisson(dir, 4096),
                  "", {"poisson: this scene needs about 32.", "TiB of memory", "6.87e+10 unknowns",
                       "more than the limit of", "MemAvailable", "run.max_memory"});
    // avi cloth_spikes at resolution 400 (it used to run for minutes and take 23 GB).
    expectRefused(np, "avi_cloth", source("modules/avi/scenes/cloth_spikes.yaml"),
                  "--backend petsc --set avi.scene.cloth_spikes.resolution=400",
                  {"avi: this scene needs about", "1.07e+06 cloth vertices"});
    // bdem beam of 5e8 particles.
    expectRefused(np, "bdem_big", source("modules/bdem/scenes/cantilever.yaml"),
                  "--backend petsc --set bdem.scene.cantilever.radius=0.00001",
                  {"bdem: this scene needs about", "TiB of memory", "particles"});
  }
}

TEST(Limits, MaxMemoryAndMaxWallSettings) {
  const std::string dir = test::scratchDir("limits_settings");
  const std::string small = poisson(dir, 32);
  expectRefused(1, "max_memory", small, "--set run.max_memory=50MB",
                {"--set run.max_memory=50MB: poisson: this scene needs about", "more than the limit of 47.7 MiB (run.max_memory)"});
  expectRefused(1, "max_memory_bad", small, "--set run.max_memory=12XB",
                {"run.max_memory: '12XB' is not a memory size"});
  // bdem single_bond with 1e8 substeps per step: at least 8000 s, beyond a one-hour limit.
  expectRefused(1, "bdem_substeps", source("modules/bdem/scenes/single_bond.yaml"),
                "--set bdem.substeps=100000000 --set run.max_wall=3600",
                {"--set run.max_wall=3600: bdem: this scene needs at least", "of wall time", "4000000000 time steps",
                 "more than run.max_wall = 3.6e+03 s"});
  expectRefused(1, "bdem_steps", source("modules/bdem/scenes/cantilever.yaml"),
                "--set bdem.steps=1000000000000 --set run.max_wall=86400", {"days) of wall time"});
  // Within the limits the same scene runs; none lifts the memory limit.
  const std::string out = dir + "/ok";
  Result ok = runCmd(kinemaBin() + " run " + small + " --backend eigen --set run.max_memory=4GiB --set run.max_wall=600 --output " + out,
                     dir + "/ok.log");
  EXPECT_EQ(ok.status, 0) << ok.output;
  Result none = runCmd(kinemaBin() + " check " + small + " --backend eigen --set run.max_memory=none", dir + "/none.log");
  EXPECT_EQ(none.status, 0) << none.output;
}

TEST(Limits, MoreRanksThanTheSceneCanUseIsRefusedBeforeAnyWork) {
  // poisson.n = 2 and 3 have 1 and 2 interior planes: too few for 2 and 3 ranks.
  for (int np : {2, 3}) {
    const std::string dir = test::scratchDir("limits_ranks_" + std::to_string(np));
    expectRefused(np, "poisson_ranks", poisson(dir, np), "",
                  {"interior grid planes, fewer than the " + std::to_string(np) + " ranks of this run"});
  }
}

// Every scene shipped in modules/der/scenes runs (with 2 frames of simulation) and reaches what
// its comment promises: the optimised strands are in static equilibrium, except for the baselines.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "framework/run/runner.hpp"
#include "modules/der/der_module.hpp"
#include "test_util.hpp"

using namespace kinema;

namespace {

std::string sceneDir() { return std::string(KINEMA_SOURCE_DIR) + "/modules/der/scenes"; }

// The last value of a column of diagnostics.csv.
double lastValue(const std::string& dir, const std::string& column) {
  std::ifstream in(dir + "/diagnostics.csv");
  std::string header, line, last;
  std::getline(in, header);
  while (std::getline(in, line)) last = line;
  std::stringstream h(header), v(last);
  for (std::string name, value; std::getline(h, name, ',') && std::getline(v, value, ',');)
    if (name == column) return std::stod(value);
  ADD_FAILURE() << column << " not in " << header;
  return 0.0;
}

}  // namespace

TEST(DerScenes, EveryShippedSceneRunsAndReachesEquilibrium) {
  const std::string dir = test::scratchDir("der_scenes");
  int scenes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(sceneDir())) {
    if (entry.path().extension() != ".yaml") continue;
    ++scenes;
    const std::string name = entry.path().stem().string();
    run::SceneOptions o;
    o.path = entry.path().string();
    o.output = dir + "/" + name;
    o.overwrite = true;
    o.sets = {"der.simulate.frames=2"};
    const run::RunResult r = run::runScene(o);
    EXPECT_GT(r.stepsCompleted, 2) << name;
    EXPECT_LE(lastValue(o.output.value(), "residual_max"), 1e-6) << name;
    EXPECT_EQ(lastValue(o.output.value(), "frame"), 2.0) << name;
    EXPECT_TRUE(std::filesystem::exists(o.output.value() + "/strands.h5")) << name;
  }
  EXPECT_GE(scenes, 4);
}

// The optimisation's progress line (issue 16): k_max is only a cap, so the ETA counts the bound
// only until strands converge, then the rate at which they do, in steps of the mean cost so far.
TEST(DerScenes, OptimisationEtaFollowsTheStrandsThatConverge) {
  der::OptimisationProgress p;
  p.strands = 1000;
  p.kMax = 300;
  // Step 1: nothing converged; the bound, every strand to k_max (299 steps like the first).
  p.running = p.runningBefore = 1000;
  p.work = 1000;
  p.steps = p.iteration = 1;
  ProgressHint h = der::optimisationHint(p);
  EXPECT_EQ(h.stepsLeft, 299);
  EXPECT_TRUE(h.upperBound);
  EXPECT_NE(h.note.find("0/1000 strands converged"), std::string::npos) << h.note;
  // Step 5: 600 converged in the last step; 400 / (1 - 0.4) = 667 strand iterations are left, less
  // than one step of the 1000 strand iterations a step took so far: an estimate, not a bound.
  p.running = 400;
  p.runningBefore = 1000;
  p.work = 5000;
  p.steps = p.iteration = 5;
  h = der::optimisationHint(p);
  EXPECT_EQ(h.stepsLeft, 1);
  EXPECT_FALSE(h.upperBound);
  EXPECT_NE(h.note.find("600/1000 strands converged; ETA from their rate"), std::string::npos) << h.note;
  // Forward frames follow at a step each.
  p.frames = 10;
  EXPECT_EQ(der::optimisationHint(p).stepsLeft, 11);
  // A step that converged none: the bound again, 400 strands x 294 iterations in steps of 900.
  p.frames = 0;
  p.runningBefore = 400;
  p.work = 5400;
  p.steps = p.iteration = 6;
  h = der::optimisationHint(p);
  EXPECT_EQ(h.stepsLeft, 131);
  EXPECT_TRUE(h.upperBound);
  // The estimate never exceeds the bound: 999 of 1000 running, 2 iterations left.
  p.running = 999;
  p.runningBefore = 1000;
  p.iteration = 298;
  p.work = 1000;
  p.steps = 1;
  EXPECT_EQ(der::optimisationHint(p).stepsLeft, 2);
  // All converged: nothing left.
  p.running = 0;
  EXPECT_EQ(der::optimisationHint(p).stepsLeft, 0);
}

// Limits before any work (framework/run/limits.hpp): a wisps scene far past the memory limit is
// refused with the estimate, and nothing is written.
TEST(DerScenes, AScenePastTheMemoryLimitIsRefusedBeforeAnythingIsWritten) {
  const std::string dir = test::scratchDir("der_limits");
  const std::string path = dir + "/scene.yaml";
  std::ofstream(path) << "module: der\nder:\n  strands: {source: wisps, count: 1000000, vertices: 100}\n"
                         "run: {max_memory: 2GiB}\n";
  run::SceneOptions o;
  o.path = path;
  o.output = dir + "/out";
  o.overwrite = true;
  try {
    run::runScene(o);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("1e+06 strands of 100 vertices"), std::string::npos) << m;
    EXPECT_NE(m.find("run.max_memory"), std::string::npos) << m;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

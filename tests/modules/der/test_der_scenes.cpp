// Every scene shipped in modules/der/scenes runs (with 2 frames of simulation) and reaches what
// its comment promises: the optimised strands are in static equilibrium, except for the baselines.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "framework/run/runner.hpp"
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

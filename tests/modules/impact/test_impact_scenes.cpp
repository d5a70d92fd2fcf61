// Every scene shipped in modules/impact/scenes runs through the runner with a few steps and shows
// what its comment promises at that length (docs/modules/impact.md, "Scenes"): the cradle and the
// pool break keep their energy and resolve their first impact in the promised iterations, the
// wedge takes ~π/θ Gauss-Seidel iterations, the geyser and the jammed box (anti_locking off) report
// cycles / caps and are resolved by Algorithm 2, the pile falls with no failed island.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "framework/run/runner.hpp"
#include "test_util.hpp"

using namespace kinema;

namespace {

std::string sceneDir() { return std::string(KINEMA_SOURCE_DIR) + "/modules/impact/scenes"; }

// diagnostics.csv as one map column -> value per row.
using Rows = std::vector<std::map<std::string, double>>;

Rows readDiagnostics(const std::string& dir) {
  std::ifstream in(dir + "/diagnostics.csv");
  std::string header, line;
  std::getline(in, header);
  std::vector<std::string> names;
  {
    std::stringstream h(header);
    for (std::string name; std::getline(h, name, ',');) names.push_back(name);
  }
  Rows rows;
  while (std::getline(in, line)) {
    std::stringstream v(line);
    std::map<std::string, double> row;
    std::size_t k = 0;
    for (std::string value; std::getline(v, value, ',') && k < names.size(); ++k) row[names[k]] = std::stod(value);
    rows.push_back(row);
  }
  return rows;
}

double column(const std::map<std::string, double>& row, const std::string& name) {
  const auto it = row.find(name);
  if (it == row.end()) {
    ADD_FAILURE() << "no column " << name;
    return std::nan("");
  }
  return it->second;
}

double sum(const Rows& rows, const std::string& name) {
  double s = 0.0;
  for (const auto& r : rows) s += column(r, name);
  return s;
}

double maximum(const Rows& rows, const std::string& name) {
  double m = -INFINITY;
  for (const auto& r : rows) m = std::max(m, column(r, name));
  return m;
}

// Runs scene `name` with `steps` steps (and extra --set overrides); returns its diagnostics.
Rows runImpactScene(const std::string& name, long steps, const std::vector<std::string>& extra = {},
                    const std::string& tag = "") {
  static const std::string dir = test::scratchDir("impact_scenes");
  run::SceneOptions o;
  o.path = sceneDir() + "/" + name + ".yaml";
  o.output = dir + "/" + name + tag;
  o.overwrite = true;
  o.sets = {"impact.sim.steps=" + std::to_string(steps), "run.checkpoint_every=0", "output.frame_every=0"};
  o.sets.insert(o.sets.end(), extra.begin(), extra.end());
  const run::RunResult r = run::runScene(o);
  EXPECT_EQ(r.stepsCompleted, steps) << name << tag;
  EXPECT_TRUE(std::filesystem::exists(o.output.value() + "/frames.xdmf")) << name << tag;
  const Rows rows = readDiagnostics(o.output.value());
  EXPECT_EQ(static_cast<long>(rows.size()), steps) << name << tag;
  return rows;
}

}  // namespace

TEST(ImpactScenes, EverySceneIsCovered) {
  const std::set<std::string> covered = {"cradle", "pool_break", "wedge", "geyser", "jammed_box", "pile"};
  int scenes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(sceneDir())) {
    if (entry.path().extension() != ".yaml") continue;
    ++scenes;
    EXPECT_TRUE(covered.count(entry.path().stem().string())) << entry.path() << " has no test here";
  }
  EXPECT_EQ(scenes, 6);
}

// Step 1: one island of 4 contacts, 4 iterations (test A1); energy 0.5 and momentum 1 kept.
TEST(ImpactScenes, CradleConservesEnergyAndMomentum) {
  for (const std::string op : {"gs-lexicographic", "gr"}) {
    const Rows rows = runImpactScene("cradle", 5, {"impact.resolver.operator=" + op}, "_" + op);
    ASSERT_EQ(rows.size(), 5u);
    EXPECT_EQ(column(rows[0], "largest_island"), 4.0) << op;
    EXPECT_EQ(column(rows[0], "iterations_max"), 4.0) << op;
    for (const auto& r : rows) {
      EXPECT_NEAR(column(r, "kinetic_energy"), 0.5, 1e-13) << op;
      EXPECT_NEAR(column(r, "momentum_x"), 1.0, 1e-13) << op;
    }
    EXPECT_EQ(sum(rows, "caps") + sum(rows, "cycles") + sum(rows, "not_converged"), 0.0) << op;
  }
}

// The first impact is at step 92: the whole rack, 31 contacts, 6 GR iterations; energy 12.5 kept.
TEST(ImpactScenes, PoolBreakResolvesTheRackAtOnce) {
  const Rows rows = runImpactScene("pool_break", 95);
  ASSERT_EQ(rows.size(), 95u);
  for (int k = 0; k < 91; ++k) EXPECT_EQ(column(rows[k], "iterations_max"), 0.0) << "step " << k + 1;
  EXPECT_EQ(column(rows[91], "largest_island"), 31.0);
  EXPECT_EQ(column(rows[91], "iterations_max"), 6.0);
  for (const auto& r : rows) EXPECT_NEAR(column(r, "kinetic_energy"), 12.5, 1e-11);
  EXPECT_EQ(sum(rows, "caps") + sum(rows, "cycles") + sum(rows, "not_converged"), 0.0);
}

// Gauss-Seidel needs 18 iterations at 10 degrees (test A6), 180 at 1 degree; GR 1 (A9).
TEST(ImpactScenes, WedgeTakesPiOverThetaIterations) {
  EXPECT_EQ(column(runImpactScene("wedge", 3)[0], "iterations_max"), 18.0);
  EXPECT_EQ(column(runImpactScene("wedge", 3, {"impact.scene.angle_degrees=1"}, "_1deg")[0], "iterations_max"), 180.0);
  EXPECT_EQ(column(runImpactScene("wedge", 3, {"impact.resolver.operator=gr"}, "_gr")[0], "iterations_max"), 1.0);
}

// anti_locking off: the jammed plug cycles at the first impact (stop_on_cycle) or runs to the cap;
// Algorithm 2 resolves it; with the right wall moved out GS ends in 4 iterations.
TEST(ImpactScenes, GeyserLocksWithoutAntiLocking) {
  const Rows off = runImpactScene("geyser", 3);
  EXPECT_EQ(column(off[0], "cycles"), 1.0);
  EXPECT_EQ(column(off[0], "not_converged"), 1.0);
  for (const auto& r : off) EXPECT_NEAR(column(r, "kinetic_energy"), 0.5, 1e-12);

  const Rows cap = runImpactScene("geyser", 1, {"impact.resolver.stop_on_cycle=false"}, "_cap");
  EXPECT_EQ(column(cap[0], "caps"), 1.0);
  EXPECT_EQ(column(cap[0], "iterations_max"), 2000.0);

  for (const std::string mode : {"eager", "lazy"}) {
    const Rows al = runImpactScene("geyser", 3, {"impact.resolver.anti_locking=" + mode}, "_" + mode);
    EXPECT_GT(column(al[0], "iterations_max"), 0.0) << mode;
    EXPECT_EQ(sum(al, "cycles") + sum(al, "caps") + sum(al, "not_converged"), 0.0) << mode;
    EXPECT_LE(maximum(al, "kinetic_energy"), 0.5 + 1e-12) << mode;
  }

  const Rows gap = runImpactScene("geyser", 2, {"impact.scene.gap=0.001", "impact.sim.dt=0.0005"}, "_gap");
  EXPECT_EQ(column(gap[0], "iterations_max"), 4.0);
  EXPECT_EQ(sum(gap, "cycles") + sum(gap, "caps") + sum(gap, "not_converged"), 0.0);
}

// anti_locking off: every step's resolution ends at a cycle or the cap, energy 7.29 kept;
// Algorithm 2 (eager or lazy) finds the whole lineality space and stops the block at step 1.
TEST(ImpactScenes, JammedBoxNeverTerminatesWithoutAntiLocking) {
  const Rows off = runImpactScene("jammed_box", 3);
  const double e0 = column(off[0], "kinetic_energy");
  EXPECT_NEAR(e0, 7.29085, 1e-5);
  for (const auto& r : off) {
    EXPECT_GE(column(r, "cycles") + column(r, "caps"), 1.0);
    EXPECT_GE(column(r, "not_converged"), 1.0);
    EXPECT_NEAR(column(r, "kinetic_energy"), e0, 1e-12 * e0);
    EXPECT_EQ(column(r, "lineality_detections"), 0.0);
  }
  for (const std::string mode : {"eager", "lazy"}) {
    const Rows al = runImpactScene("jammed_box", 2, {"impact.resolver.anti_locking=" + mode}, "_" + mode);
    EXPECT_EQ(column(al[0], "contacts"), 24.0) << mode;
    EXPECT_LE(column(al[0], "kinetic_energy"), 1e-20) << mode;
    // Step 1: the one island's 24 constraints are all implicit equalities and are removed.
    EXPECT_EQ(column(al[0], "lineality_detections"), 1.0) << mode;
    EXPECT_EQ(column(al[0], "constraints_removed"), 24.0) << mode;
    EXPECT_EQ(sum(al, "cycles") + sum(al, "caps") + sum(al, "not_converged"), 0.0) << mode;
  }
}

// The first 30 ms of the fall: energy rises, the lowest layer reaches the floor; no island fails.
TEST(ImpactScenes, PileFallsWithoutFailedIslands) {
  const Rows rows = runImpactScene("pile", 30);
  EXPECT_GT(column(rows.back(), "kinetic_energy"), 10.0 * column(rows.front(), "kinetic_energy"));
  EXPECT_GT(maximum(rows, "contacts"), 100.0);
  EXPECT_EQ(sum(rows, "caps"), 0.0);
  EXPECT_EQ(sum(rows, "not_converged"), 0.0);
  EXPECT_EQ(sum(rows, "qp_not_converged"), 0.0);
  EXPECT_LE(maximum(rows, "max_penetration"), 0.1 * 0.005);
  // Gravity only lowers the total energy; impacts with c_r = 0.2 dissipate.
  EXPECT_LE(column(rows.back(), "total_energy"), column(rows.front(), "total_energy") + 1e-9);
}

// The poisson module end to end through the runner: second-order convergence, agreement of every
// solver, the output files, restart after a failure.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "framework/core/error.hpp"
#include "framework/io/hdf5_file.hpp"
#include "framework/run/runner.hpp"
#include "test_util.hpp"

using namespace kinema;
namespace fs = std::filesystem;

namespace {

// Writes a scene file and returns options that run it into `dir`/out.
run::SceneOptions scene(const std::string& dir, const std::string& body) {
  std::string path = dir + "/scene.yaml";
  if (Comm::world().isRoot()) std::ofstream(path) << "module: poisson\nbackend: eigen\n" << body;
  Comm::world().barrier();
  run::SceneOptions o;
  o.path = path;
  o.output = dir + "/out";
  o.sets = {"run.log_level=warn"};
  return o;
}

// Rows of diagnostics.csv as name -> column.
std::map<std::string, std::vector<double>> readCsv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names;
  std::stringstream hs(line);
  for (std::string c; std::getline(hs, c, ',');) names.push_back(c);
  std::map<std::string, std::vector<double>> cols;
  while (std::getline(in, line)) {
    std::stringstream ls(line);
    std::size_t i = 0;
    for (std::string c; std::getline(ls, c, ','); ++i) cols[names.at(i)].push_back(std::stod(c));
  }
  return cols;
}

}  // namespace

TEST(Poisson, DiscretisationErrorIsSecondOrder) {
  auto dir = test::scratchDir("poisson_order");
  run::runScene(scene(dir, "poisson: {n: 8, levels: 3, solver: {type: cg, preconditioner: ic0, rtol: 1e-12}}\n"));
  auto d = readCsv(dir + "/out/diagnostics.csv");
  ASSERT_EQ(d["error_l2"].size(), 3u);
  EXPECT_EQ(d["n"], (std::vector<double>{8, 16, 32}));
  for (std::size_t l = 1; l < 3; ++l) {
    // Halving h divides the error by about 4 (7-point stencil, smooth solution).
    double orderL2 = std::log2(d["error_l2"][l - 1] / d["error_l2"][l]);
    double orderMax = std::log2(d["error_max"][l - 1] / d["error_max"][l]);
    EXPECT_NEAR(orderL2, 2.0, 0.1) << "level " << l;
    EXPECT_NEAR(orderMax, 2.0, 0.15) << "level " << l;
    EXPECT_EQ(d["converged"][l], 1.0);
    EXPECT_LE(d["relative_residual"][l], 1e-12);
  }
}

TEST(Poisson, EverySolverFindsTheSameDiscreteSolution) {
  // The discrete solution does not depend on the solver: its error against the manufactured
  // solution must agree to the solver tolerance.
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"cg", "none"}, {"cg", "jacobi"}, {"cg", "ic0"}, {"cg", "ssor"}, {"cg", "direct"},
      {"minres", "jacobi"}, {"gmres", "jacobi"}, {"gmres", "ic0"}, {"direct", "none"}};
  double reference = -1;
  std::map<std::string, double> iterations;
  for (const auto& [type, pc] : pairs) {
    auto dir = test::scratchDir("poisson_solver_" + type + "_" + pc);
    // (not the sine solution: it is an eigenvector of the discrete Laplacian, so CG takes 1 step)
    run::runScene(scene(dir, "poisson: {n: 10, solver: {type: " + type +
                                 ", preconditioner: " + pc + ", rtol: 1e-12}}\n"));
    auto d = readCsv(dir + "/out/diagnostics.csv");
    ASSERT_EQ(d["converged"][0], 1.0) << type << "+" << pc;
    if (reference < 0) reference = d["error_l2"][0];
    EXPECT_NEAR(d["error_l2"][0], reference, 1e-9 * reference) << type << "+" << pc;
    iterations[type + "+" + pc] = d["iterations"][0];
  }
  // Preconditioning must pay: IC(0) takes fewer CG iterations than none; an exact preconditioner one.
  EXPECT_LT(iterations["cg+ic0"], iterations["cg+none"]);
  EXPECT_LE(iterations["cg+direct"], 2);
}

TEST(Poisson, WritesFramesDiagnosticsConfigAndStatus) {
  auto dir = test::scratchDir("poisson_files");
  run::runScene(scene(dir, "poisson: {n: 6, levels: 2}\n"));
  const std::string out = dir + "/out";
  for (const char* f : {"frames.h5", "frames.xdmf", "diagnostics.csv", "config.resolved.yaml", "status.yaml"})
    EXPECT_TRUE(fs::exists(out + "/" + f)) << f;
  std::ifstream st(out + "/status.yaml");
  std::string status((std::istreambuf_iterator<char>(st)), {});
  EXPECT_NE(status.find("state: \"completed\""), std::string::npos) << status;
  // The diagnostics table is inside the HDF5 file too, one row per level.
  io::H5File h5(out + "/frames.h5", io::H5File::Mode::read, Comm::world());
  EXPECT_EQ(h5.shape("/diagnostics")[0], 2u);
  // The frame of level 2 holds u on the (n-1)^3 interior points of n = 12.
  auto frames = h5.children("/frames");
  ASSERT_EQ(frames.size(), 2u);
  auto shape = h5.shape("/frames/" + frames[1] + "/u");
  EXPECT_EQ(shape, (io::Shape{11, 11, 11}));
  // The resolved config validates and has every default spelled out.
  std::ifstream rc(out + "/config.resolved.yaml");
  std::string resolved((std::istreambuf_iterator<char>(rc)), {});
  EXPECT_NE(resolved.find("max_iterations: 20000"), std::string::npos) << resolved;
}

TEST(Poisson, FailedRunKeepsOutputAndRestartsFromCheckpoint) {
  auto dir = test::scratchDir("poisson_restart");
  auto opts = scene(dir, "poisson: {n: 6, levels: 3}\n");
  opts.sets.push_back("run.fail_at_step=3");
  opts.sets.push_back("run.checkpoint_every=1");  // the default checkpoints by wall time
  try {
    run::runScene(opts);
    FAIL() << "the rehearsed failure did not happen";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("rehearsed failure"), std::string::npos) << m;
    EXPECT_NE(m.find("--restart " + dir + "/out/checkpoints/checkpoint_000002.h5"), std::string::npos) << m;
    EXPECT_NE(m.find("2 frames, 2 diagnostics rows"), std::string::npos) << m;
  }
  std::ifstream st(dir + "/out/status.yaml");
  std::string status((std::istreambuf_iterator<char>(st)), {});
  EXPECT_NE(status.find("state: \"failed\""), std::string::npos) << status;
  EXPECT_EQ(readCsv(dir + "/out/diagnostics.csv")["n"].size(), 2u);

  // Restart: the run continues with level 3 and ends like a run that never failed.
  auto again = scene(dir, "poisson: {n: 6, levels: 3}\n");
  again.restart = dir + "/out/checkpoints/checkpoint_000002.h5";
  auto result = run::runScene(again);
  EXPECT_EQ(result.stepsCompleted, 3);
  auto restarted = readCsv(dir + "/out/diagnostics.csv");

  auto fresh = test::scratchDir("poisson_restart_fresh");
  run::runScene(scene(fresh, "poisson: {n: 6, levels: 3}\n"));
  auto reference = readCsv(fresh + "/out/diagnostics.csv");
  ASSERT_EQ(restarted["n"].size(), 3u);
  for (std::size_t l = 0; l < 3; ++l) EXPECT_DOUBLE_EQ(restarted["error_l2"][l], reference["error_l2"][l]);
  io::H5File h5(dir + "/out/frames.h5", io::H5File::Mode::read, Comm::world());
  EXPECT_EQ(h5.children("/frames").size(), 3u);
}

TEST(Poisson, RestartFromAnotherSceneIsRefused) {
  auto dir = test::scratchDir("poisson_restart_mismatch");
  run::runScene(scene(dir, "poisson: {n: 6, levels: 1}\n"));
  auto other = scene(dir, "poisson: {n: 8, levels: 2}\n");
  other.restart = dir + "/out/checkpoints/checkpoint_000001.h5";
  try {
    run::runScene(other);
    FAIL();
  } catch (const InputError& e) {
    // The checkpoint's fingerprint names the changed key and both values (framework/run/restart_guard).
    EXPECT_NE(std::string(e.what()).find("poisson.n: checkpoint 6, scene 8"), std::string::npos) << e.what();
  }
}

TEST(Poisson, EarlierRunIsNotOverwrittenSilently) {
  auto dir = test::scratchDir("poisson_overwrite");
  run::runScene(scene(dir, "poisson: {n: 4}\n"));
  EXPECT_THROW(run::runScene(scene(dir, "poisson: {n: 4}\n")), InputError);
  auto o = scene(dir, "poisson: {n: 4}\n");
  o.overwrite = true;
  EXPECT_NO_THROW(run::runScene(o));
}

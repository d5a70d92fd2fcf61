// The kinema command line as a user meets it: list, help, check, run, and every kind of bad input
// giving a clear message, a non-zero exit status and no output directory.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "framework/io/hdf5_file.hpp"
#include "kinema_cli.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;

namespace {

using namespace kinema_cli;

// Runs a bad scene and checks: exit status 2, the expected text, no output directory.
void expectBadInput(const std::string& dir, const std::string& args, const std::string& expected) {
  Result r = sh(kinemaCmd("run " + args + " --output " + dir + "/out"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(expected), std::string::npos) << "expected '" << expected << "' in:\n" << r.output;
  EXPECT_FALSE(fs::exists(dir + "/out")) << "bad input must not create the output directory";
}

}  // namespace

TEST(Cli, ListNamesModulesAndBackends) {
  Result r = sh(kinemaCmd("list"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("poisson"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("eigen"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("eigen solvers: cg"), std::string::npos) << r.output;
}

TEST(Cli, HelpPrintsEveryParameterWithDefaultRangeAndHelp) {
  Result r = sh(kinemaCmd("help poisson"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("poisson.n  (integer, default 16, range [2, 4096])"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("poisson.solver.rtol"), std::string::npos);
  EXPECT_NE(r.output.find("output.directory"), std::string::npos);
  EXPECT_NE(r.output.find("run.checkpoint_every"), std::string::npos);
  Result bad = sh(kinemaCmd("help poison"));
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.output.find("did you mean 'poisson'"), std::string::npos) << bad.output;
}

TEST(Cli, UsageAndUnknownCommand) {
  EXPECT_EQ(sh(kinemaCmd("")).status, 64);
  Result r = sh(kinemaCmd("frobnicate"));
  EXPECT_EQ(r.status, 64);
  EXPECT_NE(r.output.find("unknown command 'frobnicate'"), std::string::npos);
  EXPECT_EQ(sh(kinemaCmd("--version")).status, 0);
}

TEST(Cli, ShippedDemoSceneValidates) {
  Result r = sh(kinemaCmd(std::string("check ") + KINEMA_SOURCE_DIR + "/modules/poisson/scenes/demo.yaml"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("OK (module poisson"), std::string::npos) << r.output;
}

TEST(Cli, RunWritesOutputs) {
  auto dir = kinema::test::scratchDir("cli_run");
  auto scene = writeScene(dir, "s.yaml", "module: poisson\npoisson: {n: 6, levels: 2}\n");
  Result r = sh(kinemaCmd("run " + scene + " --output " + dir + "/out --set poisson.solution=sine"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("observed order"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("timings"), std::string::npos) << r.output;
  for (const char* f : {"frames.h5", "frames.xdmf", "diagnostics.csv", "config.resolved.yaml"})
    EXPECT_TRUE(fs::exists(dir + "/out/" + f)) << f;
  std::ifstream rc(dir + "/out/config.resolved.yaml");
  std::string resolved((std::istreambuf_iterator<char>(rc)), {});
  EXPECT_NE(resolved.find("solution: sine"), std::string::npos) << resolved;
  // A second run into the same directory is refused without --overwrite, and works with it.
  Result again = sh(kinemaCmd("run " + scene + " --output " + dir + "/out"));
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.output.find("holds the results of an earlier run"), std::string::npos) << again.output;
  EXPECT_EQ(sh(kinemaCmd("run " + scene + " --output " + dir + "/out --overwrite")).status, 0);
}

TEST(Cli, BadInputIsClearAndWritesNothing) {
  auto dir = kinema::test::scratchDir("cli_bad");
  expectBadInput(dir, writeScene(dir, "unknown.yaml", "module: poisson\npoisson:\n  nn: 8\n"),
                 "unknown.yaml:3: poisson.nn: unknown key; did you mean 'poisson.n'?");
  expectBadInput(dir, writeScene(dir, "type.yaml", "module: poisson\npoisson:\n  n: eight\n"),
                 "type.yaml:3: poisson.n: expected an integer, got 'eight'");
  expectBadInput(dir, writeScene(dir, "range.yaml", "module: poisson\npoisson:\n  n: 1\n"),
                 "range.yaml:3: poisson.n: 1 is out of range [2, 4096]");
  expectBadInput(dir, dir + "/missing.yaml", "missing.yaml: no such scene file");
  expectBadInput(dir, writeScene(dir, "broken.yaml", "module: poisson\npoisson: {n: 8\n"),
                 "unreadable YAML");
  expectBadInput(dir, writeScene(dir, "module.yaml", "module: poison\n"),
                 "did you mean 'poisson'");
  expectBadInput(dir, writeScene(dir, "backend.yaml", "module: poisson\nbackend: eigne\n"),
                 "did you mean 'eigen'");
  expectBadInput(dir, writeScene(dir, "ok.yaml", "module: poisson\n") + " --set poisson.levels=99",
                 "--set poisson.levels=99: poisson.levels: 99 is out of range [1, 10]");
  expectBadInput(dir, writeScene(dir, "ok2.yaml", "module: poisson\n") + " --restart " + dir + "/none.h5",
                 "no such checkpoint file");
  Result opt = sh(kinemaCmd("run --bogus"));
  EXPECT_EQ(opt.status, 2);
  EXPECT_NE(opt.output.find("unknown option '--bogus'"), std::string::npos);
}

TEST(Cli, TwoRanksOnTheOneProcessBackendFailsClearly) {
  auto dir = kinema::test::scratchDir("cli_np2");
  auto scene = writeScene(dir, "s.yaml", "module: poisson\npoisson: {n: 8}\n");
  // A clean environment: this test process is itself an MPI singleton, and its OMPI_/PMIX_
  // variables would make the nested mpiexec fail before starting anything.
  Result r = sh(cleanEnv() + mpiexec(2) + kinemaCmd("run " + scene + " --output " + dir + "/out"));
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("this run has 2 ranks"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir + "/out"));
}

namespace {
// mpiexec -n np kinema run ..., in a clean environment (see TwoRanksOnTheOneProcessBackendFailsClearly).
Result mpiRun(int np, const std::string& args) { return sh(cleanEnv() + mpiexec(np) + kinemaCmd(args)); }
}  // namespace

TEST(Cli, OutputOfTwoRanksReadsBackLikeOneRank) {
  // HDF5 frames are written collectively into one file: a 2-rank run must produce the same
  // datasets (to the solver tolerance) and the same XDMF text as a 1-rank run.
  auto dir = kinema::test::scratchDir("cli_np1_np2");
  auto scene = writeScene(dir, "s.yaml",
                          "module: poisson\nbackend: petsc\npoisson: {n: 10, levels: 2, solver: {rtol: 1.0e-12}}\n");
  for (int np : {1, 2}) {
    Result r = mpiRun(np, "run " + scene + " --output " + dir + "/np" + std::to_string(np));
    ASSERT_EQ(r.status, 0) << r.output;
  }
  EXPECT_EQ(readFile(dir + "/np1/frames.xdmf"), readFile(dir + "/np2/frames.xdmf"));
  kinema::Comm self = kinema::Comm::self();
  kinema::io::H5File one(dir + "/np1/frames.h5", kinema::io::H5File::Mode::read, self);
  kinema::io::H5File two(dir + "/np2/frames.h5", kinema::io::H5File::Mode::read, self);
  auto frames = one.children("/frames");
  ASSERT_EQ(frames.size(), 2u);
  ASSERT_EQ(two.children("/frames"), frames);
  for (const auto& f : frames) {
    for (const char* field : {"u", "u_exact", "error"}) {
      const std::string ds = "/frames/" + f + "/" + field;
      ASSERT_EQ(one.shape(ds), two.shape(ds)) << ds;
      auto a = one.readAll(ds), b = two.readAll(ds);
      ASSERT_EQ(a.size(), b.size());
      double worst = 0;
      for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
      if (std::string(field) == "u_exact")
        EXPECT_EQ(worst, 0.0) << ds;  // computed pointwise: bitwise equal at any rank count
      else
        EXPECT_LE(worst, 1e-9) << ds;  // u is O(1..400); the solves stop at rtol 1e-12
    }
  }
}

TEST(Cli, DerOptimisationRestartedOnAnotherRankCountEndsTheSame) {
  // Strands are solved rank-locally and checkpoints store them in strand order, so a der run
  // crashed at 2 ranks and restarted at 1 (and the reverse) ends with the same optimised strands,
  // bitwise, as an uninterrupted run; the strand file is the same whatever the rank count.
  auto dir = kinema::test::scratchDir("cli_der_restart");
  auto scene = writeScene(dir, "s.yaml",
                          "module: der\nbackend: eigen\nder:\n"
                          "  strands: {source: wisps, count: 5, vertices: 12, length: 0.1, seed: 2}\n"
                          "  material: {radius: 1.0e-4}\n"
                          "  optimize: {mu: 0.5, eps_p: 1.0e-12, k_max: 10}\n"
                          "run: {checkpoint_every: 1}\n");
  ASSERT_EQ(mpiRun(1, "run " + scene + " --output " + dir + "/full").status, 0);
  const std::vector<std::pair<int, int>> pairs{{2, 1}, {1, 2}};
  for (auto [crashNp, restartNp] : pairs) {
    const std::string out = dir + "/crash" + std::to_string(crashNp) + std::to_string(restartNp);
    Result crash = mpiRun(crashNp, "run " + scene + " --output " + out + " --set run.fail_at_step=4");
    ASSERT_NE(crash.status, 0);
    EXPECT_NE(crash.output.find("--restart " + out + "/checkpoints/checkpoint_000003.h5"), std::string::npos)
        << crash.output;
    Result again = mpiRun(restartNp, "run " + scene + " --output " + out + " --restart " + out +
                                         "/checkpoints/checkpoint_000003.h5");
    ASSERT_EQ(again.status, 0) << again.output;
    kinema::Comm self = kinema::Comm::self();
    kinema::io::H5File a(dir + "/full/strands.h5", kinema::io::H5File::Mode::read, self);
    kinema::io::H5File b(out + "/strands.h5", kinema::io::H5File::Mode::read, self);
    for (const char* ds : {"/strands/rest_kappa", "/strands/rest_length", "/strands/rest_twist", "/strands/c_bend",
                           "/strands/c_twist", "/strands/c_stretch", "/strands/results/relative_residual"}) {
      const auto x = a.readAll(ds), y = b.readAll(ds);
      ASSERT_EQ(x.size(), y.size()) << ds;
      EXPECT_EQ(0, std::memcmp(x.data(), y.data(), x.size() * sizeof(double))) << ds << " " << crashNp << "->" << restartNp;
    }
  }
}

TEST(Cli, VersionHelpAndQuickCheckStartWithoutMpi) {
  // With Open MPI's install prefix pointing nowhere MPI_Init cannot start: a command that gets
  // through has not initialised MPI, which is what keeps it fast (no singleton start-up).
  const std::string broken = "env -i PATH=/usr/bin:/bin OPAL_PREFIX=/nonexistent ";
  auto dir = kinema::test::scratchDir("cli_no_mpi");
  auto scene = writeScene(dir, "s.yaml", "module: poisson\nbackend: eigen\npoisson: {n: 6, levels: 1}\n");
  Result run = sh(broken + kinemaCmd("run " + scene + " --output " + dir + "/out"));
  if (run.status == 0) GTEST_SKIP() << "this MPI starts without its prefix; nothing to tell apart";
  Result version = sh(broken + kinemaCmd("--version"));
  EXPECT_EQ(version.status, 0) << version.output;
  EXPECT_NE(version.output.find("kinema "), std::string::npos) << version.output;
  Result help = sh(broken + kinemaCmd("help poisson"));
  EXPECT_EQ(help.status, 0) << help.output;
  EXPECT_NE(help.output.find("poisson.n"), std::string::npos);
  // check --quick validates without MPI; a plain check runs the set-up, which needs it.
  Result check = sh(broken + kinemaCmd("check --quick " + scene));
  EXPECT_EQ(check.status, 0) << check.output;
  EXPECT_NE(check.output.find("OK (module poisson"), std::string::npos) << check.output;
}

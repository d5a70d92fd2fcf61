// `kinema check` refuses what `kinema run` refuses before its first step (files, geometry, backend
// capabilities, rank counts, the output directory, a restart's checkpoint), with the same message,
// and `run` refuses all of it before it creates the output directory (docs/user-guide.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "kinema_cli.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using namespace kinema_cli;

namespace {

struct Case {
  std::string name;
  std::string scene;  // written to <dir>/<name>.yaml
  std::string args;   // extra command-line options
  std::string says;   // a part of the message both print
};

// Files the scenes refer to, beside them.
void writeInputs(const std::string& dir) {
  std::ofstream(dir + "/broken.obj") << "v 0 0 0\nv 1 0\nf 1 2 3\n";
  std::ofstream(dir + "/broken.hair") << "HAIRxx";
}

void expectBothRefuse(const std::string& dir, const Case& c, const std::string& launcher = "") {
  const std::string scene = dir + "/" + c.name + ".yaml";
  std::ofstream(scene) << c.scene;
  const std::string out = dir + "/out_" + c.name;
  const Result check = sh(launcher + kinemaCmd("check " + scene + " --output " + out + " " + c.args));
  EXPECT_EQ(check.status, 2) << c.name << "\n" << check.output;
  EXPECT_NE(check.output.find(c.says), std::string::npos) << c.name << "\n" << check.output;
  const Result run = sh(launcher + kinemaCmd("run " + scene + " --output " + out + " " + c.args));
  EXPECT_EQ(run.status, 2) << c.name << "\n" << run.output;
  EXPECT_NE(run.output.find(c.says), std::string::npos) << c.name << "\n" << run.output;
  EXPECT_FALSE(fs::exists(out)) << c.name << ": run created its output directory";
}

}  // namespace

TEST(CheckLikeRun, FilesGeometryAndBackendCapabilities) {
  const std::string dir = kinema::test::scratchDir("check_like_run");
  writeInputs(dir);
  const std::vector<Case> cases = {
      {"missing_obj", "module: avi\navi: {end_time: 0.02, scene: {generator: mesh, mesh: {path: nowhere.obj}}}\n", "",
       "nowhere.obj"},
      {"broken_obj", "module: bdem\nbdem: {steps: 2, scene: {generator: mesh, mesh: {path: broken.obj}}}\n", "",
       "broken.obj:2"},
      {"broken_hair", "module: der\nder: {strands: {source: hair, file: broken.hair}}\n", "", "broken.hair"},
      {"missing_strands", "module: der\nder: {strands: {source: file, file: nowhere.h5}}\n", "", "nowhere.h5"},
      {"too_many_pieces",
       "module: bdem\nbdem: {steps: 2, scene: {generator: chocolate_bar, chocolate_bar: {pieces_x: 1000000000}}}\n", "",
       "chocolate_bar.pieces_x"},
      {"preconditioner_backend_lacks", "module: poisson\nbackend: eigen\npoisson: {n: 8, solver: {preconditioner: amg}}\n",
       "", "amg"},
  };
  for (const Case& c : cases) expectBothRefuse(dir, c);
}

TEST(CheckLikeRun, OutputDirectoryAndRestart) {
  const std::string dir = kinema::test::scratchDir("check_like_run_output");
  const std::string scene = dir + "/p.yaml";
  std::ofstream(scene) << "module: poisson\nbackend: eigen\npoisson: {n: 6, levels: 3}\n";
  ASSERT_EQ(sh(kinemaCmd("run " + scene + " --output " + dir + "/done")).status, 0);
  // A directory holding a run, without --overwrite.
  for (const char* cmd : {"check", "run"}) {
    const Result r = sh(kinemaCmd(std::string(cmd) + " " + scene + " --output " + dir + "/done"));
    EXPECT_EQ(r.status, 2) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("holds the results of an earlier run"), std::string::npos) << cmd << "\n" << r.output;
  }
  // A restart whose scene changed a parameter that shapes the state.
  ASSERT_EQ(sh(kinemaCmd("run " + scene + " --output " + dir + "/part --set run.checkpoint_every=1 --set run.fail_at_step=3"))
                .status,
            1);
  for (const char* cmd : {"check", "run"}) {
    const Result r = sh(kinemaCmd(std::string(cmd) + " " + scene + " --output " + dir +
                                  "/part --restart latest --set poisson.solution=sine"));
    EXPECT_EQ(r.status, 2) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("poisson.solution: checkpoint exponential, scene sine"), std::string::npos)
        << cmd << "\n" << r.output;
  }
  // A directory given as the checkpoint: named, with the newest checkpoint in it, and no page of
  // MPI-IO read errors before the message.
  for (const char* cmd : {"check", "run"}) {
    const Result r = sh(kinemaCmd(std::string(cmd) + " " + scene + " --output " + dir + "/part --restart " + dir + "/part"));
    EXPECT_EQ(r.status, 2) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("is a directory, not a checkpoint file; its newest checkpoint is " + dir +
                            "/part/checkpoints/checkpoint_000002.h5"),
              std::string::npos)
        << cmd << "\n" << r.output;
    EXPECT_EQ(r.output.find("mca_"), std::string::npos) << cmd << "\n" << r.output;
  }
  // The same restart unchanged: check passes and writes nothing.
  const Result ok = sh(kinemaCmd("check " + scene + " --output " + dir + "/part --restart latest"));
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_EQ(readStatus(dir + "/part")["state"], "failed");
}

TEST(CheckLikeRun, RankCountTheModuleCannotSplitOver) {
  const std::string dir = kinema::test::scratchDir("check_like_run_ranks");
  // n = 2 cells: one interior plane, which two ranks cannot share.
  expectBothRefuse(dir, {"two_ranks", "module: poisson\nbackend: petsc\npoisson: {n: 2}\n", "", "fewer than the 2 ranks"}, cleanEnv() + mpiexec(2));
}

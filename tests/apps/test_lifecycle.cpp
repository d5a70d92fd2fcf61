// The life of a run as a user (or a batch queue) meets it: a signal delivered to a running kinema
// at 1 and 2 ranks stops it after a step with a checkpoint, status.yaml `interrupted`, exit status
// 75 and a restart command that, run word for word, continues bitwise like an uninterrupted run;
// a failed run's restart command works the same; `--restart latest`; the checkpoint schedule.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "framework/run/lifecycle.hpp"
#include "kinema_cli.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using namespace kinema;

namespace {

using namespace kinema_cli;

// Waits until the run has written status.yaml (its signal handlers are in place from then on).
bool waitForStatus(const std::string& dir, double seconds = 60) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (fs::exists(dir + "/status.yaml")) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

// The processes whose parent is `parent` (the ranks mpiexec started).
std::vector<pid_t> childrenOf(pid_t parent) {
  std::vector<pid_t> kids;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat = readFile(e.path().string() + "/stat");
    auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state;
    long ppid;
    rest >> state >> ppid;
    if (ppid == parent) kids.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return kids;
}

// A 2D pile of 80 discs with restitution and a random Gauss-Seidel order: a trajectory that a
// single flipped bit would change.
std::string writePile(const std::string& dir, const std::string& backend, int steps) {
  std::string path = dir + "/pile.yaml";
  std::ofstream(path) << "module: impact\nbackend: " << backend << "\n"
                      << "impact:\n"
                         "  scene: {type: pile, dimension: 2, count: 80, radius: 0.05, width: 0.6, jitter: 0.1, seed: 3}\n"
                         "  sim: {dt: 0.004, steps: " << steps << ", gravity: 9.81}\n"
                         "  resolver: {operator: gs-random, restitution: 0.3, qp_tolerance: 1.0e-10}\n"
                         "run: {progress_seconds: 1000}\n"
                         "output: {frame_every: 10}\n";
  return path;
}

// The command after "continue the run with:" in the output.
std::string printedRestart(const std::string& output) {
  const std::string marker = "continue the run with:\n  ";
  auto at = output.find(marker);
  if (at == std::string::npos) return "";
  at += marker.size();
  return output.substr(at, output.find('\n', at) - at);
}

// Sends `sig` to a running kinema once it has written status.yaml (to `target`: "run" = the
// process started, "rank1" = the second of two ranks only), then checks the interrupted state and
// continues with the printed command; the result must equal the uninterrupted run `full`.
void interruptAndContinue(const std::string& dir, int np, int sig, const std::string& target,
                          const std::string& scene, const std::string& full) {
  const std::string out = dir + "/sig";
  const std::string launcher = np > 1 ? mpiexec(np) : "";
  Child c = start(launcher + kinemaBin() + " run " + scene + " --output " + out + " --set output.frame_every=10", dir + "/sig.log");
  ASSERT_GT(c.pid, 0);
  ASSERT_TRUE(waitForStatus(out));
  pid_t victim = c.pid;
  if (target == "rank1") {
    const std::string rank0 = readStatus(out)["pid"];
    for (pid_t p : childrenOf(c.pid))
      if (std::to_string(p) != rank0) victim = p;
    ASSERT_NE(victim, c.pid) << "no second rank found";
  }
  ASSERT_EQ(kill(victim, sig), 0);
  const int code = wait(c);
  const std::string output = readFile(c.log);
  ASSERT_EQ(code, run::kExitInterrupted) << output;
  auto status = readStatus(out);
  EXPECT_EQ(status["state"], "interrupted") << readFile(out + "/status.yaml");
  EXPECT_EQ(status["signal"], run::signalName(sig));
  const std::string cp = status["last_checkpoint"];
  EXPECT_TRUE(fs::exists(cp)) << cp;
  EXPECT_EQ(cp, out + "/checkpoints/checkpoint_" + std::string(6 - status["steps_completed"].size(), '0') +
                    status["steps_completed"] + ".h5");
  EXPECT_LT(std::stol(status["steps_completed"]), std::stol(status["total_steps"]));
  const std::string cmd = printedRestart(output);
  EXPECT_EQ(cmd, status["restart"]) << output;
  EXPECT_EQ(cmd, launcher + kinemaBin() + " run " + scene + " --output " + out +
                     " --set output.frame_every=10 --restart " + cp);

  Result again = runCmd(cmd, dir + "/again.log");
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_EQ(readStatus(out)["state"], "completed");
  expectSameRun(full, out);
}

}  // namespace

TEST(Lifecycle, ShellQuoteLeavesPlainWordsAlone) {
  EXPECT_EQ(run::shellQuote("out/a_b-1.h5"), "out/a_b-1.h5");
  EXPECT_EQ(run::shellQuote("impact.sim.dt=1.0e-3"), "impact.sim.dt=1.0e-3");
  EXPECT_EQ(run::shellQuote("a b"), "'a b'");
  EXPECT_EQ(run::shellQuote("x=[1, 2]"), "'x=[1, 2]'");
  EXPECT_EQ(run::shellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(run::shellQuote(""), "''");
}

TEST(Lifecycle, CheckpointScheduleByStepsAndByWallTime) {
  run::CheckpointSchedule steps(5, 0, 0.0);
  EXPECT_FALSE(steps.due(4, 1e9));
  EXPECT_TRUE(steps.due(10, 0.0));
  run::CheckpointSchedule none(0, 0, 0.0);
  EXPECT_FALSE(none.due(100, 1e9));
  // Every 600 s of wall time ...
  run::CheckpointSchedule wall(0, 600, 0.0);
  EXPECT_FALSE(wall.due(1, 599));
  EXPECT_TRUE(wall.due(1, 600));
  wall.written(600, 601);
  EXPECT_FALSE(wall.due(2, 1200));
  EXPECT_TRUE(wall.due(2, 1201));
  // ... but a checkpoint that takes 60 s is followed by at least 20 x 60 s of steps: under 5 %.
  wall.written(1201, 1261);
  EXPECT_DOUBLE_EQ(wall.interval(), 1200);
  EXPECT_FALSE(wall.due(3, 1261 + 1199));
  EXPECT_TRUE(wall.due(3, 1261 + 1200));
}

TEST(Lifecycle, SignalStopsOneRankRunWhichContinuesBitwiseFromThePrintedCommand) {
  auto dir = test::scratchDir("lifecycle_np1");
  const std::string scene = writePile(dir, "eigen", 120);
  ASSERT_EQ(runCmd(kinemaBin() + " run " + scene + " --output " + dir + "/full", dir + "/full.log").status, 0);
  // Default schedule: a short run writes its last checkpoint only.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir + "/full/checkpoints"), fs::directory_iterator{}), 1);
  interruptAndContinue(dir, 1, SIGTERM, "run", scene, dir + "/full");
  // Ctrl-C is the same stop.
  Child c = start(kinemaBin() + " run " + scene + " --output " + dir + "/int", dir + "/int.log");
  ASSERT_TRUE(waitForStatus(dir + "/int"));
  ASSERT_EQ(kill(c.pid, SIGINT), 0);
  EXPECT_EQ(wait(c), run::kExitInterrupted) << readFile(dir + "/int.log");
  EXPECT_EQ(readStatus(dir + "/int")["state"], "interrupted");
  EXPECT_EQ(readStatus(dir + "/int")["signal"], "SIGINT");
  EXPECT_TRUE(fs::exists(readStatus(dir + "/int")["last_checkpoint"]));
}

TEST(Lifecycle, SignalToOneOfTwoRanksStopsBothAtTheSameStep) {
  auto dir = test::scratchDir("lifecycle_np2");
  const std::string scene = writePile(dir, "petsc", 120);
  ASSERT_EQ(runCmd(mpiexec(2) + kinemaBin() + " run " + scene + " --output " + dir + "/full", dir + "/full.log").status, 0);
  // SIGUSR1 (a batch queue's warning) to rank 1 only: rank 0 learns it at the step boundary.
  interruptAndContinue(dir, 2, SIGUSR1, "rank1", scene, dir + "/full");
}

// status.yaml on disk means every rank catches the stop signals, however far behind rank 0 a rank
// is: here rank 1 sleeps a second at the end of its set-up (the demo plugin's pause keys), rank 0
// writes status.yaml meanwhile, and SIGUSR1 to rank 1 then must stop the run, not kill rank 1.
TEST(Lifecycle, EveryRankCatchesSignalsOnceStatusIsWritten) {
  auto dir = test::scratchDir("lifecycle_slow_rank");
  const std::string scene = dir + "/demo.yaml";
  std::ofstream(scene) << "module: plugin_demo\n"
                          "plugin_demo: {steps: 100, speed: 0.5, pause_setup_rank: 1, pause_setup: 1.0, pause_step: 0.05}\n"
                          "run: {progress_seconds: 1000}\n";
  const std::string out = dir + "/out";
  Child c = start(mpiexec(2) + kinemaBin() + " run " + scene + " --plugin-path " + PLUGIN_DEMO + " --output " + out,
                  dir + "/run.log");
  ASSERT_GT(c.pid, 0);
  ASSERT_TRUE(waitForStatus(out));
  const std::string rank0 = readStatus(out)["pid"];
  pid_t victim = 0;
  for (pid_t p : childrenOf(c.pid))
    if (std::to_string(p) != rank0) victim = p;
  ASSERT_NE(victim, 0) << "no second rank found";
  ASSERT_EQ(kill(victim, SIGUSR1), 0);
  const int code = wait(c);
  ASSERT_EQ(code, run::kExitInterrupted) << readFile(c.log);
  EXPECT_EQ(readStatus(out)["state"], "interrupted");
  EXPECT_EQ(readStatus(out)["signal"], "SIGUSR1");
  EXPECT_LT(std::stol(readStatus(out)["steps_completed"]), 100);
}

TEST(Lifecycle, FailedRunsRestartCommandRunsWordForWord) {
  auto dir = test::scratchDir("lifecycle_fail");
  const std::string scene = writePile(dir, "eigen", 30);
  ASSERT_EQ(runCmd(kinemaBin() + " run " + scene + " --output " + dir + "/full", dir + "/full.log").status, 0);
  // A relative scene and output, run from the scratch directory as a user would.
  const std::string cd = "cd " + dir + " && ";
  Result crash = runCmd("sh -c '" + cd + kinemaBin() +
                            " run pile.yaml --output crash --backend eigen --set run.checkpoint_every=5"
                            " --set run.fail_at_step=13'",
                        dir + "/crash.log");
  ASSERT_EQ(crash.status, 1) << crash.output;
  const std::string expected = kinemaBin() +
                               " run pile.yaml --output crash --backend eigen --set run.checkpoint_every=5"
                               " --restart crash/checkpoints/checkpoint_000010.h5";
  EXPECT_NE(crash.output.find("restart from the last checkpoint with: " + expected), std::string::npos)
      << crash.output;
  EXPECT_EQ(readStatus(dir + "/crash")["state"], "failed");
  EXPECT_EQ(readStatus(dir + "/crash")["restart"], expected);

  // Without --output the restart writes to the scene's default directory, out/pile: a new one,
  // which starts from a copy of crash/'s frames and diagnostics and ends as the uninterrupted run;
  // crash/ is left as it was.
  Result elsewhere = runCmd("sh -c '" + cd + kinemaBin() + " run pile.yaml --restart crash/checkpoints/checkpoint_000010.h5'",
                            dir + "/elsewhere.log");
  ASSERT_EQ(elsewhere.status, 0) << elsewhere.output;
  EXPECT_NE(elsewhere.output.find("frames and diagnostics up to step 10 copied from"), std::string::npos)
      << elsewhere.output;
  EXPECT_EQ(readStatus(dir + "/out/pile")["state"], "completed");
  const std::string continues = readStatus(dir + "/out/pile")["continues"];
  EXPECT_TRUE(continues.size() > 6 && continues.substr(continues.size() - 6) == "/crash") << continues;
  expectSameRun(dir + "/full", dir + "/out/pile");
  EXPECT_EQ(readStatus(dir + "/crash")["state"], "failed");

  Result again = runCmd("sh -c '" + cd + expected + "'", dir + "/again.log");
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_EQ(readStatus(dir + "/crash")["state"], "completed");
  expectSameRun(dir + "/full", dir + "/crash");
}

// A good checkpoint stays usable when frames.h5 is gone or damaged: the frames start again from the
// checkpoint (a damaged file is kept aside), the diagnostics continue, the state ends as the
// uninterrupted run's.
TEST(Lifecycle, RestartWithoutItsFramesStartsThemAgain) {
  auto dir = test::scratchDir("lifecycle_frames_gone");
  const std::string scene = writePile(dir, "eigen", 30);
  ASSERT_EQ(runCmd(kinemaBin() + " run " + scene + " --output " + dir + "/full", dir + "/full.log").status, 0);
  const std::vector<double> fullRows = kinema::test::csvColumn(dir + "/full", "kinetic_energy");
  for (const std::string how : {"deleted", "damaged"}) {
    const std::string out = dir + "/" + how;
    const std::string run = kinemaBin() + " run " + scene + " --output " + out + " --set run.checkpoint_every=5";
    ASSERT_EQ(runCmd(run + " --set run.fail_at_step=13", out + ".log").status, 1);
    if (how == "deleted") {
      fs::remove(out + "/frames.h5");
    } else {
      fs::resize_file(out + "/frames.h5", 100);
    }
    const Result r = runCmd(run + " --restart latest", out + ".restart.log");
    ASSERT_EQ(r.status, 0) << how << "\n" << r.output;
    EXPECT_NE(r.output.find(how == "deleted" ? "is not there" : "cannot be continued"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("the frames start again from the checkpoint's step 10"), std::string::npos) << r.output;
    if (how == "damaged") {
      EXPECT_TRUE(fs::exists(out + "/frames.h5.damaged-10"));
    }
    EXPECT_EQ(readStatus(out)["state"], "completed");
    // Frames after step 10 only (frame_every 10: steps 20 and 30), the whole diagnostics table.
    kinema::io::H5File f(out + "/frames.h5", kinema::io::H5File::Mode::read, kinema::Comm::self());
    EXPECT_EQ(f.children("/frames").size(), 2u) << how;
    EXPECT_TRUE(bitwiseEqual(kinema::test::csvColumn(out, "kinetic_energy"), fullRows)) << how;
  }
}

TEST(Lifecycle, RestartLatestContinuesFromTheNewestCheckpoint) {
  auto dir = test::scratchDir("lifecycle_latest");
  const std::string scene = writePile(dir, "eigen", 30);
  const std::string out = dir + "/out";
  Result none = runCmd(kinemaBin() + " run " + scene + " --output " + out + " --restart latest", dir + "/none.log");
  EXPECT_EQ(none.status, 2) << none.output;
  EXPECT_NE(none.output.find("latest: no checkpoint in " + out + "/checkpoints"), std::string::npos) << none.output;
  EXPECT_FALSE(fs::exists(out));

  Result crash = runCmd(kinemaBin() + " run " + scene + " --output " + out +
                            " --set run.checkpoint_every=4 --set run.checkpoint_keep=10 --set run.fail_at_step=15",
                        dir + "/crash.log");
  ASSERT_EQ(crash.status, 1) << crash.output;
  Result again = runCmd(kinemaBin() + " run " + scene + " --output " + out + " --restart latest", dir + "/again.log");
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_NE(again.output.find("restarting from " + out + "/checkpoints/checkpoint_000012.h5"), std::string::npos)
      << again.output;
  EXPECT_EQ(readStatus(out)["restarted_from"], out + "/checkpoints/checkpoint_000012.h5");
  EXPECT_EQ(readStatus(out)["state"], "completed");
}

// Running out of memory mid-run (std::bad_alloc, not a Kinema error) ends like any failure:
// status.yaml failed with the step, the message and the restart command; exit status 1; the run
// continues from its last checkpoint and ends as the uninterrupted run.
TEST(Lifecycle, OutOfMemoryMidRunIsAFailureWithARestart) {
  auto dir = test::scratchDir("lifecycle_oom");
  const std::string scene = writePile(dir, "eigen", 30);
  ASSERT_EQ(runCmd(kinemaBin() + " run " + scene + " --output " + dir + "/full", dir + "/full.log").status, 0);
  const Result r = runCmd(kinemaBin() + " run " + scene + " --output " + dir +
                              "/oom --set run.checkpoint_every=5 --set run.fail_at_step=12 --set run.fail_kind=out_of_memory",
                          dir + "/oom.log");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("out of memory (std::bad_alloc)"), std::string::npos) << r.output;
  auto status = readStatus(dir + "/oom");
  EXPECT_EQ(status["state"], "failed");
  EXPECT_EQ(status["failed_step"], "12");
  EXPECT_NE(status["message"].find("out of memory"), std::string::npos) << status["message"];
  EXPECT_NE(status["restart"].find("--restart " + dir + "/oom/checkpoints/checkpoint_000010.h5"), std::string::npos)
      << status["restart"];
  EXPECT_EQ(status["restart"].find("fail_kind"), std::string::npos) << status["restart"];
  const Result again = runCmd(status["restart"], dir + "/again.log");
  ASSERT_EQ(again.status, 0) << again.output;
  expectSameRun(dir + "/full", dir + "/oom");
}

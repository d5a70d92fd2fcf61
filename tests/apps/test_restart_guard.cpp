// A restart continues the run its checkpoint came from, or says why it cannot: the kinema binary
// refuses a scene whose state-shaping parameters differ from the checkpoint's (naming each key,
// both values), accepts the changes of run.restart_allow and the built-in allow list (more steps:
// bitwise the uninterrupted run), refuses a checkpoint whose arrays or values were altered
// (naming the dataset), refuses a restart with nothing left to run, and still continues from a
// checkpoint written before fingerprints (with a warning).
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "framework/run/restart_guard.hpp"
#include "kinema_cli.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using namespace kinema;

namespace {

using namespace kinema_cli;

// A 2D pile of 40 discs with restitution and a random Gauss-Seidel order.
std::string writePile(const std::string& dir, int steps) {
  std::string path = dir + "/pile.yaml";
  std::ofstream(path) << "module: impact\n"
                      << "impact:\n"
                         "  scene: {type: pile, dimension: 2, count: 40, radius: 0.05, width: 0.5, jitter: 0.1, seed: 3}\n"
                         "  sim: {dt: 0.004, steps: " << steps << ", gravity: 9.81}\n"
                         "  resolver: {operator: gs-random, restitution: 0.3, qp_tolerance: 1.0e-10}\n"
                         "run: {progress_seconds: 1000, checkpoint_every: 5, checkpoint_keep: 10}\n"
                         "output: {frame_every: 5}\n";
  return path;
}

std::string checkpoint(const std::string& out, int step) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "/checkpoints/checkpoint_%06d.h5", step);
  return out + buf;
}

// Copies the run directory `from` to `to` (a restart appends to its directory).
void copyRun(const std::string& from, const std::string& to) {
  fs::remove_all(to);
  fs::copy(from, to, fs::copy_options::recursive);
}

// Overwrites element `index` of a double dataset in place, as a bad disk or a careless script would.
void corruptDataset(const std::string& file, const std::string& dataset, hsize_t index, double value) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0) << file;
  hid_t d = H5Dopen2(f, dataset.c_str(), H5P_DEFAULT);
  ASSERT_GE(d, 0) << dataset;
  hid_t space = H5Dget_space(d);
  // The element at row-major position `index`, whatever the dataset's rank.
  const int rank = H5Sget_simple_extent_ndims(space);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank)), at(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  for (int k = rank - 1; k >= 0; --k) {
    at[static_cast<std::size_t>(k)] = index % dims[static_cast<std::size_t>(k)];
    index /= dims[static_cast<std::size_t>(k)];
  }
  H5Sselect_elements(space, H5S_SELECT_SET, 1, at.data());
  hsize_t one = 1;
  hid_t mem = H5Screate_simple(1, &one, nullptr);
  EXPECT_GE(H5Dwrite(d, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, &value), 0);
  H5Sclose(mem);
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
}

void setRootReal(const std::string& file, const std::string& name, double value) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0) << file;
  hid_t a = H5Aopen(f, name.c_str(), H5P_DEFAULT);
  ASSERT_GE(a, 0) << name;
  EXPECT_GE(H5Awrite(a, H5T_NATIVE_DOUBLE, &value), 0);
  H5Aclose(a);
  H5Fclose(f);
}

// Turns a checkpoint into one written before fingerprints and checksums (format 1).
void makeOldFormat(const std::string& file) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0) << file;
  for (const char* name : {"kinema_checksums", "runner_fingerprint"})
    if (H5Aexists(f, name) > 0) H5Adelete(f, name);
  hid_t a = H5Aopen(f, "kinema_checkpoint", H5P_DEFAULT);
  ASSERT_GE(a, 0);
  const std::int64_t one = 1;
  EXPECT_GE(H5Awrite(a, H5T_NATIVE_INT64, &one), 0);
  H5Aclose(a);
  H5Fclose(f);
}

// One uninterrupted 30-step run and one 20-step run with checkpoints every 5 steps, shared by the
// tests below (each restarts from its own copy).
struct Runs {
  std::string dir, full, short20, scene20, scene30;
};

const Runs& runs() {
  static Runs r = [] {
    Runs x;
    x.dir = test::scratchDir("restart_guard");
    fs::create_directories(x.dir + "/s20");
    fs::create_directories(x.dir + "/s30");
    x.scene20 = writePile(x.dir + "/s20", 20);
    x.scene30 = writePile(x.dir + "/s30", 30);
    x.full = x.dir + "/full";
    x.short20 = x.dir + "/short";
    Result a = runCmd(kinemaBin() + " run " + x.scene30 + " --output " + x.full, x.dir + "/full.log");
    EXPECT_EQ(a.status, 0) << a.output;
    Result b = runCmd(kinemaBin() + " run " + x.scene20 + " --output " + x.short20, x.dir + "/short.log");
    EXPECT_EQ(b.status, 0) << b.output;
    return x;
  }();
  return r;
}

}  // namespace

TEST(RestartGuard, ChangedShapingParameterIsRefusedNamingKeyAndBothValues) {
  const Runs& r = runs();
  const std::string out = r.dir + "/changed";
  copyRun(r.short20, out);
  Result res = runCmd(kinemaBin() + " run " + r.scene20 + " --output " + out + " --restart " + checkpoint(out, 10) +
                          " --set impact.sim.dt=0.002 --set impact.scene.radius=0.04",
                      r.dir + "/changed.log");
  EXPECT_EQ(res.status, 2) << res.output;
  EXPECT_TRUE(has(res.output, "impact.sim.dt: checkpoint 0.004, scene 0.002")) << res.output;
  EXPECT_TRUE(has(res.output, "impact.scene.radius: checkpoint 0.05, scene 0.04")) << res.output;
  EXPECT_TRUE(has(res.output, "run.restart_allow")) << res.output;
  // Nothing was written: the earlier run's files are as they were.
  // Refused before anything is written: the earlier run's status is as it was.
  const std::string status = readFile(out + "/status.yaml");
  EXPECT_TRUE(has(status, "completed")) << status;
  EXPECT_FALSE(has(status, "restarted_from")) << status;
}

TEST(RestartGuard, ChangedPoissonSolutionIsRefused) {
  const Runs& r = runs();
  const std::string dir = r.dir + "/poisson";
  fs::create_directories(dir);
  const std::string scene = dir + "/poisson.yaml";
  std::ofstream(scene) << "module: poisson\npoisson: {n: 4, levels: 3}\nrun: {checkpoint_every: 1, checkpoint_keep: 5}\n";
  Result first = runCmd(kinemaBin() + " run " + scene + " --output " + dir + "/out --set run.fail_at_step=3", dir + "/a.log");
  ASSERT_EQ(first.status, 1) << first.output;
  Result res = runCmd(kinemaBin() + " run " + scene + " --output " + dir + "/out --restart " + checkpoint(dir + "/out", 2) +
                          " --set poisson.solution=sine",
                      dir + "/b.log");
  EXPECT_EQ(res.status, 2) << res.output;
  EXPECT_TRUE(has(res.output, "poisson.solution: checkpoint exponential, scene sine")) << res.output;
  // A looser solver tolerance is a change a user may make on purpose.
  Result ok = runCmd(kinemaBin() + " run " + scene + " --output " + dir + "/out --restart " + checkpoint(dir + "/out", 2) +
                         " --set poisson.solver.rtol=1e-8",
                     dir + "/c.log");
  EXPECT_EQ(ok.status, 0) << ok.output;
}

TEST(RestartGuard, ChangeListedInRestartAllowIsAccepted) {
  const Runs& r = runs();
  const std::string out = r.dir + "/allowed";
  copyRun(r.short20, out);
  Result refused = runCmd(kinemaBin() + " run " + r.scene20 + " --output " + out + " --restart " + checkpoint(out, 10) +
                              " --set impact.resolver.restitution=0.5",
                          r.dir + "/allowed_refused.log");
  EXPECT_EQ(refused.status, 2) << refused.output;
  EXPECT_TRUE(has(refused.output, "impact.resolver.restitution: checkpoint 0.3, scene 0.5")) << refused.output;
  Result ok = runCmd(kinemaBin() + " run " + r.scene20 + " --output " + out + " --restart " + checkpoint(out, 10) +
                         " --set impact.resolver.restitution=0.5 --set 'run.restart_allow=[impact.resolver]'",
                     r.dir + "/allowed.log");
  EXPECT_EQ(ok.status, 0) << ok.output;
  Result bad = runCmd(kinemaBin() + " run " + r.scene20 + " --output " + out + " --restart " + checkpoint(out, 10) +
                          " --set 'run.restart_allow=[impact.resolvr]'",
                      r.dir + "/allowed_bad.log");
  EXPECT_EQ(bad.status, 2) << bad.output;
  EXPECT_TRUE(has(bad.output, "impact.resolvr")) << bad.output;
}

TEST(RestartGuard, MoreStepsContinueBitwiseLikeTheUninterruptedRun) {
  const Runs& r = runs();
  const std::string out = r.dir + "/more";
  copyRun(r.short20, out);
  // The step count is on the built-in allow list; so are the run.* and output.* keys.
  Result res = runCmd(kinemaBin() + " run " + r.scene30 + " --output " + out + " --restart " + checkpoint(out, 20) +
                          " --set run.progress_seconds=500",
                      r.dir + "/more.log");
  ASSERT_EQ(res.status, 0) << res.output;
  EXPECT_FALSE(has(res.output, "warning")) << res.output;
  expectSameRun(r.full, out);
}

TEST(RestartGuard, CorruptedArrayIsRefusedNamingTheDataset) {
  const Runs& r = runs();
  const std::string out = r.dir + "/corrupt";
  copyRun(r.short20, out);
  corruptDataset(checkpoint(out, 10), "/impact/state", 3, 1e300);
  Result res = runCmd(kinemaBin() + " run " + r.scene20 + " --output " + out + " --restart " + checkpoint(out, 10),
                      r.dir + "/corrupt.log");
  EXPECT_EQ(res.status, 2) << res.output;
  EXPECT_TRUE(has(res.output, "checkpoint " + checkpoint(out, 10) + ": dataset /impact/state is corrupted (checksum"))
      << res.output;
}

TEST(RestartGuard, CorruptedValueIsRefusedNamingIt) {
  const Runs& r = runs();
  const std::string out = r.dir + "/corrupt_value";
  copyRun(r.short20, out);
  setRootReal(checkpoint(out, 10), "impact_energy0", 1e300);
  Result res = runCmd(kinemaBin() + " run " + r.scene20 + " --output " + out + " --restart " + checkpoint(out, 10),
                      r.dir + "/corrupt_value.log");
  EXPECT_EQ(res.status, 2) << res.output;
  EXPECT_TRUE(has(res.output, "value impact_energy0 is corrupted (checksum")) << res.output;
}

TEST(RestartGuard, RestartWithNothingLeftToRunIsAnError) {
  const Runs& r = runs();
  const std::string out = r.dir + "/fewer";
  copyRun(r.short20, out);
  Result same = runCmd(kinemaBin() + " run " + r.scene20 + " --output " + out + " --restart " + checkpoint(out, 20),
                       r.dir + "/same.log");
  EXPECT_EQ(same.status, 2) << same.output;
  EXPECT_TRUE(has(same.output, "after step 20, and this scene ends at step 20")) << same.output;
  Result fewer = runCmd(kinemaBin() + " run " + r.scene20 + " --output " + out + " --restart " + checkpoint(out, 20) +
                            " --set impact.sim.steps=15",
                        r.dir + "/fewer.log");
  EXPECT_EQ(fewer.status, 2) << fewer.output;
  EXPECT_TRUE(has(fewer.output, "after step 20, and this scene ends at step 15")) << fewer.output;
}

TEST(RestartGuard, CheckpointWithoutFingerprintRestartsWithAWarning) {
  const Runs& r = runs();
  const std::string out = r.dir + "/old";
  copyRun(r.short20, out);
  makeOldFormat(checkpoint(out, 20));
  Result res = runCmd(kinemaBin() + " run " + r.scene30 + " --output " + out + " --restart " + checkpoint(out, 20),
                      r.dir + "/old.log");
  ASSERT_EQ(res.status, 0) << res.output;
  EXPECT_TRUE(has(res.output, "written before checkpoints carried a fingerprint")) << res.output;
  expectSameRun(r.full, out);
}

// run.checkpoint_keep counts the checkpoints of the earlier segment too: keep 2 leaves the two
// newest of the whole run, not those of each segment (10, 15, 25, 30 before).
TEST(RestartGuard, CheckpointKeepCountsAcrossRestarts) {
  const Runs& r = runs();
  const std::string out = r.dir + "/keep";
  Result crash = runCmd(kinemaBin() + " run " + r.scene30 + " --output " + out +
                            " --set run.checkpoint_keep=2 --set run.fail_at_step=18",
                        r.dir + "/keep_crash.log");
  ASSERT_EQ(crash.status, 1) << crash.output;
  EXPECT_TRUE(fs::exists(checkpoint(out, 10)));
  EXPECT_TRUE(fs::exists(checkpoint(out, 15)));
  Result again = runCmd(kinemaBin() + " run " + r.scene30 + " --output " + out +
                            " --set run.checkpoint_keep=2 --restart " + checkpoint(out, 15),
                        r.dir + "/keep_again.log");
  ASSERT_EQ(again.status, 0) << again.output;
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(out + "/checkpoints")) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"checkpoint_000025.h5", "checkpoint_000030.h5"}));
  expectSameRun(r.full, out);
}

// The checksums are the same at any rank count: a checkpoint written at one rank restarts at two
// (and the same run continues), and a corrupted one is refused there too.
TEST(RestartGuard, ChecksumsHoldAcrossRankCounts) {
  const Runs& r = runs();
  const std::string mpi = mpiexec(2);
  const std::string out = r.dir + "/np2";
  copyRun(r.short20, out);
  Result res = runCmd(mpi + kinemaBin() + " run " + r.scene30 + " --output " + out + " --restart " + checkpoint(out, 20),
                      r.dir + "/np2.log");
  ASSERT_EQ(res.status, 0) << res.output;
  EXPECT_TRUE(has(res.output, "restarting from " + checkpoint(out, 20))) << res.output;
  EXPECT_TRUE(has(readFile(out + "/status.yaml"), "completed"));
  // (Not bitwise the one-rank run: some diagnostics are reductions over ranks.)
  // The 2-rank run's own checkpoint restarts at one rank.
  Result one = runCmd(kinemaBin() + " run " + r.scene30 + " --output " + out + " --restart " + checkpoint(out, 25) +
                          " --set impact.sim.steps=35",
                      r.dir + "/np2_one.log");
  EXPECT_EQ(one.status, 0) << one.output;
  const std::string bad = r.dir + "/np2_corrupt";
  copyRun(r.short20, bad);
  corruptDataset(checkpoint(bad, 20), "/impact/state", 100, -0.0);
  Result refused = runCmd(mpi + kinemaBin() + " run " + r.scene30 + " --output " + bad + " --restart " +
                              checkpoint(bad, 20),
                          r.dir + "/np2_corrupt.log");
  EXPECT_NE(refused.status, 0) << refused.output;
  EXPECT_TRUE(has(refused.output, "dataset /impact/state is corrupted")) << refused.output;
}

// The allow list matches a key itself or a whole group, never a key that merely starts alike; the
// fingerprint's lines keep values with newlines and backslashes intact.
TEST(RestartGuard, AllowListMatchesKeysAndGroupsAndFingerprintRoundTrips) {
  const std::vector<std::string> allow = {"run", "impact.sim.steps", "poisson.solver"};
  EXPECT_TRUE(run::allowedToChange("run.checkpoint_every", allow));
  EXPECT_TRUE(run::allowedToChange("impact.sim.steps", allow));
  EXPECT_TRUE(run::allowedToChange("poisson.solver.rtol", allow));
  EXPECT_FALSE(run::allowedToChange("impact.sim.steps_per_frame", allow));
  EXPECT_FALSE(run::allowedToChange("runner", allow));
  EXPECT_FALSE(run::allowedToChange("impact.sim.dt", allow));
  const std::map<std::string, std::string> values = {{"a.b", "1"}, {"a.c", "x=y\\z\nw"}, {"d", ""}};
  EXPECT_EQ(run::parseFingerprint(run::fingerprintText(values)), values);
}

// A restart from a checkpoint whose `runner_step` attribute was replaced by a 256-element array
// (it used to segfault impact): the kinema binary, at 1 and 2 ranks, exits with status 2 and a
// message naming the checkpoint and the attribute, never with a signal, and prints nothing of
// HDF5's error stack. Once through the checkpoint's checksums, once with a checkpoint of the
// format written before checksums, whose values only H5File's own checks guard.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "kinema_cli.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;

namespace {

using namespace kinema_cli;

// A 2D pile of 40 discs, 10 steps, a checkpoint every 5.
std::string writePile(const std::string& dir, const std::string& backend) {
  std::string path = dir + "/pile.yaml";
  std::ofstream(path) << "module: impact\nbackend: " << backend << "\n"
                      << "impact:\n"
                         "  scene: {type: pile, dimension: 2, count: 40, radius: 0.05, width: 0.5, jitter: 0.1, seed: 3}\n"
                         "  sim: {dt: 0.004, steps: 10, gravity: 9.81}\n"
                         "  resolver: {operator: gs-random, restitution: 0.3, qp_tolerance: 1.0e-10}\n"
                         "run: {progress_seconds: 1000, checkpoint_every: 5, checkpoint_keep: 10}\n"
                         "output: {frame_every: 5}\n";
  return path;
}

// Replaces the root attribute `runner_step` with 256 integers; `legacy` also turns the file into
// a checkpoint of the format before checksums (marker 1, no checksums), read unchecked.
void breakCheckpoint(const std::string& file, bool legacy) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0) << file;
  ASSERT_GT(H5Aexists(f, "runner_step"), 0) << file;
  ASSERT_GE(H5Adelete(f, "runner_step"), 0);
  const hsize_t n = 256;
  std::vector<std::int64_t> steps(n, 5);
  hid_t space = H5Screate_simple(1, &n, nullptr);
  hid_t a = H5Acreate2(f, "runner_step", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(a, 0);
  EXPECT_GE(H5Awrite(a, H5T_NATIVE_INT64, steps.data()), 0);
  H5Aclose(a);
  H5Sclose(space);
  if (legacy) {
    for (const char* name : {"kinema_checksums", "runner_fingerprint"})
      if (H5Aexists(f, name) > 0) H5Adelete(f, name);
    hid_t m = H5Aopen(f, "kinema_checkpoint", H5P_DEFAULT);
    ASSERT_GE(m, 0);
    const std::int64_t one = 1;
    EXPECT_GE(H5Awrite(m, H5T_NATIVE_INT64, &one), 0);
    H5Aclose(m);
  }
  H5Fclose(f);
}

void restartFromBrokenCheckpoint(int np, const std::string& backend) {
  std::string launcher;
  if (np > 1) {
    const std::string mpi = mpiexec();
    if (mpi.empty()) GTEST_SKIP() << "no mpiexec on the PATH";
    launcher = mpi + " --allow-run-as-root --oversubscribe -n " + std::to_string(np) + " ";
  }
  const std::string dir = kinema::test::scratchDir("bad_checkpoint_" + std::to_string(np));
  const std::string scene = writePile(dir, backend);
  const std::string run = launcher + kinemaBin() + " run " + scene;
  Result first = runCmd(run + " --output " + dir + "/out", dir + "/first.log");
  ASSERT_EQ(first.status, 0) << first.output;
  const std::string cp = dir + "/out/checkpoints/checkpoint_000005.h5";
  ASSERT_TRUE(fs::exists(cp)) << first.output;

  for (bool legacy : {false, true}) {
    SCOPED_TRACE(legacy ? "format without checksums" : "checksummed format");
    const std::string out = dir + (legacy ? "/legacy" : "/checked");
    fs::remove_all(out);
    fs::copy(dir + "/out", out, fs::copy_options::recursive);
    const std::string bad = out + "/checkpoints/checkpoint_000005.h5";
    breakCheckpoint(bad, legacy);
    Result r = runCmd(run + " --output " + out + " --restart " + bad, out + ".log");
    EXPECT_LT(r.status, 128) << "killed by signal " << r.status - 128 << "\n" << r.output;
    EXPECT_EQ(r.status, 2) << r.output;  // bad input, not an internal error
    EXPECT_TRUE(has(r.output, bad)) << r.output;
    EXPECT_TRUE(has(r.output, "runner_step")) << r.output;
    if (legacy) {
      EXPECT_TRUE(has(r.output, "holds 256 values")) << r.output;
    }
    EXPECT_FALSE(has(r.output, "HDF5-DIAG")) << r.output;
  }
}

TEST(BadCheckpoint, ArrayStepCounterIsRefusedAtOneRank) { restartFromBrokenCheckpoint(1, "eigen"); }

TEST(BadCheckpoint, ArrayStepCounterIsRefusedAtTwoRanks) { restartFromBrokenCheckpoint(2, "petsc"); }

}  // namespace

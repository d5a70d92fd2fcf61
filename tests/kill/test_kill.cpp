// Kill tests (issue 20 item 6, docs/reliability.md "Kill tests"): a run that dies by SIGKILL in
// the middle of writing a frame or a checkpoint, at 1 and 2 ranks, leaves
//   - frames.h5 readable with every frame before the one being written complete and the same bits
//     as in an uninterrupted run, and the frame being written absent or not marked complete;
//   - frames.xdmf well formed, listing exactly those frames (checked by the independent XDMF
//     checker of tests/io);
//   - the previous checkpoint (status.yaml's last_checkpoint) and every earlier one readable with
//     their checksums verified, and no file under the name of the checkpoint being written;
// and a restart from that checkpoint, in the same directory, continues bitwise like the
// uninterrupted run: every dataset of every frame, the diagnostics without their timing columns,
// and the datasets of the last checkpoint (their checksums).
//
// The kill comes from inside: KINEMA_TEST_KILL_AT (framework/io/kill_point.hpp) makes the process
// (or one rank of it, `@R`) raise SIGKILL after the frame's or checkpoint's datasets are written,
// before the frame is marked complete and flushed, or before the checkpoint is closed and renamed.
// At 2 ranks mpiexec then ends the other rank, as it would after a node failure.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "apps/kinema_cli.hpp"
#include "framework/core/error.hpp"
#include "framework/io/checkpoint.hpp"
#include "io/xdmf_check.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using namespace kinema;
using namespace kinema_cli;

namespace {

constexpr int kSteps = 12;  // one frame per step (frame k after step k, frame 0 the initial state)

// A bdem beam pulled until bonds break: implicit Newton steps on PETSc at 1 and 2 ranks, a frame
// every step and a checkpoint every 3 steps; about 1 s per run.
std::string writeScene(const std::string& dir) {
  const std::string path = dir + "/beam.yaml";
  std::ofstream(path) << "module: bdem\n"
                         "backend: petsc\n"
                         "bdem:\n"
                         "  integrator: implicit\n"
                         "  dt: 2.0e-4\n"
                         "  steps: " << kSteps << "\n"
                         "  tolerance: 1.0e-9\n"
                         "  newton: {forcing: quadratic, forcing_min: 1.0e-12}\n"
                         "  scene:\n"
                         "    generator: beam_stretch\n"
                         "    material: {E: 1.0e7, sigma_c: 3.0e4, tau_c: 3.0e4}\n"
                         "    beam_stretch: {length: 0.03, height: 0.01, width: 0.01, radius: 0.00125,"
                         " grip_length: 0.004, speed: 0.05}\n"
                         "run: {checkpoint_every: 3, checkpoint_keep: 20, progress_seconds: 1000}\n"
                         "output: {frame_every: 1}\n";
  return path;
}

std::string launcher(int np) { return np > 1 ? mpiexec(np) : ""; }

std::string checkpointPath(const std::string& out, long step) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "/checkpoints/checkpoint_%06ld.h5", step);
  return out + buf;
}

// An hid_t closed when it leaves scope.
struct Id {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Id() {
    if (id >= 0) close(id);
  }
};

herr_t collect(hid_t group, const char* name, const H5L_info_t*, void* data) {
  Id obj{H5Oopen(group, name, H5P_DEFAULT), H5Oclose};
  if (obj.id >= 0 && H5Iget_type(obj.id) == H5I_DATASET) static_cast<std::vector<std::string>*>(data)->push_back(name);
  return 0;
}

// One HDF5 file read with the HDF5 C API alone (the serial sec2 driver, not framework/io): a
// dataset's raw bytes in its own type, to compare runs bit for bit.
struct RawFile {
  hid_t file = -1;
  explicit RawFile(const std::string& path) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  }
  ~RawFile() {
    if (file >= 0) H5Fclose(file);
  }
  bool ok() const { return file >= 0; }
  // The datasets under `group`, relative to it, sorted.
  std::vector<std::string> datasets(const std::string& group) const {
    std::vector<std::string> names;
    Id g{H5Gopen2(file, group.c_str(), H5P_DEFAULT), H5Gclose};
    if (g.id < 0 || H5Lvisit(g.id, H5_INDEX_NAME, H5_ITER_INC, collect, &names) < 0) return {"<unreadable " + group + ">"};
    std::sort(names.begin(), names.end());
    return names;
  }
  // The frame groups under /frames, sorted.
  std::vector<std::string> frames() const {
    std::vector<std::string> names;
    Id g{H5Gopen2(file, "/frames", H5P_DEFAULT), H5Gclose};
    H5G_info_t info{};
    if (g.id < 0 || H5Gget_info(g.id, &info) < 0) return {"<unreadable /frames>"};
    for (hsize_t k = 0; k < info.nlinks; ++k) {
      char name[256] = {0};
      H5Lget_name_by_idx(g.id, ".", H5_INDEX_NAME, H5_ITER_INC, k, name, sizeof name, H5P_DEFAULT);
      names.push_back(name);
    }
    return names;
  }
  bool hasAttribute(const std::string& object, const std::string& name) const {
    return H5Aexists_by_name(file, object.c_str(), name.c_str(), H5P_DEFAULT) > 0;
  }
  // The bytes of a dataset (empty with `error` set if it cannot be read).
  std::vector<unsigned char> bytes(const std::string& path, std::string* error) const {
    Id d{H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose};
    if (d.id < 0) {
      *error = "cannot open " + path;
      return {};
    }
    Id type{H5Dget_type(d.id), H5Tclose};
    Id mem{H5Tget_native_type(type.id, H5T_DIR_ASCEND), H5Tclose};
    Id space{H5Dget_space(d.id), H5Sclose};
    const hssize_t n = H5Sget_simple_extent_npoints(space.id);
    if (mem.id < 0 || n < 0) {
      *error = "cannot query " + path;
      return {};
    }
    std::vector<unsigned char> out(static_cast<std::size_t>(n) * H5Tget_size(mem.id));
    if (!out.empty() && H5Dread(d.id, mem.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) {
      *error = "cannot read " + path;
      return {};
    }
    return out;
  }
  std::string stringAttribute(const std::string& name) const {
    Id a{H5Aopen(file, name.c_str(), H5P_DEFAULT), H5Aclose};
    Id type{H5Aget_type(a.id), H5Tclose};
    if (a.id < 0 || type.id < 0 || H5Tis_variable_str(type.id) > 0) return "";
    std::string s(H5Tget_size(type.id), '\0');
    H5Aread(a.id, type.id, s.data());
    return s.c_str();
  }
};

// Frame `frame` of `a` and of `b` hold the same datasets with the same bits.
void expectSameFrame(const RawFile& a, const RawFile& b, const std::string& frame) {
  const std::string g = "/frames/" + frame;
  const auto names = a.datasets(g);
  ASSERT_EQ(names, b.datasets(g)) << frame;
  ASSERT_FALSE(names.empty()) << frame;
  for (const auto& n : names) {
    std::string ea, eb;
    const auto va = a.bytes(g + "/" + n, &ea), vb = b.bytes(g + "/" + n, &eb);
    ASSERT_TRUE(ea.empty() && eb.empty()) << ea << eb;
    EXPECT_TRUE(va == vb) << g << "/" << n << " differs";
  }
}

// The dataset lines ("/name <hex>") of a checkpoint's checksums: its whole state, bit for bit.
std::string stateChecksums(const std::string& checkpoint) {
  RawFile f(checkpoint);
  EXPECT_TRUE(f.ok()) << checkpoint;
  std::istringstream in(f.stringAttribute("kinema_checksums"));
  std::string line, out;
  while (std::getline(in, line))
    if (!line.empty() && line[0] == '/') out += line + "\n";
  return out;
}

// diagnostics.csv without its timing columns (wall_seconds, seconds_*, bdem's time_*): the only
// ones that differ between two runs of the same steps.
std::string diagnosticsWithoutTimings(const std::string& dir) {
  std::istringstream in(readFile(dir + "/diagnostics.csv"));
  std::string line, out;
  std::vector<bool> timing;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    if (timing.empty())
      for (const auto& c : cells) timing.push_back(c.find("seconds") != std::string::npos || c.rfind("time_", 0) == 0);
    for (std::size_t i = 0; i < cells.size(); ++i)
      if (i >= timing.size() || !timing[i]) out += cells[i] + ",";
    out += "\n";
  }
  return out;
}

std::string frameName(long k) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%06ld", k);
  return buf;
}

// The uninterrupted run at `np` ranks (one per rank count, shared by the tests).
const std::string& reference(int np) {
  static std::map<int, std::string> runs;
  auto it = runs.find(np);
  if (it != runs.end()) return it->second;
  const std::string dir = test::scratchDir("kill_reference_" + std::to_string(np));
  const std::string scene = writeScene(dir);
  Result r = runCmd(launcher(np) + kinemaBin() + " run " + scene + " --output " + dir + "/full", dir + "/full.log");
  EXPECT_EQ(r.status, 0) << r.output;
  return runs[np] = dir + "/full";
}

// Kills a run at `killAt` (KINEMA_TEST_KILL_AT), checks what it left, restarts from the last good
// checkpoint and compares with the uninterrupted run. `framesLeft`: the complete frames expected
// after the kill; `lastCheckpoint`: the step of the last checkpoint expected to survive;
// `diagnosticsRows`: the rows of the diagnostics table frames.h5 holds (as of the last flush).
void killAndRestart(int np, const std::string& name, const std::string& killAt, long framesLeft, long lastCheckpoint,
                    long diagnosticsRows) {
  const std::string full = reference(np);
  ASSERT_FALSE(::testing::Test::HasFailure());
  const std::string dir = test::scratchDir("kill_" + name);
  const std::string scene = writeScene(dir);
  const std::string out = dir + "/out";

  // 1. The run dies by SIGKILL (at 1 rank: 128 + 9 from the shell's wait; mpiexec reports the
  //    rank it lost with a status of its own).
  Result killed = runCmd("env KINEMA_TEST_KILL_AT=" + killAt + " " + launcher(np) + kinemaBin() + " run " + scene +
                             " --output " + out,
                         dir + "/killed.log");
  if (np == 1) EXPECT_EQ(killed.status, 128 + 9) << killed.output;
  else EXPECT_NE(killed.status, 0) << killed.output;
  EXPECT_EQ(readStatus(out)["state"], "running") << "the run was not killed: " << killed.output;

  // 2. frames.h5 opens; the frames before the kill are complete and match the uninterrupted run;
  //    the frame being written is absent or not marked complete.
  {
    RawFile f(out + "/frames.h5"), ref(full + "/frames.h5");
    ASSERT_TRUE(f.ok()) << out << "/frames.h5 cannot be opened after the kill";
    ASSERT_TRUE(ref.ok());
    const auto frames = f.frames();
    ASSERT_GE(static_cast<long>(frames.size()), framesLeft) << killed.output;
    for (long k = 0; k < framesLeft; ++k) {
      ASSERT_EQ(frames[static_cast<std::size_t>(k)], frameName(k));
      EXPECT_TRUE(f.hasAttribute("/frames/" + frameName(k), "complete")) << "frame " << k;
      expectSameFrame(f, ref, frameName(k));
    }
    for (std::size_t k = static_cast<std::size_t>(framesLeft); k < frames.size(); ++k)
      EXPECT_FALSE(f.hasAttribute("/frames/" + frames[k], "complete")) << "frame " << frames[k] << " after the kill";
    std::string error;
    const auto table = f.bytes("/diagnostics", &error);
    EXPECT_TRUE(error.empty()) << error;
    const auto ref12 = ref.bytes("/diagnostics", &error);
    ASSERT_EQ(ref12.size() % kSteps, 0u);
    EXPECT_EQ(table.size(), ref12.size() / kSteps * static_cast<std::size_t>(diagnosticsRows))
        << "rows of /diagnostics in frames.h5";
  }
  // 3. The XDMF is well formed and lists exactly the complete frames.
  {
    const test::XdmfSummary x = test::checkXdmf(out + "/frames.xdmf");
    EXPECT_TRUE(x.problems.empty()) << x.problems.front();
    ASSERT_EQ(x.frames.size(), 1u);
    EXPECT_EQ(static_cast<long>(x.frames[0]), framesLeft);
  }
  // 4. The last checkpoint status.yaml names is the expected one, and it and every earlier one
  //    open with their checksums verified; nothing carries the name of the one being written.
  const std::string last = readStatus(out)["last_checkpoint"];
  EXPECT_EQ(fs::path(last).filename().string(), fs::path(checkpointPath(out, lastCheckpoint)).filename().string());
  for (long s = 3; s <= lastCheckpoint; s += 3) {
    try {
      io::CheckpointReader in(checkpointPath(out, s), Comm::self());
      EXPECT_EQ(in.readInt("runner_step"), s);
    } catch (const Error& e) {
      ADD_FAILURE() << "checkpoint " << s << " unreadable after the kill: " << e.message();
    }
  }
  EXPECT_FALSE(fs::exists(checkpointPath(out, lastCheckpoint + 3)));

  // 5. The restart from it continues bitwise like the uninterrupted run, in the same directory,
  //    without setting frames.h5 aside as damaged.
  Result again = runCmd(launcher(np) + kinemaBin() + " run " + scene + " --output " + out + " --restart " +
                            checkpointPath(out, lastCheckpoint),
                        dir + "/restart.log");
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_FALSE(has(again.output, "warning")) << again.output;
  EXPECT_EQ(readStatus(out)["state"], "completed");
  for (const auto& e : fs::directory_iterator(out)) EXPECT_EQ(e.path().string().find(".damaged"), std::string::npos) << e.path().string();
  for (const auto& e : fs::directory_iterator(out + "/checkpoints"))
    EXPECT_EQ(e.path().extension().string(), ".h5") << e.path().string() << " left over";
  {
    RawFile f(out + "/frames.h5"), ref(full + "/frames.h5");
    ASSERT_TRUE(f.ok() && ref.ok());
    ASSERT_EQ(f.frames(), ref.frames());
    ASSERT_EQ(static_cast<long>(f.frames().size()), kSteps + 1);
    for (const auto& frame : ref.frames()) expectSameFrame(f, ref, frame);
  }
  const std::string diagnostics = diagnosticsWithoutTimings(out);
  EXPECT_EQ(std::count(diagnostics.begin(), diagnostics.end(), '\n'), kSteps + 1) << diagnostics;  // header + a row per step
  EXPECT_EQ(diagnostics, diagnosticsWithoutTimings(full));
  EXPECT_EQ(stateChecksums(checkpointPath(out, kSteps)), stateChecksums(checkpointPath(full, kSteps)));
  EXPECT_NE(stateChecksums(checkpointPath(full, kSteps)), "");
}

}  // namespace

// Frame 5 (after step 5) dies after its datasets are written: frames 0-4 are complete (frame 4
// was made durable by its own flush alone: the checkpoint of step 3 came before it), and the
// checkpoint of step 3 is the last.
TEST(Kill, DuringFrameWriteOneRank) { killAndRestart(1, "frame_np1", "frame:5", 5, 3, 3); }

// The second checkpoint (step 6) dies before it is closed and renamed: frames 0-6 are complete,
// the checkpoint of step 3 is the last, and frames.h5 holds the diagnostics of steps 1-6 (it is
// flushed after they are written, before the checkpoint begins).
TEST(Kill, DuringCheckpointWriteOneRank) { killAndRestart(1, "checkpoint_np1", "checkpoint:2", 7, 3, 6); }

// At 2 ranks one rank dies; mpiexec ends the other. Rank 1 in a frame (rank 0 writes HDF5's
// metadata and the XDMF), rank 0 in a checkpoint (it renames and stores the checksums).
TEST(Kill, DuringFrameWriteTwoRanks) { killAndRestart(2, "frame_np2", "frame:5@1", 5, 3, 3); }

TEST(Kill, DuringCheckpointWriteTwoRanks) { killAndRestart(2, "checkpoint_np2", "checkpoint:2@0", 7, 3, 6); }

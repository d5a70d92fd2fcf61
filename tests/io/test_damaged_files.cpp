// Damaged HDF5 files of the kinds fuzzing found (docs/reliability.md, "Fuzzing"), kept in
// tests/io/data: each reader must refuse them with an InputError naming the file and the object,
// quickly, at 1 and 2 ranks (the same message on every rank), instead of hanging or allocating
// what the damaged file claims.
//
// - checkpoint_heap_loop.h5: a checkpoint found by fuzz_checkpoint whose root group's local heap
//   (the store of the group's link names) has a free list that loops on itself; HDF5 1.10 followed
//   it without end (over 20 s and gigabytes) as soon as a name in the root group was looked up.
// - strands_offsets_extent.h5: a strand set whose /strands/vertex_offset claims 2^29 entries (4 GiB
//   of integers) in a file of 5.7 KB: the kind of strand set on which fuzz_strands ran out of
//   memory (the fuzzer's inputs were not kept; this one is a seed with that dataspace changed).
// - checkpoint_dataset_extent.h5: the same for a checkpoint: /impact_state claims 2^30 values
//   (8 GiB) in 9 KB; the checksum walk read them as fill values.
// - hdf5_open_sohm_segv.h5, hdf5_btree_accum_segv.h5: files on which HDF5 1.10.8 itself crashes
//   (a null read in H5F__accum_read, through a message flagged as shared and through a group
//   B-tree; h5dump -H crashes on both): refused after a child process crashed reading them
//   (hdf5_probe.hpp).
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <unistd.h>

#include "framework/core/error.hpp"
#include "framework/io/checkpoint.hpp"
#include "framework/io/hdf5_file.hpp"
#include "framework/io/hdf5_probe.hpp"
#include "modules/bdem/particle_file.hpp"
#include "modules/der/strand_set_file.hpp"
#include "test_util.hpp"

namespace kinema::io {
namespace {

std::string data(const std::string& name) { return std::string(KINEMA_SOURCE_DIR) + "/tests/io/data/" + name; }

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// Runs `read`, which must throw InputError within `seconds` on every rank with the same message;
// returns the message.
std::string refusedQuickly(const std::function<void()>& read, double seconds = 5) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string msg = test::messageOf<InputError>(read);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(took, seconds) << msg;
  EXPECT_EQ(Comm::world().broadcast(msg), msg) << "ranks disagree on the error";
  return msg;
}

TEST(DamagedFiles, LoopingLocalHeapIsRefusedBeforeHdf5WalksIt) {
  const std::string file = data("checkpoint_heap_loop.h5");
  std::string msg = refusedQuickly([&] { H5File f(file, H5File::Mode::read, Comm::world()); });
  EXPECT_TRUE(has(msg, file)) << msg;
  EXPECT_TRUE(has(msg, "local heap at byte 680")) << msg;
  EXPECT_TRUE(has(msg, "loops")) << msg;
  msg = refusedQuickly([&] { CheckpointReader in(file, Comm::world()); });
  EXPECT_TRUE(has(msg, "checkpoint " + file)) << msg;
  EXPECT_TRUE(has(msg, "local heap")) << msg;
  // The check itself, without an MPI open: the same answer.
  EXPECT_TRUE(has(damagedLocalHeap(file), "local heap at byte 680"));
  // Opened to append (frames.h5 of a restart), the same file is refused as quickly, and left as
  // it was (the restart then sets it aside; Session::openFrames).
  const std::string copy = test::scratchDir("damaged_append") + "/frames.h5";
  if (Comm::world().isRoot()) std::filesystem::copy_file(file, copy, std::filesystem::copy_options::overwrite_existing);
  Comm::world().barrier();
  const auto before = std::filesystem::file_size(copy);
  msg = refusedQuickly([&] { H5File f(copy, H5File::Mode::append, Comm::world()); });
  EXPECT_TRUE(has(msg, "loops")) << msg;
  EXPECT_EQ(std::filesystem::file_size(copy), before);
}

// checkpoint_numeric_layout.h5 (found by fuzz_checkpoint, 27 Nov 2026): an integer attribute whose
// stored precision does not fit its size; reading it as a real made HDF5's conversion read far
// outside its buffer (SIGBUS in H5T__bit_copy). Refused before any conversion.
TEST(DamagedFiles, NumericTypeWhoseBitsDoNotFitIsRefused) {
  const std::string file = data("checkpoint_numeric_layout.h5");
  CheckpointReader in(file, Comm::world());
  std::string refusal;  // every value the runner and impact read on a restart, as a real
  for (const char* name : {"runner_step", "runner_time", "runner_frames", "runner_rows", "impact_step", "impact_time",
                           "impact_energy0", "impact_solves", "impact_bodies"}) {
    if (!in.has(name)) continue;
    try {
      (void)in.readReal(name);
    } catch (const InputError& e) {
      refusal += e.message();
    }
  }
  EXPECT_TRUE(has(refusal, file)) << refusal;
  EXPECT_TRUE(has(refusal, "do not fit")) << refusal;
}

// strands_compact_empty.h5 (found by fuzz_strands, 27 Nov 2026): /strands/vertex_offset is a
// compact dataset of 2 values whose stored block is empty; HDF5 copied the values from address 0
// (SIGSEGV). Refused before the read.
TEST(DamagedFiles, CompactDatasetWithoutItsValuesIsRefused) {
  const std::string file = data("strands_compact_empty.h5");
  const std::string msg = refusedQuickly([&] { der::readStrandOffsets(file, Comm::world()); });
  EXPECT_TRUE(has(msg, file)) << msg;
  EXPECT_TRUE(has(msg, "/strands/vertex_offset")) << msg;
  EXPECT_TRUE(has(msg, "compact dataset")) << msg;
}

TEST(DamagedFiles, ExtentBeyondTheFileIsRefusedByEveryReader) {
  const std::string strands = data("strands_offsets_extent.h5");
  std::string msg = refusedQuickly([&] { der::readStrandOffsets(strands, Comm::world()); });
  EXPECT_TRUE(has(msg, strands)) << msg;
  EXPECT_TRUE(has(msg, "/strands/vertex_offset")) << msg;
  EXPECT_TRUE(has(msg, "more than the file's size")) << msg;
  msg = refusedQuickly([&] { der::readStrandSet(strands, Comm::world(), 0, 0); });
  EXPECT_TRUE(has(msg, "/strands/vertex_offset")) << msg;

  const std::string ckpt = data("checkpoint_dataset_extent.h5");
  // The checksum walk (at open) meets the dataset first.
  msg = refusedQuickly([&] { CheckpointReader in(ckpt, Comm::world()); });
  EXPECT_TRUE(has(msg, ckpt)) << msg;
  EXPECT_TRUE(has(msg, "/impact_state")) << msg;
  EXPECT_TRUE(has(msg, "8589934592 bytes")) << msg;
  // H5File alone (the path of a checkpoint of the format before checksums) refuses it too.
  H5File f(ckpt, H5File::Mode::read, Comm::world());
  msg = refusedQuickly([&] { f.readAll("/impact_state"); });
  EXPECT_TRUE(has(msg, "/impact_state")) << msg;
  msg = refusedQuickly([&] { f.readSlab("/impact_state", 0, 1); });
  EXPECT_TRUE(has(msg, "more than the file's size")) << msg;
  // The other datasets of the file still read.
  EXPECT_EQ(f.shape("/impact_totals"), (Shape{5}));
  EXPECT_EQ(f.readAll("/impact_totals").size(), 5u);
}

// A strand set whose strand count is INT64_MAX or negative (the fuzz_strands finding of CI: the
// expected offset count S + 1 overflowed) is refused with the count in the message.
TEST(DamagedFiles, StrandCountAtTheEndsOfInt64IsRefused) {
  const std::string dir = test::scratchDir("damaged_strand_count");
  for (const std::int64_t S : {std::numeric_limits<std::int64_t>::max(), std::int64_t{-1},
                               std::numeric_limits<std::int64_t>::min()}) {
    const std::string path = dir + "/count.h5";
    {
      H5File f(path, H5File::Mode::create, Comm::world());
      f.writeAttribute("/strands", "format", std::string("kinema-der-strands"));
      f.writeAttribute("/strands", "version", std::int64_t{1});
      f.writeAttribute("/strands", "strands", S);
      f.writeAttribute("/strands", "vertices", std::int64_t{3});
      const std::vector<std::int64_t> off{0, 3};
      f.writeArray("/strands/vertex_offset", {2}, off);
    }
    const std::string msg = refusedQuickly([&] { der::readStrandOffsets(path, Comm::world()); });
    EXPECT_TRUE(has(msg, path)) << msg;
    EXPECT_TRUE(has(msg, std::to_string(S))) << msg;
  }
}

// A bdem particle file whose positions claim 2^27 rows (3 GiB) never written, and one whose
// radii disagree with the positions' row count: both refused before the values are read.
TEST(DamagedFiles, ParticleFileExtentsAreChecked) {
  const std::string dir = test::scratchDir("damaged_particles");
  const std::string big = dir + "/big.h5", rows = dir + "/rows.h5";
  if (Comm::world().isRoot()) {
    auto make = [](const std::string& path, hsize_t n, hsize_t radii) {
      hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
      hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
      H5Pset_create_intermediate_group(lcpl, 1);
      hsize_t p[2] = {n, 3};
      hid_t sp = H5Screate_simple(2, p, nullptr), sr = H5Screate_simple(1, &radii, nullptr);
      hid_t dp = H5Dcreate2(f, "/particles/position", H5T_IEEE_F64LE, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT);
      hid_t dr = H5Dcreate2(f, "/particles/radius", H5T_IEEE_F64LE, sr, lcpl, H5P_DEFAULT, H5P_DEFAULT);
      if (n <= 16) H5Dwrite(dp, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, std::vector<double>(3 * n, 0.0).data());
      H5Dclose(dp);
      H5Dclose(dr);
      H5Sclose(sp);
      H5Sclose(sr);
      H5Pclose(lcpl);
      H5Fclose(f);
    };
    make(big, hsize_t(1) << 27, 1);
    make(rows, 2, hsize_t(1) << 27);
  }
  Comm::world().barrier();
  bdem::ParticleFileOptions o;
  o.path = big;
  std::string msg = refusedQuickly([&] { bdem::readParticleFile(o); });
  EXPECT_TRUE(has(msg, big)) << msg;
  EXPECT_TRUE(has(msg, "/particles/position")) << msg;
  EXPECT_TRUE(has(msg, "more than the file's size")) << msg;
  o.path = rows;
  msg = refusedQuickly([&] { bdem::readParticleFile(o); });
  EXPECT_TRUE(has(msg, "/particles/radius")) << msg;
}

// The files on which HDF5 itself crashes: a child process meets the crash, this process refuses
// the file with an InputError naming it and the signal, on every rank, through H5File and the
// checkpoint reader. Without the check (KINEMA_HDF5_CHECK=off) the probe gives no verdict; the
// file is not opened here then, since this process would crash.
TEST(DamagedFiles, FilesOnWhichHdf5CrashesAreRefusedFromAChildProcess) {
  for (const char* name : {"hdf5_open_sohm_segv.h5", "hdf5_btree_accum_segv.h5"}) {
    const std::string file = data(name);
    std::string msg = refusedQuickly([&] { H5File f(file, H5File::Mode::read, Comm::world()); });
    EXPECT_TRUE(has(msg, file)) << msg;
    EXPECT_TRUE(has(msg, "crashed with signal")) << msg;
    EXPECT_TRUE(has(msg, "child process")) << msg;
    msg = refusedQuickly([&] { CheckpointReader in(file, Comm::world()); });
    EXPECT_TRUE(has(msg, "checkpoint " + file)) << msg;
    EXPECT_TRUE(has(msg, "crashed with signal")) << msg;
    msg = refusedQuickly([&] { der::readStrandOffsets(file, Comm::world()); });
    EXPECT_TRUE(has(msg, file)) << msg;
    Hdf5ProbeSettings off;
    off.enabled = false;
    EXPECT_EQ(probeHdf5InChild(file, off), "");
  }
}

// tests/io/data/hdf5_crashes: inputs that fuzz_checkpoint and fuzz_strands were running when
// HDF5 1.10.8 crashed (SIGSEGV in H5F__accum_read), 26-27 Nov 2026; of the 817 inputs left behind
// by harness processes that died, these 4 (and the two files above) crash a release build's
// checkpoint and strand readers on their own when the check is off. Every one is refused by both
// readers, and this process goes on.
TEST(DamagedFiles, EveryKeptHdf5CrashIsRefused) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(data("hdf5_crashes"))) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 4u);
  for (const auto& file : files) {
    std::string msg = refusedQuickly([&] { CheckpointReader in(file, Comm::world()); });
    EXPECT_TRUE(has(msg, file) && has(msg, "child process")) << msg;
    msg = refusedQuickly([&] { der::readStrandSet(file, Comm::world(), 0, 1); });
    EXPECT_TRUE(has(msg, file) && has(msg, "child process")) << msg;
  }
}

// A child that hangs before it reads anything (as one forked while another thread held a lock it
// needs would: an MPI progress thread, the allocator of clang 14's AddressSanitizer) is killed
// at the timeout and followed by a second child; a good file then passes. Two hung children
// refuse the file, after both timeouts.
TEST(DamagedFiles, AHungChildIsFollowedByASecondOne) {
  const std::string good = test::scratchDir("probe_hung") + "/good.h5";
  {
    H5File f(good, H5File::Mode::create, Comm::world());
    const std::vector<double> v{1, 2, 3};
    f.writeSlab("/a", {3}, 0, Comm::world().isRoot() ? std::span<const double>(v) : std::span<const double>());
  }
  if (!Comm::world().isRoot()) return;
  const auto timed = [&](void (*hold)(int)) {
    Hdf5ProbeSettings s;
    s.timeoutSeconds = 1;
    s.beforeWalk = hold;
    const auto t0 = std::chrono::steady_clock::now();
    std::string msg = probeHdf5InChild(good, s);
    return std::make_pair(msg, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
  auto [msg, took] = timed([](int attempt) {
    if (attempt == 0)
      for (;;) ::pause();
  });
  EXPECT_EQ(msg, "");
  EXPECT_GE(took, 1.0);
  EXPECT_LT(took, 4.0);
  std::tie(msg, took) = timed([](int) {
    for (;;) ::pause();
  });
  EXPECT_TRUE(has(msg, "did not finish within 1 s, twice")) << msg;
  EXPECT_GE(took, 2.0);
  EXPECT_LT(took, 5.0);
}

// Files HDF5 reads (or refuses cleanly) pass the check: a file just written, and damaged files
// whose problem the readers of this process find themselves (their messages are tested above).
TEST(DamagedFiles, TheChildCheckPassesFilesHdf5ReadsOrRefusesCleanly) {
  const std::string good = test::scratchDir("probe_good") + "/good.h5";
  {
    H5File f(good, H5File::Mode::create, Comm::world());
    const std::vector<double> v{1, 2, 3, 4, 5, 6};
    f.writeSlab("/a/b", {2, 3}, 0, Comm::world().isRoot() ? std::span<const double>(v) : std::span<const double>());
    f.writeAttribute("/a", "name", std::string("x"));
    f.writeAttribute("/a/b", "n", std::int64_t{7});
  }
  if (Comm::world().isRoot()) {
    const Hdf5ProbeSettings on;
    EXPECT_EQ(probeHdf5InChild(good, on), "");
    for (const char* name : {"checkpoint_dataset_extent.h5", "strands_offsets_extent.h5", "strands_compact_empty.h5",
                             "checkpoint_numeric_layout.h5"})
      EXPECT_EQ(probeHdf5InChild(data(name), on), "") << name;
    // Not HDF5 at all: HDF5 refuses it cleanly in the child; the open here names it.
    EXPECT_EQ(probeHdf5InChild(std::string(KINEMA_SOURCE_DIR) + "/README.md", on), "");
  }
  H5File f(good, H5File::Mode::read, Comm::world());
  EXPECT_EQ(f.readAttributeInt("/a/b", "n"), 7);
}

// A child that does not finish in time is killed, and so is the second one tried after it, and the
// file refused, naming the timeout and the variable that sets it: the looping local heap (refused earlier by damagedLocalHeap in H5File)
// keeps HDF5 busy without end.
TEST(DamagedFiles, TheChildCheckIsBoundedInTime) {
  if (!Comm::world().isRoot()) return;
  Hdf5ProbeSettings s;
  s.timeoutSeconds = 1;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string msg = probeHdf5InChild(data("checkpoint_heap_loop.h5"), s);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(has(msg, "did not finish within 1 s, twice")) << msg;
  EXPECT_TRUE(has(msg, "KINEMA_HDF5_CHECK_TIMEOUT")) << msg;
  EXPECT_GE(took, 2) << msg;  // a second child was tried
  EXPECT_LT(took, 5) << msg;
}

// The two environment variables: defaults, accepted values, and bad values refused by name.
TEST(DamagedFiles, TheChildCheckSettingsComeFromTheEnvironment) {
  ::unsetenv("KINEMA_HDF5_CHECK");
  ::unsetenv("KINEMA_HDF5_CHECK_TIMEOUT");
  Hdf5ProbeSettings s = hdf5ProbeSettingsFromEnv();
  EXPECT_TRUE(s.enabled);
  EXPECT_EQ(s.timeoutSeconds, 60);
  ::setenv("KINEMA_HDF5_CHECK", "off", 1);
  ::setenv("KINEMA_HDF5_CHECK_TIMEOUT", "2.5", 1);
  s = hdf5ProbeSettingsFromEnv();
  EXPECT_FALSE(s.enabled);
  EXPECT_EQ(s.timeoutSeconds, 2.5);
  ::setenv("KINEMA_HDF5_CHECK", "maybe", 1);
  EXPECT_TRUE(has(test::messageOf<InputError>([] { hdf5ProbeSettingsFromEnv(); }), "KINEMA_HDF5_CHECK='maybe'"));
  ::setenv("KINEMA_HDF5_CHECK", "on", 1);
  for (const char* bad : {"0", "1e9", "nan", "ten", ""}) {
    ::setenv("KINEMA_HDF5_CHECK_TIMEOUT", bad, 1);
    const std::string msg = test::messageOf<InputError>([] { hdf5ProbeSettingsFromEnv(); });
    EXPECT_TRUE(has(msg, "KINEMA_HDF5_CHECK_TIMEOUT")) << bad << ": " << msg;
  }
  ::unsetenv("KINEMA_HDF5_CHECK");
  ::unsetenv("KINEMA_HDF5_CHECK_TIMEOUT");
}

}  // namespace
}  // namespace kinema::io

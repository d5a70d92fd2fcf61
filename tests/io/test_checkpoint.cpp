// Checkpoints: write/commit/read of every kind of entry, vectors read back on another
// distribution, and the files a reader must refuse.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "framework/io/checkpoint.hpp"
#include "io_test_util.hpp"
#include "test_util.hpp"

namespace kinema::io {
namespace {

using test::messageOf;

// A minimal Vector over std::vector<double> without ghosts: works at any rank count, unlike the
// single-rank Eigen backend.
class TestVector : public la::Vector {
 public:
  explicit TestVector(la::IndexMapPtr map)
      : Vector(map), data_(static_cast<std::size_t>(map->localSize()), 0.0) {}
  void updateGhosts() override {}
  void accumulateGhosts() override {}
  std::unique_ptr<Vector> clone() const override {
    auto v = std::make_unique<TestVector>(mapPtr());
    v->data_ = data_;
    return v;
  }
  std::vector<double>& data() { return data_; }

 protected:
  double* acquire(bool) override { return data_.data(); }
  void release(bool) override {}

 private:
  std::vector<double> data_;
};

double entry(la::GlobalIndex i) { return 1000.0 + i / 7.0; }

// A vector of `blocks` blocks with this rank owning `owned` of them; entry i is entry(i).
std::unique_ptr<TestVector> makeVector(la::GlobalIndex owned, int blockSize = 1) {
  auto v = std::make_unique<TestVector>(
      std::make_shared<const la::IndexMap>(Comm::world(), owned, std::vector<la::GlobalIndex>{}, blockSize));
  la::GlobalIndex first = v->map().ownedBegin() * blockSize;
  for (std::size_t k = 0; k < v->data().size(); ++k) v->data()[k] = entry(first + static_cast<la::GlobalIndex>(k));
  return v;
}

TEST(Checkpoint, RoundTrip) {
  Comm world = Comm::world();
  std::string path = test::scratchDir("ckpt_roundtrip") + "/state.ckpt";
  const la::GlobalIndex n = 11;
  auto [begin, count] = test::split(n, world);
  (void)begin;
  std::vector<double> array{0.1, -2.5, 1e300};
  {
    auto x = makeVector(count);
    auto blocked = makeVector(world.isRoot() ? 4 : 1, 2);  // uneven, block size 2
    CheckpointWriter w(path, world);
    w.writeVector("x", *x);
    w.writeVector("fields/blocked", *blocked);
    w.writeReal("time", 0.1);
    w.writeReal("tiny", -4.9e-324);
    w.writeReal("solver/tolerance", 1e-8);  // a '/' in a value's name
    w.writeInt("step", 123456789012345);
    w.writeInt("big", INT64_MIN);
    w.writeString("module", "poisson");
    w.writeString("empty", "");
    w.writeString("config", "a: 1\nb: [x, y]\n");
    w.writeArray("rng", array);
    w.writeArray("none", std::span<const double>());
    EXPECT_TRUE(std::filesystem::exists(path + ".tmp"));
    w.commit();
  }
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));

  CheckpointReader r(path, world);
  EXPECT_EQ(r.path(), path);
  EXPECT_EQ(r.readReal("time"), 0.1);
  EXPECT_EQ(r.readReal("tiny"), -4.9e-324);
  EXPECT_EQ(r.readReal("solver/tolerance"), 1e-8);
  EXPECT_EQ(r.readInt("step"), 123456789012345);
  EXPECT_EQ(r.readInt("big"), INT64_MIN);
  EXPECT_EQ(r.readString("module"), "poisson");
  EXPECT_EQ(r.readString("empty"), "");
  EXPECT_EQ(r.readString("config"), "a: 1\nb: [x, y]\n");
  EXPECT_EQ(r.readArray("rng"), array);
  EXPECT_TRUE(r.readArray("none").empty());
  for (const char* name : {"x", "fields/blocked", "time", "step", "module", "rng", "none"})
    EXPECT_TRUE(r.has(name)) << name;
  EXPECT_FALSE(r.has("missing"));
  EXPECT_FALSE(r.has("fields/other"));
  EXPECT_THROW(r.readReal("missing"), InputError);
  EXPECT_THROW(r.readArray("missing"), InputError);

  // Same distribution.
  TestVector x(la::IndexMap::uniform(world, n));
  r.readVector("x", x);
  for (std::size_t k = 0; k < x.data().size(); ++k)
    EXPECT_EQ(x.data()[k], entry(x.map().ownedBegin() + static_cast<la::GlobalIndex>(k)));
  // Another distribution (as on a restart with another rank count): the last rank owns 2 entries.
  bool last = world.rank() == world.size() - 1;
  la::GlobalIndex mine = n;
  if (world.size() > 1) {
    la::GlobalIndex rest = n - 2, others = world.size() - 1;
    mine = last ? 2 : rest / others + (world.rank() == 0 ? rest % others : 0);
  }
  TestVector y(std::make_shared<const la::IndexMap>(world, mine));
  ASSERT_EQ(y.map().globalSize(), n);
  r.readVector("x", y);
  for (std::size_t k = 0; k < y.data().size(); ++k)
    EXPECT_EQ(y.data()[k], entry(y.map().ownedBegin() + static_cast<la::GlobalIndex>(k)));
  // The blocked vector (global size 2 * (4 + ranks - 1)) into a uniform block-size-1 map.
  la::GlobalIndex blockedSize = 2 * (4 + world.size() - 1);
  TestVector z(la::IndexMap::uniform(world, blockedSize));
  r.readVector("fields/blocked", z);
  for (std::size_t k = 0; k < z.data().size(); ++k)
    EXPECT_EQ(z.data()[k], entry(z.map().ownedBegin() + static_cast<la::GlobalIndex>(k)));
}

TEST(Checkpoint, VectorSizeMismatchIsInputError) {
  Comm world = Comm::world();
  std::string path = test::scratchDir("ckpt_mismatch") + "/c.ckpt";
  {
    CheckpointWriter w(path, world);
    w.writeVector("u", *makeVector(3));
    w.commit();
  }
  CheckpointReader r(path, world);
  TestVector wrong(la::IndexMap::uniform(world, 3 * world.size() + 1));
  std::string msg = messageOf<InputError>([&] { r.readVector("u", wrong); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("'u'"), std::string::npos) << msg;
  msg = messageOf<InputError>([&] { r.readVector("v", wrong); });
  EXPECT_NE(msg.find("'v'"), std::string::npos) << msg;
}

TEST(Checkpoint, RejectsOtherFiles) {
  Comm world = Comm::world();
  std::string dir = test::scratchDir("ckpt_reject");
  std::string missing = dir + "/missing.ckpt";
  std::string msg = messageOf<InputError>([&] { CheckpointReader r(missing, world); });
  EXPECT_NE(msg.find(missing), std::string::npos) << msg;

  std::string plain = dir + "/plain.h5";
  {
    H5File f(plain, H5File::Mode::create, world);
    std::vector<double> x{1, 2};
    f.writeArray("/x", {2}, x);
  }
  msg = messageOf<InputError>([&] { CheckpointReader r(plain, world); });
  EXPECT_NE(msg.find(plain + " is not a Kinema checkpoint"), std::string::npos) << msg;

  std::string text = dir + "/text.ckpt";
  if (world.isRoot()) {
    std::FILE* f = std::fopen(text.c_str(), "w");
    std::fputs("step: 3\n", f);
    std::fclose(f);
  }
  world.barrier();
  msg = messageOf<InputError>([&] { CheckpointReader r(text, world); });
  EXPECT_NE(msg.find(text + " is not a Kinema checkpoint"), std::string::npos) << msg;
}

// The checksum attribute is text the reader parses: a line that is not "<key> <hex>" (a value out of
// 64-bit range, not hex, no value) is an InputError naming the checkpoint and the line. Found by
// tests/fuzz/fuzz_checkpoint: std::stoull's std::out_of_range escaped the reader.
TEST(Checkpoint, MalformedChecksumsAreInputError) {
  Comm world = Comm::world();
  std::string dir = test::scratchDir("ckpt_bad_checksums");
  std::string path = dir + "/c.ckpt";
  for (const char* bad : {"@runner_step 1ffffffffffffffffffff\n", "@runner_step zz\n", "@runner_step\n",
                          "@runner_step 12 \n", "@runner_step -1\n"}) {
    {
      CheckpointWriter w(path, world);
      w.writeInt("runner_step", 3);
      w.commit();
    }
    if (world.isRoot()) {
      hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
      ASSERT_GE(file, 0);
      ASSERT_GE(H5Adelete(file, "kinema_checksums"), 0);
      hid_t type = H5Tcopy(H5T_C_S1);
      H5Tset_size(type, std::strlen(bad) + 1);
      hid_t space = H5Screate(H5S_SCALAR);
      hid_t attr = H5Acreate2(file, "kinema_checksums", type, space, H5P_DEFAULT, H5P_DEFAULT);
      ASSERT_GE(H5Awrite(attr, type, bad), 0);
      H5Aclose(attr);
      H5Sclose(space);
      H5Tclose(type);
      H5Fclose(file);
    }
    world.barrier();
    std::string msg = messageOf<InputError>([&] { CheckpointReader r(path, world); });
    EXPECT_NE(msg.find("checkpoint " + path + " is corrupted: its checksums (kinema_checksums) hold a malformed line"),
              std::string::npos)
        << bad << ": " << msg;
  }
}

TEST(Checkpoint, UncommittedLeavesNoFileAndCommitReplaces) {
  Comm world = Comm::world();
  std::string path = test::scratchDir("ckpt_uncommitted") + "/c.ckpt";
  {
    CheckpointWriter w(path, world);
    w.writeInt("step", 1);
  }
  world.barrier();  // rank 0 removed the temporary file
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  for (std::int64_t step : {2, 3}) {
    CheckpointWriter w(path, world);
    w.writeInt("step", step);
    w.commit();
  }
  {
    // An abandoned newer checkpoint leaves the committed one intact.
    CheckpointWriter w(path, world);
    w.writeInt("step", 4);
  }
  world.barrier();
  EXPECT_EQ(CheckpointReader(path, world).readInt("step"), 3);
}

}  // namespace
}  // namespace kinema::io

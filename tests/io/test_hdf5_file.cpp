// H5File: parallel slabs, replicated arrays and attributes, queries, and errors that name the
// file and object.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "framework/io/hdf5_file.hpp"
#include "io_test_util.hpp"
#include "test_util.hpp"

namespace kinema::io {
namespace {

using test::messageOf;
using test::split;

double value(std::uint64_t row, std::uint64_t col) { return 10.0 * static_cast<double>(row) + 0.125 * col; }

TEST(H5File, SlabRoundTrip) {
  Comm world = Comm::world();
  std::string path = test::scratchDir("h5_slab") + "/slab.h5";
  const std::uint64_t rows = 7, cols = 3;
  auto [begin, count] = split(rows, world);
  std::vector<double> local;
  std::vector<std::int64_t> localInt;
  for (std::int64_t r = begin; r < begin + count; ++r) {
    localInt.push_back(-5 * r);
    for (std::uint64_t c = 0; c < cols; ++c) local.push_back(value(static_cast<std::uint64_t>(r), c));
  }
  {
    H5File f(path, H5File::Mode::create, world);
    f.writeSlab("/data/real", {rows, cols}, static_cast<std::uint64_t>(begin), local);
    f.writeSlab("data/int", {rows}, static_cast<std::uint64_t>(begin), localInt);
    // Every row on rank 0: the other ranks write nothing but still take part.
    std::vector<double> all;
    if (world.isRoot())
      for (std::uint64_t r = 0; r < rows; ++r) all.push_back(static_cast<double>(r));
    f.writeSlab("/data/rank0", {rows}, 0, all);
  }
  H5File f(path, H5File::Mode::read, world);
  EXPECT_EQ(f.shape("/data/real"), (Shape{rows, cols}));
  EXPECT_EQ(f.shape("/data/int"), (Shape{rows}));
  std::vector<double> real = f.readAll("/data/real");
  ASSERT_EQ(real.size(), rows * cols);
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = 0; c < cols; ++c) EXPECT_EQ(real[r * cols + c], value(r, c));
  std::vector<std::int64_t> ints = f.readAllInt("/data/int");
  ASSERT_EQ(ints.size(), rows);
  for (std::uint64_t r = 0; r < rows; ++r) EXPECT_EQ(ints[r], -5 * static_cast<std::int64_t>(r));
  std::vector<double> r0 = f.readAll("/data/rank0");
  for (std::uint64_t r = 0; r < rows; ++r) EXPECT_EQ(r0[r], static_cast<double>(r));
  // Each rank reads back its own rows.
  EXPECT_EQ(f.readSlab("/data/real", static_cast<std::uint64_t>(begin), static_cast<std::uint64_t>(count)),
            local);
  EXPECT_EQ(f.readSlabInt("/data/int", static_cast<std::uint64_t>(begin), static_cast<std::uint64_t>(count)),
            localInt);
  EXPECT_THROW(f.readSlab("/data/real", 5, 3), Error);  // past the last row
}

TEST(H5File, OverwriteSameShapeRejectsOtherShape) {
  Comm world = Comm::world();
  std::string path = test::scratchDir("h5_overwrite") + "/f.h5";
  H5File f(path, H5File::Mode::create, world);
  std::vector<double> a{1, 2, 3, 4}, b{5, 6, 7, 8};
  f.writeArray("/x", {2, 2}, a);
  f.writeArray("/x", {2, 2}, b);  // a restart rewrites the same dataset
  EXPECT_EQ(f.readAll("/x"), b);
  std::string msg = messageOf<Error>([&] { f.writeArray("/x", {4}, a); });
  EXPECT_NE(msg.find("/x"), std::string::npos) << msg;
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  std::vector<std::int64_t> ints{1, 2, 3, 4};
  EXPECT_THROW(f.writeArray("/x", {2, 2}, ints), Error);  // same shape, other value type
  EXPECT_EQ(f.readAll("/x"), b);
}

TEST(H5File, ReplicatedArraysAttributesAndQueries) {
  Comm world = Comm::world();
  std::string path = test::scratchDir("h5_replicated") + "/f.h5";
  std::vector<double> matrix{1.5, -2, 3, 4, 5, 6.25};
  std::vector<std::int64_t> ints{7, -8, INT64_MAX, INT64_MIN};
  {
    H5File f(path, H5File::Mode::create, world);
    f.writeArray("/a/b/matrix", {2, 3}, matrix);
    f.writeArray("/a/ints", {4}, ints);
    f.writeArray("/a/empty", {0, 3}, std::span<const double>());
    f.writeAttribute("/a/b/matrix", "units", std::string("m/s"));
    f.writeAttribute("/meta", "pi", 3.141592653589793);  // creates the group /meta
    f.writeAttribute("/meta", "n", std::int64_t{-42});
    f.writeAttribute("/meta", "name", std::string("short"));
    f.writeAttribute("/meta", "name", std::string("a longer replacement"));
    f.writeAttribute("/meta", "empty", std::string());
    f.writeAttribute("/", "root", std::int64_t{1});
    f.createGroup("/g/h");
    f.createGroup("/g/h");  // idempotent
    f.createGroup("/g/removed");
    f.remove("/g/removed");
    f.remove("/never/there");  // no-op
    EXPECT_THROW(f.createGroup("/a/ints"), Error);  // a dataset, not a group
    f.flush();
  }
  H5File f(path, H5File::Mode::read, world);
  EXPECT_EQ(f.readAll("/a/b/matrix"), matrix);
  EXPECT_EQ(f.shape("/a/b/matrix"), (Shape{2, 3}));
  EXPECT_EQ(f.readAllInt("/a/ints"), ints);
  EXPECT_EQ(f.shape("/a/empty"), (Shape{0, 3}));
  EXPECT_TRUE(f.readAll("/a/empty").empty());
  EXPECT_EQ(f.readAttributeString("/a/b/matrix", "units"), "m/s");
  EXPECT_EQ(f.readAttributeReal("/meta", "pi"), 3.141592653589793);
  EXPECT_EQ(f.readAttributeInt("/meta", "n"), -42);
  EXPECT_EQ(f.readAttributeReal("/meta", "n"), -42.0);  // numbers convert
  EXPECT_EQ(f.readAttributeString("/meta", "name"), "a longer replacement");
  EXPECT_EQ(f.readAttributeString("/meta", "empty"), "");
  EXPECT_EQ(f.readAttributeInt("/", "root"), 1);
  EXPECT_TRUE(f.hasAttribute("/meta", "pi"));
  EXPECT_FALSE(f.hasAttribute("/meta", "e"));
  EXPECT_FALSE(f.hasAttribute("/nowhere", "pi"));
  EXPECT_TRUE(f.exists("/"));
  EXPECT_TRUE(f.exists("/a/b/matrix"));
  EXPECT_TRUE(f.exists("a/b"));
  EXPECT_FALSE(f.exists("/a/c"));
  EXPECT_FALSE(f.exists("/x/y/z"));  // missing intermediate group
  EXPECT_FALSE(f.exists("/g/removed"));
  EXPECT_EQ(f.children("/"), (std::vector<std::string>{"a", "g", "meta"}));
  EXPECT_EQ(f.children("/a"), (std::vector<std::string>{"b", "empty", "ints"}));
  EXPECT_TRUE(f.children("/g/h").empty());
  EXPECT_THROW(f.children("/missing"), Error);
  EXPECT_THROW(f.readAttributeString("/meta", "pi"), Error);  // not a string
}

TEST(H5File, ErrorsNameFileAndObject) {
  Comm world = Comm::world();
  std::string dir = test::scratchDir("h5_errors");
  std::string missing = dir + "/missing.h5";
  std::string msg = messageOf<InputError>([&] { H5File f(missing, H5File::Mode::read, world); });
  EXPECT_NE(msg.find(missing), std::string::npos) << msg;
  msg = messageOf<InputError>([&] { H5File f(missing, H5File::Mode::append, world); });
  EXPECT_NE(msg.find(missing), std::string::npos) << msg;

  std::string text = dir + "/text.h5";
  if (world.isRoot()) {
    std::FILE* t = std::fopen(text.c_str(), "w");
    std::fputs("not hdf5\n", t);
    std::fclose(t);
  }
  world.barrier();
  msg = messageOf<InputError>([&] { H5File f(text, H5File::Mode::read, world); });
  EXPECT_NE(msg.find(text), std::string::npos) << msg;

  std::string path = dir + "/f.h5";
  H5File f(path, H5File::Mode::create, world);
  f.createGroup("/grp");
  msg = messageOf<Error>([&] { f.readAll("/grp/nothing"); });
  EXPECT_NE(msg.find("/grp/nothing"), std::string::npos) << msg;
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  msg = messageOf<Error>([&] { f.readAttributeReal("/grp", "nope"); });
  EXPECT_NE(msg.find("nope"), std::string::npos) << msg;
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  msg = messageOf<Error>([&] { f.readAll("/grp"); });  // a group, not a dataset
  EXPECT_NE(msg.find("/grp"), std::string::npos) << msg;
  std::vector<double> three{1, 2, 3};
  EXPECT_THROW(f.writeArray("/bad", {2, 2}, three), Error);  // wrong count
  f.close();
  EXPECT_THROW(f.exists("/grp"), Error);  // closed
}

}  // namespace
}  // namespace kinema::io

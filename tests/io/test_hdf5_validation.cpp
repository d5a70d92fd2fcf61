// H5File refuses a file whose objects are not what the reader expects, before it reads them: the
// files are crafted with the raw HDF5 C API (an array attribute where a scalar is expected,
// values of another class, a group where a dataset is expected, rows past the end, missing and
// dangling objects), and each read must throw InputError naming the file and the object, print
// nothing of HDF5's error stack, leave the file usable, and (at 2 ranks) fail on every rank when
// only one rank asks for rows out of range.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "framework/io/hdf5_file.hpp"
#include "io_test_util.hpp"
#include "test_util.hpp"

namespace kinema::io {
namespace {

// Writes the bad file on rank 0 with the serial C API. Returns false (and records a failure) if
// the HDF5 library refused to build it.
bool craft(const std::string& path) {
  bool ok = true;
  auto check = [&](long long id, const char* what) {
    if (id < 0) {
      ADD_FAILURE() << "crafting " << path << ": " << what << " failed";
      ok = false;
    }
    return id;
  };
  hid_t f = check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), "H5Fcreate");
  if (f < 0) return false;
  hid_t scalar = H5Screate(H5S_SCALAR);
  auto attribute = [&](hid_t obj, const char* name, hid_t type, hid_t space, const void* data) {
    hid_t a = check(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), name);
    if (a >= 0 && data) check(H5Awrite(a, type, data), name);
    if (a >= 0) H5Aclose(a);
  };
  auto simple = [](std::vector<hsize_t> dims) {
    return H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  };

  // The crash of the issue: a checkpoint's step counter stored as 256 values.
  std::vector<std::int64_t> many(256, 7);
  hid_t s256 = simple({256});
  attribute(f, "runner_step", H5T_STD_I64LE, s256, many.data());
  // One element in a simple dataspace (h5py's `attrs["n"] = [5]`) is still one value.
  std::int64_t five = 5;
  hid_t s1 = simple({1}), s11 = simple({1, 1});
  attribute(f, "one_element", H5T_STD_I64LE, s1, &five);
  attribute(f, "one_by_one", H5T_STD_I64LE, s11, &five);
  // A scalar dataspace whose type is an array of 256 integers: 256 values all the same.
  hsize_t n256 = 256;
  hid_t arrayType = H5Tarray_create2(H5T_STD_I64LE, 1, &n256);
  attribute(f, "array_type", arrayType, scalar, many.data());
  double half = 2.5;
  attribute(f, "real", H5T_IEEE_F64LE, scalar, &half);
  std::int64_t three = 3;
  attribute(f, "integer", H5T_STD_I64LE, scalar, &three);
  hid_t str = H5Tcopy(H5T_C_S1);
  H5Tset_size(str, 4);
  attribute(f, "text", str, scalar, "abc");
  char four[4][4] = {"one", "two", "six", "ten"};
  hid_t s4 = simple({4});
  attribute(f, "texts", str, s4, four);
  hid_t null = H5Screate(H5S_NULL);
  attribute(f, "nothing", H5T_IEEE_F64LE, null, nullptr);

  hid_t g = check(H5Gcreate2(f, "/grp", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "group");
  attribute(g, "radius", H5T_IEEE_F64LE, s256, std::vector<double>(256, 0.1).data());
  auto dataset = [&](const char* name, hid_t type, hid_t space, const void* data) {
    hid_t d = check(H5Dcreate2(f, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), name);
    if (d >= 0 && data) check(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
    if (d >= 0) H5Dclose(d);
  };
  std::vector<double> reals{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  hid_t s52 = simple({5, 2});
  dataset("/grp/reals", H5T_IEEE_F64LE, s52, reals.data());
  std::vector<std::int64_t> ints{1, 2, 3, 4};
  hid_t s4b = simple({4});
  dataset("/ints", H5T_STD_I64LE, s4b, ints.data());
  dataset("/texts", str, s4, four);
  dataset("/null", H5T_IEEE_F64LE, null, nullptr);
  // A shape whose element count does not fit in 64 bits (chunked, so nothing is allocated).
  hsize_t big[2] = {hsize_t(1) << 40, hsize_t(1) << 40}, chunk[2] = {1, 1};
  hid_t sbig = H5Screate_simple(2, big, nullptr);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 2, chunk);
  hid_t dbig = check(H5Dcreate2(f, "/huge", H5T_IEEE_F64LE, sbig, H5P_DEFAULT, dcpl, H5P_DEFAULT), "/huge");
  if (dbig >= 0) H5Dclose(dbig);
  // 2^40 values (8 TiB) that were never written: a few bytes in the file, more than any memory.
  hid_t ssparse = H5Screate_simple(1, big, nullptr);
  hid_t dcpl1 = H5Pcreate(H5P_DATASET_CREATE);
  hsize_t chunk1 = 1024;
  H5Pset_chunk(dcpl1, 1, &chunk1);
  hid_t dsparse = check(H5Dcreate2(f, "/sparse", H5T_IEEE_F64LE, ssparse, H5P_DEFAULT, dcpl1, H5P_DEFAULT), "/sparse");
  if (dsparse >= 0) H5Dclose(dsparse);
  check(H5Lcreate_soft("/no/such/target", f, "/dangling", H5P_DEFAULT, H5P_DEFAULT), "soft link");
  // 10^6 values (8 MB) in contiguous storage that was never written (serial HDF5 allocates it
  // late): HDF5 reads fill values, but no file of a few KB holds 8 MB. Within any machine's
  // memory, so only the check against the file's size refuses it.
  hsize_t million = 1000000;
  hid_t smillion = H5Screate_simple(1, &million, nullptr);
  hid_t dunwritten = check(H5Dcreate2(f, "/unwritten", H5T_IEEE_F64LE, smillion, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                           "/unwritten");
  if (dunwritten >= 0) H5Dclose(dunwritten);
  // Deflate-compressed (as h5py writes with compression="gzip"): 10^5 zeros, 800 KB that
  // compress to a few KB, are read (within 1032 times the file's size) ...
  hsize_t zeros = 100000, zchunk = 10000;
  hid_t szeros = H5Screate_simple(1, &zeros, nullptr);
  hid_t dcplz = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcplz, 1, &zchunk);
  H5Pset_deflate(dcplz, 9);
  hid_t dz = check(H5Dcreate2(f, "/gzip", H5T_IEEE_F64LE, szeros, H5P_DEFAULT, dcplz, H5P_DEFAULT), "/gzip");
  if (dz >= 0) check(H5Dwrite(dz, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, std::vector<double>(zeros, 0.0).data()), "/gzip");
  if (dz >= 0) H5Dclose(dz);
  // ... while 2^30 compressed values (8 GiB) never written are more than deflate can hold.
  hsize_t giga = hsize_t(1) << 30;
  hid_t sgiga = H5Screate_simple(1, &giga, nullptr);
  hid_t dgz = check(H5Dcreate2(f, "/gzip_unwritten", H5T_IEEE_F64LE, sgiga, H5P_DEFAULT, dcplz, H5P_DEFAULT),
                    "/gzip_unwritten");
  if (dgz >= 0) H5Dclose(dgz);
  H5Sclose(smillion);
  H5Sclose(szeros);
  H5Sclose(sgiga);
  H5Pclose(dcplz);

  for (hid_t s : {scalar, s256, s1, s11, s4, null, s52, s4b, sbig, ssparse}) H5Sclose(s);
  H5Pclose(dcpl);
  H5Pclose(dcpl1);
  H5Tclose(arrayType);
  H5Tclose(str);
  H5Gclose(g);
  check(H5Fclose(f), "H5Fclose");
  return ok;
}

// Runs `read`, which must throw InputError; returns its message, checked to name the file and
// every one of `names` (object path, attribute name). Whatever HDF5 would print to stderr while
// it runs is captured and must be empty of HDF5's error stack.
std::string refused(const std::string& file, const std::vector<std::string>& names,
                    const std::function<void()>& read) {
  std::fflush(stderr);
  const std::string errPath = file + ".stderr." + std::to_string(Comm::world().rank());
  int saved = dup(2);
  int fd = open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(fd, 2);
  close(fd);
  std::string msg = test::messageOf<InputError>(read);
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  const std::string err = test::readText(errPath);
  EXPECT_EQ(err.find("HDF5-DIAG"), std::string::npos) << err;
  EXPECT_NE(msg.find(file), std::string::npos) << "no file name in: " << msg;
  for (const auto& n : names) EXPECT_NE(msg.find(n), std::string::npos) << "no '" << n << "' in: " << msg;
  return msg;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

class H5Validation : public ::testing::Test {
 protected:
  void SetUp() override {
    Comm world = Comm::world();
    path_ = test::scratchDir("h5_validation") + "/bad.h5";
    bool ok = !world.isRoot() || craft(path_);
    ASSERT_TRUE(world.all(ok));
  }
  std::string path_;
};

TEST_F(H5Validation, AttributesMustHoldOneValueOfTheExpectedClass) {
  H5File f(path_, H5File::Mode::read, Comm::world());
  std::string msg = refused(path_, {"runner_step", "'/'"}, [&] { f.readAttributeInt("/", "runner_step"); });
  EXPECT_TRUE(has(msg, "256 values")) << msg;
  refused(path_, {"runner_step"}, [&] { f.readAttributeReal("/", "runner_step"); });
  refused(path_, {"runner_step"}, [&] { f.readAttributeString("/", "runner_step"); });
  msg = refused(path_, {"radius", "/grp"}, [&] { f.readAttributeReal("/grp", "radius"); });  // der's crash
  EXPECT_TRUE(has(msg, "shape (256)")) << msg;
  msg = refused(path_, {"array_type"}, [&] { f.readAttributeInt("/", "array_type"); });
  EXPECT_TRUE(has(msg, "array values")) << msg;
  msg = refused(path_, {"texts"}, [&] { f.readAttributeString("/", "texts"); });
  EXPECT_TRUE(has(msg, "4 values")) << msg;
  msg = refused(path_, {"nothing"}, [&] { f.readAttributeReal("/", "nothing"); });
  EXPECT_TRUE(has(msg, "null dataspace")) << msg;

  // Class mismatches say what was found.
  msg = refused(path_, {"real"}, [&] { f.readAttributeInt("/", "real"); });
  EXPECT_TRUE(has(msg, "floating-point values, integer values are expected")) << msg;
  msg = refused(path_, {"text"}, [&] { f.readAttributeReal("/", "text"); });
  EXPECT_TRUE(has(msg, "string values")) << msg;
  msg = refused(path_, {"text"}, [&] { f.readAttributeInt("/", "text"); });
  EXPECT_TRUE(has(msg, "string values")) << msg;
  msg = refused(path_, {"integer"}, [&] { f.readAttributeString("/", "integer"); });
  EXPECT_TRUE(has(msg, "integer values, string values are expected")) << msg;
  msg = refused(path_, {"real"}, [&] { f.readAttributeString("/", "real"); });
  EXPECT_TRUE(has(msg, "floating-point values")) << msg;

  // Missing: the object or the attribute is named.
  refused(path_, {"/nowhere"}, [&] { f.readAttributeReal("/nowhere", "x"); });
  refused(path_, {"absent", "/grp"}, [&] { f.readAttributeInt("/grp", "absent"); });

  // What is valid still reads, after all those failures.
  EXPECT_EQ(f.readAttributeInt("/", "one_element"), 5);
  EXPECT_EQ(f.readAttributeInt("/", "one_by_one"), 5);
  EXPECT_EQ(f.readAttributeInt("/", "integer"), 3);
  EXPECT_EQ(f.readAttributeReal("/", "integer"), 3.0);  // integers convert to reals
  EXPECT_EQ(f.readAttributeReal("/", "real"), 2.5);
  EXPECT_EQ(f.readAttributeString("/", "text"), "abc");
}

TEST_F(H5Validation, DatasetsAreCheckedBeforeTheRead) {
  Comm world = Comm::world();
  H5File f(path_, H5File::Mode::read, world);
  // A group where a dataset is expected.
  std::string msg = refused(path_, {"/grp"}, [&] { f.readAll("/grp"); });
  EXPECT_TRUE(has(msg, "is a group")) << msg;
  refused(path_, {"/grp"}, [&] { f.readSlab("/grp", 0, 1); });
  refused(path_, {"/grp"}, [&] { f.readAllInt("/grp"); });
  refused(path_, {"/grp"}, [&] { f.shape("/grp"); });
  msg = refused(path_, {"/ints"}, [&] { f.children("/ints"); });
  EXPECT_TRUE(has(msg, "not a group")) << msg;
  // Missing and dangling objects.
  refused(path_, {"/grp/missing"}, [&] { f.readAll("/grp/missing"); });
  refused(path_, {"/no/such/path"}, [&] { f.readSlabInt("/no/such/path", 0, 1); });
  refused(path_, {"/missing"}, [&] { f.shape("/missing"); });
  refused(path_, {"/missing"}, [&] { f.children("/missing"); });
  refused(path_, {"/dangling"}, [&] { f.readAll("/dangling"); });
  // Values of another class.
  msg = refused(path_, {"/grp/reals"}, [&] { f.readAllInt("/grp/reals"); });
  EXPECT_TRUE(has(msg, "floating-point values, integer values are expected")) << msg;
  msg = refused(path_, {"/texts"}, [&] { f.readAll("/texts"); });
  EXPECT_TRUE(has(msg, "string values")) << msg;
  refused(path_, {"/texts"}, [&] { f.readSlabInt("/texts", 0, 2); });
  msg = refused(path_, {"/null"}, [&] { f.readAll("/null"); });
  EXPECT_TRUE(has(msg, "null dataspace")) << msg;
  // Shapes whose element count overflows 64 bits are refused, not allocated.
  msg = refused(path_, {"/huge"}, [&] { f.readAll("/huge"); });
  EXPECT_TRUE(has(msg, "64 bits")) << msg;
  // ... and so are extents the file cannot hold, before allocating (by the shape query too,
  // since callers size buffers from it): 8 TiB never written, chunked ...
  msg = refused(path_, {"/sparse"}, [&] { f.readAll("/sparse"); });
  EXPECT_TRUE(has(msg, "more than the file's size")) << msg;
  EXPECT_TRUE(has(msg, "(1099511627776)")) << msg;
  refused(path_, {"/sparse"}, [&] { f.shape("/sparse"); });
  refused(path_, {"/sparse"}, [&] { f.readSlab("/sparse", 0, 1); });
  // ... 8 MB never written, contiguous (fits in memory: refused for the file's size alone) ...
  msg = refused(path_, {"/unwritten"}, [&] { f.readAll("/unwritten"); });
  EXPECT_TRUE(has(msg, "8000000 bytes, more than the file's size")) << msg;
  refused(path_, {"/unwritten"}, [&] { f.shape("/unwritten"); });
  // ... and 8 GiB compressed, more than deflate's ratio of 1032 allows.
  msg = refused(path_, {"/gzip_unwritten"}, [&] { f.readAll("/gzip_unwritten"); });
  EXPECT_TRUE(has(msg, "deflate's largest compression ratio")) << msg;
  // A compressed dataset within that ratio reads.
  EXPECT_GT(std::uint64_t{100000} * 8, f.fileBytes());
  EXPECT_EQ(f.readAll("/gzip"), std::vector<double>(100000, 0.0));
  // Rows past the end, including a range whose end wraps around 2^64.
  msg = refused(path_, {"/grp/reals", "(5, 2)"}, [&] { f.readSlab("/grp/reals", 4, 2); });
  EXPECT_TRUE(has(msg, "outside")) << msg;
  refused(path_, {"/grp/reals"}, [&] { f.readSlab("/grp/reals", 6, 0); });
  refused(path_, {"/grp/reals"},
          [&] { f.readSlab("/grp/reals", std::numeric_limits<std::uint64_t>::max(), 2); });
  refused(path_, {"/ints"}, [&] { f.readSlabInt("/ints", 2, 3); });

  // The file is still fine to read.
  EXPECT_EQ(f.readSlab("/grp/reals", 3, 2), (std::vector<double>{6, 7, 8, 9}));
  EXPECT_EQ(f.readSlab("/grp/reals", 5, 0), std::vector<double>{});
  EXPECT_EQ(f.readAllInt("/ints"), (std::vector<std::int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(f.readAll("/ints"), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(f.shape("/grp/reals"), (Shape{5, 2}));
  EXPECT_EQ(f.children("/grp"), (std::vector<std::string>{"reals"}));
}

// A slab out of range on one rank only: every rank throws (none is left waiting in the
// collective read), with the same message naming the rank that asked.
TEST_F(H5Validation, OneRankOutOfRangeFailsOnEveryRank) {
  Comm world = Comm::world();
  H5File f(path_, H5File::Mode::read, world);
  const int last = world.size() - 1;
  const std::uint64_t row = world.rank() == last ? 4 : 0;
  std::string msg = refused(path_, {"/grp/reals"}, [&] { f.readSlab("/grp/reals", row, 2); });
  EXPECT_TRUE(has(msg, "rows [4, 6)")) << msg;
  if (world.size() > 1) {
    EXPECT_TRUE(has(msg, "(on rank " + std::to_string(last) + ")")) << msg;
  }
  EXPECT_EQ(world.broadcast(msg), msg) << "ranks disagree on the error";
  // And the ranks are still in step: a good collective read afterwards works on all of them.
  EXPECT_EQ(f.readSlab("/grp/reals", 0, 1), (std::vector<double>{0, 1}));
}

// Every refused read closes what it opened (RAII on the error paths): once the file is closed,
// no HDF5 identifier of this process is left open. The fuzz harnesses check the same after every
// input; an identifier left open would keep HDF5's state of the file alive.
TEST_F(H5Validation, RefusedReadsLeaveNoIdentifierOpen) {
  ASSERT_EQ(openHdf5Objects(), 0);
  {
    H5File f(path_, H5File::Mode::read, Comm::world());
    EXPECT_GE(openHdf5Objects(), 1);  // the file itself
    refused(path_, {"runner_step"}, [&] { f.readAttributeInt("/", "runner_step"); });
    refused(path_, {"text"}, [&] { f.readAttributeReal("/", "text"); });
    refused(path_, {"texts"}, [&] { f.readAttributeString("/", "texts"); });
    refused(path_, {"/grp"}, [&] { f.readAll("/grp"); });
    refused(path_, {"/ints"}, [&] { f.children("/ints"); });
    refused(path_, {"/dangling"}, [&] { f.readAll("/dangling"); });
    refused(path_, {"/grp/reals"}, [&] { f.readAllInt("/grp/reals"); });
    EXPECT_EQ(f.readAttributeInt("/", "integer"), 3);
  }
  EXPECT_EQ(openHdf5Objects(), 0);
}

}  // namespace
}  // namespace kinema::io

// OBJ reading: what a bad mesh file or scale is called in the error (issue 22: a directory or a
// huge coordinate must be named as such, not as "no faces" or a "degenerate" face).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "framework/core/error.hpp"
#include "framework/geometry/tri_mesh.hpp"

using namespace kinema;
using namespace kinema::geometry;

namespace {

const char* kTetra = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";

template <class F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(TriMesh, ValidTetrahedronReadsAndIsClosed) {
  TriMesh m = parseObj(kTetra, "tet.obj");
  EXPECT_EQ(m.vertices.size(), 4u);
  EXPECT_EQ(m.faces.size(), 4u);
  EXPECT_EQ(errorOf([&] { checkClosed(m); }), "");
  EXPECT_NEAR(std::abs(m.volume()), 1.0 / 6.0, 1e-15);
}

TEST(TriMesh, DirectoryAndMissingFileAreNamed) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  EXPECT_NE(errorOf([&] { readObj(dir); }).find("is a directory, not an OBJ file"), std::string::npos);
  EXPECT_NE(errorOf([&] { readObj(dir + "/kinema_no_such_mesh.obj"); }).find("no such OBJ file"), std::string::npos);
}

TEST(TriMesh, HugeCoordinateInTheFileIsNamedWithItsLine) {
  const std::string e = errorOf([] { parseObj("v 0 0 0\nv 1e308 0 0\nv 0 1 0\nf 1 2 3\n", "big.obj"); });
  EXPECT_NE(e.find("big.obj:2"), std::string::npos) << e;
  EXPECT_NE(e.find("beyond"), std::string::npos) << e;
}

TEST(TriMesh, ScaleThatOverflowsIsNamedNotADegenerateFace) {
  TriMesh m = parseObj(kTetra, "tet.obj");
  const std::string e = errorOf([&] { m.transform(1e308, Eigen::Vector3d::Zero()); });
  EXPECT_NE(e.find("tet.obj: vertex 2"), std::string::npos) << e;
  EXPECT_NE(e.find("scaled by 1e+308"), std::string::npos) << e;
  EXPECT_NE(e.find("check the scale"), std::string::npos) << e;
  TriMesh ok = parseObj(kTetra, "tet.obj");
  EXPECT_EQ(errorOf([&] { ok.transform(1e3, Eigen::Vector3d(1, 2, 3)); }), "");
  EXPECT_DOUBLE_EQ(ok.vertices[1].x(), 1001.0);
}

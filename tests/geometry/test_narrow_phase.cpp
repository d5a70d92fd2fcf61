// Narrow phase: analytic distances, normals and points; A/B symmetry; the gradient of the signed
// distance w.r.t. a sphere's centre equals the normal (finite differences); input validation.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <limits>
#include <random>

#include "framework/core/error.hpp"
#include "framework/geometry/narrow_phase.hpp"

using namespace kinema;
using namespace kinema::geometry;
using Eigen::Vector2d;
using Eigen::Vector3d;

namespace {

const double kSqrt2 = std::sqrt(2.0);

Eigen::Matrix3d rot(const Vector3d& axis, double angle) {
  return Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
}
Eigen::Matrix2d rot2(double angle) { return Eigen::Rotation2Dd(angle).toRotationMatrix(); }

Box<3> box3(const Vector3d& c, const Vector3d& h, const Eigen::Matrix3d& r = Eigen::Matrix3d::Identity()) {
  return {c, r, h};
}

Eigen::Matrix3d randomRotation(std::mt19937& rng) {
  std::normal_distribution<double> g;
  Eigen::Quaterniond q(g(rng), g(rng), g(rng), g(rng));
  return q.normalized().toRotationMatrix();
}

}  // namespace

TEST(NarrowPhase, SphereSphere) {
  Sphere<3> a{{0, 0, 0}, 1.0}, b{{3, 0, 0}, 2.0};
  Contact<3> c = collide(a, b);  // touching exactly
  EXPECT_EQ(c.distance, 0.0);
  EXPECT_EQ(c.normal, Vector3d(1, 0, 0));
  ASSERT_EQ(c.numPoints, 1);
  EXPECT_NEAR((c.points[0].position - Vector3d(1, 0, 0)).norm(), 0.0, 1e-15);

  b.centre = {0, 2.5, 0};  // overlap by 0.5
  c = collide(a, b);
  EXPECT_DOUBLE_EQ(c.distance, -0.5);
  EXPECT_NEAR((c.normal - Vector3d(0, 1, 0)).norm(), 0.0, 1e-15);
  EXPECT_NEAR((c.points[0].position - Vector3d(0, 0.75, 0)).norm(), 0.0, 1e-15);  // mid-overlap

  Contact<3> r = collide(b, a);  // swap flips the normal only
  EXPECT_DOUBLE_EQ(r.distance, c.distance);
  EXPECT_NEAR((r.normal + c.normal).norm(), 0.0, 1e-15);

  b.centre = a.centre;  // coincident centres: documented fallback normal +x
  c = collide(a, b);
  EXPECT_EQ(c.normal, Vector3d::UnitX());
  EXPECT_DOUBLE_EQ(c.distance, -3.0);

  Sphere<2> d1{{0, 0}, 1.0}, d2{{3, 4}, 1.5};  // 2D discs
  Contact<2> c2 = collide(d1, d2);
  EXPECT_DOUBLE_EQ(c2.distance, 2.5);
  EXPECT_NEAR((c2.normal - Vector2d(0.6, 0.8)).norm(), 0.0, 1e-15);
}

TEST(NarrowPhase, SpherePlaneAtAnAngle) {
  const Vector3d n = Vector3d(1, 1, 0).normalized();
  HalfSpace<3> plane = HalfSpace<3>::through(Vector3d(1, 0, 0), n);
  Sphere<3> s{{3, 2, 5}, 0.5};
  Contact<3> c = collide(s, plane);
  const double height = n.dot(s.centre - Vector3d(1, 0, 0));
  EXPECT_NEAR(c.distance, height - 0.5, 1e-14);
  EXPECT_NEAR((c.normal + n).norm(), 0.0, 1e-15);  // from the sphere into the plane's solid
  // The point lies halfway between the sphere's lowest point and the plane.
  const Vector3d expect = s.centre - n * (0.5 + 0.5 * (height - 0.5));
  EXPECT_NEAR((c.points[0].position - expect).norm(), 0.0, 1e-14);
  Contact<3> r = collide(plane, s);
  EXPECT_NEAR((r.normal - n).norm(), 0.0, 1e-15);
  EXPECT_EQ(r.distance, c.distance);

  s.centre = {1, 0, 0};  // centre on the plane
  EXPECT_NEAR(collide(s, plane).distance, -0.5, 1e-15);

  HalfSpace<2> line{{0, 1}, 2.0};  // 2D: solid y <= 2
  Contact<2> c2 = collide(Sphere<2>{{7, 2.25}, 0.25}, line);
  EXPECT_NEAR(c2.distance, 0.0, 1e-15);
  EXPECT_EQ(c2.normal, Vector2d(0, -1));
}

TEST(NarrowPhase, SphereBox) {
  Box<3> b = box3({0, 0, 0}, {2, 3, 4});
  // Centre inside the box, nearest face x = +2 at depth 0.5.
  Contact<3> c = collide(Sphere<3>{{1.5, 0, 0}, 0.2}, b);
  EXPECT_NEAR(c.distance, -0.7, 1e-15);
  EXPECT_NEAR((c.normal - Vector3d(-1, 0, 0)).norm(), 0.0, 1e-15);
  EXPECT_NEAR((c.points[0].position - Vector3d(1.65, 0, 0)).norm(), 0.0, 1e-14);
  // Outside, nearest a face.
  c = collide(Sphere<3>{{0, 0, 5}, 0.5}, b);
  EXPECT_NEAR(c.distance, 0.5, 1e-15);
  EXPECT_NEAR((c.normal - Vector3d(0, 0, -1)).norm(), 0.0, 1e-15);
  // Outside, nearest a corner.
  c = collide(Sphere<3>{{3, 4, 5}, 0.5}, b);
  EXPECT_NEAR(c.distance, std::sqrt(3.0) - 0.5, 1e-14);
  EXPECT_NEAR((c.normal + Vector3d(1, 1, 1).normalized()).norm(), 0.0, 1e-14);

  // A cube rotated 45 degrees about z presents a vertical edge at x = sqrt 2.
  Box<3> r = box3({0, 0, 0}, {1, 1, 1}, rot(Vector3d::UnitZ(), M_PI / 4));
  Contact<3> e = collide(r, Sphere<3>{{kSqrt2 + 1.5, 0, 0.3}, 1.0});
  EXPECT_NEAR(e.distance, 0.5, 1e-14);
  EXPECT_NEAR((e.normal - Vector3d(1, 0, 0)).norm(), 0.0, 1e-14);
  EXPECT_NEAR((e.points[0].position - Vector3d(kSqrt2 + 0.25, 0, 0.3)).norm(), 0.0, 1e-14);

  // 2D: a disc against a rectangle rotated by 30 degrees, along its local y axis.
  Box<2> rect{{1, 1}, rot2(M_PI / 6), {2, 1}};
  const Vector2d up = rect.rotation.col(1);
  Contact<2> c2 = collide(Sphere<2>{rect.centre + 1.75 * up, 0.5}, rect);
  EXPECT_NEAR(c2.distance, 0.25, 1e-14);
  EXPECT_NEAR((c2.normal + up).norm(), 0.0, 1e-14);
}

// d distance / d centre_B = normal and d / d centre_A = -normal, by central differences.
TEST(NarrowPhase, SphereDistanceGradientIsTheNormal) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-2.0, 2.0), rad(0.1, 1.0);
  const double h = 1e-6;
  auto check = [&](auto distOf, const Vector3d& centre, const Vector3d& expected, const char* what) {
    Vector3d g;
    for (int k = 0; k < 3; ++k) {
      Vector3d p = centre, m = centre;
      p[k] += h;
      m[k] -= h;
      g[k] = (distOf(p) - distOf(m)) / (2 * h);
    }
    EXPECT_NEAR((g - expected).norm(), 0.0, 1e-6) << what << " at " << centre.transpose();
  };
  for (int trial = 0; trial < 50; ++trial) {
    const Sphere<3> a{{u(rng), u(rng), u(rng)}, rad(rng)}, b{{u(rng), u(rng), u(rng)}, rad(rng)};
    const Contact<3> ss = collide(a, b);
    check([&](const Vector3d& x) { return collide(a, Sphere<3>{x, b.radius}).distance; }, b.centre,
          ss.normal, "sphere-sphere wrt B");
    check([&](const Vector3d& x) { return collide(Sphere<3>{x, a.radius}, b).distance; }, a.centre,
          -ss.normal, "sphere-sphere wrt A");

    const HalfSpace<3> plane = HalfSpace<3>::through(Vector3d(u(rng), u(rng), u(rng)),
                                                     Vector3d(u(rng), u(rng), u(rng)).normalized());
    check([&](const Vector3d& x) { return collide(Sphere<3>{x, a.radius}, plane).distance; },
          a.centre, -collide(a, plane).normal, "sphere-plane wrt sphere");

    // Sphere-box, the sphere's centre inside or outside the box.
    std::mt19937 r2(100 + trial);
    const Box<3> box = box3({u(rng), u(rng), u(rng)}, Vector3d(1.0, 0.5, 1.5), randomRotation(r2));
    const Contact<3> sb = collide(a, box);
    check([&](const Vector3d& x) { return collide(Sphere<3>{x, a.radius}, box).distance; },
          a.centre, -sb.normal, "sphere-box wrt sphere");
    const Contact<3> bs = collide(box, a);  // sphere as B
    check([&](const Vector3d& x) { return collide(box, Sphere<3>{x, a.radius}).distance; },
          a.centre, bs.normal, "box-sphere wrt sphere");
  }
}

TEST(NarrowPhase, BoxPlane) {
  HalfSpace<3> floor{{0, 0, 1}, 0.0};
  // Flat unit cube sunk by 0.1: four points, all at depth 0.1.
  Contact<3> c = collide(box3({0, 0, 0.9}, {1, 1, 1}), floor);
  EXPECT_NEAR(c.distance, -0.1, 1e-15);
  EXPECT_EQ(c.normal, Vector3d(0, 0, -1));
  ASSERT_EQ(c.numPoints, 4);
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(c.points[k].distance, -0.1, 1e-15);
    EXPECT_NEAR(c.points[k].position.z(), -0.05, 1e-15);
  }
  // Tilted 30 degrees about y: the lowest edge (two corners) only, unless a margin asks for more.
  const Eigen::Matrix3d R = rot(Vector3d::UnitY(), M_PI / 6);
  const double low = std::cos(M_PI / 6) + std::sin(M_PI / 6);  // centre height of the lowest edge
  Box<3> tilted = box3({0, 0, low - 0.05}, {1, 1, 1}, R);
  c = collide(tilted, floor);
  EXPECT_NEAR(c.distance, -0.05, 1e-14);
  EXPECT_EQ(c.numPoints, 2);
  // Corner heights are -0.05, 0.95, 1.68, 2.68 (two corners each).
  c = collide(tilted, floor, 1.0);
  EXPECT_EQ(c.numPoints, 4);
  c = collide(tilted, floor, 2.0);
  EXPECT_EQ(c.numPoints, 6);
  // Swapped order.
  Contact<3> r = collide(floor, tilted);
  EXPECT_EQ(r.normal, Vector3d(0, 0, 1));
  EXPECT_NEAR(r.distance, -0.05, 1e-14);
  // A plane at an angle through a box corner.
  const Vector3d n = Vector3d(1, 2, 3).normalized();
  Box<3> cube = box3({0, 0, 0}, {1, 1, 1});
  c = collide(cube, HalfSpace<3>{n, -n.dot(Vector3d(1, 1, 1)) - 0.2});
  EXPECT_NEAR(c.distance, 0.2, 1e-14);  // the corner (-1,-1,-1) is 0.2 above the plane
  ASSERT_EQ(c.numPoints, 1);
  EXPECT_NEAR((c.points[0].position - (Vector3d(-1, -1, -1) - 0.1 * n)).norm(), 0.0, 1e-14);
  // 2D rectangle on a line.
  Contact<2> c2 = collide(Box<2>{{0, 0.95}, Eigen::Matrix2d::Identity(), {2, 1}}, HalfSpace<2>{{0, 1}, 0});
  EXPECT_NEAR(c2.distance, -0.05, 1e-15);
  EXPECT_EQ(c2.numPoints, 2);
}

TEST(NarrowPhase, BoxBoxFaceContact) {
  // A small box resting 0.1 deep on a big one: reference face on top of A, four points.
  Box<3> base = box3({0, 0, 0}, {5, 5, 1}), top = box3({1, -1, 1.9}, {1, 1, 1});
  Contact<3> c = collide(base, top);
  EXPECT_NEAR(c.distance, -0.1, 1e-14);
  EXPECT_NEAR((c.normal - Vector3d(0, 0, 1)).norm(), 0.0, 1e-15);
  ASSERT_EQ(c.numPoints, 4);
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(c.points[k].distance, -0.1, 1e-14);
    EXPECT_NEAR(c.points[k].position.z(), 0.95, 1e-14);
    EXPECT_NEAR(std::abs(c.points[k].position.x() - 1), 1.0, 1e-14);  // the top box's corners
    EXPECT_NEAR(std::abs(c.points[k].position.y() + 1), 1.0, 1e-14);
  }
  Contact<3> r = collide(top, base);
  EXPECT_NEAR(r.distance, -0.1, 1e-14);
  EXPECT_NEAR((r.normal + c.normal).norm(), 0.0, 1e-15);
  EXPECT_EQ(r.numPoints, 4);

  // Overhanging the edge x = 5: clipped to the reference face.
  top.centre = {4.5, 0, 1.9};
  c = collide(base, top);
  ASSERT_EQ(c.numPoints, 4);
  for (int k = 0; k < 4; ++k) EXPECT_LE(c.points[k].position.x(), 5.0 + 1e-14);

  // Equal cubes, the top one turned 45 degrees about z: the clipped face is an octagon.
  Box<3> a = box3({0, 0, 0}, {1, 1, 1}), b = box3({0, 0, 1.95}, {1, 1, 1}, rot(Vector3d::UnitZ(), M_PI / 4));
  c = collide(a, b);
  EXPECT_NEAR(c.distance, -0.05, 1e-14);
  EXPECT_NEAR((c.normal - Vector3d(0, 0, 1)).norm(), 0.0, 1e-14);
  EXPECT_EQ(c.numPoints, 8);

  // Separated face-face: distance is the gap.
  b.centre.z() = 2.3;
  EXPECT_NEAR(collide(a, b).distance, 0.3, 1e-14);

  // 2D: a rectangle on a rectangle, and a diamond on its vertex.
  Box<2> ground{{0, 0}, Eigen::Matrix2d::Identity(), {4, 1}};
  Box<2> block{{0.5, 1.98}, Eigen::Matrix2d::Identity(), {1, 1}};
  Contact<2> c2 = collide(ground, block);
  EXPECT_NEAR(c2.distance, -0.02, 1e-14);
  EXPECT_EQ(c2.numPoints, 2);
  Box<2> diamond{{0, 1 + kSqrt2 - 0.1}, rot2(M_PI / 4), {1, 1}};
  c2 = collide(ground, diamond);
  EXPECT_NEAR(c2.distance, -0.1, 1e-14);
  ASSERT_EQ(c2.numPoints, 1);
  EXPECT_NEAR((c2.points[0].position - Vector2d(0, 0.95)).norm(), 0.0, 1e-14);
  EXPECT_NEAR((c2.normal - Vector2d(0, 1)).norm(), 0.0, 1e-14);
}

TEST(NarrowPhase, BoxBoxEdgeEdge) {
  // A turned 45 degrees about y (top edge along y at z = sqrt 2), B turned 45 degrees about x
  // (bottom edge along x at z = cz - sqrt 2): the edges cross, distance cz - 2 sqrt 2.
  Box<3> a = box3({0, 0, 0}, {1, 1, 1}, rot(Vector3d::UnitY(), M_PI / 4));
  for (double gap : {0.3, 0.0, -0.1}) {
    const double cz = 2 * kSqrt2 + gap;
    Box<3> b = box3({0, 0, cz}, {1, 1, 1}, rot(Vector3d::UnitX(), M_PI / 4));
    Contact<3> c = collide(a, b);
    EXPECT_NEAR(c.distance, gap, 1e-12);
    EXPECT_NEAR((c.normal - Vector3d(0, 0, 1)).norm(), 0.0, 1e-12);
    ASSERT_EQ(c.numPoints, 1);
    EXPECT_NEAR((c.points[0].position - Vector3d(0, 0, cz / 2)).norm(), 0.0, 1e-12);
    Contact<3> r = collide(b, a);
    EXPECT_NEAR(r.distance, gap, 1e-12);
    EXPECT_NEAR((r.normal + c.normal).norm(), 0.0, 1e-12);
  }
}

// Random penetrating box pairs: swapping flips the normal; translating B out by the depth along
// the normal leaves the boxes touching (the depth is the minimal translational distance).
TEST(NarrowPhase, BoxBoxRandomSymmetryAndDepth) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> u(-1.0, 1.0), size(0.3, 1.5);
  int penetrating = 0, ties = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Box<3> a = box3({0, 0, 0}, {size(rng), size(rng), size(rng)}, randomRotation(rng));
    Box<3> b = box3({u(rng), u(rng), u(rng)}, {size(rng), size(rng), size(rng)}, randomRotation(rng));
    b.centre *= 2.0;
    const Contact<3> c = collide(a, b), r = collide(b, a);
    EXPECT_NEAR(c.distance, r.distance, 1e-3 * std::abs(c.distance) + 1e-12);
    EXPECT_NEAR(c.normal.norm(), 1.0, 1e-12);
    EXPECT_GE(c.numPoints, 1);
    if (c.distance >= 0.0) continue;
    ++penetrating;
    // Swapping flips the normal, unless two axes tie within the 1e-4 relative axis bias.
    if ((r.normal + c.normal).norm() > 1e-6) ++ties;
    Box<3> moved = b;
    moved.centre -= c.distance * c.normal;
    const double after = collide(a, moved).distance;
    EXPECT_NEAR(after, 0.0, 1e-3 * std::abs(c.distance) + 1e-12) << "trial " << trial;
    Box<3> deeper = b;  // and less than the depth leaves them overlapping
    deeper.centre -= 0.9 * c.distance * c.normal;
    EXPECT_LT(collide(a, deeper).distance, 0.0) << "trial " << trial;
  }
  EXPECT_GT(penetrating, 100);
  EXPECT_LE(ties, 3);
}

// 2D: the same properties for discs and rectangles.
TEST(NarrowPhase, TwoDimensionalRandomChecks) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-1.5, 1.5), size(0.3, 1.2), angle(0.0, 2 * M_PI);
  const double h = 1e-6;
  int penetrating = 0, ties = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Box<2> a{{0, 0}, rot2(angle(rng)), {size(rng), size(rng)}};
    const Box<2> b{{u(rng), u(rng)}, rot2(angle(rng)), {size(rng), size(rng)}};
    const Sphere<2> s{{u(rng), u(rng)}, size(rng)};
    // Disc-rectangle gradient w.r.t. the disc centre is -normal.
    const Contact<2> sb = collide(s, b);
    Vector2d g;
    for (int k = 0; k < 2; ++k) {
      Sphere<2> p = s, m = s;
      p.centre[k] += h;
      m.centre[k] -= h;
      g[k] = (collide(p, b).distance - collide(m, b).distance) / (2 * h);
    }
    EXPECT_NEAR((g + sb.normal).norm(), 0.0, 1e-6) << "trial " << trial;
    // Rectangle-rectangle: symmetry and exact depth.
    const Contact<2> c = collide(a, b), r = collide(b, a);
    EXPECT_NEAR(c.distance, r.distance, 1e-3 * std::abs(c.distance) + 1e-12);
    EXPECT_GE(c.numPoints, 1);
    EXPECT_LE(c.numPoints, 2);
    if (c.distance >= 0.0) continue;
    ++penetrating;
    // Swapping flips the normal, unless two axes tie within the face bias (nearly parallel faces
    // of A and B): then each order prefers its own A's face. Such ties must be rare.
    if ((r.normal + c.normal).norm() > 1e-6) ++ties;
    Box<2> moved = b;
    moved.centre -= c.distance * c.normal;
    EXPECT_NEAR(collide(a, moved).distance, 0.0, 1e-3 * std::abs(c.distance) + 1e-12);
  }
  EXPECT_GT(penetrating, 100);
  EXPECT_LE(ties, 3);
}

TEST(NarrowPhase, ValidationNamesTheObject) {
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no throw");
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(message([&] { validate(Sphere<3>{{0, nan, 0}, 1.0}, 12); }).find("sphere 12"), std::string::npos);
  EXPECT_NE(message([&] { validate(Sphere<2>{{0, 0}, -1.0}, 4); }).find("sphere 4"), std::string::npos);
  EXPECT_NE(message([&] { validate(HalfSpace<3>{{0, 0, 2}, 0.0}, 1); }).find("half-space 1"), std::string::npos);
  Box<3> b = box3({0, 0, 0}, {1, -1, 1});
  EXPECT_NE(message([&] { validate(b, 7); }).find("box 7"), std::string::npos);
  b.halfExtents = {1, 1, 1};
  b.rotation(0, 1) = 0.5;
  EXPECT_NE(message([&] { validate(b, 8); }).find("box 8"), std::string::npos);
  b.rotation = rot(Vector3d(1, 2, 3), 0.7);
  EXPECT_NO_THROW(validate(b, 9));
  EXPECT_NO_THROW(validate(Sphere<3>{{0, 0, 0}, 0.0}, 0));
  // Bounds of a rotated box.
  Box<3> r = box3({1, 2, 3}, {1, 1, 1}, rot(Vector3d::UnitZ(), M_PI / 4));
  Aabb3 bb = bounds(r);
  EXPECT_NEAR(bb.hi.x(), 1 + kSqrt2, 1e-14);
  EXPECT_NEAR(bb.hi.z(), 4.0, 1e-14);
}

// "No allocation in inner loops" (DESIGN.md), checked: this executable replaces the global
// operator new with a counting one, and after a warm-up call the broad phases, the contact graph
// and the narrow phase must not allocate at all for the same configuration.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>

#include "allocation_counter.hpp"
#include "framework/geometry/contact_graph.hpp"
#include "framework/geometry/narrow_phase.hpp"
#include "framework/geometry/spatial_hash.hpp"
#include "framework/geometry/sweep_and_prune.hpp"

using kinema::test::g_allocations;

using namespace kinema::geometry;

namespace {

std::vector<Aabb3> scene(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> pos(0.0, 20.0), rad(0.3, 0.8);
  std::vector<Aabb3> boxes(n);
  for (auto& b : boxes) b = Aabb3::ofBall(Eigen::Vector3d(pos(rng), pos(rng), pos(rng)), rad(rng));
  return boxes;
}

}  // namespace

TEST(GeometryAllocation, CounterWorks) {
  const long before = g_allocations;
  auto* v = new std::vector<int>(10);
  delete v;
  EXPECT_GE(g_allocations - before, 2);
}

TEST(GeometryAllocation, BroadPhasesAfterWarmUp) {
  auto boxes = scene(4000, 1);
  std::vector<BodyPair> pairs;
  SpatialHash<3> hash;
  SweepAndPrune<3> sap;
  hash.findPairs(boxes, pairs);
  sap.findPairs(boxes, pairs);
  hash.findPairs(boxes, pairs);  // second warm-up: the output and scratch vectors ping-pong
  sap.findPairs(boxes, pairs);
  const std::size_t numPairs = pairs.size();

  long before = g_allocations;
  hash.findPairs(boxes, pairs);
  EXPECT_EQ(g_allocations - before, 0) << "spatial hash allocated after warm-up";
  before = g_allocations;
  sap.findPairs(boxes, pairs);
  EXPECT_EQ(g_allocations - before, 0) << "sweep and prune allocated after warm-up";
  EXPECT_EQ(pairs.size(), numPairs);
  EXPECT_GT(numPairs, 1000u);

  // Coherent motion that keeps the pair count: the incremental sweep does not allocate either.
  for (auto& b : boxes) {
    b.lo.x() += 1e-9;
    b.hi.x() += 1e-9;
  }
  before = g_allocations;
  sap.findPairs(boxes, pairs);
  EXPECT_EQ(g_allocations - before, 0);
  EXPECT_TRUE(sap.lastWasIncremental());
}

TEST(GeometryAllocation, ContactGraphRebuild) {
  std::mt19937 rng(2);
  std::uniform_int_distribution<int> body(0, 999);
  std::vector<BodyPair> contacts;
  while (contacts.size() < 1500) {
    const int a = body(rng), b = body(rng);
    if (a != b) contacts.push_back({a, b});
  }
  std::vector<std::uint8_t> isStatic(1000, 0);
  isStatic[5] = isStatic[500] = 1;
  ContactGraph g;
  g.build(1000, isStatic, contacts);
  const long before = g_allocations;
  g.build(1000, isStatic, contacts);
  EXPECT_EQ(g_allocations - before, 0);
  EXPECT_GT(g.numColours(), 1);
}

TEST(GeometryAllocation, NarrowPhaseNeverAllocates) {
  Box<3> a{{0, 0, 0}, Eigen::Matrix3d::Identity(), {1, 1, 1}};
  Box<3> b{{0.3, 0.2, 1.9}, Eigen::Matrix3d::Identity(), {1, 1, 1}};
  const long before = g_allocations;
  double sum = 0.0;
  sum += collide(a, b).distance;
  sum += collide(a, HalfSpace<3>{{0, 0, 1}, 0.5}).distance;
  sum += collide(Sphere<3>{{0, 0, 2}, 1}, a).distance;
  sum += collide(Sphere<3>{{0, 0, 2}, 1}, Sphere<3>{{0, 0, 0}, 1}).distance;
  EXPECT_EQ(g_allocations - before, 0);
  EXPECT_LT(sum, 0.0);
}

// Broad phases (spatial hash, sweep-and-prune) against the O(N^2) reference, in 2D and 3D.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include "framework/core/error.hpp"
#include "framework/geometry/aabb.hpp"
#include "framework/geometry/broad_phase.hpp"
#include "framework/geometry/spatial_hash.hpp"
#include "framework/geometry/sweep_and_prune.hpp"

using namespace kinema;
using namespace kinema::geometry;

namespace {

// Boxes with centres uniform in [0, domain]^D and side lengths from `side(rng)`.
template <int D, class SideFn>
std::vector<Aabb<D>> randomBoxes(int n, double domain, SideFn side, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> pos(0.0, domain);
  std::vector<Aabb<D>> boxes(n);
  for (auto& b : boxes) {
    typename Aabb<D>::Vec c, h;
    for (int k = 0; k < D; ++k) c[k] = pos(rng);
    for (int k = 0; k < D; ++k) h[k] = 0.5 * side(rng);
    b = Aabb<D>(c - h, c + h);
  }
  return boxes;
}

// Both broad phases equal brute force; a repeat call is identical; returns the pair count.
template <int D>
std::size_t checkAgainstBruteForce(const std::vector<Aabb<D>>& boxes) {
  std::vector<BodyPair> ref, hash, sap, again;
  bruteForcePairs<D>(boxes, ref);
  SpatialHash<D> sh;
  SweepAndPrune<D> sp;
  sh.findPairs(boxes, hash);
  sp.findPairs(boxes, sap);
  EXPECT_EQ(hash, ref) << "spatial hash differs from brute force (N = " << boxes.size() << ")";
  EXPECT_EQ(sap, ref) << "sweep and prune differs from brute force (N = " << boxes.size() << ")";
  EXPECT_TRUE(std::is_sorted(ref.begin(), ref.end()));
  for (const BodyPair& p : ref) EXPECT_LT(p.i, p.j);
  sh.findPairs(boxes, again);
  EXPECT_EQ(again, hash) << "repeat call of the spatial hash";
  sp.findPairs(boxes, again);
  EXPECT_EQ(again, sap) << "repeat call of sweep and prune";
  return ref.size();
}

auto uniformSide(double s) {
  return [s](std::mt19937&) { return s; };
}
auto logUniformSide(double lo, double hi) {
  return [lo, hi](std::mt19937& rng) {
    std::uniform_real_distribution<double> u(std::log(lo), std::log(hi));
    return std::exp(u(rng));
  };
}

}  // namespace

TEST(Aabb, OverlapMergeInflate) {
  Aabb3 a({0, 0, 0}, {1, 1, 1}), b({1, 0.5, 0.5}, {2, 2, 2}), c({1.0001, 0, 0}, {2, 1, 1});
  EXPECT_TRUE(a.overlaps(b));  // touching counts (closed boxes)
  EXPECT_TRUE(b.overlaps(a));
  EXPECT_FALSE(a.overlaps(c));
  Aabb3 m = merged(a, c);
  EXPECT_EQ(m.lo, Eigen::Vector3d(0, 0, 0));
  EXPECT_EQ(m.hi, Eigen::Vector3d(2, 1, 1));
  EXPECT_TRUE(m.contains(a) && m.contains(c));
  EXPECT_TRUE(inflated(a, 0.0001).overlaps(c));
  Aabb3 e;
  EXPECT_TRUE(e.empty());
  EXPECT_FALSE(e.overlaps(a));
  EXPECT_EQ(e.merge(a).lo, a.lo);
  Aabb2 d = Aabb2::ofBall({1, 2}, 0.5);
  EXPECT_EQ(d.lo, Eigen::Vector2d(0.5, 1.5));
  EXPECT_TRUE(d.valid());
}

TEST(BroadPhase, UniformSizes3D) {
  for (int n : {1, 2, 10, 500, 3000}) {
    const double domain = std::cbrt(n / 0.6);  // about 5 neighbours per unit box
    auto boxes = randomBoxes<3>(n, domain, uniformSide(1.0), 11 + n);
    const std::size_t pairs = checkAgainstBruteForce<3>(boxes);
    if (n == 3000) {
      EXPECT_GT(pairs, 3000u);  // the test is not vacuous
    }
  }
}

TEST(BroadPhase, UniformSizes2D) {
  for (int n : {3, 700, 3000}) {
    const double domain = std::sqrt(n / 1.0);
    auto boxes = randomBoxes<2>(n, domain, uniformSide(1.0), 5 + n);
    EXPECT_GT(checkAgainstBruteForce<2>(boxes), n == 3 ? 0u : static_cast<std::size_t>(n));
  }
}

TEST(BroadPhase, WidelyVaryingSizes) {
  // Sides over four decades, plus a few boxes far larger than the median (coarse hash levels).
  auto boxes3 = randomBoxes<3>(3000, 40.0, logUniformSide(0.01, 10.0), 3);
  auto huge3 = randomBoxes<3>(5, 40.0, uniformSide(60.0), 4);
  boxes3.insert(boxes3.begin() + 100, huge3.begin(), huge3.end());
  checkAgainstBruteForce<3>(boxes3);
  SpatialHash<3> sh;
  std::vector<BodyPair> pairs;
  sh.findPairs(boxes3, pairs);
  EXPECT_GE(sh.numLevels(), 4);  // the cross-level path is exercised

  // Bimodal: nearly half the boxes 30x larger than the rest (the median is the small size, so
  // two grid levels, 0 and 5, and many cross-level pairs).
  auto small = randomBoxes<3>(1600, 30.0, uniformSide(0.2), 6);
  auto large = randomBoxes<3>(1400, 30.0, uniformSide(6.0), 7);
  std::vector<Aabb3> mixed;
  for (int k = 0; k < 1600; ++k) {
    mixed.push_back(small[k]);
    if (k < 1400) mixed.push_back(large[k]);
  }
  EXPECT_GT(checkAgainstBruteForce<3>(mixed), 10000u);
  sh.findPairs(mixed, pairs);
  EXPECT_EQ(sh.numLevels(), 2);
  EXPECT_NEAR(sh.cellSize(), 0.2, 1e-12);

  auto boxes2 = randomBoxes<2>(3000, 60.0, logUniformSide(0.01, 20.0), 5);
  checkAgainstBruteForce<2>(boxes2);
}

TEST(BroadPhase, AllCoincident) {
  std::vector<Aabb3> same(300, Aabb3({1, 2, 3}, {1.5, 2.5, 3.5}));
  EXPECT_EQ(checkAgainstBruteForce<3>(same), 300u * 299u / 2u);
  std::vector<Aabb2> points(200, Aabb2({-4, 7}, {-4, 7}));  // zero-size boxes at one point
  EXPECT_EQ(checkAgainstBruteForce<2>(points), 200u * 199u / 2u);
}

TEST(BroadPhase, ExactlyTouchingLattice) {
  // Unit cubes on an integer lattice touch their 26 neighbours exactly on faces, edges, corners.
  std::vector<Aabb3> boxes;
  for (int x = 0; x < 6; ++x)
    for (int y = 0; y < 6; ++y)
      for (int z = 0; z < 6; ++z) boxes.emplace_back(Eigen::Vector3d(x, y, z), Eigen::Vector3d(x + 1, y + 1, z + 1));
  const std::size_t n = checkAgainstBruteForce<3>(boxes);
  // Lattice pairs at Chebyshev distance 1: the sum over the 26 offsets, each pair counted twice.
  std::size_t expected = 0;
  for (int dx = -1; dx <= 1; ++dx)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dz = -1; dz <= 1; ++dz)
        if (dx || dy || dz) expected += static_cast<std::size_t>((6 - std::abs(dx)) * (6 - std::abs(dy)) * (6 - std::abs(dz)));
  EXPECT_EQ(n, expected / 2);
}

TEST(BroadPhase, FarFromOriginAndNegative) {
  auto boxes = randomBoxes<3>(1500, 12.0, logUniformSide(0.2, 2.0), 17);
  for (auto& b : boxes) {
    b.lo.array() += -1.0e6;
    b.hi.array() += -1.0e6;
  }
  checkAgainstBruteForce<3>(boxes);
}

TEST(BroadPhase, FixedCellSizeOption) {
  auto boxes = randomBoxes<3>(1000, 10.0, logUniformSide(0.1, 2.0), 23);
  std::vector<BodyPair> ref, got;
  bruteForcePairs<3>(boxes, ref);
  for (double h : {0.05, 0.7, 3.0, 100.0}) {
    SpatialHash<3>::Options o;
    o.cellSize = h;
    SpatialHash<3> sh(o);
    sh.findPairs(boxes, got);
    EXPECT_EQ(got, ref) << "cell size " << h;
    EXPECT_EQ(sh.cellSize(), h);
  }
}

TEST(BroadPhase, IncrementalSweepMatchesFresh) {
  auto boxes = randomBoxes<3>(3000, 18.0, uniformSide(1.0), 29);
  SweepAndPrune<3> incremental;
  std::vector<BodyPair> inc, fresh, ref;
  incremental.findPairs(boxes, inc);
  EXPECT_FALSE(incremental.lastWasIncremental());
  std::mt19937 rng(31);
  std::normal_distribution<double> jitter(0.0, 0.05);
  for (int frame = 0; frame < 5; ++frame) {
    for (auto& b : boxes) {
      Eigen::Vector3d d(jitter(rng), jitter(rng), jitter(rng));
      b.lo += d;
      b.hi += d;
    }
    incremental.findPairs(boxes, inc);
    EXPECT_TRUE(incremental.lastWasIncremental()) << "frame " << frame;
    EXPECT_GT(incremental.lastSwaps(), 0);
    SweepAndPrune<3> once;
    once.findPairs(boxes, fresh);
    bruteForcePairs<3>(boxes, ref);
    EXPECT_EQ(inc, fresh) << "frame " << frame;
    EXPECT_EQ(inc, ref) << "frame " << frame;
  }
  // Incoherent motion (a shuffled scene): the swap budget runs out and it re-sorts, still exact.
  std::shuffle(boxes.begin(), boxes.end(), rng);
  incremental.findPairs(boxes, inc);
  EXPECT_FALSE(incremental.lastWasIncremental());
  bruteForcePairs<3>(boxes, ref);
  EXPECT_EQ(inc, ref);
}

TEST(BroadPhase, SweepAxisIsLargestVariance) {
  // A long thin scene along y.
  auto boxes = randomBoxes<3>(500, 1.0, uniformSide(0.05), 37);
  for (auto& b : boxes) {
    b.lo.y() *= 100.0;
    b.hi.y() = b.lo.y() + 0.05;
  }
  SweepAndPrune<3> sp;
  std::vector<BodyPair> pairs;
  sp.findPairs(boxes, pairs);
  EXPECT_EQ(sp.axis(), 1);
}

// Buffer reuse (no allocation after warm-up) is checked in test_geometry_allocation.cpp.

TEST(BroadPhase, InvalidBoxesNameTheIndex) {
  std::vector<Aabb3> boxes(5, Aabb3({0, 0, 0}, {1, 1, 1}));
  boxes[3].lo.y() = std::numeric_limits<double>::quiet_NaN();
  std::vector<BodyPair> pairs;
  SpatialHash<3> sh;
  SweepAndPrune<3> sp;
  for (int which = 0; which < 2; ++which) {
    try {
      if (which == 0)
        sh.findPairs(boxes, pairs);
      else
        sp.findPairs(boxes, pairs);
      FAIL() << "NaN accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("box 3"), std::string::npos) << e.what();
    }
  }
  boxes[3] = Aabb3({0, 0, 0}, {1, 1, 1});
  boxes[1].lo.x() = 2.0;  // lo > hi
  EXPECT_THROW(sh.findPairs(boxes, pairs), InputError);
}

// Timing print for the lead (not an assertion beyond agreement): 100k random spheres in 3D.
TEST(BroadPhase, TimingHashVsSap100k) {
  const int n = 100000;
  std::mt19937 rng(43);
  std::uniform_real_distribution<double> pos(0.0, 84.0), rad(0.5, 1.0);  // ~30% volume fraction
  std::vector<Aabb3> boxes(n);
  for (auto& b : boxes) b = Aabb3::ofBall(Eigen::Vector3d(pos(rng), pos(rng), pos(rng)), rad(rng));
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  SpatialHash<3> sh;
  SweepAndPrune<3> sp;
  std::vector<BodyPair> ph, ps;
  auto t0 = Clock::now();
  sh.findPairs(boxes, ph);
  auto t1 = Clock::now();
  sh.findPairs(boxes, ph);
  auto t2 = Clock::now();
  sp.findPairs(boxes, ps);
  auto t3 = Clock::now();
  // Small coherent motion, then the incremental sweep.
  std::normal_distribution<double> jitter(0.0, 0.01);
  for (auto& b : boxes) {
    Eigen::Vector3d d(jitter(rng), jitter(rng), jitter(rng));
    b.lo += d;
    b.hi += d;
  }
  auto t4 = Clock::now();
  sp.findPairs(boxes, ps);
  auto t5 = Clock::now();
  sh.findPairs(boxes, ph);
  auto t6 = Clock::now();
  EXPECT_EQ(ph, ps);
  EXPECT_TRUE(sp.lastWasIncremental());
  std::printf(
      "[timing] 100k spheres, %zu pairs: hash first %.1f ms, hash warm %.1f ms, hash after move "
      "%.1f ms (cell %.3f); SAP fresh sort %.1f ms, SAP incremental %.1f ms (axis %d)\n",
      ph.size(), ms(t0, t1), ms(t1, t2), ms(t5, t6), sh.cellSize(), ms(t2, t3), ms(t4, t5), sp.axis());

  // Polydisperse (radii over a decade, as in a BDEM packing; ~30% volume fraction): the hash
  // uses several levels.
  std::uniform_real_distribution<double> logr(std::log(0.1), std::log(1.0));
  std::uniform_real_distribution<double> pos2(0.0, 58.0);
  for (auto& b : boxes) b = Aabb3::ofBall(Eigen::Vector3d(pos2(rng), pos2(rng), pos2(rng)), std::exp(logr(rng)));
  SpatialHash<3> sh2;
  SweepAndPrune<3> sp2;
  t0 = Clock::now();
  sh2.findPairs(boxes, ph);
  t1 = Clock::now();
  sp2.findPairs(boxes, ps);
  t2 = Clock::now();
  EXPECT_EQ(ph, ps);
  std::printf("[timing] 100k polydisperse spheres (r in [0.1, 1]), %zu pairs: hash %.1f ms (%d levels), "
              "SAP fresh %.1f ms\n", ph.size(), ms(t0, t1), sh2.numLevels(), ms(t1, t2));
}

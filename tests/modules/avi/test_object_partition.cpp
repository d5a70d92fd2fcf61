// Object partition of the distributed AVI (option A of modules/avi/README.md, decision 57,
// steps 2 and 7):
// whole objects per rank, balanced by vertex count, contact clusters (objects joined by pairs
// with active layers, transitively) on one rank, the same result for any order of the layer list,
// migrations counted against the previous partition, clear errors on bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "framework/core/error.hpp"
#include "test_util.hpp"
#include "modules/avi/object_partition.hpp"

using namespace kinema;
using namespace kinema::avi;

namespace {

// A scene with only what the partition reads: objects of the given sizes, laid out in order.
Scene objectsOfSizes(const std::vector<int>& sizes) {
  Scene s;
  int n = 0;
  for (int k : sizes) n += k;
  s.vertices.resize(n);
  int first = 0;
  for (std::size_t o = 0; o < sizes.size(); ++o) {
    s.objects.push_back(ObjectInfo{kinema::str("o", o), first, sizes[o]});
    for (int a = first; a < first + sizes[o]; ++a) s.vertices.object[static_cast<std::size_t>(a)] = static_cast<int>(o);
    first += sizes[o];
  }
  return s;
}

ActiveLayers pointPoint(int a, int b, int deepest = 1) {
  ActiveLayers l;
  l.key.kind = PairKind::PointPoint;
  l.key.a = {a, -1, -1};
  l.key.b = {b, -1, -1};
  l.deepest = deepest;
  return l;
}

ActiveLayers edgeEdge(int a0, int a1, int b0, int b1) {
  ActiveLayers l;
  l.key.kind = PairKind::EdgeEdge;
  l.key.a = {a0, a1, -1};
  l.key.b = {b0, b1, -1};
  l.deepest = 2;
  return l;
}

std::vector<std::int64_t> rankCounts(const ObjectPartition& p, int ranks) {
  std::vector<std::int64_t> c(static_cast<std::size_t>(ranks), 0);
  for (int r : p.owner) ++c[static_cast<std::size_t>(r)];
  return c;
}

// Every vertex on its object's rank (unless its contact cluster has more than `splitAbove`
// vertices: bisection cuts those), every rank in range.
void expectConsistent(const Scene& s, const ObjectPartition& p, int ranks,
                      std::int64_t splitAbove = std::numeric_limits<std::int64_t>::max()) {
  ASSERT_EQ(p.owner.size(), static_cast<std::size_t>(s.vertices.size()));
  ASSERT_EQ(p.objectRank.size(), static_cast<std::size_t>(objectCount(s)));
  std::vector<std::int64_t> clusterSize(p.cluster.size(), 0);
  for (int a = 0; a < s.vertices.size(); ++a)
    ++clusterSize[static_cast<std::size_t>(p.cluster[static_cast<std::size_t>(s.vertices.object[static_cast<std::size_t>(a)])])];
  for (int a = 0; a < s.vertices.size(); ++a) {
    const int o = s.vertices.object[static_cast<std::size_t>(a)];
    EXPECT_GE(p.owner[static_cast<std::size_t>(a)], 0);
    EXPECT_LT(p.owner[static_cast<std::size_t>(a)], ranks);
    if (clusterSize[static_cast<std::size_t>(p.cluster[static_cast<std::size_t>(o)])] <= splitAbove) {
      EXPECT_EQ(p.owner[static_cast<std::size_t>(a)], p.objectRank[static_cast<std::size_t>(o)]) << "vertex " << a;
    }
  }
  for (int r : p.objectRank) {
    EXPECT_GE(r, 0);
    EXPECT_LT(r, ranks);
  }
}

}  // namespace

TEST(AviObjectPartition, EqualObjectsSplitEvenlyInSceneOrder) {
  const Scene s = objectsOfSizes(std::vector<int>(6, 4));
  for (int ranks : {1, 2, 3, 6}) {
    const ObjectPartition p = partitionObjects(s, {}, ranks);
    expectConsistent(s, p, ranks);
    for (std::int64_t c : rankCounts(p, ranks)) EXPECT_EQ(c, 24 / ranks) << ranks << " ranks";
    EXPECT_TRUE(std::is_sorted(p.objectRank.begin(), p.objectRank.end())) << "contiguous in scene order";
    EXPECT_EQ(p.clusters, 0);
    EXPECT_EQ(p.migrations, 0);  // no previous partition given
    for (int o = 0; o < 6; ++o) EXPECT_EQ(p.cluster[static_cast<std::size_t>(o)], o);
  }
  // More ranks than objects: some ranks own nothing, no rank owns two objects.
  const ObjectPartition p = partitionObjects(s, {}, 8);
  expectConsistent(s, p, 8);
  EXPECT_EQ(std::set<int>(p.objectRank.begin(), p.objectRank.end()).size(), 6u);
}

TEST(AviObjectPartition, ClustersStayWholeTransitivelyAndPlanesJoinNothing) {
  const Scene s = objectsOfSizes(std::vector<int>(6, 4));  // object o: vertices 4o .. 4o+3
  std::vector<ActiveLayers> layers = {
      pointPoint(1, 22),         // objects 0 and 5
      edgeEdge(8, 9, 13, 14),    // objects 2 and 3
      pointPoint(12, 17, 3),     // objects 3 and 4: cluster {2, 3, 4} through 3
      pointPoint(5, 6, 0),       // deepest 0: joins nothing
  };
  ActiveLayers plane;  // vertex 4 (object 1) against plane 20: b[0] is a plane, not vertex 20
  plane.key.kind = PairKind::PointPlane;
  plane.key.a = {4, -1, -1};
  plane.key.b = {20, -1, -1};
  plane.deepest = 4;
  layers.push_back(plane);

  for (int ranks : {2, 3}) {
    const ObjectPartition p = partitionObjects(s, layers, ranks);
    expectConsistent(s, p, ranks);
    const auto& r = p.objectRank;
    EXPECT_EQ(r[0], r[5]) << ranks;
    EXPECT_EQ(r[2], r[3]) << ranks;
    EXPECT_EQ(r[3], r[4]) << ranks;
    EXPECT_EQ(p.cluster, (std::vector<int>{0, 1, 2, 2, 2, 0}));
    EXPECT_EQ(p.clusters, 2);
  }
  // At 2 ranks the cluster {0, 5} (8 vertices) comes first, then {1} (4), then {2, 3, 4} (12):
  // midpoints 4, 10, 18 of 24 -> ranks 0, 0, 1.
  const ObjectPartition p2 = partitionObjects(s, layers, 2);
  EXPECT_EQ(p2.objectRank, (std::vector<int>{0, 0, 1, 1, 1, 0}));
  EXPECT_EQ(rankCounts(p2, 2), (std::vector<std::int64_t>{12, 12}));
  // Migrations against the contact-free split {0, 0, 0, 1, 1, 1}: objects 2 and 5 moved.
  const ObjectPartition base = partitionObjects(s, {}, 2);
  EXPECT_EQ(base.objectRank, (std::vector<int>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(partitionObjects(s, layers, 2, base.objectRank).migrations, 2);
  EXPECT_EQ(partitionObjects(s, layers, 2, p2.objectRank).migrations, 0);
}

TEST(AviObjectPartition, RandomScenesAreBalancedAndOrderIndependent) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 50; ++trial) {
    std::uniform_int_distribution<int> objects(1, 30), size(1, 40);
    std::vector<int> sizes(static_cast<std::size_t>(objects(rng)));
    for (int& k : sizes) k = size(rng);
    const Scene s = objectsOfSizes(sizes);
    const int nv = s.vertices.size();
    std::uniform_int_distribution<int> vertex(0, nv - 1);
    std::vector<ActiveLayers> layers;
    const int pairs = std::uniform_int_distribution<int>(0, 6)(rng);
    for (int k = 0; k < pairs; ++k) layers.push_back(pointPoint(vertex(rng), vertex(rng), 1 + k % 3));
    for (int ranks = 1; ranks <= 4; ++ranks) {
      const ObjectPartition p = partitionObjects(s, layers, ranks);
      expectConsistent(s, p, ranks);
      // Clusters whole: both objects of every pair on one rank.
      for (const ActiveLayers& l : layers)
        EXPECT_EQ(p.owner[static_cast<std::size_t>(l.key.a[0])], p.owner[static_cast<std::size_t>(l.key.b[0])]);
      // Balance: |count_r - N/P| <= largest cluster (the midpoint rule's bound).
      std::vector<std::int64_t> clusterSize(sizes.size(), 0);
      for (std::size_t o = 0; o < sizes.size(); ++o) clusterSize[static_cast<std::size_t>(p.cluster[o])] += sizes[o];
      const double largest = static_cast<double>(*std::max_element(clusterSize.begin(), clusterSize.end()));
      for (std::int64_t c : rankCounts(p, ranks))
        EXPECT_LE(std::abs(static_cast<double>(c) - static_cast<double>(nv) / ranks), largest)
            << "trial " << trial << ", " << ranks << " ranks";
      // Same partition whatever the order (and duplication) of the layer list.
      std::vector<ActiveLayers> shuffled = layers;
      if (!layers.empty()) shuffled.push_back(layers.front());
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      const ObjectPartition q = partitionObjects(s, shuffled, ranks);
      EXPECT_EQ(q.objectRank, p.objectRank);
      EXPECT_EQ(q.cluster, p.cluster);
      EXPECT_EQ(q.clusters, p.clusters);
    }
  }
}

TEST(AviObjectPartition, ObjectsFromVertexTagsAndBadInput) {
  // No ObjectInfo list: the objects come from vertices.object.
  Scene s;
  s.vertices.resize(5);
  s.vertices.object = {0, 0, 1, 2, 2};
  EXPECT_EQ(objectCount(s), 3);
  const ObjectPartition p = partitionObjects(s, {}, 2);
  expectConsistent(s, p, 2);
  EXPECT_EQ(p.objectRank, (std::vector<int>{0, 1, 1}));  // midpoints 1, 2.5, 4 of 5

  EXPECT_THROW(partitionObjects(s, {}, 0), InputError);
  s.vertices.object[3] = -1;
  const std::string msg = test::messageOf<InputError>([&] { partitionObjects(s, {}, 2); });
  EXPECT_NE(msg.find("vertex 3"), std::string::npos) << msg;
  s.vertices.object[3] = 2;
  EXPECT_THROW(partitionObjects(s, {pointPoint(1, 9)}, 2), Error);
}

namespace {

// Single-vertex objects on an nx x ny grid of unit spacing (x the long side when nx > ny), listed
// in a shuffled scene order so that scene order says nothing about space.
struct Grid {
  Scene scene;
  std::vector<Vec3> x;
};

Grid shuffledGrid(int nx, int ny, unsigned seed) {
  std::vector<Vec3> cells;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) cells.emplace_back(i, j, 0.0);
  std::mt19937 rng(seed);
  std::shuffle(cells.begin(), cells.end(), rng);
  Grid g{objectsOfSizes(std::vector<int>(cells.size(), 1)), cells};
  return g;
}

}  // namespace

TEST(AviObjectPartition, BisectionCutsSpaceWhateverTheSceneOrder) {
  // 16 x 4: at 2 ranks the cut is across x (the long side) at its middle; at 4 ranks each half
  // (8 x 4) is cut across x again: four 4 x 4 blocks.
  const Grid g = shuffledGrid(16, 4, 7);
  for (int ranks : {2, 4}) {
    const ObjectPartition p = partitionObjects(g.scene, {}, ranks, {}, PartitionRule::Bisection, g.x);
    expectConsistent(g.scene, p, ranks);
    for (std::int64_t c : rankCounts(p, ranks)) EXPECT_EQ(c, 64 / ranks) << ranks << " ranks";
    const double width = 16.0 / ranks;
    for (int a = 0; a < g.scene.vertices.size(); ++a)
      EXPECT_EQ(p.owner[static_cast<std::size_t>(a)], static_cast<int>(g.x[static_cast<std::size_t>(a)].x() / width))
          << "vertex at " << g.x[static_cast<std::size_t>(a)].transpose() << ", " << ranks << " ranks";
  }
  // The scene-order rule on the same scene mixes space: some rank's x-range overlaps another's.
  const ObjectPartition s = partitionObjects(g.scene, {}, 2);
  double maxX0 = -1.0, minX1 = 1e9;
  for (int a = 0; a < g.scene.vertices.size(); ++a) {
    const double xa = g.x[static_cast<std::size_t>(a)].x();
    if (s.owner[static_cast<std::size_t>(a)] == 0) maxX0 = std::max(maxX0, xa);
    else minX1 = std::min(minX1, xa);
  }
  EXPECT_GT(maxX0, minX1);
  // A square (8 x 8) at 4 ranks: quadrants, the first cut across x (the lower axis of a tie).
  const Grid q = shuffledGrid(8, 8, 11);
  const ObjectPartition p4 = partitionObjects(q.scene, {}, 4, {}, PartitionRule::Bisection, q.x);
  for (int a = 0; a < q.scene.vertices.size(); ++a) {
    const Vec3& xa = q.x[static_cast<std::size_t>(a)];
    EXPECT_EQ(p4.owner[static_cast<std::size_t>(a)], 2 * (xa.x() >= 4.0) + (xa.y() >= 4.0)) << xa.transpose();
  }
}

TEST(AviObjectPartition, BisectionKeepsItsCutAsANearSquareGasMoves) {
  // Centroids spanning 9 in x and 9.8 in y (x within 10 % of the longest side) keep the cut
  // across x; stretched to 11 in y the cut turns.
  Grid g = shuffledGrid(10, 10, 5);
  for (Vec3& p : g.x) p.y() *= 9.8 / 9.0;
  const ObjectPartition a = partitionObjects(g.scene, {}, 2, {}, PartitionRule::Bisection, g.x);
  for (int v = 0; v < g.scene.vertices.size(); ++v)
    EXPECT_EQ(a.owner[static_cast<std::size_t>(v)], g.x[static_cast<std::size_t>(v)].x() >= 5.0);
  for (Vec3& p : g.x) p.y() *= 11.0 / 9.8;
  const ObjectPartition b = partitionObjects(g.scene, {}, 2, a.objectRank, PartitionRule::Bisection, g.x);
  for (int v = 0; v < g.scene.vertices.size(); ++v)
    EXPECT_EQ(b.owner[static_cast<std::size_t>(v)], g.x[static_cast<std::size_t>(v)].y() >= 5.5);
  EXPECT_EQ(b.migrations, 50);  // the two halves swap corners: 25 + 25 objects
}

TEST(AviObjectPartition, BisectionRandomScenesAreBalancedWholeAndDeterministic) {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 40; ++trial) {
    std::uniform_int_distribution<int> objects(1, 40), size(1, 30);
    std::vector<int> sizes(static_cast<std::size_t>(objects(rng)));
    for (int& k : sizes) k = size(rng);
    const Scene s = objectsOfSizes(sizes);
    const int nv = s.vertices.size();
    std::uniform_real_distribution<double> coord(-1.0, 1.0);
    std::vector<Vec3> x(static_cast<std::size_t>(nv));
    for (Vec3& p : x) p = Vec3(coord(rng), coord(rng), coord(rng));
    std::uniform_int_distribution<int> vertex(0, nv - 1);
    std::vector<ActiveLayers> layers;
    const int pairs = std::uniform_int_distribution<int>(0, 6)(rng);
    for (int k = 0; k < pairs; ++k) layers.push_back(pointPoint(vertex(rng), vertex(rng), 1 + k % 3));
    for (int ranks = 1; ranks <= 5; ++ranks) {
      const ObjectPartition p = partitionObjects(s, layers, ranks, {}, PartitionRule::Bisection, x);
      const std::int64_t split = splitThreshold(nv, ranks);
      expectConsistent(s, p, ranks, split);
      std::vector<std::int64_t> clusterSize(sizes.size(), 0);
      for (std::size_t o = 0; o < sizes.size(); ++o) clusterSize[static_cast<std::size_t>(p.cluster[o])] += sizes[o];
      // Clusters up to the threshold whole.
      for (const ActiveLayers& l : layers) {
        const auto o = static_cast<std::size_t>(s.vertices.object[static_cast<std::size_t>(l.key.a[0])]);
        if (clusterSize[static_cast<std::size_t>(p.cluster[o])] <= split) {
          EXPECT_EQ(p.owner[static_cast<std::size_t>(l.key.a[0])], p.owner[static_cast<std::size_t>(l.key.b[0])]);
        }
      }
      // Balance: every cut misses its share by at most half the largest item (a whole cluster
      // up to the threshold, or one vertex), and a rank's count passes through ceil(log2 P) cuts.
      double largest = 1.0;
      for (std::int64_t c : clusterSize)
        if (c <= split) largest = std::max(largest, static_cast<double>(c));
      const double levels = std::ceil(std::log2(static_cast<double>(ranks)));
      for (std::int64_t c : rankCounts(p, ranks))
        EXPECT_LE(std::abs(static_cast<double>(c) - static_cast<double>(nv) / ranks), std::max(1.0, levels) * largest)
            << "trial " << trial << ", " << ranks << " ranks";
      // The same partition for a shuffled layer list; the same clusters as the scene-order rule.
      std::vector<ActiveLayers> shuffled = layers;
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      const ObjectPartition q = partitionObjects(s, shuffled, ranks, {}, PartitionRule::Bisection, x);
      EXPECT_EQ(q.objectRank, p.objectRank);
      EXPECT_EQ(partitionObjects(s, layers, ranks).cluster, p.cluster);
    }
  }
}

TEST(AviObjectPartition, BisectionBadInput) {
  const Grid g = shuffledGrid(4, 2, 1);
  std::vector<Vec3> shortList(g.x.begin(), g.x.end() - 1);
  EXPECT_THROW(partitionObjects(g.scene, {}, 2, {}, PartitionRule::Bisection, shortList), Error);
  EXPECT_EQ(partitionRuleFromName("bisection"), PartitionRule::Bisection);
  EXPECT_EQ(partitionRuleFromName("scene_order"), PartitionRule::SceneOrder);
  const std::string msg = test::messageOf<InputError>([] { partitionRuleFromName("metis"); });
  EXPECT_NE(msg.find("metis"), std::string::npos) << msg;
}

TEST(AviObjectPartition, BisectionCutsAnObjectLargerThanTheThreshold) {
  // One 16 x 4 sheet (64 vertices, one object) beside 8 single-vertex objects at x = 20..27:
  // N = 72, threshold N / (2 P) = 18 at 2 ranks, so the sheet is cut, the small objects stay whole.
  Scene s;
  s.vertices.resize(72);
  std::vector<Vec3> x;
  s.objects.push_back(ObjectInfo{"sheet", 0, 64});
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 16; ++i) {
      x.emplace_back(i, j, 0.0);
      s.vertices.object[x.size() - 1] = 0;
    }
  for (int k = 0; k < 8; ++k) {
    s.objects.push_back(ObjectInfo{kinema::str("p", k), 64 + k, 1});
    x.emplace_back(20 + k, 1.5, 0.0);
    s.vertices.object[x.size() - 1] = 1 + k;
  }
  EXPECT_EQ(splitThreshold(72, 2), 18);
  EXPECT_EQ(splitThreshold(72, 1), 72);
  const ObjectPartition p = partitionObjects(s, {}, 2, {}, PartitionRule::Bisection, x);
  expectConsistent(s, p, 2, 18);
  EXPECT_EQ(rankCounts(p, 2), (std::vector<std::int64_t>{36, 36}));
  // The cut across x after the 36th vertex in x order: columns 0..8 on rank 0, the rest and the
  // small objects on rank 1.
  for (int a = 0; a < 72; ++a)
    EXPECT_EQ(p.owner[static_cast<std::size_t>(a)], x[static_cast<std::size_t>(a)].x() >= 9.0) << x[static_cast<std::size_t>(a)].transpose();
  EXPECT_EQ(p.objectRank[0], 0);  // a split object: its first vertex's rank
  // One rank: nothing is cut.
  const ObjectPartition one = partitionObjects(s, {}, 1, {}, PartitionRule::Bisection, x);
  for (int r : one.owner) EXPECT_EQ(r, 0);
}

namespace {

// The bisection as first written (a full sort along the axis at every level, then the weighted
// scan), for scenes without active layers (every object its own cluster): the owner of every
// vertex. The module selects the cut by weighted quickselect instead; the sets must be the same.
struct RefItem {
  Vec3 c;
  std::int64_t weight;
  int root, vertex;
};

void refBisect(std::vector<RefItem>& items, std::size_t first, std::size_t last, int rank0, int ranks,
               std::vector<int>& clusterRank, std::vector<int>& vertexRank) {
  if (ranks == 1 || last - first <= 1) {
    for (std::size_t i = first; i < last; ++i) {
      if (items[i].vertex >= 0) vertexRank[static_cast<std::size_t>(items[i].vertex)] = rank0;
      else clusterRank[static_cast<std::size_t>(items[i].root)] = rank0;
    }
    return;
  }
  Vec3 lo = items[first].c, hi = items[first].c;
  std::int64_t total = 0;
  for (std::size_t i = first; i < last; ++i) {
    lo = lo.cwiseMin(items[i].c);
    hi = hi.cwiseMax(items[i].c);
    total += items[i].weight;
  }
  const Vec3 extent = hi - lo;
  int axis = 0;
  while (axis < 2 && extent[axis] < 0.9 * extent.maxCoeff()) ++axis;
  std::sort(items.begin() + static_cast<std::ptrdiff_t>(first), items.begin() + static_cast<std::ptrdiff_t>(last),
            [axis](const RefItem& a, const RefItem& b) {
              if (a.c[axis] != b.c[axis]) return a.c[axis] < b.c[axis];
              return a.root < b.root || (a.root == b.root && a.vertex < b.vertex);
            });
  const int left = ranks / 2;
  std::size_t cut = first;
  std::int64_t before = 0;
  while (cut < last && (2 * before + items[cut].weight) * ranks < 2 * total * left) before += items[cut++].weight;
  refBisect(items, first, cut, rank0, left, clusterRank, vertexRank);
  refBisect(items, cut, last, rank0 + left, ranks - left, clusterRank, vertexRank);
}

std::vector<int> referenceOwners(const Scene& s, const std::vector<Vec3>& x, int ranks) {
  const int nv = s.vertices.size();
  const int no = objectCount(s);
  std::vector<std::int64_t> size(static_cast<std::size_t>(no), 0);
  for (int a = 0; a < nv; ++a) ++size[static_cast<std::size_t>(s.vertices.object[static_cast<std::size_t>(a)])];
  const std::int64_t splitAbove = splitThreshold(nv, ranks);
  std::vector<Vec3> sum(static_cast<std::size_t>(no), Vec3::Zero());
  std::vector<RefItem> items;
  for (int a = 0; a < nv; ++a) {
    const int o = s.vertices.object[static_cast<std::size_t>(a)];
    if (size[static_cast<std::size_t>(o)] > splitAbove) items.push_back(RefItem{x[static_cast<std::size_t>(a)], 1, o, a});
    else sum[static_cast<std::size_t>(o)] += x[static_cast<std::size_t>(a)];
  }
  for (int o = 0; o < no; ++o) {
    const std::int64_t n = size[static_cast<std::size_t>(o)];
    if (n > splitAbove) continue;
    const Vec3 c = n > 0 ? Vec3(sum[static_cast<std::size_t>(o)] / static_cast<double>(n)) : Vec3::Zero();
    items.push_back(RefItem{c, n, o, -1});
  }
  std::vector<int> clusterRank(static_cast<std::size_t>(no), 0), vertexRank(static_cast<std::size_t>(nv), -1);
  refBisect(items, 0, items.size(), 0, ranks, clusterRank, vertexRank);
  std::vector<int> owner(static_cast<std::size_t>(nv));
  for (int a = 0; a < nv; ++a) {
    const auto k = static_cast<std::size_t>(a);
    owner[k] = vertexRank[k] >= 0 ? vertexRank[k] : clusterRank[static_cast<std::size_t>(s.vertices.object[k])];
  }
  return owner;
}

}  // namespace

// The cut of each bisection level is chosen by weighted quickselect (expected linear time, not a
// sort): every vertex lands where the sort-based bisection puts it. Objects of 1-6 vertices (the
// weights), one object split vertex by vertex, and positions on a coarse lattice, so that many
// items tie on the cut axis and the tie-break decides.
TEST(AviObjectPartition, BisectionByQuickselectPlacesAsTheSortDoes) {
  std::mt19937 rng(2026);
  std::uniform_int_distribution<int> objectSize(1, 6), cell(0, 9);
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<int> sizes;
    int n = 0;
    while (n < 3000) {
      sizes.push_back(objectSize(rng));
      n += sizes.back();
    }
    sizes.push_back(trial == 0 ? 1 : 400);  // split above N / (2 P) at every rank count below
    const Scene s = objectsOfSizes(sizes);
    std::vector<Vec3> x(static_cast<std::size_t>(s.vertices.size()));
    for (Vec3& p : x) p = Vec3(cell(rng), 0.5 * cell(rng), trial % 2 ? 0.0 : 2.0 * cell(rng));
    for (int ranks : {2, 3, 4, 5, 7, 8, 16}) {
      const ObjectPartition p = partitionObjects(s, {}, ranks, {}, PartitionRule::Bisection, x);
      EXPECT_EQ(p.owner, referenceOwners(s, x, ranks)) << "trial " << trial << ", " << ranks << " ranks";
    }
  }
}

#include "modules/avi/object_partition.hpp"

#include <algorithm>
#include <numeric>

#include "framework/core/error.hpp"

namespace kinema::avi {

namespace {

// Union-find whose root is always the smallest member (deterministic, order-independent).
struct MinUnion {
  std::vector<int> parent;
  explicit MinUnion(int n) : parent(static_cast<std::size_t>(n)) {
    std::iota(parent.begin(), parent.end(), 0);
  }
  int find(int i) {
    while (parent[static_cast<std::size_t>(i)] != i) {
      int& p = parent[static_cast<std::size_t>(i)];
      p = parent[static_cast<std::size_t>(p)];  // path halving
      i = p;
    }
    return i;
  }
  void join(int i, int j) {
    i = find(i);
    j = find(j);
    if (i == j) return;
    if (j < i) std::swap(i, j);
    parent[static_cast<std::size_t>(j)] = i;
  }
};

// Clusters (by root) in order of their root, laid out contiguously by vertex count: a cluster
// goes to the rank whose share holds the midpoint of its vertex range.
std::vector<int> placeInSceneOrder(const std::vector<int>& roots, const std::vector<std::int64_t>& size, int nv,
                                   int ranks) {
  const std::int64_t total = std::max<std::int64_t>(nv, 1);
  std::vector<int> clusterRank(size.size(), 0);
  std::int64_t before = 0;
  for (int r : roots) {
    const std::int64_t n = size[static_cast<std::size_t>(r)];
    // Midpoint (before + n / 2) in units of N / (2 P): rank = floor((2 before + n) P / (2 N)).
    const std::int64_t mid2 = 2 * before + n;
    clusterRank[static_cast<std::size_t>(r)] =
        static_cast<int>(std::min<std::int64_t>(ranks - 1, mid2 * ranks / (2 * total)));
    before += n;
  }
  return clusterRank;
}

constexpr double kAxisSlack = 0.9;

// A bisection item: a whole cluster (vertex < 0) or one vertex of a split cluster.
struct Centroid {
  Vec3 c = Vec3::Zero();
  std::int64_t weight = 0;
  int root = 0;
  int vertex = -1;
};

// Where the bisection put the items.
struct Placement {
  std::vector<int> clusterRank;  // per object index (meaningful at roots of whole clusters)
  std::vector<int> vertexRank;   // per vertex: its rank if its cluster is split, else -1
};

// The order of items along `axis`: by coordinate, ties by cluster and vertex (a strict total order:
// no two items share both, so the order, and every set cut from it, is unique).
struct AlongAxis {
  int axis;
  bool operator()(const Centroid& a, const Centroid& b) const {
    if (a.c[axis] != b.c[axis]) return a.c[axis] < b.c[axis];
    return a.root < b.root || (a.root == b.root && a.vertex < b.vertex);
  }
};

// Rearranges items [first, last) so that [first, cut) holds the items that come, in the order
// along `axis`, before the first item i with (2 before_i + w_i) ranks >= target (before_i: the
// weight of the items before i; the left-hand side grows along the order), and returns cut. The
// same sets as a sort followed by that scan, by weighted quickselect: expected O(n) instead of
// O(n log n), the bisection's largest cost at every epoch start (docs/benchmarks/avi.md, "Scaling
// model").
std::size_t weightedCut(std::vector<Centroid>& items, std::size_t first, std::size_t last, int axis,
                        std::int64_t target, int ranks) {
  const AlongAxis less{axis};
  std::int64_t before = 0;  // weight of the items known to come before [first, last)
  auto at = [&](std::size_t i) { return items.begin() + static_cast<std::ptrdiff_t>(i); };
  while (last - first > 16) {
    // Pivot: the median of three, moved to the end of the range, then the smaller ones to the front.
    const std::size_t mid = first + (last - first) / 2;
    std::size_t p = mid;
    const Centroid &a = items[first], &b = items[mid], &c = items[last - 1];
    if (less(a, b)) p = less(b, c) ? mid : (less(a, c) ? last - 1 : first);
    else p = less(a, c) ? first : (less(b, c) ? last - 1 : mid);
    std::swap(items[p], items[last - 1]);
    const Centroid pivot = items[last - 1];
    const auto split = std::partition(at(first), at(last - 1), [&](const Centroid& x) { return less(x, pivot); });
    const auto k = static_cast<std::size_t>(split - items.begin());
    std::swap(items[k], items[last - 1]);  // the pivot between the smaller and the larger ones
    std::int64_t below = 0;
    for (std::size_t i = first; i < k; ++i) below += items[i].weight;
    if ((2 * (before + below) + pivot.weight) * ranks >= target) {
      last = k;  // the pivot, and everything after it, is at or after the cut
    } else {
      before += below + pivot.weight;  // the cut comes after the pivot
      first = k + 1;
    }
  }
  std::sort(at(first), at(last), less);
  std::size_t cut = first;
  while (cut < last && (2 * before + items[cut].weight) * ranks < target) before += items[cut++].weight;
  return cut;
}

// Recursive coordinate bisection of items [first, last) over ranks [rank0, rank0 + ranks).
void bisect(std::vector<Centroid>& items, std::size_t first, std::size_t last, int rank0, int ranks,
            Placement& out) {
  if (ranks == 1 || last - first <= 1) {
    for (std::size_t i = first; i < last; ++i) {
      if (items[i].vertex >= 0) out.vertexRank[static_cast<std::size_t>(items[i].vertex)] = rank0;
      else out.clusterRank[static_cast<std::size_t>(items[i].root)] = rank0;
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
  // The longest side, the lowest axis among those within 10 % of it: a near-square region keeps
  // its cut direction from one epoch to the next instead of flipping (and moving half its
  // objects) as the objects move.
  const Vec3 extent = hi - lo;
  int axis = 0;
  while (axis < 2 && extent[axis] < kAxisSlack * extent.maxCoeff()) ++axis;
  // The first part takes the items whose weight midpoint lies below its share left / ranks of
  // the total, in the order along the axis: (before + w / 2) < total * left / ranks, in integers.
  const int left = ranks / 2;
  const std::size_t cut = weightedCut(items, first, last, axis, 2 * total * left, ranks);
  bisect(items, first, cut, rank0, left, out);
  bisect(items, cut, last, rank0 + left, ranks - left, out);
}

// Clusters up to `splitAbove` vertices are items by their centroid; larger ones are split: each
// of their vertices is an item.
Placement placeByBisection(const Scene& scene, const std::vector<Vec3>& x, const std::vector<int>& cluster,
                           const std::vector<int>& roots, const std::vector<std::int64_t>& size, int ranks,
                           std::int64_t splitAbove) {
  const Vertices& V = scene.vertices;  // its object indices (the positions are x)
  const int nv = static_cast<int>(V.object.size());
  KINEMA_CHECK(static_cast<int>(x.size()) == nv, "avi partition: bisection needs one position per vertex, got ",
               x.size(), " for ", nv);
  std::vector<Vec3> sum(cluster.size(), Vec3::Zero());
  std::vector<Centroid> items;
  std::size_t splitVertices = 0;
  for (int r : roots)
    if (size[static_cast<std::size_t>(r)] > splitAbove) splitVertices += static_cast<std::size_t>(size[static_cast<std::size_t>(r)]);
  items.reserve(roots.size() + splitVertices);  // at most: every whole cluster and split vertex
  for (int a = 0; a < nv; ++a) {
    const auto r = static_cast<std::size_t>(cluster[static_cast<std::size_t>(V.object[static_cast<std::size_t>(a)])]);
    if (size[r] > splitAbove) items.push_back(Centroid{x[static_cast<std::size_t>(a)], 1, static_cast<int>(r), a});
    else sum[r] += x[static_cast<std::size_t>(a)];
  }
  for (int r : roots) {
    const std::int64_t n = size[static_cast<std::size_t>(r)];
    if (n > splitAbove) continue;
    const Vec3 c = n > 0 ? Vec3(sum[static_cast<std::size_t>(r)] / static_cast<double>(n)) : Vec3::Zero();
    items.push_back(Centroid{c, n, r, -1});
  }
  Placement out;
  out.clusterRank.assign(cluster.size(), 0);
  out.vertexRank.assign(static_cast<std::size_t>(nv), -1);
  bisect(items, 0, items.size(), 0, ranks, out);
  return out;
}

}  // namespace

std::int64_t splitThreshold(std::int64_t vertices, int ranks) {
  return ranks <= 1 ? vertices : std::max<std::int64_t>(1, vertices / (2 * static_cast<std::int64_t>(ranks)));
}

PartitionRule partitionRuleFromName(const std::string& name) {
  if (name == "scene_order") return PartitionRule::SceneOrder;
  if (name == "bisection") return PartitionRule::Bisection;
  throw InputError(str("avi partition: unknown rule '", name, "' (scene_order or bisection)"));
}

int objectCount(const Scene& scene) {
  int n = static_cast<int>(scene.objects.size());
  for (std::int32_t o : scene.vertices.object) n = std::max(n, o + 1);
  return n;
}

ObjectPartition partitionObjects(const Scene& scene, const std::vector<ActiveLayers>& layers,
                                 int ranks, const std::vector<int>& previous, PartitionRule rule,
                                 const std::vector<Vec3>& x) {
  if (ranks < 1) throw InputError(str("avi partition: the rank count must be >= 1, got ", ranks));
  // Only the vertices' object indices are read (a Domain's scene holds no positions: x gives them).
  const Vertices& V = scene.vertices;
  const int nv = static_cast<int>(V.object.size());
  KINEMA_CHECK(V.mass.size() == V.object.size(), "avi partition: vertices.object has ", V.object.size(),
               " entries for ", V.mass.size(), " vertices");
  const int no = objectCount(scene);
  std::vector<std::int64_t> count(static_cast<std::size_t>(no), 0);
  for (int a = 0; a < nv; ++a) {
    const std::int32_t o = V.object[static_cast<std::size_t>(a)];
    if (o < 0) throw InputError(str("avi partition: vertex ", a, " has object index ", o, " (< 0)"));
    ++count[static_cast<std::size_t>(o)];
  }

  // Contact clusters: objects joined by pairs with an active layer.
  MinUnion uf(no);
  auto objectOf = [&](std::int32_t a) {
    KINEMA_CHECK(a >= 0 && a < nv, "avi partition: an active pair names vertex ", a, " of ", nv);
    return static_cast<int>(V.object[static_cast<std::size_t>(a)]);
  };
  for (const ActiveLayers& l : layers) {
    if (l.deepest < 1) continue;
    int first = -1;
    auto visit = [&](std::int32_t a) {
      if (a < 0) return;
      const int o = objectOf(a);
      if (first < 0) first = o; else uf.join(first, o);
    };
    for (std::int32_t a : l.key.a) visit(a);
    if (l.key.kind != PairKind::PointPlane)
      for (std::int32_t b : l.key.b) visit(b);
  }

  ObjectPartition p;
  p.cluster.resize(static_cast<std::size_t>(no));
  std::vector<std::int64_t> clusterSize(static_cast<std::size_t>(no), 0);
  std::vector<int> members(static_cast<std::size_t>(no), 0);
  for (int o = 0; o < no; ++o) {
    const int r = uf.find(o);
    p.cluster[static_cast<std::size_t>(o)] = r;
    clusterSize[static_cast<std::size_t>(r)] += count[static_cast<std::size_t>(o)];
    ++members[static_cast<std::size_t>(r)];
  }
  std::vector<int> roots;
  for (int r = 0; r < no; ++r) {
    if (p.cluster[static_cast<std::size_t>(r)] != r) continue;
    roots.push_back(r);
    if (members[static_cast<std::size_t>(r)] > 1) ++p.clusters;
  }
  Placement place;
  if (rule == PartitionRule::SceneOrder) {
    place.clusterRank = placeInSceneOrder(roots, clusterSize, nv, ranks);
    place.vertexRank.assign(static_cast<std::size_t>(nv), -1);
  } else {
    place = placeByBisection(scene, x, p.cluster, roots, clusterSize, ranks, splitThreshold(nv, ranks));
  }
  p.objectRank.resize(static_cast<std::size_t>(no));
  for (int o = 0; o < no; ++o)
    p.objectRank[static_cast<std::size_t>(o)] =
        place.clusterRank[static_cast<std::size_t>(p.cluster[static_cast<std::size_t>(o)])];
  // A split object: its vertices' ranks, and as its own rank that of its first vertex.
  std::vector<std::uint8_t> seen(static_cast<std::size_t>(no), 0);
  p.owner.resize(static_cast<std::size_t>(nv));
  for (int a = 0; a < nv; ++a) {
    const auto o = static_cast<std::size_t>(V.object[static_cast<std::size_t>(a)]);
    const int r = place.vertexRank[static_cast<std::size_t>(a)];
    if (r >= 0 && !seen[o]) p.objectRank[o] = r;
    seen[o] = 1;
    p.owner[static_cast<std::size_t>(a)] = r >= 0 ? r : p.objectRank[o];
  }
  if (!previous.empty())
    for (int o = 0; o < no; ++o)
      if (o >= static_cast<int>(previous.size()) ||
          previous[static_cast<std::size_t>(o)] != p.objectRank[static_cast<std::size_t>(o)])
        ++p.migrations;
  return p;
}

}  // namespace kinema::avi

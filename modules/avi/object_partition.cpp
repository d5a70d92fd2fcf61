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

}  // namespace

int objectCount(const Scene& scene) {
  int n = static_cast<int>(scene.objects.size());
  for (std::int32_t o : scene.vertices.object) n = std::max(n, o + 1);
  return n;
}

ObjectPartition partitionObjects(const Scene& scene, const std::vector<ActiveLayers>& layers,
                                 int ranks, const std::vector<int>& previous) {
  if (ranks < 1) throw InputError(str("avi partition: the rank count must be >= 1, got ", ranks));
  const Vertices& V = scene.vertices;
  const int nv = V.size();
  KINEMA_CHECK(static_cast<int>(V.object.size()) == nv, "avi partition: vertices.object has ",
               V.object.size(), " entries for ", nv, " vertices");
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

  // Clusters in order of their smallest object (the root), laid out contiguously by vertex count.
  const std::int64_t total = std::max<std::int64_t>(nv, 1);
  std::vector<int> clusterRank(static_cast<std::size_t>(no), 0);
  std::int64_t before = 0;
  for (int r = 0; r < no; ++r) {
    if (p.cluster[static_cast<std::size_t>(r)] != r) continue;  // not a root
    if (members[static_cast<std::size_t>(r)] > 1) ++p.clusters;
    const std::int64_t n = clusterSize[static_cast<std::size_t>(r)];
    // Midpoint (before + n / 2) in units of N / (2 P): rank = floor((2 before + n) P / (2 N)).
    const std::int64_t mid2 = 2 * before + n;
    const std::int64_t rank = std::min<std::int64_t>(ranks - 1, mid2 * ranks / (2 * total));
    clusterRank[static_cast<std::size_t>(r)] = static_cast<int>(rank);
    before += n;
  }
  p.objectRank.resize(static_cast<std::size_t>(no));
  for (int o = 0; o < no; ++o)
    p.objectRank[static_cast<std::size_t>(o)] =
        clusterRank[static_cast<std::size_t>(p.cluster[static_cast<std::size_t>(o)])];
  p.owner.resize(static_cast<std::size_t>(nv));
  for (int a = 0; a < nv; ++a)
    p.owner[static_cast<std::size_t>(a)] =
        p.objectRank[static_cast<std::size_t>(V.object[static_cast<std::size_t>(a)])];
  if (!previous.empty())
    for (int o = 0; o < no; ++o)
      if (o >= static_cast<int>(previous.size()) ||
          previous[static_cast<std::size_t>(o)] != p.objectRank[static_cast<std::size_t>(o)])
        ++p.migrations;
  return p;
}

}  // namespace kinema::avi

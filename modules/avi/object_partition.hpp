#pragma once
// Vertex ownership of the distributed AVI (option A of README decision 57, steps 2 and 7):
// whole objects (scene.objects: a mesh, a particle, a rod) go to ranks, balanced by vertex count,
// and every contact cluster -- a connected component of the graph whose nodes are objects and
// whose edges are pairs with at least one active penalty layer -- goes whole to one rank, so deep
// contact layers (the expensive, lockstep part of the run) never straddle a rank boundary.
//
// The result depends only on the scene, the active-layer list and the rank count (no state of a
// rank enters), so every rank computes the same partition without communication.
//
// Two placement rules for the clusters (singletons included), both balanced by vertex count:
//  - SceneOrder: clusters ordered by their smallest object index and laid out contiguously over
//    the ranks by cumulative vertex count; a cluster goes to the rank in whose share
//    [r N / P, (r + 1) N / P) the midpoint of its vertex range falls. Without contact this is the
//    plain balanced split of the objects in scene order; a cluster sits where its first object was.
//  - Bisection (the default of the Domain): recursive coordinate bisection of the clusters'
//    centroids (vertex-weighted means of the given positions). A set of clusters on P ranks is cut
//    across the longest side of its centroids' bounding box (the lowest axis within 10 % of the
//    longest, so a near-square region keeps its cut as objects move), ordered along that axis (ties by
//    cluster root), into a part for floor(P / 2) ranks and one for the rest, at the point where the
//    cumulative vertex count reaches the first part's share (midpoint rule, as above); then each
//    part is cut again. Ranks own compact regions whatever the scene order (a random ball gas), so
//    only pairs near a cut cross ranks: fewer boundary vertices, sync events and ghosts.
//    A cluster larger than splitThreshold(N, P) = N / (2 P) vertices (a cloth, or a cloth lying on
//    the spikes it touches) is not kept whole: each of its vertices is an item of the bisection,
//    so the big objects are cut into compact pieces and every rank gets work. Its forces and
//    contact pairs along the cuts read vertices of two ranks: they are sync events (README
//    decision 57, step 4), correct at any placement.
#include <cstdint>
#include <string>
#include <vector>

#include "modules/avi/engine.hpp"
#include "modules/avi/scene.hpp"

namespace kinema::avi {

enum class PartitionRule { SceneOrder, Bisection };

// "scene_order" / "bisection" (the `avi.domain.partition` values); InputError for anything else.
PartitionRule partitionRuleFromName(const std::string& name);

// Bisection splits clusters of more than this many vertices (N / (2 P); N at one rank).
std::int64_t splitThreshold(std::int64_t vertices, int ranks);

struct ObjectPartition {
  std::vector<int> objectRank;  // per object (a split object: the rank of its first vertex)
  std::vector<int> owner;       // per vertex: objectRank[vertices.object[a]] unless split
  std::vector<int> cluster;     // per object: smallest object index of its contact cluster
  std::int64_t clusters = 0;    // contact clusters with more than one object
  std::int64_t migrations = 0;  // objects whose rank differs from `previous` (0 without one)
};

// The number of objects: max(scene.objects.size(), 1 + largest vertices.object entry).
int objectCount(const Scene& scene);

// `layers`: the active layers of the whole scene (any order; PointPlane pairs join nothing).
// `previous`: the last objectRank (may be empty), only to count migrations.
// `x`: one position per vertex, read by Bisection only (SceneOrder ignores it; empty is allowed
// there). Every rank that passes the same inputs gets the same partition.
// Throws InputError if ranks < 1 or a vertex's object index is negative, and Error if a pair
// names a vertex out of range or Bisection gets positions of the wrong size.
ObjectPartition partitionObjects(const Scene& scene, const std::vector<ActiveLayers>& layers,
                                 int ranks, const std::vector<int>& previous = {},
                                 PartitionRule rule = PartitionRule::SceneOrder,
                                 const std::vector<Vec3>& x = {});

}  // namespace kinema::avi

#pragma once
// Spatial decomposition of the impact simulator's bodies over the ranks (docs/modules/impact.md,
// "Distributed world"): recursive coordinate bisection (RCB). The rank range [0, P) is split in two
// halves, ⌊P/2⌋ and ⌈P/2⌉ ranks, by a plane normal to the longest axis of the group's bounding box,
// placed so that each side carries weight in proportion to its ranks; each half is split again
// until every group is one rank. The cuts form a binary tree that every rank holds (O(P) numbers):
// a point's owner is found by descending it, and the ranks within a distance of a point (ghosts)
// by descending both sides of every cut closer than that distance.
//
// The cut positions come from weight histograms along the axis, summed over the ranks with integer
// weights (exact, so every rank computes the same tree), refined once inside the bin that holds the
// target: the weight on each side is within one fine bin (the axis extent / kBins²) of the target.
// The subdomains cover all of space (the outermost cells extend to infinity), so a body that flies
// out of the initial bounding box still has an owner.
//
// Which rank owns a body decides only who computes what: the simulator's results do not depend on
// the decomposition (sim_stepper.hpp, "what stays bitwise").
#include <Eigen/Dense>
#include <cstdint>
#include <span>
#include <vector>

#include "framework/core/comm.hpp"

namespace kinema::impact {

class SimDecomposition {
 public:
  // One subdomain holding everything (a single rank, or before build()).
  SimDecomposition() = default;

  // Collective. `x` and `weight` are this rank's bodies (any distribution over the ranks);
  // `dimension` 2 cuts along x and y only.
  void build(std::span<const Eigen::Vector3d> x, std::span<const std::int64_t> weight, int dimension, const Comm& comm);

  int ranks() const { return ranks_; }
  // The rank whose subdomain contains x (points on a cut go to the upper side).
  int ownerOf(const Eigen::Vector3d& x) const;
  // Every rank whose subdomain lies within `distance` of x (in the max norm along the cut axes, a
  // superset of the Euclidean ball), ascending; `out` is cleared first.
  void ranksNear(const Eigen::Vector3d& x, double distance, std::vector<int>& out) const;
  // How many times build() has run (rebalances + the first).
  std::int64_t builds() const { return builds_; }
  // The tree as numbers (5 per node, after the rank count), for checkpoints; fromNumbers() reads
  // it back (InputError if it is not such a tree for `ranks`).
  std::vector<double> toNumbers() const;
  static SimDecomposition fromNumbers(const std::vector<double>& numbers, int ranks);

 private:
  struct Node {
    int axis = -1;       // -1: a leaf
    double cut = 0.0;
    int lower = -1, upper = -1;  // children (node indices)
    int rank = 0;        // leaves: the rank
  };
  void near(int node, const Eigen::Vector3d& x, double distance, std::vector<int>& out) const;

  std::vector<Node> nodes_ = {Node{}};
  int ranks_ = 1;
  std::int64_t builds_ = 0;
};

}  // namespace kinema::impact

#pragma once
// Sort-and-sweep broad phase on one axis (Baraff 1992; Cohen et al. 1995, I-COLLIDE).
//
// Boxes are sorted by their lower bound on the sweep axis; each box is then tested against the
// boxes that start before it ends. The axis is the one with the largest variance of box centres;
// it is kept across calls unless another axis's variance exceeds it by 1.5x (hysteresis, so that
// coherent frames keep their order and the incremental path).
//
// Incremental re-sort: when N and the axis are unchanged, the previous frame's order is re-keyed
// and repaired by insertion sort, O(N + swaps) for coherent motion. If the swaps exceed 8 N
// (incoherent motion, e.g. a teleported scene) it abandons and falls back to a full sort. Ties on
// the key are broken by box index, so the order is a function of the input alone and the
// incremental and fresh paths produce the same order, hence the same output.
//
// Output contract: broad_phase.hpp (pairs i < j, each once, sorted by (i, j)). Buffers are members,
// reused across calls (no allocation after warm-up); one instance per thread.
#include <cstdint>
#include <span>
#include <vector>

#include "framework/geometry/aabb.hpp"
#include "framework/geometry/broad_phase.hpp"

namespace kinema::geometry {

template <int D>
class SweepAndPrune {
 public:
  // All overlapping pairs of `boxes`. Throws InputError naming the box for NaN / infinite
  // coordinates or lo > hi.
  void findPairs(std::span<const Aabb<D>> boxes, std::vector<BodyPair>& pairs);

  // Forgets the previous frame: the next call sorts from scratch and re-chooses the axis.
  void reset() {
    order_.clear();
    axis_ = -1;
  }

  int axis() const { return axis_; }                           // of the last call
  bool lastWasIncremental() const { return incremental_; }     // insertion sort was enough
  std::int64_t lastSwaps() const { return swaps_; }            // insertion-sort moves

 private:
  int chooseAxis(std::span<const Aabb<D>> boxes) const;

  int axis_ = -1;
  bool incremental_ = false;
  std::int64_t swaps_ = 0;
  std::vector<std::int32_t> order_;  // box indices sorted by (lo[axis], index)
  std::vector<double> keys_;         // lo[axis] in sorted order
  struct Slot {  // one box in sorted order: end on the sweep axis, intervals on the others
    double hi;
    double lo2[D - 1];
    double hi2[D - 1];
  };
  std::vector<Slot> sweep_;
  std::vector<std::int32_t> sortCount_;
  std::vector<BodyPair> sortScratch_;
};

extern template class SweepAndPrune<2>;
extern template class SweepAndPrune<3>;

}  // namespace kinema::geometry

#pragma once
// Hashed-grid broad phase ("spatial hashing", Teschner et al. 2003), with a hierarchy of grid
// levels for boxes of different sizes (hierarchical spatial hashing, Eitz and Lixu 2007).
//
// Cell size (decision): the base cell h is `cellScale` times the median over boxes of the box's
// largest side (or `cellSize` if given). The median, not the max, so that a few large bodies
// (a container, a big rock) do not coarsen the grid for the many small ones. Level L has cells of
// edge h 2^L, and a box lives on the lowest level whose cell is at least its largest side, so it
// covers at most 2^D cells there. With uniform sizes everything is on level 0 and the query is a
// plain uniform grid, O(N + pairs). Degenerate inputs (all points) fall back to the max side, then
// to the domain size over N^(1/D).
//
// Pairs on one level are found in shared cells; a pair (small box, larger box) is found by the
// small box looking up the at most 2^D cells it covers on each coarser, non-empty level. Either
// way a pair is reported only from the cell holding the lower corner of the two boxes'
// intersection, so no deduplication pass is needed. The pairs are then sorted (BodyPair order,
// broad_phase.hpp); the output does not depend on the table layout.
//
// All buffers are members and are reused: after a warm-up call, a call with the same
// configuration does not allocate (tests/geometry/test_geometry_allocation.cpp checks it). One
// instance per thread: findPairs() writes those buffers.
#include <cstdint>
#include <span>
#include <vector>

#include "framework/geometry/aabb.hpp"
#include "framework/geometry/broad_phase.hpp"

namespace kinema::geometry {

template <int D>
class SpatialHash {
 public:
  struct Options {
    double cellSize = 0.0;   // > 0 fixes the base cell edge; 0 chooses it per call (see above)
    double cellScale = 1.0;  // multiplies the median box size when the cell is chosen
  };

  SpatialHash() = default;
  explicit SpatialHash(const Options& options) : options_(options) {}

  // All overlapping pairs of `boxes` (contract in broad_phase.hpp). Throws InputError naming the
  // box for NaN / infinite coordinates or lo > hi.
  void findPairs(std::span<const Aabb<D>> boxes, std::vector<BodyPair>& pairs);

  double cellSize() const { return cell_; }  // base cell edge of the last call
  int numLevels() const;                     // non-empty grid levels in the last call
  std::int64_t numEntries() const { return static_cast<std::int64_t>(entries_.size()); }

 private:
  static constexpr int kMaxLevels = 48;
  struct Entry {
    std::uint32_t bucket;
    std::int32_t box;
    std::int32_t level;
    std::int32_t cell[D];
  };
  double chooseCellSize(std::span<const Aabb<D>> boxes, const Aabb<D>& domain);
  std::int32_t cellOf(double x, int axis, int level) const;
  std::uint32_t bucketOf(const std::int32_t* cell, int level) const;

  Options options_;
  double cell_ = 0.0;
  double inv_[kMaxLevels] = {};  // 1 / cell edge per level
  typename Aabb<D>::Vec origin_ = Aabb<D>::Vec::Zero();
  std::uint64_t usedLevels_ = 0;  // bit L: some box lives on level L
  std::uint32_t mask_ = 0;        // table size - 1
  std::vector<double> sizes_;            // median selection
  std::vector<std::int8_t> level_;       // per box
  std::vector<std::int32_t> lowCell_;    // D per box, on its own level
  std::vector<std::int32_t> highCell_;   // D per box
  std::vector<Entry> entries_, sorted_;
  std::vector<std::uint32_t> bucketStart_;
  std::vector<std::int32_t> sortCount_;
  std::vector<BodyPair> sortScratch_;
};

extern template class SpatialHash<2>;
extern template class SpatialHash<3>;

}  // namespace kinema::geometry

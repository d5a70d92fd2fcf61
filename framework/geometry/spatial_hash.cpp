#include "framework/geometry/spatial_hash.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace kinema::geometry {

template <int D>
int SpatialHash<D>::numLevels() const {
  return std::popcount(usedLevels_);
}

template <int D>
double SpatialHash<D>::chooseCellSize(std::span<const Aabb<D>> boxes, const Aabb<D>& domain) {
  if (options_.cellSize > 0.0) return options_.cellSize;
  const std::size_t n = boxes.size();
  sizes_.resize(n);
  double maxSize = 0.0;
  for (std::size_t b = 0; b < n; ++b) {
    sizes_[b] = boxes[b].extent().maxCoeff();
    maxSize = std::max(maxSize, sizes_[b]);
  }
  auto mid = sizes_.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(sizes_.begin(), mid, sizes_.end());
  double h = options_.cellScale * *mid;
  if (!(h > 0.0)) h = options_.cellScale * maxSize;
  const double span = domain.extent().maxCoeff();
  if (!(h > 0.0)) h = span / std::pow(static_cast<double>(n), 1.0 / D);
  if (!(h > 0.0)) h = 1.0;  // every box is the same point
  return h;
}

// One monotone map from a coordinate to a cell index per (axis, level): lo and hi of every box and
// the lower corner of every intersection go through it, so the owner cell of a pair lies in the
// cell ranges of both boxes.
template <int D>
std::int32_t SpatialHash<D>::cellOf(double x, int axis, int level) const {
  return static_cast<std::int32_t>(std::floor((x - origin_[axis]) * inv_[level]));
}

// Teschner et al. 2003: XOR of the coordinates times large primes, and of the level.
template <int D>
std::uint32_t SpatialHash<D>::bucketOf(const std::int32_t* c, int level) const {
  constexpr std::uint32_t primes[3] = {73856093u, 19349663u, 83492791u};
  std::uint32_t h = static_cast<std::uint32_t>(level) * 2654435761u;
  for (int k = 0; k < D; ++k) h ^= static_cast<std::uint32_t>(c[k]) * primes[k];
  return h & mask_;
}

template <int D>
void SpatialHash<D>::findPairs(std::span<const Aabb<D>> boxes, std::vector<BodyPair>& pairs) {
  validateBoxes(boxes);
  pairs.clear();
  entries_.clear();
  usedLevels_ = 0;
  const auto n = static_cast<std::int32_t>(boxes.size());
  if (n < 2) return;

  Aabb<D> domain;
  for (const Aabb<D>& b : boxes) domain.merge(b);
  double h = chooseCellSize(boxes, domain);
  // Cell coordinates are 32-bit: keep the base grid below 2^30 cells per axis.
  h = std::max(h, domain.extent().maxCoeff() / double(1 << 30));
  cell_ = h;
  origin_ = domain.lo;
  for (int L = 0; L < kMaxLevels; ++L) inv_[L] = std::ldexp(1.0 / h, -L);  // exact powers of 2

  // Pass 1: level and cell range of every box, and the entry count.
  level_.resize(static_cast<std::size_t>(n));
  lowCell_.resize(static_cast<std::size_t>(n) * D);
  highCell_.resize(static_cast<std::size_t>(n) * D);
  std::size_t numEntries = 0;
  for (std::int32_t b = 0; b < n; ++b) {
    const double side = boxes[b].extent().maxCoeff();
    int L = 0;
    while (L + 1 < kMaxLevels && side * inv_[L] > 1.0) ++L;
    level_[b] = static_cast<std::int8_t>(L);
    usedLevels_ |= std::uint64_t{1} << L;
    std::size_t cells = 1;
    for (int k = 0; k < D; ++k) {
      lowCell_[b * D + k] = cellOf(boxes[b].lo[k], k, L);
      highCell_[b * D + k] = cellOf(boxes[b].hi[k], k, L);
      cells *= static_cast<std::size_t>(highCell_[b * D + k] - lowCell_[b * D + k]) + 1;
    }
    numEntries += cells;
  }

  // Pass 2: one entry per (box, covered cell on its level).
  std::uint32_t tableSize = 1;
  while (tableSize < 2 * numEntries) tableSize <<= 1;
  mask_ = tableSize - 1;
  entries_.resize(numEntries);
  std::size_t e = 0;
  for (std::int32_t b = 0; b < n; ++b) {
    const std::int32_t* lo = &lowCell_[b * D];
    const std::int32_t* hi = &highCell_[b * D];
    std::int32_t c[D];
    for (int k = 0; k < D; ++k) c[k] = lo[k];
    for (;;) {
      Entry& en = entries_[e++];
      en.box = b;
      en.level = level_[b];
      for (int k = 0; k < D; ++k) en.cell[k] = c[k];
      en.bucket = bucketOf(c, level_[b]);
      int k = 0;  // odometer increment over the cell range
      for (; k < D; ++k) {
        if (c[k] < hi[k]) {
          ++c[k];
          break;
        }
        c[k] = lo[k];
      }
      if (k == D) break;
    }
  }

  // Counting sort of the entries by bucket; bucketStart_ doubles as the placement cursor.
  bucketStart_.assign(static_cast<std::size_t>(tableSize) + 1, 0);
  for (const Entry& en : entries_) ++bucketStart_[en.bucket + 1];
  for (std::uint32_t t = 0; t < tableSize; ++t) bucketStart_[t + 1] += bucketStart_[t];
  sorted_.resize(numEntries);
  for (const Entry& en : entries_) sorted_[bucketStart_[en.bucket]++] = en;
  for (std::uint32_t t = tableSize; t > 0; --t) bucketStart_[t] = bucketStart_[t - 1];
  bucketStart_[0] = 0;

  auto emit = [&](std::int32_t a, std::int32_t b) {
    if (boxes[a].overlaps(boxes[b])) pairs.push_back({std::min(a, b), std::max(a, b)});
  };

  // Same level: pairs within a bucket that share the cell that owns their intersection.
  for (std::uint32_t t = 0; t < tableSize; ++t) {
    const std::uint32_t begin = bucketStart_[t], end = bucketStart_[t + 1];
    for (std::uint32_t p = begin; p + 1 < end; ++p) {
      const Entry& ea = sorted_[p];
      for (std::uint32_t q = p + 1; q < end; ++q) {
        const Entry& eb = sorted_[q];
        if (ea.level != eb.level || ea.box == eb.box) continue;
        bool owner = true;
        for (int k = 0; k < D && owner; ++k)
          owner = ea.cell[k] == eb.cell[k] &&
                  ea.cell[k] == std::max(lowCell_[ea.box * D + k], lowCell_[eb.box * D + k]);
        if (owner) emit(ea.box, eb.box);
      }
    }
  }

  // Across levels: each box looks up the cells it covers on every coarser non-empty level.
  if (std::popcount(usedLevels_) > 1) {
    for (std::int32_t b = 0; b < n; ++b) {
      const Aabb<D>& box = boxes[b];
      for (int L = level_[b] + 1; L < kMaxLevels; ++L) {
        if (!(usedLevels_ >> L & 1)) continue;
        std::int32_t lo[D], hi[D], c[D];
        for (int k = 0; k < D; ++k) {
          lo[k] = c[k] = cellOf(box.lo[k], k, L);
          hi[k] = cellOf(box.hi[k], k, L);
        }
        for (;;) {
          const std::uint32_t t = bucketOf(c, L);
          for (std::uint32_t p = bucketStart_[t]; p < bucketStart_[t + 1]; ++p) {
            const Entry& en = sorted_[p];
            if (en.level != L) continue;
            bool owner = true;
            for (int k = 0; k < D && owner; ++k)
              owner = en.cell[k] == c[k] &&
                      c[k] == cellOf(std::max(box.lo[k], boxes[en.box].lo[k]), k, L);
            if (owner) emit(b, en.box);
          }
          int k = 0;
          for (; k < D; ++k) {
            if (c[k] < hi[k]) {
              ++c[k];
              break;
            }
            c[k] = lo[k];
          }
          if (k == D) break;
        }
      }
    }
  }

  sortPairs(pairs, n, sortCount_, sortScratch_);
}

template class SpatialHash<2>;
template class SpatialHash<3>;

}  // namespace kinema::geometry

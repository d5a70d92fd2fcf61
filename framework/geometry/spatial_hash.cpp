#include "framework/geometry/spatial_hash.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace kinema::geometry {

namespace {

// Odometer increment of cell c over the cell range [lo, hi] (axis 0 fastest); false after the last cell.
template <int D>
inline bool nextCell(std::int32_t* c, const std::int32_t* lo, const std::int32_t* hi) {
  int k = 0;  // odometer increment over the cell range
  for (; k < D; ++k) {
    if (c[k] < hi[k]) {
      ++c[k];
      break;
    }
    c[k] = lo[k];
  }
  return k != D;
}

// The hash table after the counting sort: the entries of bucket t are sorted[start[t], start[t + 1]).
template <class Entry>
struct BucketTable {
  const std::vector<Entry>& sorted;
  const std::vector<std::uint32_t>& start;
};

// Pass 2: one entry per (box, covered cell on its level); `bucketOf(cell, level)` hashes a cell.
template <int D, class Entry, class BucketOf>
inline void fillEntries(const std::vector<std::int8_t>& level, const std::vector<std::int32_t>& lowCell,
                        const std::vector<std::int32_t>& highCell, const BucketOf& bucketOf,
                        std::vector<Entry>& entries) {
  const auto n = static_cast<std::int32_t>(level.size());
  std::size_t e = 0;
  for (std::int32_t b = 0; b < n; ++b) {
    const std::int32_t* lo = &lowCell[b * D];
    const std::int32_t* hi = &highCell[b * D];
    std::int32_t c[D];
    for (int k = 0; k < D; ++k) c[k] = lo[k];
    do {
      Entry& en = entries[e++];
      en.box = b;
      en.level = level[b];
      for (int k = 0; k < D; ++k) en.cell[k] = c[k];
      en.bucket = bucketOf(c, level[b]);
    } while (nextCell<D>(c, lo, hi));
  }
}

// Counting sort of the entries by bucket; start doubles as the placement cursor.
template <class Entry>
inline void sortByBucket(const std::vector<Entry>& entries, std::uint32_t tableSize,
                         std::vector<std::uint32_t>& start, std::vector<Entry>& sorted) {
  start.assign(static_cast<std::size_t>(tableSize) + 1, 0);
  for (const Entry& en : entries) ++start[en.bucket + 1];
  for (std::uint32_t t = 0; t < tableSize; ++t) start[t + 1] += start[t];
  sorted.resize(entries.size());
  for (const Entry& en : entries) sorted[start[en.bucket]++] = en;
  for (std::uint32_t t = tableSize; t > 0; --t) start[t] = start[t - 1];
  start[0] = 0;
}

// Same level: pairs within a bucket that share the cell that owns their intersection.
template <int D, class Entry, class Emit>
inline void sameLevelPairs(const BucketTable<Entry>& table, std::uint32_t tableSize,
                           const std::vector<std::int32_t>& lowCell, const Emit& emit) {
  for (std::uint32_t t = 0; t < tableSize; ++t) {
    const std::uint32_t begin = table.start[t], end = table.start[t + 1];
    for (std::uint32_t p = begin; p + 1 < end; ++p) {
      const Entry& ea = table.sorted[p];
      for (std::uint32_t q = p + 1; q < end; ++q) {
        const Entry& eb = table.sorted[q];
        if (ea.level != eb.level || ea.box == eb.box) continue;
        bool owner = true;
        for (int k = 0; k < D && owner; ++k)
          owner = ea.cell[k] == eb.cell[k] &&
                  ea.cell[k] == std::max(lowCell[ea.box * D + k], lowCell[eb.box * D + k]);
        if (owner) emit(ea.box, eb.box);
      }
    }
  }
}

// Across levels, one level: box b looks up the cells it covers on the coarser level L and emits the
// pairs whose owner cell is there. `cellOf` and `bucketOf` are SpatialHash::cellOf and ::bucketOf.
template <int D, class Entry, class CellOf, class BucketOf, class Emit>
inline void coarserLevelPairs(std::span<const Aabb<D>> boxes, std::int32_t b, int L, const BucketTable<Entry>& table,
                              const CellOf& cellOf, const BucketOf& bucketOf, const Emit& emit) {
  const Aabb<D>& box = boxes[b];
  std::int32_t lo[D], hi[D], c[D];
  for (int k = 0; k < D; ++k) {
    lo[k] = c[k] = cellOf(box.lo[k], k, L);
    hi[k] = cellOf(box.hi[k], k, L);
  }
  do {
    const std::uint32_t t = bucketOf(c, L);
    for (std::uint32_t p = table.start[t]; p < table.start[t + 1]; ++p) {
      const Entry& en = table.sorted[p];
      if (en.level != L) continue;
      bool owner = true;
      for (int k = 0; k < D && owner; ++k)
        owner = en.cell[k] == c[k] && c[k] == cellOf(std::max(box.lo[k], boxes[en.box].lo[k]), k, L);
      if (owner) emit(b, en.box);
    }
  } while (nextCell<D>(c, lo, hi));
}

}  // namespace

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

  // The private cell and bucket maps, for the helpers above.
  const auto toCell = [this](double x, int axis, int level) { return cellOf(x, axis, level); };
  const auto toBucket = [this](const std::int32_t* c, int level) { return bucketOf(c, level); };

  // Pass 2: one entry per (box, covered cell on its level), then sorted by bucket.
  std::uint32_t tableSize = 1;
  while (tableSize < 2 * numEntries) tableSize <<= 1;
  mask_ = tableSize - 1;
  entries_.resize(numEntries);
  fillEntries<D>(level_, lowCell_, highCell_, toBucket, entries_);
  sortByBucket(entries_, tableSize, bucketStart_, sorted_);
  const BucketTable<Entry> table{sorted_, bucketStart_};

  auto emit = [&](std::int32_t a, std::int32_t b) {
    if (boxes[a].overlaps(boxes[b])) pairs.push_back({std::min(a, b), std::max(a, b)});
  };

  sameLevelPairs<D>(table, tableSize, lowCell_, emit);

  // Across levels: each box looks up the cells it covers on every coarser non-empty level.
  if (std::popcount(usedLevels_) > 1) {
    for (std::int32_t b = 0; b < n; ++b) {
      for (int L = level_[b] + 1; L < kMaxLevels; ++L) {
        if (usedLevels_ >> L & 1) coarserLevelPairs<D>(boxes, b, L, table, toCell, toBucket, emit);
      }
    }
  }

  sortPairs(pairs, n, sortCount_, sortScratch_);
}

template class SpatialHash<2>;
template class SpatialHash<3>;

}  // namespace kinema::geometry

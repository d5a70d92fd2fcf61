#include "framework/geometry/sweep_and_prune.hpp"

#include <algorithm>
#include <numeric>

namespace kinema::geometry {

namespace {

// Repairs the re-keyed previous order by insertion sort on (key, index), counting the moves in
// `swaps`; false, with the order only partly repaired, once they pass 8 n.
inline bool repairByInsertion(std::vector<double>& keys, std::vector<std::int32_t>& order, std::int64_t& swaps) {
  const auto n = static_cast<std::int32_t>(order.size());
  const std::int64_t budget = 8 * static_cast<std::int64_t>(n);
  bool ok = true;
  for (std::int32_t p = 1; p < n && ok; ++p) {
    const double key = keys[p];
    const std::int32_t idx = order[p];
    std::int32_t q = p;
    while (q > 0 && (keys[q - 1] > key || (keys[q - 1] == key && order[q - 1] > idx))) {
      keys[q] = keys[q - 1];
      order[q] = order[q - 1];
      --q;
      if (++swaps > budget) {
        ok = false;
        break;
      }
    }
    keys[q] = key;
    order[q] = idx;
  }
  return ok;
}

// Sweep: box p meets every later box q that starts before p ends (closed intervals). `sweep`,
// `keys` and `order` are in sorted order; O is the number of other axes.
template <int O, class Slot>
inline void sweepPairs(const std::vector<Slot>& sweep, const std::vector<double>& keys,
                       const std::vector<std::int32_t>& order, std::vector<BodyPair>& pairs) {
  const auto n = static_cast<std::int32_t>(sweep.size());
  for (std::int32_t p = 0; p < n; ++p) {
    const Slot a = sweep[p];
    for (std::int32_t q = p + 1; q < n && keys[q] <= a.hi; ++q) {
      const Slot& b = sweep[q];
      // Non-short-circuit &: each comparison is a coin flip, the conjunction is rarely true, so
      // one well-predicted branch beats four unpredictable ones (2x on dense scenes).
      bool overlap = (a.lo2[0] <= b.hi2[0]) & (b.lo2[0] <= a.hi2[0]);
      if constexpr (O == 2) overlap = overlap & (a.lo2[1] <= b.hi2[1]) & (b.lo2[1] <= a.hi2[1]);
      if (!overlap) continue;
      const std::int32_t i = order[p], j = order[q];
      pairs.push_back({std::min(i, j), std::max(i, j)});
    }
  }
}

}  // namespace

template <int D>
int SweepAndPrune<D>::chooseAxis(std::span<const Aabb<D>> boxes) const {
  using Vec = typename Aabb<D>::Vec;
  Vec sum = Vec::Zero(), sum2 = Vec::Zero();
  for (const Aabb<D>& b : boxes) {
    const Vec c = b.centre();
    sum += c;
    sum2 += c.cwiseProduct(c);
  }
  const double inv = 1.0 / static_cast<double>(boxes.size());
  const Vec var = sum2 * inv - (sum * inv).cwiseProduct(sum * inv);
  int best = 0;
  for (int k = 1; k < D; ++k)
    if (var[k] > var[best]) best = k;
  if (axis_ >= 0 && !(var[best] > 1.5 * var[axis_])) return axis_;
  return best;
}

template <int D>
void SweepAndPrune<D>::findPairs(std::span<const Aabb<D>> boxes, std::vector<BodyPair>& pairs) {
  validateBoxes(boxes);
  pairs.clear();
  const auto n = static_cast<std::int32_t>(boxes.size());
  incremental_ = false;
  swaps_ = 0;
  if (n < 2) {
    order_.clear();
    return;
  }

  const int axis = chooseAxis(boxes);
  const bool reuse = axis == axis_ && static_cast<std::int32_t>(order_.size()) == n;
  axis_ = axis;
  keys_.resize(static_cast<std::size_t>(n));

  if (reuse) {
    // Re-key the previous order and repair it by insertion sort on (key, index).
    for (std::int32_t p = 0; p < n; ++p) keys_[p] = boxes[order_[p]].lo[axis];
    incremental_ = repairByInsertion(keys_, order_, swaps_);
  }
  if (!incremental_) {
    order_.resize(static_cast<std::size_t>(n));
    std::iota(order_.begin(), order_.end(), 0);
    std::sort(order_.begin(), order_.end(), [&](std::int32_t a, std::int32_t b) {
      const double ka = boxes[a].lo[axis], kb = boxes[b].lo[axis];
      return ka != kb ? ka < kb : a < b;
    });
    for (std::int32_t p = 0; p < n; ++p) keys_[p] = boxes[order_[p]].lo[axis];
  }

  // Gather the sweep data in sorted order: the end on the sweep axis and the intervals on the
  // other axes, contiguous, so the inner loop streams through memory.
  constexpr int O = D - 1;  // other axes
  int other[O];
  for (int k = 0, m = 0; k < D; ++k)
    if (k != axis) other[m++] = k;
  sweep_.resize(static_cast<std::size_t>(n));
  for (std::int32_t p = 0; p < n; ++p) {
    const Aabb<D>& b = boxes[order_[p]];
    Slot& s = sweep_[p];
    s.hi = b.hi[axis];
    for (int m = 0; m < O; ++m) {
      s.lo2[m] = b.lo[other[m]];
      s.hi2[m] = b.hi[other[m]];
    }
  }

  sweepPairs<O>(sweep_, keys_, order_, pairs);

  sortPairs(pairs, n, sortCount_, sortScratch_);
}

template class SweepAndPrune<2>;
template class SweepAndPrune<3>;

}  // namespace kinema::geometry

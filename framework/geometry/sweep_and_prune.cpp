#include "framework/geometry/sweep_and_prune.hpp"

#include <algorithm>
#include <numeric>

namespace kinema::geometry {

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
    const std::int64_t budget = 8 * static_cast<std::int64_t>(n);
    bool ok = true;
    for (std::int32_t p = 1; p < n && ok; ++p) {
      const double key = keys_[p];
      const std::int32_t idx = order_[p];
      std::int32_t q = p;
      while (q > 0 && (keys_[q - 1] > key || (keys_[q - 1] == key && order_[q - 1] > idx))) {
        keys_[q] = keys_[q - 1];
        order_[q] = order_[q - 1];
        --q;
        if (++swaps_ > budget) {
          ok = false;
          break;
        }
      }
      keys_[q] = key;
      order_[q] = idx;
    }
    incremental_ = ok;
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

  // Sweep: box p meets every later box q that starts before p ends (closed intervals).
  for (std::int32_t p = 0; p < n; ++p) {
    const Slot a = sweep_[p];
    for (std::int32_t q = p + 1; q < n && keys_[q] <= a.hi; ++q) {
      const Slot& b = sweep_[q];
      // Non-short-circuit &: each comparison is a coin flip, the conjunction is rarely true, so
      // one well-predicted branch beats four unpredictable ones (2x on dense scenes).
      bool overlap = (a.lo2[0] <= b.hi2[0]) & (b.lo2[0] <= a.hi2[0]);
      if constexpr (O == 2) overlap = overlap & (a.lo2[1] <= b.hi2[1]) & (b.lo2[1] <= a.hi2[1]);
      if (!overlap) continue;
      const std::int32_t i = order_[p], j = order_[q];
      pairs.push_back({std::min(i, j), std::max(i, j)});
    }
  }

  sortPairs(pairs, n, sortCount_, sortScratch_);
}

template class SweepAndPrune<2>;
template class SweepAndPrune<3>;

}  // namespace kinema::geometry

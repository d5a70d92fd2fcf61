// Cost-balanced strand-to-rank assignment by greedy LPT (see strand_partition.hpp).
#include "modules/der/strand_partition.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <queue>
#include <utility>

#include "framework/core/error.hpp"

namespace kinema::der {

double strandCost(int vertices) {
  constexpr double kd = 21.0;
  double n = std::max(0.0, 7.0 * vertices - 14.0);
  return n * kd * kd;
}

std::vector<double> strandCosts(std::span<const StrandGeometry> strands) {
  std::vector<double> c(strands.size());
  for (std::size_t s = 0; s < strands.size(); ++s) c[s] = strandCost(strands[s].vertices());
  return c;
}

std::vector<std::int64_t> StrandPartition::strandsOf(int rank) const {
  KINEMA_CHECK(rank >= 0 && rank < ranks, "StrandPartition::strandsOf(", rank, ") with ", ranks, " ranks");
  std::vector<std::int64_t> mine;
  for (std::size_t s = 0; s < owner.size(); ++s)
    if (owner[s] == rank) mine.push_back(static_cast<std::int64_t>(s));
  return mine;
}

double StrandPartition::imbalance() const {
  double total = std::accumulate(load.begin(), load.end(), 0.0);
  if (!(total > 0.0)) return 1.0;
  return *std::max_element(load.begin(), load.end()) / (total / ranks);
}

StrandPartition partitionStrands(std::span<const double> costs, int ranks) {
  if (ranks < 1) throw InputError(str("partitionStrands: ", ranks, " ranks"));
  for (std::size_t s = 0; s < costs.size(); ++s)
    if (!(costs[s] >= 0.0) || !std::isfinite(costs[s]))
      throw InputError(str("partitionStrands: strand ", s, " has cost ", costs[s], ", expected finite >= 0"));
  StrandPartition p;
  p.ranks = ranks;
  p.owner.assign(costs.size(), 0);
  p.load.assign(static_cast<std::size_t>(ranks), 0.0);

  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });

  // Min-heap of (load, rank): the least-loaded rank, the lower rank on ties.
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  for (int r = 0; r < ranks; ++r) heap.emplace(0.0, r);
  for (std::size_t s : order) {
    auto [load, r] = heap.top();
    heap.pop();
    p.owner[s] = r;
    load += costs[s];
    p.load[static_cast<std::size_t>(r)] = load;
    heap.emplace(load, r);
  }
  return p;
}

std::vector<StrandRange> partitionStrandsContiguous(std::span<const double> costs, int ranks) {
  if (ranks < 1) throw InputError(str("partitionStrandsContiguous: ", ranks, " ranks"));
  double total = 0.0;
  for (std::size_t s = 0; s < costs.size(); ++s) {
    if (!(costs[s] >= 0.0) || !std::isfinite(costs[s]))
      throw InputError(str("partitionStrandsContiguous: strand ", s, " has cost ", costs[s], ", expected finite >= 0"));
    total += costs[s];
  }
  std::vector<StrandRange> ranges(static_cast<std::size_t>(ranks));
  double before = 0.0;
  for (std::size_t s = 0; s < costs.size(); ++s) {
    const double mid = before + 0.5 * costs[s];
    int r = total > 0.0 ? static_cast<int>(std::floor(mid / total * ranks)) : static_cast<int>(s * ranks / costs.size());
    r = std::clamp(r, 0, ranks - 1);
    // Ranges stay contiguous and ordered: a strand never goes to a lower rank than its predecessor.
    if (s > 0) {
      int prev = 0;
      for (int q = ranks - 1; q >= 0; --q)
        if (ranges[static_cast<std::size_t>(q)].count > 0) { prev = q; break; }
      r = std::max(r, prev);
    }
    StrandRange& range = ranges[static_cast<std::size_t>(r)];
    if (range.count == 0) range.first = static_cast<std::int64_t>(s);
    ++range.count;
    before += costs[s];
  }
  // Empty ranks get an empty range positioned after their predecessor (for slab offsets).
  std::int64_t next = 0;
  for (auto& range : ranges) {
    if (range.count == 0) range.first = next;
    next = range.first + range.count;
  }
  return ranges;
}

}  // namespace kinema::der

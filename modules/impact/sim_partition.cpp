#include "modules/impact/sim_partition.hpp"

#include <algorithm>
#include <numeric>

namespace kinema::impact {

double assignIslands(std::span<const double> cost, int ranks, std::vector<int>& rankOf, std::vector<int>& order,
                     std::vector<double>& load) {
  const int n = static_cast<int>(cost.size());
  rankOf.assign(cost.size(), 0);
  order.resize(cost.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const double ca = cost[static_cast<std::size_t>(a)], cb = cost[static_cast<std::size_t>(b)];
    return ca != cb ? ca > cb : a < b;
  });
  load.assign(static_cast<std::size_t>(ranks), 0.0);
  for (int k = 0; k < n; ++k) {
    const int island = order[static_cast<std::size_t>(k)];
    const auto r = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    rankOf[static_cast<std::size_t>(island)] = static_cast<int>(r);
    load[r] += cost[static_cast<std::size_t>(island)];
  }
  const double total = std::accumulate(load.begin(), load.end(), 0.0);
  if (total <= 0.0) return 1.0;
  return *std::max_element(load.begin(), load.end()) / (total / ranks);
}

}  // namespace kinema::impact

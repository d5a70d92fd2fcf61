#include "modules/der/der_partition.hpp"

#include <numeric>

#include "framework/core/log.hpp"
#include "modules/der/der_sources.hpp"

namespace kinema::der {

ScenePartition partitionScene(const std::vector<std::int64_t>& vertexOffset, const Comm& comm) {
  const std::int64_t S = static_cast<std::int64_t>(vertexOffset.size()) - 1;
  std::vector<double> costs(u(S));
  for (std::int64_t s = 0; s < S; ++s)
    costs[u(s)] = strandCost(static_cast<int>(vertexOffset[u(s + 1)] - vertexOffset[u(s)]));
  const auto ranges = partitionStrandsContiguous(costs, comm.size());
  ScenePartition part;
  part.mine = ranges[u(comm.rank())];
  double load = 0.0, total = std::accumulate(costs.begin(), costs.end(), 0.0);
  for (std::int64_t s = part.mine.first; s < part.mine.first + part.mine.count; ++s) load += costs[u(s)];
  const double maxLoad = comm.max(load);
  part.imbalance = total > 0.0 ? maxLoad / (total / comm.size()) : 1.0;
  if (S < comm.size())
    log::warn("der: ", S, " strands on ", comm.size(), " ranks: ", comm.size() - S, " ranks have nothing to do");
  return part;
}

}  // namespace kinema::der

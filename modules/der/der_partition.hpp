#pragma once
// The strands of a der scene over the ranks: a contiguous, cost-balanced range per rank from the
// strands' vertex counts alone (strand_partition.hpp's cost model, README decision 29).
#include <cstdint>
#include <vector>

#include "framework/core/comm.hpp"
#include "modules/der/strand_partition.hpp"

namespace kinema::der {

struct ScenePartition {
  StrandRange mine;        // this rank's strands
  double imbalance = 1.0;  // the busiest rank's cost over the mean (1 = balanced)
};

// Collective. `vertexOffset` holds every strand's first vertex and the total (size S + 1). Warns
// when some ranks have no strand.
ScenePartition partitionScene(const std::vector<std::int64_t>& vertexOffset, const Comm& comm);

}  // namespace kinema::der

#pragma once
// The forces one rank holds in a partitioned run (README decision 48): those touching a vertex it
// owns, in scene order, with their scene indices. At an epoch start the vertices may change
// owners; the forces follow them through one all-to-all (migrateForces), so no rank keeps the
// whole force list after the Domain is built.
#include <cstdint>
#include <vector>

#include "framework/core/comm.hpp"
#include "modules/avi/force_element.hpp"

namespace kinema::avi {

struct ForceShare {
  std::vector<ForceElement> forces;   // scene order
  std::vector<std::int32_t> index;    // the scene's index of each (increasing)
  bool gravityElements = false;       // the whole scene has gravity elements (the share may not)
};

// Whether force `f` touches a vertex that `rank` owns.
bool touchesRank(const ForceElement& f, const std::vector<int>& owner, int rank);

// The share of `rank` taken from the whole list `all` (every rank holds it when the scene is
// built); indices out of range of `owner` are an error naming the force.
ForceShare shareForces(const std::vector<ForceElement>& all, const std::vector<int>& owner, int rank);

// Collective: `share` held under `oldOwner` becomes the share under `newOwner`. A rank keeps the
// forces still touching its vertices; a force travels only to a new owner of its stencil that
// owned none of its vertices before, sent by the old owner of its first vertex (which holds it),
// so it arrives once. The result is in scene order: bitwise shareForces(all, newOwner, rank).
void migrateForces(ForceShare& share, const Comm& comm, const std::vector<int>& oldOwner,
                   const std::vector<int>& newOwner);

}  // namespace kinema::avi

#pragma once
// The ghost exchange of the distributed AVI (option A of README decision 57, steps 2
// and 4), through the backend's ghosted vectors -- the module never sees
// PETSc or Tpetra.
//
// Per epoch (fixed ownership), vertices are renumbered by owner: rank r's vertices, in increasing
// scene index, are the contiguous global blocks [offset_r, offset_{r+1}) of an la::IndexMap whose
// ghosts are this rank's ghost vertices (non-owned vertices its events read or kick).
//  - states: block size 7, (x, v, t) per vertex. Owners write their published vertices (the
//    owned boundary vertices), Vector::updateGhosts copies them to every rank that ghosts them.
//    A vertex's (x, v, t) is its whole straight-line segment, x(s) = x + (s - t) v, so the owner
//    never needs to drift it first.
//  - impulses: block size 3. Each rank writes the velocity changes its events applied to ghosts,
//    Vector::accumulateGhosts adds them into the owners' entries.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/la/backend.hpp"
#include "framework/la/vector.hpp"
#include "modules/avi/vertices.hpp"

namespace kinema::avi {

struct GhostState {
  Vec3 x = Vec3::Zero();
  Vec3 v = Vec3::Zero();
  double t = 0.0;
  friend bool operator==(const GhostState&, const GhostState&) = default;
};

class GhostExchange {
 public:
  // Collective. `owner`: rank of every vertex (the same on every rank). `ghosts`: distinct
  // vertices owned elsewhere that this rank reads or kicks, in the order the engine lists them.
  // `published`: owned vertices whose state other ranks may need (the owned boundary vertices).
  // Throws Error if some rank ghosts a vertex that its owner does not publish (checked once,
  // with one ghost update).
  GhostExchange(Comm comm, const la::Backend& backend, const std::vector<int>& owner,
                std::vector<std::int32_t> ghosts, std::vector<std::int32_t> published);
  ~GhostExchange();

  // Collective: the owners' (x, v, t) of every published vertex, read from `vertices` (the
  // owner's engine state); afterwards ghostState(i) is the owner's state of ghosts()[i].
  void exchangeStates(const Vertices& vertices);
  const GhostState& ghostState(std::size_t i) const { return ghostStates_[i]; }

  // Collective: `ghostDv[i]` is the velocity change this rank applied to ghosts()[i]. On return
  // `owned` lists (vertex, summed velocity change from the other ranks) for every owned vertex
  // that received a non-zero one, in increasing vertex order.
  void accumulateImpulses(const std::vector<Vec3>& ghostDv, std::vector<std::pair<int, Vec3>>& owned);

  const std::vector<std::int32_t>& ghosts() const { return ghosts_; }
  const std::vector<std::int32_t>& published() const { return published_; }
  // Global block index (owner-contiguous numbering) of every vertex.
  const std::vector<std::int64_t>& globalIndex() const { return global_; }
  const la::IndexMap& stateMap() const { return *stateMap_; }
  const la::IndexMap& impulseMap() const { return *impulseMap_; }

 private:
  Comm comm_;
  std::vector<std::int32_t> ghosts_, published_;
  std::vector<std::int64_t> global_;
  std::vector<std::int64_t> publishedLocal_;  // local block of each published vertex
  la::IndexMapPtr stateMap_, impulseMap_;
  std::unique_ptr<la::Vector> states_, impulses_;
  std::vector<GhostState> ghostStates_;
};

}  // namespace kinema::avi

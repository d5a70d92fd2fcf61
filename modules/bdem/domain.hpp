#pragma once
// Domain: particles partitioned spatially over ranks with ghost layers (README decisions 1-5).
//
// - distribute(): the scene is built identically on every rank; particles are sorted along a
//   space-filling curve and renumbered, so each rank owns one contiguous, spatially compact range
//   of global indices (the Newton point map's block indices). A bond goes to the owner of its
//   endpoint with the smaller global index, so each bond lives on exactly one rank and a broken
//   bond is broken everywhere it exists.
// - refreshGhosts(): before each step, the ghost layer is rebuilt: every bond partner of an owned
//   bond, and every particle of another rank within `reach` of an owned particle (contact
//   candidates). Their full state is exchanged. The point map changes only if the ghost set does.
//   The contact ghosts are chosen within 1.5 reach (a Verlet skin): while no owned particle has
//   moved by more than (1.5 reach_then - reach_now)/2 since, the set is kept and only the state is
//   exchanged (one allreduce and one exchange instead of a rebuild).
// - exchangeState(): owners' p, q, v, qdot copied to the ghosts (same ghost set).
// At one rank there are no ghosts and both calls are cheap.
#include <memory>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/la/index_map.hpp"
#include "modules/bdem/system.hpp"

namespace kinema::bdem {

class Domain {
 public:
  explicit Domain(Comm comm);
  ~Domain();
  Domain(const Domain&) = delete;
  Domain& operator=(const Domain&) = delete;

  // Collective. `s` holds every particle and bond of the scene on entry (same on every rank), and
  // this rank's part (owned particles, ghosts, owned bonds with local indices) on exit.
  void distribute(System& s, double reach);
  // Collective. Rebuilds the ghost layer and remaps the bonds' local indices; true when the ghost
  // set (and so pointMap()) changed.
  bool refreshGhosts(System& s, double reach);
  // Collective. Owners' state (p, q, v, qdot) to the ghost copies.
  void exchangeState(System& s) const;
  // Block size 7 (p, q), owned particles then ghosts in the order of s.P.
  const la::IndexMapPtr& pointMap() const;
  const Comm& comm() const;
  // Global particle indices owned here: [ownedBegin(), ownedEnd()).
  GlobalId ownedBegin() const;
  GlobalId ownedEnd() const;
  long globalParticles() const;

  // Added by H4 (domain owner):
  // The scene generator's id (Particles::gid before distribute) of each owned particle, in local
  // order. Output and tests use it to relate particles to the scene as built.
  const std::vector<GlobalId>& sceneIds() const;
  // Owning rank of a global particle index (balanced contiguous ranges, independent of state).
  int ownerOf(GlobalId g) const;
  // The global index distribute() gave to each scene particle, indexed by its scene id's position
  // in the input order (same on every rank; size globalParticles()).
  const std::vector<GlobalId>& newIndexOfSceneParticle() const;
  // Ghosts of the last refresh that are not bond partners (contact candidates; diagnostics).
  std::size_t contactGhosts() const;
  // Collective. refreshGhosts without the Verlet-skin shortcut: the ghost set is chosen afresh
  // from the current state (so it no longer depends on when it was last rebuilt). The module calls
  // it at checkpoint steps and after loading a checkpoint, which makes restarts bitwise.
  void rebuildGhosts(System& s, double reach);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kinema::bdem

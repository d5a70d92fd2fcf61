#pragma once
// Distributed AVI, option A of modules/avi/README.md, decision 57: exact conservative domain
// decomposition. The Domain is what the module drives at any rank count (at 1 rank it wraps one
// serial Engine).
//
// Scheme (README decisions 16 and 57, steps 1-7):
//  - steps rounded down to dyadic levels (EngineOptions::dyadicBase, forced > 0 by the module);
//  - at every epoch start the vertices are placed on ranks, balanced by vertex count
//    (object_partition.hpp, EngineOptions::partition): by default recursive coordinate bisection
//    of the contact clusters' centroids (objects joined by active layers stay on one rank), with
//    clusters over N / (2 P) vertices cut vertex by vertex; or whole clusters in scene order;
//  - an epoch lasts while the broad phase is valid; at its start the vertex state and the active
//    layers are gathered, and every rank builds an Engine over the replicated vertices with its
//    Partition and only the forces touching its owned vertices, so it queues only its own events;
//    the Domain itself keeps only those forces (ForceShare, force_share.hpp), and the forces of
//    vertices that change ranks move with them (one all-to-all per epoch, README decision 48);
//    the engine takes the forces and the start state rather than copies, and the Domain keeps
//    only its owned and ghost vertices' start state for a replay;
//  - within an epoch, windows: T* = global min of the next sync event (an event touching a
//    boundary vertex; certificates of boundary pairs are not sync events under the certificate
//    lookahead, which bounds T* by the first tick of the layer each would activate, README
//    decision 53), the epoch end and the target time; events before T* are rank-local; at T*
//    ghosts are refreshed through the backend's ghosted vectors (la::Vector::updateGhosts), the
//    events at T* run, impulses on ghosts go to their owners (accumulateGhosts), ghosts are
//    refreshed again so cross-rank certificates are rescheduled with the new velocities (the
//    certificate-support caveat, handled by option (i): every kick to a support vertex is a sync);
//  - if a rank's broad-phase bound expires inside a window, or a boundary certificate queued a
//    layer tick inside it (beyond the lookahead), every rank rolls back to the epoch start and
//    replays with an earlier epoch end (no missed activation, no window past a sync event).
#include <memory>
#include <string>

#include "framework/core/comm.hpp"
#include "framework/la/backend.hpp"
#include "modules/avi/engine.hpp"
#include "modules/avi/force_share.hpp"

namespace kinema::avi {

struct DomainStats {
  std::int64_t epochs = 0;
  std::int64_t windows = 0;      // synchronisation points
  std::int64_t rollbacks = 0;
  std::int64_t tickRollbacks = 0;  // of them: a sync event queued inside a window (README decision 53)
  std::int64_t migrations = 0;   // objects moved to another rank
  double syncSeconds = 0.0;      // time in ghost exchange and reductions
  double epochSeconds = 0.0;     // time in epoch starts and rollbacks: partition, engine builds
                                 // (the epoch gather is in syncSeconds)
  // This rank's CPU time (its thread's clock) in its own work, without the collectives (an MPI
  // wait may spin, and spinning is not work): the inputs of the scaling model of
  // docs/benchmarks/avi.md, valid with more ranks than cores.
  double eventCpuSeconds = 0.0;  // event processing (at one rank: the engine's advanceTo, its
                                 // broad-phase rebuilds included)
  double epochCpuSeconds = 0.0;  // epoch starts and rollbacks: placement, engine builds, the start
                                 // state kept for a replay, packing and unpacking the gathered state
};

// The scene one rank's engine runs (README decision 48): a copy of `scene` without its force
// list, its vertex state x, v, t (the caller sets it: the Domain from the epoch's start state),
// and the objects and drawing lists, which engines do not read; the forces of `share`, which
// must be exactly those touching a vertex p.rank owns (shareForces, migrateForces), are moved in
// (the Domain takes them back from the engine). Fills p.forceIndex and p.gravityElements.
// `scene` is only borrowed: its lists are swapped out for the copy and back.
Scene engineScene(Scene& scene, ForceShare& share, Partition& p);
// The same with the share taken from scene.forces, the whole list, and the state from scene.
Scene engineScene(Scene& scene, Partition& p);

class Domain {
 public:
  // Collective. `backend` provides the ghosted vectors (at more than one rank a distributed
  // backend, petsc or trilinos; the eigen backend is refused with a message naming them).
  Domain(Comm comm, la::Backend& backend, Scene scene, const EngineOptions& options);
  ~Domain();

  void advanceTo(double T);  // collective
  double time() const;
  // Collective: the global measurement (sums / mins over ranks), the same on every rank.
  Measurement measure(double T) const;
  Counters counters() const;      // collective: sums over ranks (deepestLayer: max)
  TimeShares timeShares() const;  // this rank's
  const DomainStats& stats() const;
  // Collective: positions of every vertex at time T (for frames), on every rank.
  void gatherPositions(double T, std::vector<Vec3>& x) const;
  // Collective: the global state at the current time (positions drifted to time(), velocities,
  // active layers) for checkpoints; load() restores it (at any rank count; bitwise at one rank
  // when the serial engine state is used).
  void save(EngineState& out) const;
  void load(const EngineState& in);
  // The scene as given, except that its force list and its vertices' state (x, v, t) are empty:
  // the engines hold the state (gatherPositions gives it); at one rank the serial engine holds
  // the forces, at more each rank holds only the forces touching its vertices (heldForces),
  // README decision 48.
  const Scene& scene() const;
  // The scene indices of the forces this rank holds (increasing); every force at one rank.
  const std::vector<std::int32_t>& heldForces() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kinema::avi

#pragma once
// Internal state of avi::Engine, the loop of modules/avi/README.md, decision 4. Defined by concept:
// engine_clocks.cpp (steps and clocks), engine_init.cpp (construction), engine_pairs.cpp
// (candidate pairs), engine_layers.cpp (certificates and layers), engine_events.cpp (events and
// the loop), engine_measure.cpp (diagnostics and the invariant check), engine_state.cpp
// (checkpoints); engine.cpp is the public Engine over it.
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "modules/avi/candidate_pairs.hpp"
#include "modules/avi/contact_pair.hpp"
#include "modules/avi/engine.hpp"
#include "modules/avi/event_queue.hpp"

namespace kinema::avi {

struct Engine::Impl {
  Impl(Scene s, const EngineOptions& o, const EngineStart& start, const Partition* partition);
  // Construction in steps (engine_init.cpp).
  void checkInput();
  void setupPartition(const Partition* partition, double t0);
  void startScripts(double t0);
  void startForces(double t0);

  // ---- configuration ----
  Scene scene;
  EngineOptions opt;
  PenaltyParams prm;
  bool partitioned = false;
  std::vector<std::int32_t> forceIndex;  // the scene's index of each force (Partition; empty: identity)
  std::int64_t sceneForce(std::size_t i) const {
    return forceIndex.empty() ? static_cast<std::int64_t>(i) : forceIndex[i];
  }
  int rank = 0;
  std::vector<int> owner;                 // per vertex (empty in serial mode)
  std::vector<std::uint8_t> ownedVertex;  // per vertex
  std::vector<std::uint8_t> isBoundary;   // per vertex
  std::vector<std::int32_t> boundaryList, ghostList;
  std::vector<std::int32_t> ghostSlot;  // per vertex: index in ghostList or -1
  std::vector<Vec3> ghostDv;
  bool hasGravityElements = false;

  // ---- potentials ----
  std::vector<std::uint8_t> forceOwned, forceSync;
  std::vector<std::int32_t> forceHandle;  // encoded queue handles (-1: not queued)
  std::vector<std::int32_t> scriptHandle;
  std::vector<std::uint8_t> scriptSync;

  // ---- contact ----
  CandidatePairs broad;
  mutable CandidatePairs measureBroad;
  std::vector<ContactPair> pairs;  // owned candidate pairs, sorted by key
  std::vector<std::int32_t> adjStart, adjList;  // vertex -> pairs reading it (CSR)
  std::vector<std::uint64_t> stamp;             // per pair: last reschedule pass
  std::uint64_t stampNow = 0;
  std::int32_t bpHandle = -1;

  // ---- queue: local and sync events in two heaps (cheap nextSyncTime), keyed (time, keyOf) ----
  EventQueue q[3];
  std::uint64_t seq = 0;  // counter for keyless pushes (unused by the engine; kept in checkpoints)
  double tg = 0.0;    // T_g: time of the last processed event
  double now = 0.0;   // time(): last T given to advanceTo / processAt

  // ---- statistics ----
  Counters counters;
  // Time split: sections are timed on one event in kSample (raw sums over the sampled events,
  // together with the sampled events' whole duration); timeShares() scales each raw fraction to
  // the exactly measured total, so the clock's own overhead cancels in the ratio.
  TimeShares shares;            // raw sampled section sums; shares.total exact
  double sampledWhole = 0.0;    // wall time of the sampled events
  mutable TimeShares reported;
  std::vector<KickRecord> kicks;
  std::uint64_t events = 0;
  bool sample = false;  // this event's sections are timed (one event in kSample)
  static constexpr std::uint64_t kSample = 32;

  // ---- scratch (reused; no allocation per event) ----
  std::vector<PairKey> keys, allKeys;
  std::vector<ContactPair> newPairs;
  std::vector<std::uint8_t> isNew;
  std::vector<std::int32_t> cursor;
  mutable std::vector<Vec3> xs;
  mutable std::vector<std::pair<std::int32_t, std::int32_t>> triPairs;

  // ---- queue helpers (encoded handle = 4 * slot + queue) ----
  // Tie-break key (README decision): same-time events pop scripts first (prescribed velocities
  // take effect at their time), then material forces by index, penalty layers by (pair, layer),
  // certificates by pair, the broad phase last. Pairs are numbered in PairKey order, so the
  // order is canonical: it does not depend on certificate bookkeeping (certificate and brute
  // force modes kick same-time events in the same order) nor on the partition.
  static std::uint64_t keyOf(const Event& e) {
    std::uint64_t cls = 0;
    switch (e.kind) {
      case EventKind::Script: cls = 0; break;
      case EventKind::Force: cls = 1; break;
      case EventKind::Penalty: cls = 2; break;
      case EventKind::Cert: cls = 3; break;
      case EventKind::BroadPhase: cls = 4; break;
    }
    const std::uint64_t aux = e.kind == EventKind::Penalty ? static_cast<std::uint64_t>(e.aux) : 0;
    return (cls << 60) | (static_cast<std::uint64_t>(e.id) << 24) | aux;
  }
  // Queue k of an event: 1 (sync) if it touches a boundary vertex, except the certificates of
  // such pairs under certLookahead, which go to 2 (they kick nothing, so they may run inside a
  // window; nextSyncTime bounds the window by the layer ticks they may create); 0 otherwise.
  // Encoded handle: 4 h + k.
  std::int32_t push(double t, const Event& e, bool sync) {
    const int k = !sync ? 0 : (lookahead && e.kind == EventKind::Cert ? 2 : 1);
    return 4 * q[k].push(t, keyOf(e), e) + k;
  }
  EventQueue& qOf(std::int32_t h) { return q[h & 3]; }
  const EventQueue& qOf(std::int32_t h) const { return q[h & 3]; }
  void update(std::int32_t h, double t) { qOf(h).updateTime(h >> 2, t); }
  void remove(std::int32_t h) { qOf(h).remove(h >> 2); }
  bool queued(std::int32_t h) const { return h >= 0 && qOf(h).contains(h >> 2); }
  double queuedTime(std::int32_t h) const { return qOf(h).time(h >> 2); }
  Event& payload(std::int32_t h) { return qOf(h).event(h >> 2); }
  // Which queue holds the next event (-1 if all are empty).
  int nextQueue() const;
  double nextTime() const;
  // The earliest time a sync event can exist: the sync queue's top, and under certLookahead the
  // first tick of the layer (deepest + 1) each boundary certificate would activate at its
  // expiry (a certificate never kicks; establish may activate deeper layers too, which the
  // Domain detects as a sync event before the window end and rolls back).
  double syncBound() const;
  bool lookahead = false;  // partitioned and opt.certLookahead and lattice clocks
  mutable std::vector<std::int32_t> boundStack;  // scratch of syncBound

  // ---- steps and clocks (the paper's §6; README decision 4, TICK) ----
  double layerH(const ContactPair& p, int l) const;
  double forceH(double h) const;
  static std::int64_t firstTickAtOrAfter(double t, double h);  // ceil(t/h), >= 1
  static std::int64_t firstTickAfter(double t, double h);      // smallest j >= 1 with j h > t

  // ---- the loop ----
  // One event with time < T (<= T if inclusive), after flushing a reschedule batch the clock
  // would move past; false (and nothing processed) if there is none.
  bool step(double T, bool inclusive);
  void processOne();
  void onForce(int i, double t);
  void onPenalty(int pi, int l, double t);
  void onCert(int pi, double t);
  void onScript(int si, int k, double t);
  void rebuildPairs(double t, bool initial, const EngineStart* start);
  void mergePairs();
  void startNewPairs(double t, bool initial, const EngineStart* start);
  void resetBroadPhase(double t);
  void establish(int pi, double t);
  void activate(int pi, int l, double t, bool strictlyAfter);
  bool tryCert(int pi, int l, double t);
  // 1: slab found; 0: none (gap below 2 eta / l); -1: the primitives touch (d <= 0).
  int findCert(const ContactPair& p, int l, double t, Slab& slab, double& life) const;
  void setCertTime(int pi, double tc);
  void dropPairEvents(ContactPair& p);
  void renumberPair(int pi);
  void buildAdjacency();
  void rescheduleVertex(int a, double t, bool lazy);
  void rescheduleBegin() { ++stampNow; }
  void markDirty(int a, double t, const Vec3& dv);
  void flushDirty();
  double peekTime();  // nextTime() after flushing a batch that the next event would move past
  std::vector<std::int32_t> dirty;      // vertices kicked at dirtyTime, certificates not rescheduled
  std::vector<std::uint8_t> isDirty;    // per vertex
  std::vector<Vec3> dvSum;              // per vertex: velocity change in the current batch
  double dirtyTime = 0.0;
  void noteKick(int a, const Vec3& dv, double t, const char* what);
  void checkAfterEvent(double t, const Event* e);
  bool ownsPair(const PairKey& key) const { return !partitioned || owner[key.a[0]] == rank; }

  // Timing of sampled sections.
  using Clock = std::chrono::steady_clock;
  struct Section {
    Impl& impl;
    double& slot;
    bool on;
    Clock::time_point t0;
    Section(Impl& i, double& s) : impl(i), slot(s), on(i.sample) {
      if (on) t0 = Clock::now();
    }
    ~Section() {
      if (on) slot += std::chrono::duration<double>(Clock::now() - t0).count();
    }
  };

  // ---- measurement / invariant (engine_measure.cpp) ----
  Measurement measure(double T) const;
  std::string checkInvariant(double t, int maxCheck) const;
  std::string eventName(const Event& e) const;
  static const char* kindName(ForceKind k);
};

}  // namespace kinema::avi

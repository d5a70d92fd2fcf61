#pragma once
// The asynchronous variational integrator with nested penalty layers and separating-slab
// certificates: the complete loop of modules/avi/README.md, decision 4 (which fixes the
// defects of the paper's Algorithms 2-5) over one indexed priority queue.
//
// Event kinds: FORCE (material / gravity potential i at j h^i), PENALTY (pair p, layer l at
// j h_l), CERT (certificate expiry of pair p), SCRIPT (velocity change of scripted vertices),
// BROADPHASE (candidate pairs expire: some vertex may have moved delta / 2). Ties are broken by a
// sequence id, so two runs are bitwise identical.
//
// Serial use: Engine e(scene, options); e.advanceTo(T); e.measure(T).
// Partitioned use (domain.hpp, option A, README decision 57): every rank builds an Engine for the whole
// scene with a Partition; it then queues only the events it owns, and the Domain drives windows
// with processBefore / processAt and the ghost hooks below.
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "modules/avi/engine_options.hpp"
#include "modules/avi/scene.hpp"

namespace kinema::avi {

enum class PairKind : std::uint8_t { PointPoint, PointEdge, PointTriangle, EdgeEdge, PointPlane };

// Identifies a candidate pair independent of the order it was found in: A and B vertex indices
// (unused entries -1; for PointPlane b[0] is the plane index).
struct PairKey {
  PairKind kind = PairKind::PointPoint;
  std::array<std::int32_t, 3> a{-1, -1, -1};
  std::array<std::int32_t, 3> b{-1, -1, -1};
  friend bool operator==(const PairKey&, const PairKey&) = default;
  friend bool operator<(const PairKey& x, const PairKey& y) {
    if (x.kind != y.kind) return x.kind < y.kind;
    if (x.a != y.a) return x.a < y.a;
    return x.b < y.b;
  }
};

struct ActiveLayers {
  PairKey key;
  int deepest = 0;  // layers 1..deepest active
};

// Where a (re)started engine begins: time t0 (every event at or before t0 already processed)
// and the layers active then. Clocks are not restarted: each potential's next tick is the first
// lattice point j h > t0.
struct EngineStart {
  double t0 = 0.0;
  std::vector<ActiveLayers> layers;
};

// Vertex ownership for the partitioned mode.
struct Partition {
  int rank = 0;
  std::vector<int> owner;  // per vertex
  // The engine's scene may hold only the forces touching an owned vertex (the Domain's engines,
  // README decision 57, step 2): forceIndex[i] is the whole scene's index of the engine's force i
  // (increasing, so same-time ties keep the serial order; empty: the engine holds every force),
  // and gravityElements says whether the whole scene has gravity elements (the engine's subset
  // may have none). The Domain's engine scenes also leave out the objects and drawing lists.
  std::vector<std::int32_t> forceIndex;
  bool gravityElements = false;
};

struct Counters {
  std::int64_t forceEvents = 0;
  std::int64_t penaltyKicks = 0;      // penalty ticks with g < 0
  std::int64_t penaltyZeroTicks = 0;  // penalty ticks with g >= 0
  std::int64_t certEvents = 0;        // certificate expiries popped
  std::int64_t certReschedules = 0;   // RESCHEDULE_CERTS recomputations
  std::int64_t certsFound = 0;        // FIND_SLAB successes
  std::int64_t activations = 0;
  std::int64_t deactivations = 0;
  std::int64_t broadPhaseRebuilds = 0;
  std::int64_t scriptEvents = 0;
  std::int64_t invariantChecks = 0;   // debug mode
  int deepestLayer = 0;               // over the whole run
};

// Wall time split (seconds) of the event loop, for the benchmarks.
struct TimeShares {
  double queue = 0.0;         // push / pop / update
  double broadPhase = 0.0;    // candidate pairs
  double certificates = 0.0;  // FIND_SLAB, SCHEDULE, reschedules
  double forces = 0.0;        // material and penalty kicks
  double total = 0.0;         // inside advanceTo / processBefore / processAt
};

// Diagnostics at a common time T without changing the state (README decision 58).
struct Measurement {
  double time = 0.0;
  double kinetic = 0.0;   // sum 1/2 m v^2 over free vertices (segment velocities)
  double elastic = 0.0;   // material potentials (springs, CST, hinges, rod bending)
  double gravity = 0.0;   // sum -m g . x over free vertices
  double contact = 0.0;   // barrier B(d) of every candidate pair (s = 1)
  double total() const { return kinetic + elastic + gravity + contact; }
  Vec3 momentum = Vec3::Zero();         // sum m v (free vertices)
  Vec3 angularMomentum = Vec3::Zero();  // sum m x(T) x v (free vertices)
  double minDistance = std::numeric_limits<double>::infinity();  // over candidate pairs
  std::vector<std::int64_t> activePerDepth;  // [l-1] = pairs with layer l active
  std::int64_t activePairs = 0;              // pairs with at least one active layer
  std::int64_t candidatePairs = 0;
  std::int64_t intersections = 0;  // d <= 0 pairs, plus intersecting non-adjacent triangles (3D)
};

struct KickRecord {  // recordKicks: one non-zero penalty kick
  PairKey key;
  int layer = 0;
  double time = 0.0;
  double impulse = 0.0;  // J_n
};

// Flat engine state for checkpoints (bitwise continuation at the same rank count).
struct EngineState {
  std::vector<double> reals;
  std::vector<std::int64_t> ints;
};

class Engine {
 public:
  Engine(Scene scene, const EngineOptions& options, const EngineStart& start = {},
         const Partition* partition = nullptr);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Serial: processes every event with time <= T (T >= time()). Throws Error on a NaN / infinite
  // velocity (naming the event, vertex and time) or a layer deeper than maxLayer.
  void advanceTo(double T);
  double time() const;  // the last T given to advanceTo / processAt

  // With a Partition: this rank's share (owned vertices, forces and pairs; ghosts must be
  // current), without the triangle-triangle tests, which need every vertex (Domain::measure).
  Measurement measure(double T) const;
  const Counters& counters() const;
  const TimeShares& timeShares() const;
  const Scene& scene() const;
  const Vertices& vertices() const;
  // Moves the engine's scene out (its forces with their steps on the engine's lattice, and the
  // vertex state), for the next engine of a Domain; the engine must only be destroyed after.
  Scene takeScene();
  int deepestActive(const PairKey& key) const;  // 0 if the pair is not a candidate / inactive
  std::vector<ActiveLayers> activeLayers() const;  // owned pairs with deepest >= 1, sorted by key
  const std::vector<KickRecord>& kicks() const;
  // The invariant of README decision 4 at time t for every owned candidate pair and every layer l <= maxCheck:
  // either PENALTY(p, l) is queued with its next tick >= t, or the certificate of p guards l
  // and proves g >= 0 up to its expiry >= t. Returns "" or a description of the first violation.
  std::string checkInvariant(double t, int maxCheck = 16) const;

  void save(EngineState& out) const;
  void load(const EngineState& in);  // an engine built from the same scene and options

  // ---- partitioned mode (domain.hpp) ----
  double nextEventTime() const;  // +inf if the queue is empty
  double nextSyncTime() const;   // earliest queued event whose stencil or support has a boundary vertex
  void processBefore(double T);  // every event with time < T (none of them may be a sync event)
  void processAt(double T);      // every event with time == T (repeat until none left)
  // Boundary vertices: vertices of any candidate pair or force whose vertices have more than one
  // owner (computed from the replicated scene, the same on every rank). Ghosts: non-owned
  // vertices read or kicked by this rank's events.
  const std::vector<std::int32_t>& boundaryVertices() const;
  const std::vector<std::int32_t>& ghostVertices() const;
  // The owner's state of a ghost (x at time t, v); reschedules the certificates that read it.
  void setGhostState(int a, const Vec3& x, const Vec3& v, double t);
  // Velocity changes this rank applied to ghosts since the last call (per ghostVertices() entry),
  // then zeroed.
  void takeGhostImpulses(std::vector<Vec3>& dv);
  // Adds an impulse computed by another rank to an owned vertex at time t (drift to t first) and
  // reschedules the certificates that read it.
  void applyImpulse(int a, const Vec3& dv, double t);
  // Broad phase: time until which the current candidate pairs are valid for this rank's vertices
  // (moves earlier when a vertex speeds up); in partitioned mode the engine does not rebuild
  // itself, the Domain starts a new engine instead.
  double broadPhaseExpiry() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kinema::avi

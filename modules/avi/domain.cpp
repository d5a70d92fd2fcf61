// Distributed AVI, option A of modules/avi/README.md, decision 57 (see domain.hpp for the scheme).
//
// Why the result equals the serial one up to round-off (README decision 4, invariant, README decision 57):
//  - Every potential keeps its own lattice clock j h (dyadic steps, README decision 57, step 1), whichever
//    engine object processes it, and an engine restarted at an epoch start t0 resumes each clock
//    at the first lattice point after t0 (EngineStart): the set of (potential, tick) pairs is
//    that of the serial run.
//  - Events with disjoint vertex sets commute (per-vertex lazy drift); a window [T_prev, T*)
//    contains only rank-local events (no boundary vertex in their stencil) and, under the
//    certificate lookahead (README decision 53), certificates of boundary pairs, which only read
//    boundary vertices (current inside a window: they change at window ends only) and kick
//    nothing; every event kicking a boundary vertex runs at a window end T*, after the ghosts it
//    reads were refreshed. Kicks at the same time commute (positions at T* do not depend on kicks at T*).
//  - The invariant of README decision 4 (every tick with V_l != 0 is processed) holds on every rank: a
//    certificate reading a ghost is rescheduled at every window end where that ghost changed
//    (option (i) of the certificate-support caveat: every kick to a boundary vertex is a sync
//    event), and an expired broad phase rolls the epoch back. So the partitioned run processes
//    exactly the non-zero kicks of the serial run, at the same lattice times. What may differ:
//    (a) certificates are re-created at epoch starts and at window ends instead of where the
//    serial run had them, so some layers are activated early or dropped at different ticks --
//    those ticks have g >= 0 and kick nothing, and the engine drifts a vertex only where it
//    kicks it (zero-force ticks and certificates evaluate positions without storing them);
//    (b) the state is handed over as stored, (x at its own t, v), never drifted to an epoch start,
//    a ghost is the owner's (x, v, t) verbatim and a remote impulse drifts its vertex to the same
//    kick time as in the serial run, so positions are updated at the same times with the same
//    operands; (c) several kicks on one vertex at one time (aligned dyadic clocks) are summed in
//    another order when they come from several ranks (the owner adds its own in queue order, then
//    the remote sum): the only round-off difference. In the tests the positions are bitwise equal
//    to the serial ones for most scenes. Non-variational velocity-dependent terms evaluated at a
//    common time (damping, restitution factor e < 1, friction) may see another rank's same-time
//    kick earlier or later than the serial order does; the tests use none of them.
//
// Collectives per window: one 5-value min reduction and two neighbour exchanges of the ghosted
// vectors (impulses to the owners, then states to the ghosts). Per epoch: one allgatherv of
// the owned state and active layers, and new index maps / vectors only if some rank's ghost or
// boundary set changed. Synchronisation is global (an allreduce), not neighbour-only (README decision 57
// A.5): simpler and enough at the rank counts of the tests and benchmarks.
#include "modules/avi/domain.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <numeric>

#include <time.h>

#include "framework/core/error.hpp"
#include "framework/geometry/primitive_distance.hpp"
#include "framework/la/index_map.hpp"
#include "modules/avi/candidate_pairs.hpp"
#include "modules/avi/ghost_exchange.hpp"
#include "modules/avi/object_partition.hpp"

namespace kinema::avi {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::int64_t kStateTag = 0x41564931;  // "AVI1": the Domain's checkpoint layout
constexpr std::int64_t kStateVersion = 3;  // 3: engine queue handles 4 h + k
constexpr int kLayerInts = 8;  // kind, a[3], b[3], deepest

void packLayers(const std::vector<ActiveLayers>& layers, std::vector<std::int64_t>& out) {
  for (const ActiveLayers& l : layers) {
    out.push_back(static_cast<std::int64_t>(l.key.kind));
    for (std::int32_t a : l.key.a) out.push_back(a);
    for (std::int32_t b : l.key.b) out.push_back(b);
    out.push_back(l.deepest);
  }
}

std::vector<ActiveLayers> unpackLayers(const std::int64_t* p, std::size_t count) {
  std::vector<ActiveLayers> layers(count);
  for (ActiveLayers& l : layers) {
    KINEMA_CHECK(p[0] >= 0 && p[0] <= static_cast<std::int64_t>(PairKind::PointPlane),
                 "avi domain: bad pair kind ", p[0], " in an active-layer record");
    l.key.kind = static_cast<PairKind>(p[0]);
    for (int i = 0; i < 3; ++i) l.key.a[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(p[1 + i]);
    for (int i = 0; i < 3; ++i) l.key.b[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(p[4 + i]);
    l.deepest = static_cast<int>(p[7]);
    p += kLayerInts;
  }
  return layers;
}

// Sorted by key, one record per pair (the deepest if several ranks report it).
void normalise(std::vector<ActiveLayers>& layers) {
  std::sort(layers.begin(), layers.end(), [](const ActiveLayers& x, const ActiveLayers& y) {
    if (x.key == y.key) return x.deepest > y.deepest;
    return x.key < y.key;
  });
  layers.erase(std::unique(layers.begin(), layers.end(),
                           [](const ActiveLayers& x, const ActiveLayers& y) { return x.key == y.key; }),
               layers.end());
  layers.erase(std::remove_if(layers.begin(), layers.end(), [](const ActiveLayers& l) { return l.deepest < 1; }),
               layers.end());
}

void addCounters(Counters& s, const Counters& c) {
  s.forceEvents += c.forceEvents;
  s.penaltyKicks += c.penaltyKicks;
  s.penaltyZeroTicks += c.penaltyZeroTicks;
  s.certEvents += c.certEvents;
  s.certReschedules += c.certReschedules;
  s.certsFound += c.certsFound;
  s.activations += c.activations;
  s.deactivations += c.deactivations;
  s.broadPhaseRebuilds += c.broadPhaseRebuilds;
  s.scriptEvents += c.scriptEvents;
  s.invariantChecks += c.invariantChecks;
  s.deepestLayer = std::max(s.deepestLayer, c.deepestLayer);
}

void addShares(TimeShares& s, const TimeShares& c) {
  s.queue += c.queue;
  s.broadPhase += c.broadPhase;
  s.certificates += c.certificates;
  s.forces += c.forces;
  s.total += c.total;
}

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// CPU time of this thread (DomainStats' *CpuSeconds).
double cpuSeconds() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// The state of every vertex as its owner stores it: position x at its own time t and segment
// velocity v (lazy drift, vertices.hpp). An epoch starts from this state as is, not drifted to
// the epoch start, so a restart adds no drift splitting: a vertex's position is only ever
// updated where the serial run updates it (at its kicks; zero-force ticks and certificates
// read positions without drifting).
struct RawState {
  std::vector<Vec3> x, v;
  std::vector<double> t;
};

// (x, v, t) of some vertices, by index.
struct LocalState {
  std::vector<std::int32_t> index;
  std::vector<Vec3> x, v;
  std::vector<double> t;
};

}  // namespace

namespace {

// A copy of `scene` without its force list, its vertex state (x, v, t) and what engines never
// read (objects, drawing lists); `scene` is only borrowed: those lists are swapped out for the
// copy and back.
Scene copyForEngine(Scene& scene) {
  Scene s;
  Scene out;
  const auto swapOut = [&] {
    out.forces.swap(scene.forces);
    out.objects.swap(scene.objects);
    out.drawTriangles.swap(scene.drawTriangles);
    out.drawEdges.swap(scene.drawEdges);
    out.vertices.x.swap(scene.vertices.x);
    out.vertices.v.swap(scene.vertices.v);
    out.vertices.t.swap(scene.vertices.t);
  };
  swapOut();
  try {
    s = scene;
  } catch (...) {
    swapOut();
    throw;
  }
  swapOut();
  return s;
}

// The serial engine of a one-rank Domain, started from `state`: it takes the scene's force list
// (no second copy); the Domain keeps the rest of the scene.
std::unique_ptr<Engine> serialEngine(Scene& scene, RawState state, const EngineOptions& options,
                                     const EngineStart& start = {}) {
  Scene s = copyForEngine(scene);
  s.vertices.x = std::move(state.x);
  s.vertices.v = std::move(state.v);
  s.vertices.t = std::move(state.t);
  s.forces = std::move(scene.forces);
  scene.forces.clear();
  return std::make_unique<Engine>(std::move(s), options, start);
}

// The vertex state (x, v, t) taken out of `scene` (the engines hold it from then on).
RawState takeState(Scene& scene) {
  RawState st;
  st.x.swap(scene.vertices.x);
  st.v.swap(scene.vertices.v);
  st.t.swap(scene.vertices.t);
  return st;
}

}  // namespace

// (domain.hpp) The share's forces moved in: same-time ties run in the serial (scene) order.
Scene engineScene(Scene& scene, ForceShare& share, Partition& p) {
  Scene s = copyForEngine(scene);
  p.forceIndex = share.index;
  p.gravityElements = share.gravityElements;
  s.forces = std::move(share.forces);
  share.forces.clear();
  return s;
}

Scene engineScene(Scene& scene, Partition& p) {
  ForceShare share = shareForces(scene.forces, p.owner, p.rank);
  Scene s = engineScene(scene, share, p);
  s.vertices.x = scene.vertices.x;
  s.vertices.v = scene.vertices.v;
  s.vertices.t = scene.vertices.t;
  return s;
}

struct Domain::Impl {
  Comm comm;
  la::Backend* backend = nullptr;
  Scene scene;           // without its forces (`held`) and its vertex state (the engines hold it)
  int nv = 0;            // vertices
  ForceShare held;       // the forces touching this rank's vertices (all of them at one rank)
  EngineOptions options;
  int size = 1, rank = 0;
  double time = 0.0;
  std::unique_ptr<Engine> engine;
  DomainStats stats;
  Counters committed;     // this rank's counters of finished epochs
  TimeShares shares;      // this rank's time in finished and rolled-back engines

  // ---- partitioned mode ----
  Partition partition;
  PartitionRule rule = PartitionRule::Bisection;
  std::vector<int> objectRank;
  std::vector<std::vector<std::int32_t>> ownedBy;  // per rank, increasing
  std::unique_ptr<GhostExchange> ghosts;
  std::vector<GhostState> lastGhost;  // what the engine holds for each ghost
  std::vector<Vec3> ghostDv;
  std::vector<std::pair<int, Vec3>> received;
  // Epoch start: the state every replay restarts from. The engine holds every vertex's state but
  // changes only its owned and ghost vertices', so only those are kept here (start0); a replay
  // puts them back into the engine's arrays. The active layers are replicated.
  double epochStart = 0.0;
  LocalState start0;
  std::vector<ActiveLayers> layers0;
  double epochCap = kInf;  // epoch end imposed by a rollback
  bool sameOwners = false;  // the partition of this epoch equals the last one
  // The first error this rank's engine raised in the current window. The window's collectives
  // still run; the next reduction tells every rank, which then throws the same message.
  std::exception_ptr failure;
  template <class F>
  void guarded(F&& f) {
    if (failure) return;
    try {
      f();
    } catch (...) {
      failure = std::current_exception();
    }
  }
  // Called by every rank after the reduction that found rank `who` failed.
  [[noreturn]] void rethrowFailure(int who) {
    std::string msg;
    bool input = false;
    if (rank == who) {
      try {
        std::rethrow_exception(failure);
      } catch (const InputError& e) {
        msg = e.what();
        input = true;
      } catch (const std::exception& e) {
        msg = e.what();
      } catch (...) {
        msg = "unknown exception";
      }
    }
    msg = comm.broadcast(std::string(input ? "I" : "E") + msg, who);
    if (rank == who) std::rethrow_exception(failure);
    if (msg[0] == 'I') throw InputError(msg.substr(1));
    throw Error(msg.substr(1));
  }
  int stalls = 0;          // consecutive epoch starts / rollbacks without progress

  bool partitioned() const { return size > 1; }

  // ---- replicated state ----
  // (x, v, t) of every vertex from its owner (collective).
  void gatherRaw(RawState& st) const {
    const Vertices& V = engine->vertices();
    std::vector<double> mine;
    mine.reserve(ownedBy[static_cast<std::size_t>(rank)].size() * 7);
    for (std::int32_t a : ownedBy[static_cast<std::size_t>(rank)]) {
      const auto k = static_cast<std::size_t>(a);
      mine.insert(mine.end(), V.x[k].data(), V.x[k].data() + 3);
      mine.insert(mine.end(), V.v[k].data(), V.v[k].data() + 3);
      mine.push_back(V.t[k]);
    }
    const std::vector<double> all = comm.allgatherv(mine);
    const auto n = static_cast<std::size_t>(V.size());
    st.x.assign(n, Vec3::Zero());
    st.v.assign(n, Vec3::Zero());
    st.t.assign(n, 0.0);
    std::size_t k = 0;
    for (const auto& list : ownedBy)
      for (std::int32_t a : list) {
        const auto i = static_cast<std::size_t>(a);
        st.x[i] = Vec3(all[k], all[k + 1], all[k + 2]);
        st.v[i] = Vec3(all[k + 3], all[k + 4], all[k + 5]);
        st.t[i] = all[k + 6];
        k += 7;
      }
    KINEMA_CHECK(k == all.size(), "avi domain: gathered ", all.size(), " values, expected ", k);
  }

  // Positions at T and velocities of every vertex from their owners (collective).
  void gatherState(double T, std::vector<Vec3>& x, std::vector<Vec3>* v) const {
    const Vertices& V = engine->vertices();
    const int per = v ? 6 : 3;
    std::vector<double> mine;
    mine.reserve(ownedBy[static_cast<std::size_t>(rank)].size() * static_cast<std::size_t>(per));
    for (std::int32_t a : ownedBy[static_cast<std::size_t>(rank)]) {
      const Vec3 xa = V.at(a, T);
      mine.insert(mine.end(), xa.data(), xa.data() + 3);
      if (v) mine.insert(mine.end(), V.v[static_cast<std::size_t>(a)].data(), V.v[static_cast<std::size_t>(a)].data() + 3);
    }
    const std::vector<double> all = comm.allgatherv(mine);
    x.assign(static_cast<std::size_t>(V.size()), Vec3::Zero());
    if (v) v->assign(static_cast<std::size_t>(V.size()), Vec3::Zero());
    std::size_t k = 0;
    for (const auto& list : ownedBy)
      for (std::int32_t a : list) {
        x[static_cast<std::size_t>(a)] = Vec3(all[k], all[k + 1], all[k + 2]);
        if (v) (*v)[static_cast<std::size_t>(a)] = Vec3(all[k + 3], all[k + 4], all[k + 5]);
        k += static_cast<std::size_t>(per);
      }
    KINEMA_CHECK(k == all.size(), "avi domain: gathered ", all.size(), " values, expected ", k);
  }

  // The engine's counters and time shares into the totals, its forces back to `held`, then the
  // engine freed.
  void retireEngine() {
    if (!engine) return;
    addCounters(committed, engine->counters());
    addShares(shares, engine->timeShares());
    held.forces = engine->takeScene().forces;
    engine.reset();
  }

  // The epoch-start state of every vertex from the engine (which changed only its owned and
  // ghost vertices) and start0; the engine's forces back to `held`; the engine freed.
  RawState takeStartState() {
    Scene back = engine->takeScene();
    engine.reset();
    held.forces = std::move(back.forces);
    RawState st{std::move(back.vertices.x), std::move(back.vertices.v), std::move(back.vertices.t)};
    for (std::size_t i = 0; i < start0.index.size(); ++i) {
      const auto a = static_cast<std::size_t>(start0.index[i]);
      st.x[a] = start0.x[i];
      st.v[a] = start0.v[i];
      st.t[a] = start0.t[i];
    }
    return st;
  }

  // start0 from a new engine: the state of its owned and ghost vertices at the epoch start.
  void keepStartState() {
    const Vertices& V = engine->vertices();
    start0 = LocalState{};
    const auto keep = [&](std::int32_t a) {
      const auto k = static_cast<std::size_t>(a);
      start0.index.push_back(a);
      start0.x.push_back(V.x[k]);
      start0.v.push_back(V.v[k]);
      start0.t.push_back(V.t[k]);
    };
    for (std::int32_t a : ownedBy[static_cast<std::size_t>(rank)]) keep(a);
    for (std::int32_t a : engine->ghostVertices()) keep(a);
  }

  // gatherRaw and gatherLayers in one collective at an epoch end: per rank, its owned (x, v, t)
  // then its layer records (int32 entries, exact as doubles). Retires the engine.
  void gatherEpoch(RawState& st, std::vector<ActiveLayers>& layers) {
    const double t0 = seconds();
    double c0 = cpuSeconds();
    const Vertices& V = engine->vertices();
    std::vector<double> mine;
    const std::vector<ActiveLayers> own = engine->activeLayers();
    mine.reserve(ownedBy[static_cast<std::size_t>(rank)].size() * 7 + 1 + own.size() * kLayerInts);
    for (std::int32_t a : ownedBy[static_cast<std::size_t>(rank)]) {
      const auto k = static_cast<std::size_t>(a);
      mine.insert(mine.end(), V.x[k].data(), V.x[k].data() + 3);
      mine.insert(mine.end(), V.v[k].data(), V.v[k].data() + 3);
      mine.push_back(V.t[k]);
    }
    std::vector<std::int64_t> packed;
    packLayers(own, packed);
    mine.push_back(static_cast<double>(own.size()));
    for (std::int64_t i : packed) mine.push_back(static_cast<double>(i));
    // The epoch is over: its engine and start state go before the whole state arrives, so a
    // rank's peak does not hold both.
    const auto n = static_cast<std::size_t>(V.size());
    retireEngine();  // V dangles from here
    start0 = LocalState{};
    stats.epochCpuSeconds += cpuSeconds() - c0;
    const std::vector<double> all = comm.allgatherv(mine);
    c0 = cpuSeconds();
    st.x.assign(n, Vec3::Zero());
    st.v.assign(n, Vec3::Zero());
    st.t.assign(n, 0.0);
    layers.clear();
    std::size_t k = 0;
    std::vector<std::int64_t> ints;
    for (const auto& list : ownedBy) {
      KINEMA_CHECK(k + list.size() * 7 < all.size(), "avi domain: short epoch gather");
      for (std::int32_t a : list) {
        const auto i = static_cast<std::size_t>(a);
        st.x[i] = Vec3(all[k], all[k + 1], all[k + 2]);
        st.v[i] = Vec3(all[k + 3], all[k + 4], all[k + 5]);
        st.t[i] = all[k + 6];
        k += 7;
      }
      const auto nl = static_cast<std::size_t>(all[k++]);
      ints.assign(all.begin() + static_cast<std::ptrdiff_t>(k),
                  all.begin() + static_cast<std::ptrdiff_t>(k + nl * kLayerInts));
      k += nl * kLayerInts;
      const std::vector<ActiveLayers> part = unpackLayers(ints.data(), nl);
      layers.insert(layers.end(), part.begin(), part.end());
    }
    KINEMA_CHECK(k == all.size(), "avi domain: gathered ", all.size(), " values, expected ", k);
    normalise(layers);
    stats.epochCpuSeconds += cpuSeconds() - c0;
    stats.syncSeconds += seconds() - t0;
  }

  std::vector<ActiveLayers> gatherLayers() const {
    std::vector<std::int64_t> mine;
    packLayers(engine->activeLayers(), mine);
    const std::vector<std::int64_t> all = comm.allgatherv(mine);
    std::vector<ActiveLayers> layers = unpackLayers(all.data(), all.size() / kLayerInts);
    normalise(layers);
    return layers;
  }

  // Intersecting non-adjacent contact triangles at T whose first triangle's first vertex this
  // rank owns (collective: the positions are gathered). 0 for 2D scenes and fewer than 2 triangles.
  std::int64_t triangleIntersections(double T) const {
    if (scene.dim != 3 || scene.contactTriangles.size() < 2) return 0;
    std::vector<Vec3> x;
    gatherState(T, x, nullptr);
    if (!triangleBroad) {
      triangleBroad = std::make_unique<CandidatePairs>();
      triangleBroad->setup(scene, "hash", options.margin);
    }
    std::vector<std::pair<std::int32_t, std::int32_t>> pairs;
    triangleBroad->trianglePairs(scene, x, pairs);
    std::int64_t n = 0;
    for (const auto& [i, j] : pairs) {
      const Eigen::Vector3i& A = scene.contactTriangles[static_cast<std::size_t>(i)];
      const Eigen::Vector3i& B = scene.contactTriangles[static_cast<std::size_t>(j)];
      if (partition.owner[static_cast<std::size_t>(A[0])] != rank) continue;
      const auto at = [&](int a) -> const Vec3& { return x[static_cast<std::size_t>(a)]; };
      if (geometry::trianglesIntersect(at(A[0]), at(A[1]), at(A[2]), at(B[0]), at(B[1]), at(B[2]))) ++n;
    }
    return n;
  }
  mutable std::unique_ptr<CandidatePairs> triangleBroad;  // broad phase of the triangle tests

  // ---- epochs ----
  // The engine of this epoch from the state `st` of every vertex at its start. It takes the held
  // forces (exactly those touching an owned vertex, in scene order) and the state; retireEngine
  // and takeStartState give them back.
  void buildEngine(RawState st) {
    double c0 = cpuSeconds();
    engine.reset();
    // The start establishes this rank's pairs only, so it may fail on one rank alone. A failed
    // start leaves the Domain unusable (its forces and state went into the failed engine); the
    // error is thrown on every rank.
    guarded([&] {
      Scene own = engineScene(scene, held, partition);
      own.vertices.x = std::move(st.x);
      own.vertices.v = std::move(st.v);
      own.vertices.t = std::move(st.t);
      engine = std::make_unique<Engine>(std::move(own), options, EngineStart{epochStart, layers0}, &partition);
    });
    stats.epochCpuSeconds += cpuSeconds() - c0;
    const std::int64_t who = comm.min(failure ? std::int64_t{rank} : std::int64_t{size});
    if (who < size) rethrowFailure(static_cast<int>(who));
    c0 = cpuSeconds();
    keepStartState();
    const Engine& e = *engine;
    std::vector<std::int32_t> published;
    for (std::int32_t a : e.boundaryVertices())
      if (partition.owner[static_cast<std::size_t>(a)] == rank) published.push_back(a);
    stats.epochCpuSeconds += cpuSeconds() - c0;
    const double t0 = seconds();
    // The vectors and maps of the last epoch serve again if nobody's ghosts or boundary changed
    // (one reduction instead of building index maps and ghosted vectors).
    const bool same = ghosts && sameOwners && ghosts->ghosts() == e.ghostVertices() && ghosts->published() == published;
    if (!comm.all(same))
      ghosts = std::make_unique<GhostExchange>(comm, *backend, partition.owner, e.ghostVertices(), std::move(published));
    stats.syncSeconds += seconds() - t0;
    lastGhost.resize(ghosts->ghosts().size());
    for (std::size_t i = 0; i < lastGhost.size(); ++i) {
      const auto g = static_cast<std::size_t>(ghosts->ghosts()[i]);
      lastGhost[i] = GhostState{e.vertices().x[g], e.vertices().v[g], e.vertices().t[g]};
    }
    ghostDv.assign(lastGhost.size(), Vec3::Zero());
  }

  // Starts an epoch at T from the replicated state (every event <= T processed) and the active
  // layers.
  void startEpoch(double T, RawState st, std::vector<ActiveLayers> layers) {
    stalls = (stats.epochs > 0 && T <= epochStart) ? stalls + 1 : 0;
    KINEMA_CHECK(stalls < 64, "avi domain: no progress over 64 epochs at t = ", T,
                 " (the broad phase expires at once)");
    retireEngine();
    epochStart = T;
    layers0 = std::move(layers);
    epochCap = kInf;
    const double t0 = seconds();
    double c0 = cpuSeconds();
    ObjectPartition p = partitionObjects(scene, layers0, size, objectRank, rule, st.x);
    stats.migrations += p.migrations;
    objectRank = std::move(p.objectRank);
    partition.rank = rank;
    sameOwners = partition.owner == p.owner;  // the same on every rank (a replicated result)
    if (partition.owner.empty()) {
      // The first epoch: take this rank's share of the whole list, then free the list.
      held = shareForces(scene.forces, p.owner, rank);
      std::vector<ForceElement>().swap(scene.forces);
    } else if (!sameOwners) {
      stats.epochCpuSeconds += cpuSeconds() - c0;
      migrateForces(held, comm, partition.owner, p.owner);  // all-to-all (the sorting and merging untimed)
      c0 = cpuSeconds();
    }
    partition.owner = std::move(p.owner);
    ownedBy.assign(static_cast<std::size_t>(size), {});
    for (std::size_t a = 0; a < partition.owner.size(); ++a)
      ownedBy[static_cast<std::size_t>(partition.owner[a])].push_back(static_cast<std::int32_t>(a));
    stats.epochCpuSeconds += cpuSeconds() - c0;
    buildEngine(std::move(st));
    stats.epochSeconds += seconds() - t0;
    ++stats.epochs;
  }

  // Every rank restarts the epoch and replays it with its end moved to `cap`.
  void rollback(double cap) {
    addShares(shares, engine->timeShares());
    stalls = cap <= epochStart ? stalls + 1 : 0;
    KINEMA_CHECK(stalls < 64, "avi domain: no progress over 64 rollbacks at t = ", epochStart);
    sameOwners = true;
    const double t0 = seconds();
    const double c0 = cpuSeconds();
    RawState st = takeStartState();
    stats.epochCpuSeconds += cpuSeconds() - c0;
    buildEngine(std::move(st));
    stats.epochSeconds += seconds() - t0;
    epochCap = cap;
    time = epochStart;
    ++stats.rollbacks;
  }

  // Owners publish (x, v, t) of their boundary vertices; ghosts that changed go to the engine
  // (which reschedules the certificates reading them).
  void refreshGhosts() {
    const double t0 = seconds();
    ghosts->exchangeStates(engine->vertices());
    stats.syncSeconds += seconds() - t0;
    guarded([&] {
      for (std::size_t i = 0; i < lastGhost.size(); ++i) {
        const GhostState& g = ghosts->ghostState(i);
        if (g == lastGhost[i]) continue;
        engine->setGhostState(ghosts->ghosts()[i], g.x, g.v, g.t);
        lastGhost[i] = g;
      }
    });
  }

  // Impulses this rank's events at Ts gave to ghosts go to the owners.
  void exchangeImpulses(double Ts) {
    ghostDv.assign(ghostDv.size(), Vec3::Zero());
    guarded([&] { engine->takeGhostImpulses(ghostDv); });
    // A ghost this rank kicked holds its own kick, not the owner's sum: refresh it whatever the
    // owner publishes (the sum over ranks may leave the owner's state bitwise unchanged).
    for (std::size_t i = 0; i < ghostDv.size(); ++i)
      if (ghostDv[i] != Vec3::Zero()) lastGhost[i].t = std::numeric_limits<double>::quiet_NaN();
    const double t0 = seconds();
    ghosts->accumulateImpulses(ghostDv, received);
    stats.syncSeconds += seconds() - t0;
    guarded([&] {
      for (const auto& [a, dv] : received) engine->applyImpulse(a, dv, Ts);
    });
  }


  // Global minima of five values in one reduction.
  std::array<double, 5> reduceMin5(std::array<double, 5> x) {
    const double t0 = seconds();
    MPI_Allreduce(MPI_IN_PLACE, x.data(), 5, MPI_DOUBLE, MPI_MIN, comm.raw());
    stats.syncSeconds += seconds() - t0;
    return x;
  }

  void advancePartitioned(double T) {
    // One reduction per window: the next window's end candidate, and (for the window just
    // processed) the broad-phase expiry and the next event time.
    bool processed = false;
    double Ts = time;
    double early = kInf;  // a sync event this rank's window queued before the window end
    for (;;) {
      const auto [candidate, expiry, next, failed, earliest] = reduceMin5(
          {std::min({engine->nextSyncTime(), engine->broadPhaseExpiry(), epochCap, T}),
           engine->broadPhaseExpiry(), engine->nextEventTime(), failure ? static_cast<double>(rank) : kInf, early});
      if (failed < kInf) rethrowFailure(static_cast<int>(failed));
      if (processed) {
        processed = false;
        early = kInf;
        // A broad phase that expired inside the window, or a sync event queued inside it (a
        // layer tick beyond the certificate lookahead, README decision 53), invalidates the
        // window on every rank; the replay ends the epoch there.
        if (expiry < Ts || earliest < Ts) {
          if (earliest < Ts && !(expiry < earliest)) ++stats.tickRollbacks;
          rollback(std::min(expiry, earliest));
          continue;
        }
        time = Ts;
        if (expiry <= Ts || Ts >= epochCap) {  // epoch end: gather, repartition, new engines
          RawState st;
          std::vector<ActiveLayers> layers;
          gatherEpoch(st, layers);
          startEpoch(Ts, std::move(st), std::move(layers));
          if (Ts >= T) break;
          continue;
        }
        if (Ts >= T && next > T) break;
      }
      // Window end: the earliest sync event, broad-phase expiry or epoch end over all ranks.
      Ts = candidate;
      const double c0 = cpuSeconds();
      guarded([&] {
        engine->processBefore(Ts);  // rank-local events only: no boundary vertex changes
        // A sync event queued before Ts (a layer tick from a boundary certificate activating
        // more than the next layer, or from one a local kick moved earlier) makes the window
        // invalid: reported in the next reduction.
        const double s = engine->nextSyncTime();
        if (s < Ts) {
          early = s;
          return;
        }
        // The ghosts are already current here: nothing touched a boundary vertex since the last
        // refresh (only sync events do, and they run at window ends), so the refresh before
        // processAt that README decision 57, step 4 describes would copy the same values; it is skipped.
        engine->processAt(Ts);
      });
      stats.eventCpuSeconds += cpuSeconds() - c0;
      exchangeImpulses(Ts);
      refreshGhosts();
      ++stats.windows;
      processed = true;
    }
    time = T;
  }
};

Domain::Domain(Comm comm, la::Backend& backend, Scene scene, const EngineOptions& options)
    : impl_(std::make_unique<Impl>()) {
  Impl& d = *impl_;
  d.comm = comm;
  d.backend = &backend;
  d.size = comm.size();
  d.rank = comm.rank();
  d.options = options;
  d.rule = partitionRuleFromName(options.partition);
  d.scene = std::move(scene);
  d.nv = d.scene.vertices.size();
  if (d.size == 1) {
    d.held.index.resize(d.scene.forces.size());  // every force, held by the serial engine
    std::iota(d.held.index.begin(), d.held.index.end(), std::int32_t{0});
    d.engine = serialEngine(d.scene, takeState(d.scene), d.options);
    return;
  }
  {
    // The ghost exchange needs vectors spanning ranks: the eigen backend is refused with the
    // framework's message naming the backends that can.
    auto map = la::IndexMap::uniform(comm, d.size);
    try {
      backend.requireUsable(*map);
    } catch (InputError& e) {
      e.addContext("avi: the distributed engine (option A, README decision 57) exchanges ghost vertices "
                   "through the backend's vectors");
      throw;
    }
  }
  if (!(options.dyadicBase > 0.0))
    throw InputError(str("avi: at ", d.size, " ranks every step must lie on a dyadic lattice "
                         "(avi.integrator.dyadic_base > 0, README decision 57, step 1), got dyadic_base = ",
                         options.dyadicBase));
  d.startEpoch(0.0, takeState(d.scene), {});
}

Domain::~Domain() = default;

void Domain::advanceTo(double T) {
  Impl& d = *impl_;
  if (!d.partitioned()) {
    const double c0 = cpuSeconds();
    d.engine->advanceTo(T);
    d.stats.eventCpuSeconds += cpuSeconds() - c0;
    d.time = d.engine->time();
    return;
  }
  KINEMA_CHECK(T >= d.time, "avi domain: advanceTo(", T, ") before the current time ", d.time);
  d.advancePartitioned(T);
}

double Domain::time() const { return impl_->partitioned() ? impl_->time : impl_->engine->time(); }

Measurement Domain::measure(double T) const {
  const Impl& d = *impl_;
  if (!d.partitioned()) return d.engine->measure(T);
  // Every rank measures its own share on its engine (owned vertices, forces and pairs, whose
  // ghosts are current at a window end), summed over the ranks; the exact triangle-triangle tests
  // run on the gathered positions, each rank the pairs whose first triangle it owns. The
  // active-layer counts come from the gathered list.
  const Measurement m = d.engine->measure(T);  // reads the state only: no error to share
  std::array<double, 11> sums = {m.kinetic, m.elastic, m.gravity, m.contact,
                                 m.momentum.x(), m.momentum.y(), m.momentum.z(),
                                 m.angularMomentum.x(), m.angularMomentum.y(), m.angularMomentum.z(),
                                 static_cast<double>(m.candidatePairs)};
  MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_DOUBLE, MPI_SUM, d.comm.raw());
  Measurement out;
  out.time = T;
  out.kinetic = sums[0];
  out.elastic = sums[1];
  out.gravity = sums[2];
  out.contact = sums[3];
  out.momentum = Vec3(sums[4], sums[5], sums[6]);
  out.angularMomentum = Vec3(sums[7], sums[8], sums[9]);
  out.candidatePairs = static_cast<std::int64_t>(sums[10]);
  out.minDistance = d.comm.min(m.minDistance);
  out.intersections = d.comm.sum(m.intersections + d.triangleIntersections(T));
  const std::vector<ActiveLayers> layers = d.gatherLayers();
  int deepest = 0;
  for (const ActiveLayers& l : layers) deepest = std::max(deepest, l.deepest);
  out.activePerDepth.assign(static_cast<std::size_t>(deepest), 0);
  for (const ActiveLayers& l : layers)
    for (int k = 0; k < l.deepest; ++k) ++out.activePerDepth[static_cast<std::size_t>(k)];
  out.activePairs = static_cast<std::int64_t>(layers.size());
  return out;
}

Counters Domain::counters() const {
  const Impl& d = *impl_;
  Counters c = d.committed;
  addCounters(c, d.engine->counters());
  if (!d.partitioned()) return c;
  const std::vector<std::int64_t> mine = {c.forceEvents,       c.penaltyKicks,  c.penaltyZeroTicks,
                                          c.certEvents,        c.certReschedules, c.certsFound,
                                          c.activations,       c.deactivations, c.broadPhaseRebuilds,
                                          c.scriptEvents,      c.invariantChecks, c.deepestLayer};
  const std::vector<std::int64_t> all = d.comm.allgatherv(mine);
  Counters s;
  for (std::size_t k = 0; k < all.size(); k += mine.size()) {
    Counters r;
    r.forceEvents = all[k];
    r.penaltyKicks = all[k + 1];
    r.penaltyZeroTicks = all[k + 2];
    r.certEvents = all[k + 3];
    r.certReschedules = all[k + 4];
    r.certsFound = all[k + 5];
    r.activations = all[k + 6];
    r.deactivations = all[k + 7];
    r.broadPhaseRebuilds = all[k + 8];
    r.scriptEvents = all[k + 9];
    r.invariantChecks = all[k + 10];
    r.deepestLayer = static_cast<int>(all[k + 11]);
    addCounters(s, r);
  }
  // The partitioned engines never rebuild their broad phase: every epoch start is one rebuild.
  s.broadPhaseRebuilds += d.stats.epochs - 1;
  return s;
}

TimeShares Domain::timeShares() const {
  TimeShares s = impl_->shares;
  addShares(s, impl_->engine->timeShares());
  return s;
}

const DomainStats& Domain::stats() const { return impl_->stats; }

void Domain::gatherPositions(double T, std::vector<Vec3>& x) const {
  const Impl& d = *impl_;
  if (!d.partitioned()) {
    const Vertices& V = d.engine->vertices();
    x.resize(static_cast<std::size_t>(V.size()));
    for (int a = 0; a < V.size(); ++a) x[static_cast<std::size_t>(a)] = V.at(a, T);
    return;
  }
  d.gatherState(T, x, nullptr);
}

// Layout: ints = [tag, version, vertices N, layer records L, engine ints E (0: none),
//                 L * 8 layer ints, E engine ints];
//         reals = [time, x (3N), v (3N), t (N): each vertex as its owner stores it, engine reals].
// At one rank the serial engine's own state is embedded and load() at one rank continues it
// bitwise; anywhere else load() starts an epoch from the global part (which adds no drift
// splitting: the positions are not drifted to the save time).
void Domain::save(EngineState& out) const {
  const Impl& d = *impl_;
  const double T = time();
  RawState st;
  std::vector<ActiveLayers> layers;
  EngineState sub;
  if (d.partitioned()) {
    d.gatherRaw(st);
    layers = d.gatherLayers();
  } else {
    const Vertices& V = d.engine->vertices();
    st = RawState{V.x, V.v, V.t};
    layers = d.engine->activeLayers();
    normalise(layers);
    d.engine->save(sub);
  }
  const std::size_t n = st.x.size();
  out.ints = {kStateTag, kStateVersion, static_cast<std::int64_t>(n), static_cast<std::int64_t>(layers.size()),
              static_cast<std::int64_t>(sub.ints.size())};
  packLayers(layers, out.ints);
  out.ints.insert(out.ints.end(), sub.ints.begin(), sub.ints.end());
  out.reals.clear();
  out.reals.reserve(1 + 7 * n + sub.reals.size());
  out.reals.push_back(T);
  for (const Vec3& p : st.x) out.reals.insert(out.reals.end(), p.data(), p.data() + 3);
  for (const Vec3& p : st.v) out.reals.insert(out.reals.end(), p.data(), p.data() + 3);
  out.reals.insert(out.reals.end(), st.t.begin(), st.t.end());
  out.reals.insert(out.reals.end(), sub.reals.begin(), sub.reals.end());
}

void Domain::load(const EngineState& in) {
  Impl& d = *impl_;
  const auto nv = static_cast<std::int64_t>(d.nv);
  if (in.ints.size() < 5 || in.ints[0] != kStateTag || in.ints[1] != kStateVersion)
    throw InputError("avi: the checkpoint state was not written by this version of the avi domain");
  const std::int64_t N = in.ints[2], L = in.ints[3], E = in.ints[4];
  if (N != nv) throw InputError(str("avi: the checkpoint holds ", N, " vertices, the scene has ", nv));
  if (L < 0 || E < 0 || in.ints.size() != static_cast<std::size_t>(5 + L * kLayerInts + E) ||
      in.reals.size() < static_cast<std::size_t>(1 + 7 * N))
    throw InputError("avi: the checkpoint state is truncated or inconsistent");
  const double T = in.reals[0];
  std::vector<ActiveLayers> layers = unpackLayers(in.ints.data() + 5, static_cast<std::size_t>(L));
  RawState st;
  st.x.resize(static_cast<std::size_t>(N));
  st.v.resize(static_cast<std::size_t>(N));
  st.t.resize(static_cast<std::size_t>(N));
  const double* r = in.reals.data() + 1;
  for (std::int64_t a = 0; a < N; ++a) {
    const auto i = static_cast<std::size_t>(a);
    st.x[i] = Vec3(r[3 * a], r[3 * a + 1], r[3 * a + 2]);
    st.v[i] = Vec3(r[3 * (N + a)], r[3 * (N + a) + 1], r[3 * (N + a) + 2]);
    st.t[i] = r[6 * N + a];
    if (!(st.t[i] <= T) || !st.x[i].allFinite() || !st.v[i].allFinite())
      throw InputError(str("avi: the checkpoint state of vertex ", a, " is not finite or later than its time ", T));
  }
  if (!d.partitioned()) {
    addShares(d.shares, d.engine->timeShares());
    // The serial engine holds the force list (their steps already on its lattice, which rounds
    // them idempotently; the clocks are set again by the start or the loaded state).
    d.scene.forces = d.engine->scene().forces;
    if (E > 0) {  // the serial engine's own state: bitwise continuation
      EngineState sub;
      sub.ints.assign(in.ints.begin() + 5 + L * kLayerInts, in.ints.end());
      sub.reals.assign(in.reals.begin() + 1 + 7 * N, in.reals.end());
      // Built at T from the saved state (valid there; the scene's initial state is gone), then
      // load() restores the engine's own state over it.
      d.engine = serialEngine(d.scene, std::move(st), d.options, EngineStart{T, std::move(layers)});
      d.engine->load(sub);
    } else {
      d.engine = serialEngine(d.scene, std::move(st), d.options, EngineStart{T, std::move(layers)});
    }
    d.time = T;
    return;
  }
  d.time = T;
  d.startEpoch(T, std::move(st), std::move(layers));
}

const Scene& Domain::scene() const { return impl_->scene; }

const std::vector<std::int32_t>& Domain::heldForces() const { return impl_->held.index; }

}  // namespace kinema::avi

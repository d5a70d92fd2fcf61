// avi::Engine's construction (INIT of modules/avi/README.md, decision 4): the scene and options
// checked, the partition's boundary and ghost vertices, the scripts' and forces' first events,
// and the candidate pairs with their layers.
#include <algorithm>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"
#include "modules/avi/engine_impl.hpp"
#include "modules/avi/force_element.hpp"
#include "modules/avi/penalty_layer.hpp"

namespace kinema::avi {

Engine::Impl::Impl(Scene s, const EngineOptions& o, const EngineStart& start, const Partition* partition)
    : scene(std::move(s)), opt(o) {
  if (partition) forceIndex = partition->forceIndex;  // before checkInput: its messages name forces
  checkInput();
  prm.eta = scene.eta;
  prm.k = scene.k;
  prm.restitution = opt.restitution;
  prm.friction = opt.friction;
  for (EventQueue& queue : q) queue.setSharedCounter(&seq);

  const double t0 = start.t0;
  tg = now = t0;
  setupPartition(partition, t0);
  startScripts(t0);
  startForces(t0);
  rebuildPairs(t0, true, &start);
}

// The scene and the options, checked before anything is built (isolated flags default to none).
void Engine::Impl::checkInput() {
  if (!(scene.eta > 0.0) || !(scene.k > 0.0))
    throw InputError(str("avi engine: scene '", scene.name, "' needs eta > 0 and k > 0 (eta = ",
                         scene.eta, ", k = ", scene.k, ")"));
  if (!(opt.cSafe > 0.0)) throw InputError(str("avi.integrator.c_safe: must be > 0, got ", opt.cSafe));
  if (!(opt.restitution >= 0.0 && opt.restitution <= 1.0))
    throw InputError(str("avi.integrator.restitution: must be in [0, 1], got ", opt.restitution));
  if (!(opt.friction >= 0.0)) throw InputError(str("avi.integrator.friction: must be >= 0, got ", opt.friction));
  if (!(opt.tauMinFactor >= 0.0))
    throw InputError(str("avi.integrator.tau_min_factor: must be >= 0, got ", opt.tauMinFactor));
  if (opt.maxLayer < 1) throw InputError(str("avi.integrator.max_layer: must be >= 1, got ", opt.maxLayer));
  if (opt.bruteForce && opt.bruteForceLayers < 1)
    throw InputError(str("avi.integrator.brute_force_layers: must be >= 1, got ", opt.bruteForceLayers));
  if (opt.uniformStep < 0.0 || opt.dyadicBase < 0.0)
    throw InputError("avi.integrator: uniform_step and dyadic_base must be >= 0");
  const int n = scene.vertices.size();
  for (std::size_t i = 0; i < scene.forces.size(); ++i)
    if (!(scene.forces[i].h > 0.0))
      throw InputError(str("avi engine: force ", sceneForce(i), " (", kindName(scene.forces[i].kind), ") has step h = ",
                           scene.forces[i].h, " (must be > 0)"));
  if (scene.isolated.empty()) scene.isolated.assign(n, 0);
  if (static_cast<int>(scene.isolated.size()) != n)
    throw InputError(str("avi engine: scene '", scene.name, "' has ", scene.isolated.size(),
                         " isolated flags for ", n, " vertices"));
  for (std::size_t q = 0; q < scene.planes.size(); ++q)
    if (!(std::abs(scene.planes[q].normal.norm() - 1.0) <= 1e-12))
      throw InputError(str("avi engine: plane ", q, " of scene '", scene.name, "' has a normal of length ",
                           scene.planes[q].normal.norm(), " (must be unit)"));
}

// Per-vertex state, the broad phase's first candidate list, and the partition: ownership and, from
// the replicated scene, the boundary vertices (a force or candidate pair reading vertices of
// several owners) and this rank's ghosts. Serial: every vertex owned.
void Engine::Impl::setupPartition(const Partition* partition, double t0) {
  const Vertices& V = scene.vertices;
  const int n = V.size();
  ownedVertex.assign(n, 1);
  isBoundary.assign(n, 0);
  ghostSlot.assign(n, -1);
  isDirty.assign(n, 0);
  dvSum.assign(n, Vec3::Zero());
  dirty.reserve(n);
  partitioned = partition != nullptr;
  broad.setup(scene, opt.broadPhase, opt.margin);
  measureBroad.setup(scene, "hash", opt.margin);
  if (!partitioned) broad.find(scene, V, t0, allKeys);
  if (partitioned) {
    KINEMA_CHECK(static_cast<int>(partition->owner.size()) == n, "partition owner has ",
                 partition->owner.size(), " entries for ", n, " vertices");
    rank = partition->rank;
    owner = partition->owner;
    lookahead = opt.certLookahead && !opt.restartClocks;  // restarted clocks have no lattice
    KINEMA_CHECK(forceIndex.empty() || forceIndex.size() == scene.forces.size(), "partition force index has ",
                 forceIndex.size(), " entries for ", scene.forces.size(), " forces");
    hasGravityElements = partition->gravityElements;  // the subset may hold none; startForces adds its own
    for (int a = 0; a < n; ++a) ownedVertex[a] = owner[a] == rank;
    // Only pairs with an owned primitive matter here (this rank's pairs, its boundary and ghost
    // vertices), so the broad phase looks only around the owned region.
    broad.find(scene, V, t0, allKeys, &ownedVertex);
    broad.releaseBuffers();  // queried once: the Domain ends the epoch instead of a rebuild
    auto markIfMixed = [&](const std::int32_t* v, int m) {
      bool mixed = false;
      for (int i = 1; i < m; ++i) mixed = mixed || owner[v[i]] != owner[v[0]];
      if (mixed)
        for (int i = 0; i < m; ++i) isBoundary[v[i]] = 1;
    };
    for (const ForceElement& f : scene.forces) markIfMixed(f.v.data(), f.n);
    for (const PairKey& key : allKeys) {
      const ContactPair p = makePair(key, V);
      std::int32_t v[6];
      int m = 0;
      for (int i = 0; i < p.na; ++i) v[m++] = p.a[i];
      for (int i = 0; i < p.nb; ++i) v[m++] = p.b[i];
      markIfMixed(v, m);
    }
    for (int a = 0; a < n; ++a)
      if (isBoundary[a]) boundaryList.push_back(a);
    std::vector<std::uint8_t> ghost(n, 0);
    auto markGhosts = [&](const std::int32_t* v, int m) {
      for (int i = 0; i < m; ++i)
        if (!ownedVertex[v[i]]) ghost[v[i]] = 1;
    };
    for (const ForceElement& f : scene.forces)
      if (owner[f.v[0]] == rank) markGhosts(f.v.data(), f.n);
    for (const PairKey& key : allKeys)
      if (ownsPair(key)) {
        const ContactPair p = makePair(key, V);
        markGhosts(p.a.data(), p.na);
        markGhosts(p.b.data(), p.nb);
      }
    for (int a = 0; a < n; ++a)
      if (ghost[a]) {
        ghostSlot[a] = static_cast<std::int32_t>(ghostList.size());
        ghostList.push_back(a);
      }
    ghostDv.assign(ghostList.size(), Vec3::Zero());
  }
}

// The entries of the scripts already due at t0 are the current velocities; the next one is an event.
void Engine::Impl::startScripts(double t0) {
  Vertices& V = scene.vertices;
  const int n = V.size();
  scriptHandle.assign(scene.scripts.size(), -1);
  scriptSync.assign(scene.scripts.size(), 0);
  for (std::size_t si = 0; si < scene.scripts.size(); ++si) {
    const Script& sc = scene.scripts[si];
    if (sc.times.size() != sc.velocities.size())
      throw InputError(str("avi engine: script '", sc.name, "' has ", sc.times.size(), " times and ",
                           sc.velocities.size(), " velocities"));
    bool owns = false;
    for (std::int32_t a : sc.vertices) {
      if (a < 0 || a >= n) throw InputError(str("avi engine: script '", sc.name, "' names vertex ", a));
      owns = owns || ownedVertex[a];
      if (ownedVertex[a] && isBoundary[a]) scriptSync[si] = 1;
    }
    std::size_t k = 0;
    while (k < sc.times.size() && sc.times[k] <= t0) ++k;
    if (k > 0)
      for (std::int32_t a : sc.vertices)
        if (ownedVertex[a]) V.v[a] = sc.velocities[k - 1];
    if (owns && k < sc.times.size())
      scriptHandle[si] = push(sc.times[k], Event{EventKind::Script, static_cast<std::int32_t>(si),
                                                 static_cast<std::int32_t>(k)},
                              scriptSync[si]);
  }
}

// Material potentials: fixed steps, first tick after t0 (j = 1 at h when t0 = 0, the paper's Algorithm 1).
void Engine::Impl::startForces(double t0) {
  const std::size_t nf = scene.forces.size();
  forceOwned.assign(nf, 1);
  forceSync.assign(nf, 0);
  forceHandle.assign(nf, -1);
  for (std::size_t i = 0; i < nf; ++i) {
    ForceElement& f = scene.forces[i];
    if (f.kind == ForceKind::Gravity) hasGravityElements = true;
    f.h = forceH(f.h);
    f.j = firstTickAfter(t0, f.h);
    if (partitioned) forceOwned[i] = owner[f.v[0]] == rank;
    for (int k = 0; k < f.n; ++k) forceSync[i] = forceSync[i] || isBoundary[f.v[k]];
    if (forceOwned[i])
      forceHandle[i] = push(static_cast<double>(f.j) * f.h,
                            Event{EventKind::Force, static_cast<std::int32_t>(i), 0}, forceSync[i]);
  }
}

}  // namespace kinema::avi

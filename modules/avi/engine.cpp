// The serial event engine of the AVI with nested penalty layers: the loop of modules/avi/README.md,
// decision 4 (INIT, ESTABLISH, ACTIVATE, MAIN LOOP, RESCHEDULE_CERTS, TRY_CERT), which fixes the
// gaps 1-5 of the paper's Algorithms 2-5 (the paper's §6). Decisions are in the README; the ones
// taken here are commented where they act.
#include <algorithm>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"
#include "modules/avi/engine_impl.hpp"
#include "modules/avi/force_element.hpp"
#include "modules/avi/penalty_layer.hpp"

namespace kinema::avi {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

const char* kindName(ForceKind k) {
  switch (k) {
    case ForceKind::Spring: return "spring";
    case ForceKind::Cst: return "cst";
    case ForceKind::Hinge: return "hinge";
    case ForceKind::RodBend: return "rod_bend";
    case ForceKind::Gravity: return "gravity";
  }
  return "force";
}
}  // namespace

// ------------------------------------------------------------------------------------------
// steps and clocks

double Engine::Impl::forceH(double h) const {
  if (opt.uniformStep > 0.0) return opt.uniformStep;
  if (opt.dyadicBase > 0.0) return dyadicStep(h, opt.dyadicBase);
  return h;
}

double Engine::Impl::layerH(const ContactPair& p, int l) const {
  // h_l = C_safe sqrt(m_min / (4 k)) l^(-3/2) (README decision 5); fixed for the pair's lifetime
  // since m_min and l are.
  if (opt.uniformStep > 0.0) return opt.uniformStep;
  const double h = layerStep(opt.cSafe, p.mMin, scene.k, l);
  return opt.dyadicBase > 0.0 ? dyadicStep(h, opt.dyadicBase) : h;
}

std::int64_t Engine::Impl::firstTickAtOrAfter(double t, double h) {
  // ACTIVATE (README decision 4): j = ceil(t / h), plus one if j h < t by round-off; never j = 0
  // (potentials are not sampled at 0, the paper's §4).
  auto j = static_cast<std::int64_t>(std::ceil(t / h));
  while (static_cast<double>(j) * h < t) ++j;
  while (j > 1 && static_cast<double>(j - 1) * h >= t) --j;
  return std::max<std::int64_t>(j, 1);
}

std::int64_t Engine::Impl::firstTickAfter(double t, double h) {
  auto j = static_cast<std::int64_t>(std::floor(t / h)) + 1;
  while (static_cast<double>(j) * h <= t) ++j;
  while (j > 1 && static_cast<double>(j - 1) * h > t) --j;
  return std::max<std::int64_t>(j, 1);
}

// ------------------------------------------------------------------------------------------
// construction (INIT of README decision 4)

Engine::Impl::Impl(Scene s, const EngineOptions& o, const EngineStart& start, const Partition* partition)
    : scene(std::move(s)), opt(o) {
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
  Vertices& V = scene.vertices;
  const int n = V.size();
  for (std::size_t i = 0; i < scene.forces.size(); ++i)
    if (!(scene.forces[i].h > 0.0))
      throw InputError(str("avi engine: force ", i, " (", kindName(scene.forces[i].kind), ") has step h = ",
                           scene.forces[i].h, " (must be > 0)"));
  if (scene.isolated.empty()) scene.isolated.assign(n, 0);
  if (static_cast<int>(scene.isolated.size()) != n)
    throw InputError(str("avi engine: scene '", scene.name, "' has ", scene.isolated.size(),
                         " isolated flags for ", n, " vertices"));
  for (std::size_t q = 0; q < scene.planes.size(); ++q)
    if (!(std::abs(scene.planes[q].normal.norm() - 1.0) <= 1e-12))
      throw InputError(str("avi engine: plane ", q, " of scene '", scene.name, "' has a normal of length ",
                           scene.planes[q].normal.norm(), " (must be unit)"));
  prm.eta = scene.eta;
  prm.k = scene.k;
  prm.restitution = opt.restitution;
  prm.friction = opt.friction;
  q[0].setSharedCounter(&seq);
  q[1].setSharedCounter(&seq);
  const double t0 = start.t0;
  tg = now = t0;

  // Partition: ownership and, from the replicated scene, the boundary vertices.
  ownedVertex.assign(n, 1);
  isBoundary.assign(n, 0);
  ghostSlot.assign(n, -1);
  isDirty.assign(n, 0);
  dvSum.assign(n, Vec3::Zero());
  dirty.reserve(n);
  partitioned = partition != nullptr;
  broad.setup(scene, opt.broadPhase, opt.margin);
  measureBroad.setup(scene, "hash", opt.margin);
  broad.find(scene, V, t0, allKeys);
  if (partitioned) {
    KINEMA_CHECK(static_cast<int>(partition->owner.size()) == n, "partition owner has ",
                 partition->owner.size(), " entries for ", n, " vertices");
    rank = partition->rank;
    owner = partition->owner;
    for (int a = 0; a < n; ++a) ownedVertex[a] = owner[a] == rank;
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

  // Scripts: the entries already due at t0 are the current velocities; the next one is an event.
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

  // Material potentials: fixed steps, first tick after t0 (j = 1 at h when t0 = 0, the paper's Algorithm 1).
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

  rebuildPairs(t0, true, &start);
}

// ------------------------------------------------------------------------------------------
// candidate pairs (broad phase)

void Engine::Impl::dropPairEvents(ContactPair& p) {
  for (LayerClock& c : p.layers)
    if (c.handle >= 0) {
      remove(c.handle);
      c.handle = -1;
    }
  if (p.cert.handle >= 0) {
    remove(p.cert.handle);
    p.cert.handle = -1;
  }
}

void Engine::Impl::renumberPair(int pi) {
  // Kept pairs are renumbered monotonically (sorted merge), so their keys keep their relative
  // order and the heaps stay valid without reordering.
  ContactPair& p = pairs[pi];
  for (LayerClock& c : p.layers)
    if (c.handle >= 0) {
      payload(c.handle).id = pi;
      qOf(c.handle).setKeyInPlace(c.handle >> 1, keyOf(payload(c.handle)));
    }
  if (p.cert.handle >= 0) {
    payload(p.cert.handle).id = pi;
    qOf(p.cert.handle).setKeyInPlace(p.cert.handle >> 1, keyOf(payload(p.cert.handle)));
  }
}

void Engine::Impl::buildAdjacency() {
  const int n = scene.vertices.size();
  adjStart.assign(n + 1, 0);
  for (const ContactPair& p : pairs) {
    for (int i = 0; i < p.na; ++i) ++adjStart[p.a[i] + 1];
    for (int i = 0; i < p.nb; ++i) ++adjStart[p.b[i] + 1];
  }
  for (int a = 0; a < n; ++a) adjStart[a + 1] += adjStart[a];
  adjList.resize(adjStart[n]);
  cursor.assign(adjStart.begin(), adjStart.end() - 1);  // next free slot per vertex
  for (std::size_t pi = 0; pi < pairs.size(); ++pi) {
    const ContactPair& p = pairs[pi];
    for (int i = 0; i < p.na; ++i) adjList[cursor[p.a[i]]++] = static_cast<std::int32_t>(pi);
    for (int i = 0; i < p.nb; ++i) adjList[cursor[p.b[i]]++] = static_cast<std::int32_t>(pi);
  }
  stamp.assign(pairs.size(), 0);
}

void Engine::Impl::rebuildPairs(double t, bool initial, const EngineStart* start) {
  flushDirty();  // pair indices change below
  Section timer(*this, shares.broadPhase);
  const Vertices& V = scene.vertices;
  if (!initial) broad.find(scene, V, t, allKeys);
  keys.clear();
  for (const PairKey& key : allKeys)
    if (ownsPair(key)) keys.push_back(key);
  // Merge the sorted old and new lists: kept pairs keep their clocks and certificates; dropped
  // pairs are more than 2 eta + delta apart (the broad phase certifies every layer inactive), so
  // their events go; new pairs are established at t.
  newPairs.clear();
  isNew.clear();
  std::size_t o = 0;
  for (const PairKey& key : keys) {
    while (o < pairs.size() && pairs[o].key < key) dropPairEvents(pairs[o++]);
    if (o < pairs.size() && pairs[o].key == key) {
      newPairs.push_back(std::move(pairs[o++]));
      isNew.push_back(0);
    } else {
      newPairs.push_back(makePair(key, V));
      isNew.push_back(1);
    }
  }
  while (o < pairs.size()) dropPairEvents(pairs[o++]);
  pairs.swap(newPairs);
  newPairs.clear();
  for (std::size_t pi = 0; pi < pairs.size(); ++pi) {
    ContactPair& p = pairs[pi];
    if (partitioned) {
      p.sync = false;
      for (int i = 0; i < p.na; ++i) p.sync = p.sync || isBoundary[p.a[i]];
      for (int i = 0; i < p.nb; ++i) p.sync = p.sync || isBoundary[p.b[i]];
    }
    if (!isNew[pi]) renumberPair(static_cast<int>(pi));
  }
  buildAdjacency();

  // Start of the layers of the new pairs.
  for (std::size_t pi = 0; pi < pairs.size(); ++pi) {
    if (!isNew[pi]) continue;
    ContactPair& p = pairs[pi];
    const auto id = static_cast<std::int32_t>(pi);
    if (opt.bruteForce) {
      // Brute force (tests C1 / C2, README decision 58): layers 1..B always queued, on their lattices.
      p.layers.assign(opt.bruteForceLayers, LayerClock{});
      for (int l = 1; l <= opt.bruteForceLayers; ++l) {
        const double h = layerH(p, l);
        LayerClock& c = p.layers[l - 1];
        c.j = initial ? firstTickAfter(t, h) : firstTickAtOrAfter(t, h);
        c.handle = push(static_cast<double>(c.j) * h, Event{EventKind::Penalty, id, l}, p.sync);
      }
      continue;
    }
    if (initial && start) {
      // Restart: the layers active at t0 continue on their lattices (first tick after t0).
      auto it = std::lower_bound(start->layers.begin(), start->layers.end(), p.key,
                                 [](const ActiveLayers& x, const PairKey& k) { return x.key < k; });
      if (it != start->layers.end() && it->key == p.key) {
        for (int l = 1; l <= it->deepest; ++l) activate(id, l, t, true);
        p.deepest = it->deepest;
      }
    }
    establish(id, t);
  }
  if (!partitioned && !broad.allPairs()) {
    broad.reset(V, t, nullptr);
    const double e = broad.expiry();
    if (bpHandle >= 0) {
      if (e < kInf)
        update(bpHandle, e);
      else {
        remove(bpHandle);
        bpHandle = -1;
      }
    } else if (e < kInf) {
      bpHandle = push(e, Event{EventKind::BroadPhase, 0, 0}, false);
    }
  } else {
    broad.reset(V, t, partitioned ? &ownedVertex : nullptr);
  }
  if (!initial) ++counters.broadPhaseRebuilds;
}

// ------------------------------------------------------------------------------------------
// certificates and layers

int Engine::Impl::findCert(const ContactPair& p, int l, double t, Slab& slab, double& life) const {
  Vec3 xa[3], va[3], xb[3], vb[3];
  const int nbs = gatherPair(p, scene.vertices, scene.planes, t, xa, va, xb, vb);
  const geometry::ClosestPoints cp = closestPoints(p, xa, xb, scene.planes);
  if (cp.degenerate || !(cp.d > 0.0)) return -1;
  return findSlab(cp.n, scene.eta / l, SlabSide{xa, va, p.na}, SlabSide{xb, vb, nbs}, slab, life) ? 1 : 0;
}

void Engine::Impl::setCertTime(int pi, double tc) {
  Certificate& c = pairs[pi].cert;
  c.tc = tc;
  if (tc < kInf) {
    if (c.handle >= 0)
      update(c.handle, tc);
    else
      c.handle = push(tc, Event{EventKind::Cert, pi, 0}, pairs[pi].sync);
  } else if (c.handle >= 0) {
    remove(c.handle);
    c.handle = -1;
  }
}

void Engine::Impl::activate(int pi, int l, double t, bool strictlyAfter) {
  ContactPair& p = pairs[pi];
  if (static_cast<int>(p.layers.size()) < l) p.layers.resize(l);
  const double h = layerH(p, l);
  LayerClock& c = p.layers[l - 1];
  if (opt.restartClocks) {
    // NEGATIVE TEST ONLY: a lattice relative to the activation (violates the paper's §6).
    c.origin = t;
    c.j = 1;
  } else {
    c.origin = 0.0;
    c.j = strictlyAfter ? firstTickAfter(t, h) : firstTickAtOrAfter(t, h);
  }
  KINEMA_CHECK(c.handle < 0, "layer ", l, " of pair ", pi, " activated twice");
  c.handle = push(c.origin + static_cast<double>(c.j) * h, Event{EventKind::Penalty, pi, l}, p.sync);
  ++counters.activations;
  counters.deepestLayer = std::max(counters.deepestLayer, l);
}

void Engine::Impl::establish(int pi, double t) {
  Section timer(*this, shares.certificates);
  // ESTABLISH (README decision 4; fixes gap 1 of the paper's §6, Algorithms 2-5): certify layer L_p + 1, or activate it early
  // and try the next one, until a slab with a useful lifetime (>= tau_min, and > 0 so the loop
  // progresses) is found.
  for (;;) {
    ContactPair& p = pairs[pi];
    const int j = p.deepest + 1;
    if (j > opt.maxLayer) {
      throw Error(str("avi: pair ", pi, " (kind ", static_cast<int>(p.key.kind), ", vertex ", p.a[0],
                      ") needs layer ", j, " > max_layer = ", opt.maxLayer, " at t = ", t,
                      " (energy out of bounds or max_layer too small)"));
    }
    Slab slab;
    double life = 0.0;
    const double tauMin = opt.tauMinFactor * layerH(p, j);
    const int found = findCert(p, j, t, slab, life);
    if (found < 0)
      throw Error(str("avi: pair ", pi, " (kind ", static_cast<int>(p.key.kind), ", vertices ", p.a[0], " and ",
                      p.nb > 0 ? p.b[0] : -1, ") touches or intersects at t = ", t,
                      ": no layer can separate it (interpenetration)"));
    if (found > 0 && life >= tauMin && t + life > t) {  // t_c > t: the loop progresses
      ++counters.certsFound;
      p.cert.slab = slab;
      p.cert.guarded = j;
      setCertTime(pi, t + life);
      return;
    }
    activate(pi, j, t, false);
    pairs[pi].deepest = j;
  }
}

bool Engine::Impl::tryCert(int pi, int l, double t) {
  Section timer(*this, shares.certificates);
  ContactPair& p = pairs[pi];
  Slab slab;
  double life = 0.0;
  if (findCert(p, l, t, slab, life) <= 0) return false;
  if (!(life >= opt.tauMinFactor * layerH(p, l) && t + life > t)) return false;
  ++counters.certsFound;
  p.cert.slab = slab;
  p.cert.guarded = l;
  setCertTime(pi, t + life);
  return true;
}

void Engine::Impl::rescheduleVertex(int a, double t, bool lazy) {
  // RESCHEDULE_CERTS (README decision 4): the slab stays, its expiry moves (>= t). Lazy (README): only
  // earlier, and not at all when the batch's velocity change dvSum[a] moves `a` away from its
  // face (w . dv >= 0 on the A side, <= 0 on the B side), since then no crossing comes sooner.
  Vec3 xa[3], va[3], xb[3], vb[3];
  for (std::int32_t k = adjStart[a]; k < adjStart[a + 1]; ++k) {
    const std::int32_t pi = adjList[k];
    if (stamp[pi] == stampNow) continue;
    const ContactPair& p = pairs[pi];
    if (p.cert.guarded <= 0) continue;
    if (lazy) {
      bool onA = false;
      for (int i = 0; i < p.na; ++i) onA = onA || p.a[i] == a;
      const double s = p.cert.slab.w.dot(dvSum[a]);
      if (onA ? s >= 0.0 : s <= 0.0) continue;
    }
    stamp[pi] = stampNow;
    const int nbs = gatherPair(p, scene.vertices, scene.planes, t, xa, va, xb, vb);
    const double life = slabLifetime(p.cert.slab, SlabSide{xa, va, p.na}, SlabSide{xb, vb, nbs});
    ++counters.certReschedules;
    if (lazy && t + life >= p.cert.tc) continue;
    setCertTime(pi, t + life);
  }
}

void Engine::Impl::markDirty(int a, double t, const Vec3& dv) {
  // Deferred RESCHEDULE_CERTS (README decision): the kicks at one time t are batched and the
  // certificates reading the kicked vertices are rescheduled once, before any event later than t
  // is popped. Events at t itself may still pop a stale certificate: processing a certificate
  // early is always safe (ESTABLISH reads the current state), and every rescheduled expiry is
  // >= t, so no expiry can be missed.
  if (!dirty.empty() && t != dirtyTime) flushDirty();
  dirtyTime = t;
  if (!isDirty[a]) {
    isDirty[a] = 1;
    dirty.push_back(a);
  }
  dvSum[a] += dv;
}

void Engine::Impl::flushDirty() {
  if (dirty.empty()) return;
  {
    Section timer(*this, shares.certificates);
    rescheduleBegin();
    for (std::int32_t a : dirty) rescheduleVertex(a, dirtyTime, opt.lazyCertificates);
    for (std::int32_t a : dirty) {
      isDirty[a] = 0;
      dvSum[a].setZero();
    }
    dirty.clear();
  }
  if (opt.debugInvariant) checkAfterEvent(dirtyTime, nullptr);
}

double Engine::Impl::peekTime() {
  if (!dirty.empty() && !(nextTime() <= dirtyTime)) flushDirty();
  return nextTime();
}

void Engine::Impl::noteKick(int a, const Vec3& dv, double t, const char* what) {
  const Vec3& v = scene.vertices.v[a];
  if (!v.allFinite())
    throw Error(str("avi: non-finite velocity of vertex ", a, " at t = ", t, " after ", what));
  if (ghostSlot[a] >= 0) ghostDv[ghostSlot[a]] += dv;
  if (dv != Vec3::Zero()) markDirty(a, t, dv);
  if (broad.noteSpeed(v.norm(), t) && !partitioned) {
    // The broad-phase expiry moved earlier (a new maximum speed): move its event.
    const double e = broad.expiry();
    if (bpHandle >= 0)
      update(bpHandle, e);
    else if (e < kInf)
      bpHandle = push(e, Event{EventKind::BroadPhase, 0, 0}, false);
  }
}

// ------------------------------------------------------------------------------------------
// events

void Engine::Impl::onForce(int i, double t) {
  ForceElement& f = scene.forces[i];
  Vertices& V = scene.vertices;
  {
    Section timer(*this, shares.forces);
    Vec3 x[4], v[4], grad[4], fd[4];
    for (int k = 0; k < f.n; ++k) {
      V.drift(f.v[k], t);
      x[k] = V.x[f.v[k]];
      v[k] = V.v[f.v[k]];
    }
    gradient(f, x, grad);
    if (f.damping > 0.0) {
      dampingForce(f, x, v, fd);
    } else {
      for (int k = 0; k < f.n; ++k) fd[k].setZero();
    }
    // KICK (the paper's Eq. (9)): v_a += h minv_a (-dV/dx_a + f_damp,a).
    for (int k = 0; k < f.n; ++k) {
      const int a = f.v[k];
      if (V.minv[a] == 0.0) continue;
      const Vec3 dv = (f.h * V.minv[a]) * (fd[k] - grad[k]);
      V.v[a] += dv;
      if (!V.v[a].allFinite())
        throw Error(str("avi: non-finite velocity of vertex ", a, " at t = ", t, " after the ",
                        kindName(f.kind), " force event ", i, " (tick ", f.j, ", h = ", f.h, ")"));
      noteKick(a, dv, t, "a force event");
    }
  }
  ++counters.forceEvents;
  ++f.j;
  Section timer(*this, shares.queue);
  forceHandle[i] = push(static_cast<double>(f.j) * f.h, Event{EventKind::Force, i, 0}, forceSync[i]);
}

void Engine::Impl::onPenalty(int pi, int l, double t) {
  Vertices& V = scene.vertices;
  ContactPair& p = pairs[pi];
  LayerClock& c = p.layers[l - 1];
  c.handle = -1;
  const double h = layerH(p, l);
  Vec3 xa[3], va[3], xb[3], vb[3];
  bool kicked = false;
  {
    Section timer(*this, shares.forces);
    gatherPair(p, V, scene.planes, t, xa, va, xb, vb);
    const geometry::ClosestPoints cp = closestPoints(p, xa, xb, scene.planes);
    const double g = cp.d - 2.0 * scene.eta / l;
    if (g < 0.0) {
      if (cp.degenerate || !(cp.d > 0.0))
        throw Error(str("avi: penalty layer ", l, " of pair ", pi, " (vertex ", p.a[0], ") at t = ", t,
                        " sees distance ", cp.d, " <= 0: interpenetration"));
      if (opt.bruteForce && l == opt.bruteForceLayers && cp.d < 2.0 * scene.eta / (l + 1))
        throw Error(str("avi: brute force needs layer ", l + 1, " > brute_force_layers = ", l,
                        " for pair ", pi, " (vertex ", p.a[0], ") at t = ", t));
      for (int i = 0; i < p.na; ++i) V.drift(p.a[i], t);
      for (int i = 0; i < p.nb; ++i) V.drift(p.b[i], t);
      Vec3 dv[6];
      const double Jn = penaltyKick(p, cp, l, h, prm, V, dv);
      for (int i = 0; i < p.na; ++i) noteKick(p.a[i], dv[i], t, "a penalty event");
      for (int i = 0; i < p.nb; ++i) noteKick(p.b[i], dv[p.na + i], t, "a penalty event");
      if (opt.recordKicks) kicks.push_back(KickRecord{p.key, l, t, Jn});
      ++counters.penaltyKicks;
      kicked = true;
    } else {
      ++counters.penaltyZeroTicks;
    }
  }
  // (RESCHEDULE_CERTS of the kicked vertices is batched: noteKick -> markDirty.)
  if (!kicked && !opt.bruteForce && l == p.deepest && tryCert(pi, l, t)) {
    // Zero force on the deepest layer with a certificate for it: the layer is dropped and the
    // new certificate guards it (README decisions 4 and 31). Separation is not required (README).
    pairs[pi].deepest = l - 1;
    ++counters.deactivations;
    return;
  }
  Section timer(*this, shares.queue);
  LayerClock& cc = pairs[pi].layers[l - 1];
  ++cc.j;
  cc.handle = push(cc.origin + static_cast<double>(cc.j) * h, Event{EventKind::Penalty, pi, l}, p.sync);
}

void Engine::Impl::onCert(int pi, double t) {
  pairs[pi].cert.handle = -1;
  pairs[pi].cert.tc = kInf;
  ++counters.certEvents;
  establish(pi, t);  // a new slab for the same layer, or activation of deeper layers
}

void Engine::Impl::onScript(int si, int k, double t) {
  Vertices& V = scene.vertices;
  const Script& sc = scene.scripts[si];
  scriptHandle[si] = -1;
  for (std::int32_t a : sc.vertices)
    if (ownedVertex[a]) {
      V.drift(a, t);
      const Vec3 dv = sc.velocities[k] - V.v[a];
      V.v[a] = sc.velocities[k];
      noteKick(a, dv, t, "a script event");
    }
  ++counters.scriptEvents;
  if (k + 1 < static_cast<int>(sc.times.size()))
    scriptHandle[si] = push(sc.times[k + 1], Event{EventKind::Script, si, k + 1}, scriptSync[si]);
}

int Engine::Impl::nextQueue() const {
  if (q[0].empty()) return q[1].empty() ? -1 : 1;
  if (q[1].empty()) return 0;
  const double t0 = q[0].topTime(), t1 = q[1].topTime();
  if (t0 != t1) return t0 < t1 ? 0 : 1;
  return q[0].topSeq() < q[1].topSeq() ? 0 : 1;
}

double Engine::Impl::nextTime() const {
  const int k = nextQueue();
  return k < 0 ? kInf : q[k].topTime();
}

bool Engine::Impl::step(double T, bool inclusive) {
  sample = (events++ % kSample) == 0;
  Section whole(*this, sampledWhole);
  // Reschedules the batched certificates before the clock moves past their time.
  const double tn = peekTime();
  if (inclusive ? !(tn <= T) : !(tn < T)) return false;
  processOne();
  return true;
}

void Engine::Impl::processOne() {
  const int k = nextQueue();
  double t;
  Event e;
  {
    Section timer(*this, shares.queue);
    e = q[k].pop(t);
  }
  KINEMA_CHECK(t >= tg, "event time ", t, " before the global clock ", tg);
  switch (e.kind) {
    case EventKind::Force: forceHandle[e.id] = -1; onForce(e.id, t); break;
    case EventKind::Penalty: onPenalty(e.id, e.aux, t); break;
    case EventKind::Cert: onCert(e.id, t); break;
    case EventKind::Script: onScript(e.id, e.aux, t); break;
    case EventKind::BroadPhase:
      bpHandle = -1;
      rebuildPairs(t, false, nullptr);
      break;
  }
  tg = t;
  // Mid-batch (certificates of kicked vertices not yet rescheduled) the check runs at the flush.
  if (opt.debugInvariant && dirty.empty()) checkAfterEvent(t, &e);
}

void Engine::Impl::checkAfterEvent(double t, const Event* e) {
  ++counters.invariantChecks;
  const std::string why = checkInvariant(t, 16);
  if (!why.empty())
    throw Error(str("avi invariant violated after ", e ? eventName(*e) : std::string("RESCHEDULE_CERTS"),
                    " at t = ", t, ": ", why));
}

std::string Engine::Impl::eventName(const Event& e) const {
  switch (e.kind) {
    case EventKind::Force: return str("FORCE(", e.id, ", ", kindName(scene.forces[e.id].kind), ")");
    case EventKind::Penalty: return str("PENALTY(pair ", e.id, ", layer ", e.aux, ")");
    case EventKind::Cert: return str("CERT(pair ", e.id, ")");
    case EventKind::Script: return str("SCRIPT(", e.id, ", entry ", e.aux, ")");
    case EventKind::BroadPhase: return "BROADPHASE";
  }
  return "event";
}

// ------------------------------------------------------------------------------------------
// Engine

Engine::Engine(Scene scene, const EngineOptions& options, const EngineStart& start, const Partition* partition)
    : impl_(std::make_unique<Impl>(std::move(scene), options, start, partition)) {}

Engine::~Engine() = default;

void Engine::advanceTo(double T) {
  Impl& m = *impl_;
  KINEMA_CHECK(T >= m.now, "advanceTo(", T, ") before the current time ", m.now);
  const auto t0 = Impl::Clock::now();
  while (m.step(T, true)) {
  }
  m.now = T;
  m.shares.total += std::chrono::duration<double>(Impl::Clock::now() - t0).count();
}

double Engine::time() const { return impl_->now; }
const Counters& Engine::counters() const { return impl_->counters; }
const TimeShares& Engine::timeShares() const {
  const Impl& m = *impl_;
  TimeShares& r = m.reported;
  r.total = m.shares.total;
  const double f = m.sampledWhole > 0.0 ? m.shares.total / m.sampledWhole : 0.0;
  r.queue = f * m.shares.queue;
  r.broadPhase = f * m.shares.broadPhase;
  r.certificates = f * m.shares.certificates;
  r.forces = f * m.shares.forces;
  return r;
}
const Scene& Engine::scene() const { return impl_->scene; }
const Vertices& Engine::vertices() const { return impl_->scene.vertices; }
const std::vector<KickRecord>& Engine::kicks() const { return impl_->kicks; }

int Engine::deepestActive(const PairKey& key) const {
  const auto& ps = impl_->pairs;
  auto it = std::lower_bound(ps.begin(), ps.end(), key,
                             [](const ContactPair& p, const PairKey& k) { return p.key < k; });
  return it != ps.end() && it->key == key ? it->deepest : 0;
}

std::vector<ActiveLayers> Engine::activeLayers() const {
  std::vector<ActiveLayers> out;
  for (const ContactPair& p : impl_->pairs)
    if (p.deepest >= 1) out.push_back(ActiveLayers{p.key, p.deepest});
  return out;
}

Measurement Engine::measure(double T) const { return impl_->measure(T); }
std::string Engine::checkInvariant(double t, int maxCheck) const { return impl_->checkInvariant(t, maxCheck); }

double Engine::nextEventTime() const { return impl_->nextTime(); }

double Engine::nextSyncTime() const {
  const EventQueue& s = impl_->q[1];
  return s.empty() ? kInf : s.topTime();
}

void Engine::processBefore(double T) {
  Impl& m = *impl_;
  const auto t0 = Impl::Clock::now();
  while (m.step(T, false)) {
  }
  m.sample = false;
  m.flushDirty();
  m.shares.total += std::chrono::duration<double>(Impl::Clock::now() - t0).count();
}

void Engine::processAt(double T) {
  Impl& m = *impl_;
  const auto t0 = Impl::Clock::now();
  while (m.step(T, true)) {  // events before T (none after processBefore) and at T
  }
  m.now = std::max(m.now, T);
  m.shares.total += std::chrono::duration<double>(Impl::Clock::now() - t0).count();
}

const std::vector<std::int32_t>& Engine::boundaryVertices() const { return impl_->boundaryList; }
const std::vector<std::int32_t>& Engine::ghostVertices() const { return impl_->ghostList; }

void Engine::setGhostState(int a, const Vec3& x, const Vec3& v, double t) {
  Impl& m = *impl_;
  Vertices& V = m.scene.vertices;
  V.x[a] = x;
  V.v[a] = v;
  V.t[a] = t;
  m.flushDirty();
  m.rescheduleBegin();
  m.rescheduleVertex(a, std::max(t, m.tg), false);  // positions change too: full recomputation
}

void Engine::takeGhostImpulses(std::vector<Vec3>& dv) {
  Impl& m = *impl_;
  dv.assign(m.ghostDv.begin(), m.ghostDv.end());
  for (Vec3& d : m.ghostDv) d.setZero();
}

void Engine::applyImpulse(int a, const Vec3& dv, double t) {
  Impl& m = *impl_;
  Vertices& V = m.scene.vertices;
  V.drift(a, t);
  V.v[a] += dv;
  if (!V.v[a].allFinite())
    throw Error(str("avi: non-finite velocity of vertex ", a, " at t = ", t, " after a remote impulse"));
  m.broad.noteSpeed(V.v[a].norm(), t);
  m.flushDirty();
  m.rescheduleBegin();
  m.rescheduleVertex(a, t, false);
}

double Engine::broadPhaseExpiry() const { return impl_->broad.expiry(); }

}  // namespace kinema::avi

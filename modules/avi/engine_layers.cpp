// avi::Engine's certificates and penalty layers (modules/avi/README.md, decision 4: ESTABLISH,
// ACTIVATE, RESCHEDULE_CERTS, TRY_CERT): separating slabs, layer activation, the rescheduling of
// a kicked vertex's certificates in batches.
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
}  // namespace

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

}  // namespace kinema::avi

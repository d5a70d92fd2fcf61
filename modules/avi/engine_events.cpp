// avi::Engine's events (the MAIN LOOP of modules/avi/README.md, decision 4): a force's kick, a
// penalty layer's kick, a certificate's expiry, a script's velocity change; which event comes next.
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

const char* Engine::Impl::kindName(ForceKind k) {
  switch (k) {
    case ForceKind::Spring: return "spring";
    case ForceKind::Cst: return "cst";
    case ForceKind::Hinge: return "hinge";
    case ForceKind::RodBend: return "rod_bend";
    case ForceKind::Gravity: return "gravity";
  }
  return "force";
}

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
                        kindName(f.kind), " force event ", sceneForce(static_cast<std::size_t>(i)), " (tick ", f.j, ", h = ", f.h, ")"));
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
  int best = -1;
  for (int k = 0; k < 3; ++k) {
    if (q[k].empty()) continue;
    if (best < 0 || q[k].topTime() < q[best].topTime() ||
        (q[k].topTime() == q[best].topTime() && q[k].topSeq() < q[best].topSeq()))
      best = k;
  }
  return best;
}

double Engine::Impl::syncBound() const {
  const double top = q[1].empty() ? kInf : q[1].topTime();
  if (!lookahead || q[2].empty()) return top;
  // A certificate at t_c of a pair with deepest layer d activates layer d + 1 at the earliest,
  // whose first tick is the lattice point j h_{d+1} >= t_c (activate(), strictlyAfter = false).
  const auto firstTick = [&](double tc, const Event& e) {
    const ContactPair& p = pairs[static_cast<std::size_t>(e.id)];
    const int l = p.deepest + 1;
    if (l > opt.maxLayer) return tc;
    const double h = layerH(p, l);
    return static_cast<double>(firstTickAtOrAfter(tc, h)) * h;
  };
  return q[2].minBound(firstTick, top, boundStack);
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
    case EventKind::Force: return str("FORCE(", sceneForce(static_cast<std::size_t>(e.id)), ", ", kindName(scene.forces[e.id].kind), ")");
    case EventKind::Penalty: return str("PENALTY(pair ", e.id, ", layer ", e.aux, ")");
    case EventKind::Cert: return str("CERT(pair ", e.id, ")");
    case EventKind::Script: return str("SCRIPT(", e.id, ", entry ", e.aux, ")");
    case EventKind::BroadPhase: return "BROADPHASE";
  }
  return "event";
}

}  // namespace kinema::avi

// Checkpoint of the whole engine state (vertices, clocks, pairs with layers and certificates,
// broad-phase bound, both queues with handles and the sequence counter, counters), so that an
// engine built from the same scene and options and loaded with it continues bitwise.
#include "framework/core/error.hpp"
#include "modules/avi/engine_impl.hpp"

namespace kinema::avi {

namespace {
constexpr std::int64_t kMagic = 0x41564931;  // "AVI1"
}

void Engine::save(EngineState& out) const {
  const Impl& m = *impl_;
  KINEMA_CHECK(m.dirty.empty(), "avi engine saved in the middle of a reschedule batch");
  auto& R = out.reals;
  auto& I = out.ints;
  R.clear();
  I.clear();
  I.push_back(kMagic);
  R.push_back(m.tg);
  R.push_back(m.now);
  const Vertices& V = m.scene.vertices;
  I.push_back(V.size());
  for (int a = 0; a < V.size(); ++a) {
    for (int k = 0; k < 3; ++k) R.push_back(V.x[a][k]);
    for (int k = 0; k < 3; ++k) R.push_back(V.v[a][k]);
    R.push_back(V.t[a]);
  }
  I.push_back(static_cast<std::int64_t>(m.scene.forces.size()));
  for (std::size_t i = 0; i < m.scene.forces.size(); ++i) {
    I.push_back(m.scene.forces[i].j);
    I.push_back(m.forceHandle[i]);
  }
  I.push_back(static_cast<std::int64_t>(m.scriptHandle.size()));
  for (std::int32_t h : m.scriptHandle) I.push_back(h);
  I.push_back(m.bpHandle);
  I.push_back(static_cast<std::int64_t>(m.pairs.size()));
  for (const ContactPair& p : m.pairs) {
    I.push_back(static_cast<std::int64_t>(p.key.kind));
    for (int k = 0; k < 3; ++k) I.push_back(p.key.a[k]);
    for (int k = 0; k < 3; ++k) I.push_back(p.key.b[k]);
    I.push_back(p.deepest);
    I.push_back(static_cast<std::int64_t>(p.layers.size()));
    for (const LayerClock& c : p.layers) {
      I.push_back(c.j);
      I.push_back(c.handle);
      R.push_back(c.origin);
    }
    I.push_back(p.cert.guarded);
    I.push_back(p.cert.handle);
    for (int k = 0; k < 3; ++k) R.push_back(p.cert.slab.w[k]);
    R.push_back(p.cert.slab.c);
    R.push_back(p.cert.slab.r);
    R.push_back(p.cert.tc);
  }
  m.broad.saveState(R);
  I.push_back(static_cast<std::int64_t>(m.seq));
  // Queue 2 (boundary certificates under lookahead) exists in partitioned engines only, which
  // the Domain never saves (it saves the raw state).
  KINEMA_CHECK(m.q[2].empty(), "avi engine: save() of a partitioned engine");
  for (int k = 0; k < 2; ++k) m.q[k].save(R, I);
  const Counters& c = m.counters;
  for (std::int64_t v : {c.forceEvents, c.penaltyKicks, c.penaltyZeroTicks, c.certEvents, c.certReschedules,
                         c.certsFound, c.activations, c.deactivations, c.broadPhaseRebuilds, c.scriptEvents,
                         c.invariantChecks, static_cast<std::int64_t>(c.deepestLayer),
                         static_cast<std::int64_t>(m.events)})
    I.push_back(v);
}

void Engine::load(const EngineState& in) {
  Impl& m = *impl_;
  const auto& R = in.reals;
  const auto& I = in.ints;
  std::size_t ri = 0, ii = 0;
  auto geti = [&]() {
    KINEMA_CHECK(ii < I.size(), "avi engine state truncated (integers)");
    return I[ii++];
  };
  auto getr = [&]() {
    KINEMA_CHECK(ri < R.size(), "avi engine state truncated (reals)");
    return R[ri++];
  };
  KINEMA_CHECK(geti() == kMagic, "not an avi engine state");
  m.tg = getr();
  m.now = getr();
  Vertices& V = m.scene.vertices;
  KINEMA_CHECK(geti() == V.size(), "avi engine state: vertex count differs from the scene");
  for (int a = 0; a < V.size(); ++a) {
    for (int k = 0; k < 3; ++k) V.x[a][k] = getr();
    for (int k = 0; k < 3; ++k) V.v[a][k] = getr();
    V.t[a] = getr();
  }
  KINEMA_CHECK(geti() == static_cast<std::int64_t>(m.scene.forces.size()),
               "avi engine state: force count differs from the scene");
  for (std::size_t i = 0; i < m.scene.forces.size(); ++i) {
    m.scene.forces[i].j = geti();
    m.forceHandle[i] = static_cast<std::int32_t>(geti());
  }
  KINEMA_CHECK(geti() == static_cast<std::int64_t>(m.scriptHandle.size()),
               "avi engine state: script count differs from the scene");
  for (std::int32_t& h : m.scriptHandle) h = static_cast<std::int32_t>(geti());
  m.bpHandle = static_cast<std::int32_t>(geti());
  const auto np = static_cast<std::size_t>(geti());
  m.pairs.clear();
  m.pairs.reserve(np);
  for (std::size_t pi = 0; pi < np; ++pi) {
    PairKey key;
    key.kind = static_cast<PairKind>(geti());
    for (int k = 0; k < 3; ++k) key.a[k] = static_cast<std::int32_t>(geti());
    for (int k = 0; k < 3; ++k) key.b[k] = static_cast<std::int32_t>(geti());
    ContactPair p = makePair(key, V);
    p.deepest = static_cast<int>(geti());
    p.layers.resize(static_cast<std::size_t>(geti()));
    for (LayerClock& c : p.layers) {
      c.j = geti();
      c.handle = static_cast<std::int32_t>(geti());
      c.origin = getr();
    }
    p.cert.guarded = static_cast<int>(geti());
    p.cert.handle = static_cast<std::int32_t>(geti());
    for (int k = 0; k < 3; ++k) p.cert.slab.w[k] = getr();
    p.cert.slab.c = getr();
    p.cert.slab.r = getr();
    p.cert.tc = getr();
    if (m.partitioned) {
      for (int i = 0; i < p.na; ++i) p.sync = p.sync || m.isBoundary[p.a[i]];
      for (int i = 0; i < p.nb; ++i) p.sync = p.sync || m.isBoundary[p.b[i]];
    }
    m.pairs.push_back(std::move(p));
  }
  m.buildAdjacency();
  m.broad.loadState(R, ri);
  m.seq = static_cast<std::uint64_t>(geti());
  for (int k = 0; k < 2; ++k) m.q[k].load(R, ri, I, ii);
  Counters& c = m.counters;
  for (std::int64_t* v : {&c.forceEvents, &c.penaltyKicks, &c.penaltyZeroTicks, &c.certEvents, &c.certReschedules,
                          &c.certsFound, &c.activations, &c.deactivations, &c.broadPhaseRebuilds, &c.scriptEvents,
                          &c.invariantChecks})
    *v = geti();
  c.deepestLayer = static_cast<int>(geti());
  m.events = static_cast<std::uint64_t>(geti());
  KINEMA_CHECK(ri == R.size() && ii == I.size(), "avi engine state has trailing data");
}

}  // namespace kinema::avi

// The serial event engine of the AVI with nested penalty layers: the loop of modules/avi/README.md,
// decision 4 (INIT, ESTABLISH, ACTIVATE, MAIN LOOP, RESCHEDULE_CERTS, TRY_CERT), which fixes the
// gaps 1-5 of the paper's Algorithms 2-5 (the paper's §6). Decisions are in the README; the ones
// taken here are commented where they act.
//
// This file is the public Engine over Engine::Impl (engine_impl.hpp); the Impl is defined by
// concept: engine_clocks.cpp (steps and clocks), engine_init.cpp (construction, INIT),
// engine_pairs.cpp (candidate pairs), engine_layers.cpp (certificates and layers),
// engine_events.cpp (events and the loop), engine_measure.cpp (diagnostics, invariant),
// engine_state.cpp (checkpoints).
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "framework/core/error.hpp"
#include "modules/avi/engine_impl.hpp"
#include "modules/avi/force_element.hpp"
#include "modules/avi/penalty_layer.hpp"

namespace kinema::avi {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

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
Scene Engine::takeScene() { return std::move(impl_->scene); }
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

double Engine::nextSyncTime() const { return impl_->syncBound(); }

void Engine::processBefore(double T) {
  Impl& m = *impl_;
  const auto t0 = Impl::Clock::now();
  // Never past a sync event: one queued before T (a layer a boundary certificate activated
  // inside the window, README decision 53) stays queued for the Domain to detect.
  while (m.step(m.q[1].empty() ? T : std::min(T, m.q[1].topTime()), false)) {
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

#include "modules/avi/avi_module.hpp"

#include <algorithm>
#include <cmath>

#include "framework/core/error.hpp"
#include "framework/core/log.hpp"
#include "framework/la/distributed_backends.hpp"
#include "modules/avi/scene_params.hpp"

namespace kinema::avi {

namespace {

double d(std::int64_t x) { return static_cast<double>(x); }

// Events of every kind the engine pops (README decision 4, MAIN LOOP), for "reschedules per event".
std::int64_t events(const Counters& c) {
  return c.forceEvents + c.penaltyKicks + c.penaltyZeroTicks + c.certEvents + c.scriptEvents;
}

// Largest depth l with a pair whose layer l is active (0: no active layer).
int deepestActive(const Measurement& m) {
  for (std::size_t l = m.activePerDepth.size(); l > 0; --l)
    if (m.activePerDepth[l - 1] > 0) return static_cast<int>(l);
  return 0;
}

// Events of one frame interval by kind (differences of the cumulative counters).
struct FrameEvents {
  std::int64_t force = 0, kicks = 0, zero = 0, certs = 0, resched = 0, script = 0, all = 0;
  std::int64_t activations = 0, deactivations = 0, rebuilds = 0;
};

// The events counted in `c` since `previous`.
FrameEvents eventsSince(const Counters& c, const Counters& previous) {
  FrameEvents e;
  e.force = c.forceEvents - previous.forceEvents;
  e.kicks = c.penaltyKicks - previous.penaltyKicks;
  e.zero = c.penaltyZeroTicks - previous.penaltyZeroTicks;
  e.certs = c.certEvents - previous.certEvents;
  e.resched = c.certReschedules - previous.certReschedules;
  e.script = c.scriptEvents - previous.scriptEvents;
  e.all = events(c) - events(previous);
  e.activations = c.activations - previous.activations;
  e.deactivations = c.deactivations - previous.deactivations;
  e.rebuilds = c.broadPhaseRebuilds - previous.broadPhaseRebuilds;
  return e;
}

// The domain's windows, rollbacks, epochs, migrations and wall-time shares of one frame interval.
struct FrameDomain {
  std::int64_t windows = 0, rollbacks = 0, epochs = 0, migrations = 0;
  double sync = 0.0, wQueue = 0.0, wBroad = 0.0, wCert = 0.0, wForce = 0.0, wTotal = 0.0;
};

// Collective: the domain's figures since `previousStats` / `previousShares`, maxima over the ranks.
FrameDomain domainSince(const Comm& comm, const DomainStats& st, const DomainStats& previousStats, const TimeShares& ts,
                        const TimeShares& previousShares) {
  // Domain statistics: the same on every rank by construction; the max makes the row identical anyway.
  FrameDomain f;
  f.windows = comm.max(st.windows - previousStats.windows);
  f.rollbacks = comm.max(st.rollbacks - previousStats.rollbacks);
  f.epochs = comm.max(st.epochs - previousStats.epochs);
  f.migrations = comm.max(st.migrations - previousStats.migrations);
  f.sync = comm.max(st.syncSeconds - previousStats.syncSeconds);
  f.wQueue = comm.max(ts.queue - previousShares.queue);
  f.wBroad = comm.max(ts.broadPhase - previousShares.broadPhase);
  f.wCert = comm.max(ts.certificates - previousShares.certificates);
  f.wForce = comm.max(ts.forces - previousShares.forces);
  f.wTotal = comm.max(ts.total - previousShares.total);
  return f;
}

// The row's columns from the measurement: energies (the change from energy0), momenta, minimum
// distance, pair counts and active layers per depth up to kLayerColumns.
io::Diagnostics::Row measurementColumns(const Measurement& m, double energy0) {
  const double E = m.total();
  io::Diagnostics::Row mine = {{"kinetic_energy", m.kinetic},
                               {"elastic_energy", m.elastic},
                               {"gravity_energy", m.gravity},
                               {"contact_energy", m.contact},
                               {"total_energy", E},
                               {"energy_change", E - energy0},
                               {"momentum_x", m.momentum[0]},
                               {"momentum_y", m.momentum[1]},
                               {"momentum_z", m.momentum[2]},
                               {"angular_momentum_x", m.angularMomentum[0]},
                               {"angular_momentum_y", m.angularMomentum[1]},
                               {"angular_momentum_z", m.angularMomentum[2]},
                               {"min_distance", m.candidatePairs > 0 && std::isfinite(m.minDistance) ? m.minDistance : -1.0},
                               {"intersections", d(m.intersections)},
                               {"candidate_pairs", d(m.candidatePairs)},
                               {"active_pairs", d(m.activePairs)}};
  for (int l = 1; l <= kLayerColumns; ++l) {
    const auto k = static_cast<std::size_t>(l - 1);
    mine.emplace_back(str("layers_", l), k < m.activePerDepth.size() ? d(m.activePerDepth[k]) : 0.0);
  }
  return mine;
}

// The rest of the row: deeper and deepest layers, the events `e` and their rates over the frame
// interval of length `span`, and the domain's figures `dom`.
io::Diagnostics::Row eventColumns(const Measurement& m, const FrameEvents& e, const FrameDomain& dom,
                                  int deepestLayerRun, double span) {
  const auto rate = [span](std::int64_t k) { return span > 0 ? static_cast<double>(k) / span : 0.0; };
  std::int64_t deeper = 0;
  for (std::size_t l = kLayerColumns; l < m.activePerDepth.size(); ++l) deeper += m.activePerDepth[l];
  return {{"layers_deeper", d(deeper)},
          {"deepest_layer", static_cast<double>(deepestActive(m))},
          {"deepest_layer_run", static_cast<double>(deepestLayerRun)},
          {"events", d(e.all)},
          {"rate_force", rate(e.force)},
          {"rate_penalty_kick", rate(e.kicks)},
          {"rate_penalty_zero", rate(e.zero)},
          {"rate_cert_expiry", rate(e.certs)},
          {"rate_reschedule", rate(e.resched)},
          {"rate_script", rate(e.script)},
          {"reschedules_per_event", e.all > 0 ? static_cast<double>(e.resched) / d(e.all) : 0.0},
          {"activations", d(e.activations)},
          {"deactivations", d(e.deactivations)},
          {"broad_phase_rebuilds", d(e.rebuilds)},
          {"epochs", d(dom.epochs)},
          {"windows", d(dom.windows)},
          {"rollbacks", d(dom.rollbacks)},
          {"migrations", d(dom.migrations)},
          {"wall_sync", dom.sync},
          {"wall_queue", dom.wQueue},
          {"wall_broad_phase", dom.wBroad},
          {"wall_certificates", dom.wCert},
          {"wall_forces", dom.wForce},
          {"wall_events", dom.wTotal}};
}

}  // namespace

AviModule::AviModule() = default;
AviModule::~AviModule() = default;

void AviModule::declare(ParamSchema& schema) { declareAviParams(schema); }

void AviModule::setup(run::RunContext& ctx) {
  const Config& c = ctx.config;
  p_ = readAviParams(c);
  generator_ = c.getString("avi.scene.generator");
  la::requireDistributedBackend(ctx.backend, ctx.comm.size(), "avi");
  Scene scene = buildScene(c, kSceneGroup);
  sceneName_ = scene.name.empty() ? generator_ : scene.name;
  // README decision 57, step 1: every step is dyadic by default, at every rank count, so the result
  // does not depend on the rank count (README decision 16).
  if (!p_.dyadicSteps) {
    if (ctx.comm.size() > 1)
      throw InputError(str(c.where("avi.integrator.dyadic_steps"), "avi.integrator.dyadic_steps: false needs 1 rank; ",
                           "the distributed AVI (option A, README decision 57) needs dyadic steps"));
    p_.engine.dyadicBase = 0.0;
  } else if (p_.engine.dyadicBase == 0.0) {
    p_.engine.dyadicBase = defaultDyadicBase(scene, p_.engine, p_.frameDt);
    log::info("avi: steps rounded down to the dyadic lattice ", p_.engine.dyadicBase, " 2^-m");
  }
  const int n = scene.vertices.size();
  object_.resize(static_cast<std::size_t>(n));
  scripted_.resize(static_cast<std::size_t>(n));
  mass_.resize(static_cast<std::size_t>(n));
  for (int a = 0; a < n; ++a) {
    const auto k = static_cast<std::size_t>(a);
    object_[k] = static_cast<double>(scene.vertices.object[k]);
    scripted_[k] = scene.vertices.scripted(a) ? 1.0 : 0.0;
    mass_[k] = scene.vertices.mass[k];
  }
  const std::size_t forces = scene.forces.size(), planes = scene.planes.size(), objects = scene.objects.size();
  domain_ = std::make_unique<Domain>(ctx.comm, ctx.backend, std::move(scene), p_.engine);
  stepsDone_ = 0;
  time_ = 0.0;
  totals_ = Totals{};

  const Measurement m0 = domain_->measure(0.0);
  energy0_ = m0.total();
  energyLast_ = energy0_;
  if (!std::isfinite(energy0_))
    throw InputError(str("avi: scene ", sceneName_, ": the initial energy is ", energy0_, " (kinetic ", m0.kinetic,
                         ", elastic ", m0.elastic, ", gravity ", m0.gravity, ", contact ", m0.contact, ")"));
  previous_ = domain_->counters();
  previousStats_ = domain_->stats();
  previousShares_ = domain_->timeShares();
  log::info("avi: ", sceneName_, " (", generator_, "), ", n, " vertices in ", objects, " objects, ", forces,
            " potentials, ", planes, " planes, ", m0.candidatePairs, " candidate pairs; ", p_.mode, ", C_safe ",
            p_.engine.cSafe, ", e ", p_.engine.restitution, ", mu ", p_.engine.friction, "; ", p_.steps,
            " frames of ", p_.frameDt, " to t = ", p_.endTime, "; ", ctx.comm.size(),
            ctx.comm.size() == 1 ? " rank" : " ranks", " on ", ctx.backend.name(), "; E(0) = ", energy0_);
}

void AviModule::step(run::RunContext& ctx, io::Diagnostics::Row& row) {
  const double t0 = time_;
  const double T = frameTime(p_, stepsDone_ + 1);
  domain_->advanceTo(T);
  ++stepsDone_;
  time_ = T;
  // README decision 58: everything at the common time T, without disturbing the state.
  const Measurement m = domain_->measure(T);
  check(m, T);
  energyLast_ = m.total();
  appendRow(ctx.comm, m, T - t0, row);
}

// A non-finite energy (an unstable step) or an intersecting pair (a missed layer activation) ends
// the run with what went wrong and where; every rank measures the same and throws alike.
void AviModule::check(const Measurement& m, double T) const {
  const double E = m.total();
  if (!std::isfinite(E))
    throw Error(str("avi: the energy at t = ", T, " (step ", stepsDone_, ") is not finite: kinetic ", m.kinetic,
                    ", elastic ", m.elastic, ", gravity ", m.gravity, ", contact ", m.contact,
                    "; a step is unstable: lower avi.integrator.c_safe or avi.scene.material_c_safe"));
  if (m.intersections > 0)
    throw Error(str("avi: ", m.intersections, " intersecting primitive pair(s) at t = ", T, " (step ", stepsDone_,
                    ", minimum distance ", m.minDistance, "): a penalty layer activation was missed"));
}

// The step's diagnostics row: energies and momenta of `m`, layer counts, the events of this frame
// interval of length `span` (per-step differences of the cumulative counters) and the domain's
// windows, rollbacks and wall-time shares (collective).
void AviModule::appendRow(const Comm& comm, const Measurement& m, double span, io::Diagnostics::Row& row) {
  const Counters c = domain_->counters();
  const DomainStats st = domain_->stats();
  const TimeShares ts = domain_->timeShares();
  const FrameEvents e = eventsSince(c, previous_);
  totals_.force += e.force;
  totals_.kicks += e.kicks;
  totals_.zeroTicks += e.zero;
  totals_.certExpiries += e.certs;
  totals_.reschedules += e.resched;
  totals_.script += e.script;
  totals_.deepestLayer = std::max({totals_.deepestLayer, c.deepestLayer, deepestActive(m)});
  const FrameDomain dom = domainSince(comm, st, previousStats_, ts, previousShares_);
  previous_ = c;
  previousStats_ = st;
  previousShares_ = ts;

  const io::Diagnostics::Row mine = measurementColumns(m, energy0_);
  const io::Diagnostics::Row tail = eventColumns(m, e, dom, totals_.deepestLayer, span);
  row.insert(row.end(), mine.begin(), mine.end());
  row.insert(row.end(), tail.begin(), tail.end());
}

void AviModule::writeFrame(run::RunContext& ctx, io::FrameWriter& frames) {
  const Comm& comm = ctx.comm;
  domain_->gatherPositions(time_, x_);  // collective: every vertex on every rank
  const std::int64_t n = static_cast<std::int64_t>(x_.size());
  // This rank writes an even share of the rows (the scene order does not depend on the rank count).
  const std::int64_t r0 = n * comm.rank() / comm.size(), r1 = n * (comm.rank() + 1) / comm.size();
  positions_.resize(static_cast<std::size_t>(3 * (r1 - r0)));
  for (std::int64_t a = r0; a < r1; ++a)
    for (int k = 0; k < 3; ++k) positions_[static_cast<std::size_t>(3 * (a - r0) + k)] = x_[static_cast<std::size_t>(a)][k];

  // The meshes' topology as lists, once per frames file (scripts/render-avi reads them).
  io::H5File& f = frames.file();
  const Scene& s = domain_->scene();
  if (!s.drawTriangles.empty() && !f.exists("/avi/mesh/triangles")) {
    std::vector<std::int64_t> tri;
    tri.reserve(3 * s.drawTriangles.size());
    for (const Eigen::Vector3i& t : s.drawTriangles) tri.insert(tri.end(), {t[0], t[1], t[2]});
    f.writeArray("/avi/mesh/triangles", {static_cast<std::uint64_t>(s.drawTriangles.size()), 3}, tri);
  }
  if (!s.drawEdges.empty() && !f.exists("/avi/mesh/segments")) {
    std::vector<std::int64_t> seg;
    seg.reserve(2 * s.drawEdges.size());
    for (const Eigen::Vector2i& e : s.drawEdges) seg.insert(seg.end(), {e[0], e[1]});
    f.writeArray("/avi/mesh/segments", {static_cast<std::uint64_t>(s.drawEdges.size()), 2}, seg);
  }

  // The cells of the frame grid, once per frames file: an XDMF Mixed array of the surface
  // triangles (type 4), the rod and spring segments (type 2, polyline of 2 points) and a vertex
  // (type 1, polyvertex of 1 point) for every vertex in neither, so ParaView's default (Surface)
  // representation shows shells and cloth as surfaces, rods as lines and particles as points.
  if (!f.exists("/avi/mesh/cells")) {
    std::vector<std::int64_t> mixed;
    std::vector<char> used(static_cast<std::size_t>(n), 0);
    for (const Eigen::Vector3i& t : s.drawTriangles) {
      mixed.insert(mixed.end(), {4, t[0], t[1], t[2]});
      for (int k = 0; k < 3; ++k) used[static_cast<std::size_t>(t[k])] = 1;
    }
    for (const Eigen::Vector2i& e : s.drawEdges) {
      mixed.insert(mixed.end(), {2, 2, e[0], e[1]});
      used[static_cast<std::size_t>(e[0])] = used[static_cast<std::size_t>(e[1])] = 1;
    }
    std::int64_t cells = static_cast<std::int64_t>(s.drawTriangles.size() + s.drawEdges.size());
    for (std::int64_t a = 0; a < n; ++a)
      if (!used[static_cast<std::size_t>(a)]) {
        mixed.insert(mixed.end(), {1, 1, a});
        ++cells;
      }
    f.writeArray("/avi/mesh/cells", {static_cast<std::uint64_t>(mixed.size())}, mixed);
    f.writeAttribute("/avi/mesh/cells", "cells", cells);
  }

  io::PointSet points;
  points.globalCount = n;
  points.rowOffset = r0;
  points.positions = positions_;
  frames.beginFrame(time_, points);
  frames.setTopology("/avi/mesh/cells", f.readAttributeInt("/avi/mesh/cells", "cells"));
  const auto slice = [&](const std::vector<double>& v) {
    return std::span<const double>(v.data() + r0, static_cast<std::size_t>(r1 - r0));
  };
  // Object ids and the scripted flag are integers.
  const auto ints = [&](const std::vector<double>& v) {
    std::vector<std::int64_t> out(static_cast<std::size_t>(r1 - r0));
    for (std::int64_t a = r0; a < r1; ++a)
      out[static_cast<std::size_t>(a - r0)] = static_cast<std::int64_t>(v[static_cast<std::size_t>(a)]);
    return out;
  };
  frames.addField("object", std::span<const std::int64_t>(ints(object_)));
  frames.addField("scripted", std::span<const std::int64_t>(ints(scripted_)));
  frames.addField("mass", slice(mass_));
  frames.endFrame();
}

// This rank's rows of the vertices (the rows of its frames). Collective: the positions are
// gathered from every rank's engine, as for a frame.
void AviModule::exportState(run::StateArrays& out) const {
  if (!domain_) return;
  const Comm comm = Comm::world();
  std::vector<Vec3> x;
  domain_->gatherPositions(time_, x);
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  const std::int64_t r0 = n * comm.rank() / comm.size(), r1 = n * (comm.rank() + 1) / comm.size();
  std::vector<double> pos, mass;
  std::vector<std::int64_t> object, scripted;
  for (std::int64_t a = r0; a < r1; ++a) {
    const auto k = static_cast<std::size_t>(a);
    pos.insert(pos.end(), {x[k][0], x[k][1], x[k][2]});
    mass.push_back(mass_[k]);
    object.push_back(static_cast<std::int64_t>(object_[k]));
    scripted.push_back(static_cast<std::int64_t>(scripted_[k]));
  }
  out.add("positions", pos, 3);
  out.add("masses", mass);
  out.add("object", std::span<const std::int64_t>(object));
  out.add("scripted", std::span<const std::int64_t>(scripted));
}

void AviModule::saveCheckpoint(run::RunContext& ctx, io::CheckpointWriter& out) const {
  const Comm& comm = ctx.comm;
  EngineState state;
  domain_->save(state);  // collective: the global state, the same on every rank
  const auto nr = static_cast<std::int64_t>(state.reals.size()), ni = static_cast<std::int64_t>(state.ints.size());
  if (comm.min(nr) != comm.max(nr) || comm.min(ni) != comm.max(ni))
    throw Error(str("avi: Domain::save returned ", nr, " reals and ", ni, " ints on rank ", comm.rank(),
                    " but other sizes elsewhere; the checkpoint state must be the same on every rank"));
  out.writeString("avi_scene", sceneName_);
  out.writeString("avi_generator", generator_);
  out.writeInt("avi_vertices", static_cast<std::int64_t>(object_.size()));
  out.writeInt("avi_ranks", comm.size());
  out.writeInt("avi_step", stepsDone_);
  out.writeReal("avi_time", time_);
  out.writeReal("avi_energy0", energy0_);
  out.writeReal("avi_energy_last", energyLast_);
  out.writeReal("avi_dyadic_base", p_.engine.dyadicBase);
  out.writeInt("avi_events_force", totals_.force);
  out.writeInt("avi_events_kicks", totals_.kicks);
  out.writeInt("avi_events_zero_ticks", totals_.zeroTicks);
  out.writeInt("avi_events_cert", totals_.certExpiries);
  out.writeInt("avi_events_reschedules", totals_.reschedules);
  out.writeInt("avi_events_script", totals_.script);
  out.writeInt("avi_deepest_layer", totals_.deepestLayer);
  out.writeInt("avi_state_reals", nr);
  out.writeInt("avi_state_ints", ni);
  auto& f = out.file();
  if (nr > 0) f.writeArray("/avi/state/reals", {static_cast<std::uint64_t>(nr)}, state.reals);
  if (ni > 0) f.writeArray("/avi/state/ints", {static_cast<std::uint64_t>(ni)}, state.ints);
}

void AviModule::loadCheckpoint(run::RunContext& ctx, const io::CheckpointReader& in) {
  const std::string where = in.path();
  const std::int64_t vertices = static_cast<std::int64_t>(object_.size());
  if (in.readString("avi_generator") != generator_ || in.readString("avi_scene") != sceneName_ ||
      in.readInt("avi_vertices") != vertices)
    throw InputError(str(where, ": checkpoint of scene ", in.readString("avi_scene"), " (",
                         in.readString("avi_generator"), ") with ", in.readInt("avi_vertices"),
                         " vertices, but the scene is ", sceneName_, " (", generator_, ") with ", vertices, " vertices"));
  EngineState state;
  const std::int64_t nr = in.readInt("avi_state_reals"), ni = in.readInt("avi_state_ints");
  if (nr > 0) state.reals = in.file().readAll("/avi/state/reals");
  if (ni > 0) state.ints = in.file().readAllInt("/avi/state/ints");
  if (static_cast<std::int64_t>(state.reals.size()) != nr || static_cast<std::int64_t>(state.ints.size()) != ni)
    throw InputError(str(where, ": /avi/state holds ", state.reals.size(), " reals and ", state.ints.size(),
                         " ints, expected ", nr, " and ", ni));
  const double base = in.readReal("avi_dyadic_base");
  if (base != p_.engine.dyadicBase)
    log::warn("avi: ", where, " was written at ", in.readInt("avi_ranks"), " rank(s) with dyadic base ", base,
              ", this run uses ", p_.engine.dyadicBase, " at ", ctx.comm.size(),
              " rank(s): it continues as a valid AVI with other steps, not the same trajectory (set "
              "avi.integrator.dyadic_base=", base, " to keep them)");
  try {
    domain_->load(state);
  } catch (InputError& e) {
    throw InputError(str(where, ": ", e.message()));  // the domain's check names no file
  }
  stepsDone_ = static_cast<long>(in.readInt("avi_step"));
  time_ = in.readReal("avi_time");
  energy0_ = in.readReal("avi_energy0");
  energyLast_ = in.readReal("avi_energy_last");
  totals_.force = in.readInt("avi_events_force");
  totals_.kicks = in.readInt("avi_events_kicks");
  totals_.zeroTicks = in.readInt("avi_events_zero_ticks");
  totals_.certExpiries = in.readInt("avi_events_cert");
  totals_.reschedules = in.readInt("avi_events_reschedules");
  totals_.script = in.readInt("avi_events_script");
  totals_.deepestLayer = static_cast<int>(in.readInt("avi_deepest_layer"));
  previous_ = domain_->counters();
  previousStats_ = domain_->stats();
  previousShares_ = domain_->timeShares();
}

std::string AviModule::summary() const {
  if (!domain_) return "";
  const double all = d(totals_.force + totals_.kicks + totals_.zeroTicks + totals_.certExpiries + totals_.script);
  const double drift = energy0_ != 0.0 ? (energyLast_ - energy0_) / std::abs(energy0_) : energyLast_ - energy0_;
  const DomainStats& st = domain_->stats();
  std::string s = str("avi: ", sceneName_, ", ", object_.size(), " vertices; ", stepsDone_, " frames to t = ", time_,
                      "; energy ", energy0_, " -> ", energyLast_, " (", energy0_ != 0.0 ? "relative " : "absolute ",
                      "change ", drift, "); deepest layer ", totals_.deepestLayer, "; events: force ", totals_.force,
                      ", penalty kicks ", totals_.kicks, ", penalty zero ticks ", totals_.zeroTicks,
                      ", certificate expiries ", totals_.certExpiries, ", script ", totals_.script,
                      ", certificate reschedules ", totals_.reschedules, " (",
                      all > 0 ? d(totals_.reschedules) / all : 0.0, " per event); intersections 0");
  if (!domain_->scene().vertices.mass.empty() && st.windows > 0)
    s += str("; domain: ", st.epochs, " epochs, ", st.windows, " windows, ", st.rollbacks, " rollbacks (", st.tickRollbacks,
             " for a tick inside a window), ",
             st.migrations, " migrations");
  return s;
}

}  // namespace kinema::avi

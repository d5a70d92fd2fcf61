#include "modules/impact/impact_module.hpp"

#include <algorithm>
#include <cmath>

#include "framework/core/agree.hpp"
#include "framework/core/error.hpp"
#include "framework/core/index_cast.hpp"
#include "framework/core/log.hpp"
#include "framework/core/param_binding.hpp"
#include "framework/la/distributed_backends.hpp"
#include "modules/impact/impact_scene_params.hpp"
#include "modules/impact/sim_generators.hpp"

namespace kinema::impact {

namespace {

using P = ModuleParams;

const char* const kResolver = "impact.resolver";

// The saved state (13 numbers a body) of this rank's block rows [first, first + rows): the /impact/state slab, or
// the whole state replicated in impact_state by checkpoints written before the distributed world.
std::vector<double> readBodyState(const io::CheckpointReader& in, std::int64_t n, std::int64_t first,
                                  std::uint64_t rows) {
  std::vector<double> s;
  if (in.file().exists("/impact/state")) {
    const io::Shape shape = in.file().shape("/impact/state");
    if (shape.size() != 2 || shape[0] != static_cast<std::uint64_t>(n) || shape[1] != 13)
      throw InputError(str(in.path(), ": /impact/state must be ", n, " x 13"));
    s = in.file().readSlab("/impact/state", static_cast<std::uint64_t>(first), rows);
  } else {  // written before the distributed world: the whole state replicated
    const std::vector<double> all = in.readArray("impact_state");
    if (all.size() != u(n) * 13) throw InputError(str(in.path(), ": impact_state has the wrong size"));
    s.assign(all.begin() + static_cast<std::ptrdiff_t>(u(first) * 13),
             all.begin() + static_cast<std::ptrdiff_t>((u(first) + rows) * 13));
  }
  return s;
}

// Position, velocity, spin and orientation of w's bodies from s; returns the message for the first body with a
// non-finite value (empty if none).
std::string applyBodyState(const io::CheckpointReader& in, const std::vector<double>& s, SimWorld& w) {
  std::string bad;
  for (std::size_t k = 0; k < w.bodies.size() && bad.empty(); ++k) {
    SimBody& b = w.bodies[k];
    const double* v = s.data() + 13 * k;
    for (int i = 0; i < 13; ++i)
      if (!std::isfinite(v[i])) bad = str(in.path(), ": /impact/state: body ", b.id, " has a non-finite value");
    b.x = Eigen::Vector3d(v[0], v[1], v[2]);
    b.v = Eigen::Vector3d(v[3], v[4], v[5]);
    b.omega = Eigen::Vector3d(v[6], v[7], v[8]);
    b.q = Eigen::Quaterniond(v[9], v[10], v[11], v[12]);
  }
  return bad;
}

// Collective: the same subdomains as when the checkpoint was written, at the same rank count; otherwise
// (nothing saved, another rank count) nothing happens and the next step builds new ones.
void restoreSubdomains(const io::CheckpointReader& in, SimStepper& stepper, std::int64_t n, std::int64_t first,
                       std::uint64_t rows) {
  const Comm& comm = stepper.comm();
  if (comm.size() > 1 && in.file().exists("/impact/owner") && in.has("impact_decomposition")) {
    const std::vector<double> tree = in.readArray("impact_decomposition");
    if (!tree.empty() && tree[0] == comm.size()) {
      const io::Shape shape = in.file().shape("/impact/owner");
      if (shape.size() != 2 || shape[0] != static_cast<std::uint64_t>(n) || shape[1] != 2)
        throw InputError(str(in.path(), ": /impact/owner must be ", n, " x 2"));
      const std::vector<double> ow = in.file().readSlab("/impact/owner", static_cast<std::uint64_t>(first), rows);
      std::vector<int> owner(rows);
      std::vector<std::int64_t> weight(rows);
      std::string why;
      for (std::size_t k = 0; k < rows; ++k) {
        owner[k] = static_cast<int>(ow[2 * k]);
        weight[k] = static_cast<std::int64_t>(ow[2 * k + 1]);
        if (!(ow[2 * k] >= 0 && ow[2 * k] < comm.size()) || !(ow[2 * k + 1] >= 1 && ow[2 * k + 1] < 1e15))
          why = str(in.path(), ": /impact/owner: body ", first + static_cast<std::int64_t>(k), " has owner ", ow[2 * k],
                    " and weight ", ow[2 * k + 1], " (", comm.size(), " ranks)");
      }
      SimDecomposition d;
      try {
        d = SimDecomposition::fromNumbers(tree, comm.size());
      } catch (const InputError& e) {
        why = str(in.path(), ": impact_decomposition: ", e.message());
      }
      raiseOnEveryRank(comm, !why.empty(), why);
      stepper.restoreOwnership(d, owner, weight);
    }
  }
}

}  // namespace

void ImpactModule::declare(ParamSchema& schema) {
  moduleBindings().declare(schema, kModulePrefix, ModuleParams{});
  ImpactParams d;
  d.op = "gs-lexicographic";
  impactBindings().declare(schema, kResolver, d);
}

SimWorld ImpactModule::buildWorld(const Config& c, std::pair<int, int> block, bool* distributed) {
  const P params = readModuleParams(c);  // the scene's lists are checked as they are read
  const SceneParams& sp = params.scene;
  const std::string& type = sp.type;
  const int dim = sp.dimension, count = sp.count, rows = sp.rows;
  const double r = sp.radius, m = sp.mass, speed = sp.speed;
  const auto seed = static_cast<std::uint64_t>(sp.seed);
  // The generators that scale build only this rank's block of ids.
  const bool split = type == "pile" || type == "box_drop";
  if (distributed) *distributed = split;
  const std::int64_t bodies = type == "box_drop" ? std::int64_t{count} + 1 : count;
  const std::int64_t first = split ? bodies * block.first / block.second : 0;
  const std::int64_t last = split ? bodies * (block.first + 1) / block.second : -1;
  SimWorld w;
  if (type == "cradle") {
    w = generators::cradle(count, r, m, speed, dim);
  } else if (type == "pool_break") {
    w = generators::poolBreak(rows, r, m, speed);
  } else if (type == "wedge") {
    w = generators::wedge(sp.angleDegrees * M_PI / 180.0, r, m, speed);
  } else if (type == "geyser") {
    w = generators::miniGeyser(sp.symmetric, sp.gap, speed, r);
  } else if (type == "jammed_box") {
    w = generators::jammedBox(rows, r, speed, seed);
  } else if (type == "pile") {
    w = generators::pile({.n = count, .radius = r, .mass = m, .width = sp.width, .spacing = sp.spacing,
        .jitter = sp.jitter, .seed = seed, .dimension = dim}, first, last);
  } else if (type == "box_drop") {
    const auto& h = sp.halfExtents;
    w = generators::boxDrop(count, Eigen::Vector3d(h[0], h[1], h[2]), m, seed, first, last);
  } else {  // balls
    const auto& b = sp.balls;
    w.dimension = dim;
    for (std::size_t k = 0; k < b.size() / 8; ++k) {
      const double* v = b.data() + 8 * k;
      w.addBall(Eigen::Vector3d(v[0], v[1], v[2]), v[6], v[7], Eigen::Vector3d(v[3], v[4], v[5]));
    }
    const auto& p = sp.planes;
    for (std::size_t k = 0; k < p.size() / 6; ++k) {
      const double* v = p.data() + 6 * k;
      w.addPlane(Eigen::Vector3d(v[0], v[1], v[2]), Eigen::Vector3d(v[3], v[4], v[5]));
    }
  }
  if (params.sim.rotatingSpheres && w.dimension == 3)
    for (SimBody& b : w.bodies)
      if (!b.isStatic && b.shape == SimShape::Sphere) b.rigid = true;
  w.gravity = Eigen::Vector3d::Zero();
  w.gravity[w.dimension == 2 ? 1 : 2] = -params.sim.gravity;
  try {
    w.validate();
  } catch (const InputError& e) {
    throw InputError(str(c.where("impact.scene.type"), ": impact.scene (", type, "): ", e.message()));
  }
  return w;
}

SimOptions ImpactModule::readOptions(const Config& c, const SimWorld& w, const Comm& comm) {
  const StepParams p = readModuleParams(c).sim;
  SimOptions o;
  o.dt = p.dt;
  double size = std::numeric_limits<double>::infinity();
  for (const SimBody& b : w.bodies) size = std::min(size, b.shape == SimShape::Sphere ? b.radius : b.halfExtents.minCoeff());
  if (comm.size() > 1) size = comm.min(size);
  o.contactTolerance = p.contactTolerance * (std::isfinite(size) ? size : 1.0);
  o.closurePasses = p.closurePasses;
  o.gravityKick = parseGravityKick(p.gravityKick);
  o.broadPhase = parseBroadPhase(p.broadPhase);
  o.distributedIslandContacts = p.distributedIslandContacts;
  o.rebalanceImbalance = p.rebalanceImbalance;
  impactBindings().readInto(c, kResolver, o.impact);  // o.impact holds ImpactParams{} here
  return o;
}

void ImpactModule::setup(run::RunContext& ctx) {
  const Config& c = ctx.config;
  const P params = readModuleParams(c);
  sceneType_ = params.scene.type;
  steps_ = params.sim.steps;
  bool distributed = false;
  SimWorld w = buildWorld(c, {ctx.comm.rank(), ctx.comm.size()}, &distributed);
  SimOptions o = readOptions(c, w, ctx.comm);
  o.backend = &ctx.backend;
  if (o.distributedIslandContacts > 0 && (o.impact.op != "gr" || o.impact.restitution != 1.0))
    throw InputError(str(c.where("impact.sim.distributed_island_contacts"),
                         ": impact.sim.distributed_island_contacts: islands solved across ranks use distributed GR; "
                         "set impact.resolver.operator: gr and impact.resolver.restitution: 1 (the scene has ",
                         o.impact.op, ", restitution ", o.impact.restitution, ")"));
  if (o.distributedIslandContacts > 0 && ctx.comm.size() > 1 && !ctx.backend.distributed())
    throw InputError(str(c.where("impact.sim.distributed_island_contacts"),
                         ": impact.sim.distributed_island_contacts: islands solved across ranks need a distributed "
                         "backend (", la::distributedBackendNames(), "); the scene runs on ", ctx.backend.name()));
  stepper_ = std::make_unique<SimStepper>(std::move(w), std::move(o), ctx.comm,
                                          distributed ? WorldInput::Distributed : WorldInput::Replicated);
  energy0_ = energyNow_ = stepper_->kineticEnergy() + stepper_->potentialEnergy();
  shadow0_ = shadowPrev_ = stepper_->shadowEnergy();
  momentumNow_ = stepper_->linearMomentum();
  log::info("impact: ", sceneType_, ", ", stepper_->globalBodies(), " bodies, ", stepper_->world().planes.size(),
            " planes, ", stepper_->world().dimension, "D, operator ", stepper_->options().impact.op, ", c_r ",
            stepper_->options().impact.restitution, ", dt ", stepper_->options().dt, ", ", ctx.comm.size(),
            ctx.comm.size() == 1 ? " rank" : " ranks");
}

void ImpactModule::step(run::RunContext&, io::Diagnostics::Row& row) {
  const SimStepStats& s = stepper_->step();
  iterationsMax_ = std::max(iterationsMax_, s.iterationsMax);
  iterationsTotal_ += s.iterationsTotal;
  caps_ += s.caps;
  cycles_ += s.cycles;
  notConverged_ += s.notConverged;
  unresolvedClosures_ += s.unresolvedClosures;
  closureSteps_ += s.unresolvedClosures > 0 ? 1 : 0;
  closureMax_ = std::max(closureMax_, s.unresolvedClosures);
  const double ke = stepper_->kineticEnergy(), pe = stepper_->potentialEnergy();
  energyNow_ = ke + pe;
  // The shadow energy's change splits into the contacts' work (SimStepStats::contactWork) and what
  // no contact explains: round-off under the split kick, the kick-order error under `before`.
  const double shadow = stepper_->shadowEnergy();
  const double defect = shadow - shadowPrev_ - s.contactWork;
  shadowPrev_ = shadow;
  contactWork_ += s.contactWork;
  defect_ += defect;
  const Eigen::Vector3d p = stepper_->linearMomentum(), L = stepper_->angularMomentum();
  momentumNow_ = p;
  const auto d = [](std::int64_t x) { return static_cast<double>(x); };
  const io::Diagnostics::Row mine = {{"kinetic_energy", ke},
         {"potential_energy", pe},
         {"total_energy", ke + pe},
         {"shadow_energy", shadow},
         {"contact_work", s.contactWork},
         {"impact_work", s.impactWork},
         {"energy_defect", defect},
         {"support_projections", d(s.supportProjections)},
         {"momentum_x", p[0]},
         {"momentum_y", p[1]},
         {"momentum_z", p[2]},
         {"angular_momentum_x", L[0]},
         {"angular_momentum_y", L[1]},
         {"angular_momentum_z", L[2]},
         {"candidates", d(s.candidates)},
         {"contacts", d(s.constraints)},
         {"islands", d(s.islands)},
         {"resolved_islands", d(s.resolvedIslands)},
         {"largest_island", d(s.largestIsland)},
         {"distributed_islands", d(s.distributedIslands)},
         {"lineality_detections", d(s.linealityDetections)},
         {"constraints_removed", d(s.constraintsRemoved)},
         {"iterations_max", d(s.iterationsMax)},
         {"iterations_total", d(s.iterationsTotal)},
         {"cycles", d(s.cycles)},
         {"caps", d(s.caps)},
         {"not_converged", d(s.notConverged)},
         {"qp_not_converged", d(s.qpNotConverged)},
         {"qp_residual_max", s.qpResidualMax},
         {"impact_solves", d(s.closurePasses)},
         {"unresolved_closures", d(s.unresolvedClosures)},
         {"max_penetration", s.maxPenetration},
         {"imbalance", s.imbalance},
         {"seconds_detect", s.secondsDetect},
         {"seconds_islands", s.secondsIslands},
         {"seconds_resolve", s.secondsResolve},
         {"seconds_exchange", s.secondsExchange},
         {"seconds_integrate", s.secondsIntegrate},
         {"seconds_migrate", s.secondsMigrate},
         {"ghosts", d(s.ghosts)},
         {"migrated", d(s.migrated)},
         {"rebalanced", d(s.rebalanced)},
         {"cross_rank_islands", d(s.crossRankIslands)},
         {"label_rounds", d(s.labelRounds)}};
  row.insert(row.end(), mine.begin(), mine.end());
}

void ImpactModule::writeFrame(run::RunContext&, io::FrameWriter& frames) {
  // This rank's block of rows, in id order (the bodies move to their block for the write).
  std::int64_t first = 0;
  stepper_->blockRows(rows_, first);
  const std::int64_t n = stepper_->globalBodies();
  for (auto* f : {&positions_, &radius_, &velocity_, &omega_, &halfExtents_, &orientation_, &rotation_, &boxFrame_})
    f->clear();
  bodyId_.clear();
  isStatic_.clear();
  shape_.clear();
  for (const SimBody& b : rows_) {
    positions_.insert(positions_.end(), {b.x[0], b.x[1], b.x[2]});
    radius_.push_back(b.boundingRadius());
    velocity_.insert(velocity_.end(), {b.v[0], b.v[1], b.v[2]});
    omega_.insert(omega_.end(), {b.omega[0], b.omega[1], b.omega[2]});
    bodyId_.push_back(b.id);
    isStatic_.push_back(b.isStatic ? 1 : 0);
    shape_.push_back(b.shape == SimShape::Box ? 1 : 0);
    const Eigen::Vector3d h = b.shape == SimShape::Box ? b.halfExtents : Eigen::Vector3d::Constant(b.radius);
    halfExtents_.insert(halfExtents_.end(), {h[0], h[1], h[2]});
    // Orientation as the quaternion (w, x, y, z) and as the rotation matrix body -> world. The
    // matrices are written column by column: components 0-2 are the body's x axis in world
    // coordinates, 3-5 its y axis, 6-8 its z axis. That is the order in which VTK's tensor glyph
    // (ParaView's Tensor Glyph, eigenvalue extraction off) takes the glyph's axes from a 9-component
    // tensor, so `box_frame` (the columns scaled by the box's side lengths 2h) draws a unit Box glyph
    // at each body's size and orientation.
    const Eigen::Quaterniond q = b.q.normalized();
    orientation_.insert(orientation_.end(), {q.w(), q.x(), q.y(), q.z()});
    const Eigen::Matrix3d rot = q.toRotationMatrix();
    for (int c = 0; c < 3; ++c)
      for (int i = 0; i < 3; ++i) {
        rotation_.push_back(rot(i, c));
        boxFrame_.push_back(2.0 * h[c] * rot(i, c));
      }
  }
  io::PointSet points;
  points.globalCount = n;
  points.rowOffset = first;
  points.positions = positions_;
  frames.beginFrame(time(), points);
  frames.addField("radius", radius_);
  frames.addField("velocity", velocity_, 3);
  frames.addField("angular_velocity", omega_, 3);
  frames.addField("body_id", std::span<const std::int64_t>(bodyId_));
  frames.addField("static", std::span<const std::int64_t>(isStatic_));
  frames.addField("shape", std::span<const std::int64_t>(shape_));
  frames.addField("half_extents", halfExtents_, 3);
  frames.addField("orientation", orientation_, 4);
  frames.addField("rotation", rotation_, 9);
  frames.addField("box_frame", boxFrame_, 9);
  frames.endFrame();
}

// State per body: x (3), v (3), ω (3), q (4: w x y z).
// This rank's block of rows in id order (the rows of its frames). Collective.
void ImpactModule::exportState(run::StateArrays& out) const {
  if (!stepper_) return;
  std::vector<SimBody> rows;
  std::int64_t first = 0;
  stepper_->blockRows(rows, first);
  std::vector<double> x, v, omega, q, mass, radius;
  std::vector<std::int64_t> id, isStatic;
  for (const SimBody& b : rows) {
    x.insert(x.end(), {b.x[0], b.x[1], b.x[2]});
    v.insert(v.end(), {b.v[0], b.v[1], b.v[2]});
    omega.insert(omega.end(), {b.omega[0], b.omega[1], b.omega[2]});
    const Eigen::Quaterniond qn = b.q.normalized();
    q.insert(q.end(), {qn.w(), qn.x(), qn.y(), qn.z()});
    mass.push_back(b.mass);
    radius.push_back(b.boundingRadius());
    id.push_back(b.id);
    isStatic.push_back(b.isStatic ? 1 : 0);
  }
  out.add("positions", x, 3);
  out.add("velocities", v, 3);
  out.add("angular_velocities", omega, 3);
  out.add("orientations", q, 4);
  out.add("masses", mass);
  out.add("radius", radius);
  out.add("body_id", std::span<const std::int64_t>(id));
  out.add("static", std::span<const std::int64_t>(isStatic));
}

// State per body: x (3), v (3), ω (3), q (4: w x y z), in the dataset /impact/state (N x 13, id
// order), each rank writing its block of rows.
void ImpactModule::saveCheckpoint(run::RunContext&, io::CheckpointWriter& out) const {
  std::vector<SimBody> rows;
  std::vector<int> owner;
  std::vector<std::int64_t> weight;
  std::int64_t first = 0;
  stepper_->blockRows(rows, first, &owner, &weight);
  std::vector<double> s;
  s.reserve(rows.size() * 13);
  for (const SimBody& b : rows)
    s.insert(s.end(), {b.x[0], b.x[1], b.x[2], b.v[0], b.v[1], b.v[2], b.omega[0], b.omega[1], b.omega[2], b.q.w(),
                       b.q.x(), b.q.y(), b.q.z()});
  const std::int64_t n = stepper_->globalBodies();
  out.writeInt("impact_bodies", n);
  out.writeString("impact_scene", sceneType_);
  out.writeInt("impact_step", stepper_->steps());
  out.writeReal("impact_time", stepper_->world().time);
  out.file().writeSlab("/impact/state", {static_cast<std::uint64_t>(n), 13}, static_cast<std::uint64_t>(first), s);
  // Who owned each body and its load weight, and the decomposition: a restart at the same rank
  // count continues with the same subdomains (and so the same sums over ranks, bit for bit).
  std::vector<double> ow;
  ow.reserve(rows.size() * 2);
  for (std::size_t k = 0; k < rows.size(); ++k) ow.insert(ow.end(), {static_cast<double>(owner[k]), static_cast<double>(weight[k])});
  out.file().writeSlab("/impact/owner", {static_cast<std::uint64_t>(n), 2}, static_cast<std::uint64_t>(first), ow);
  out.writeArray("impact_decomposition", stepper_->decomposition().toNumbers());
  out.writeReal("impact_energy0", energy0_);
  out.writeArray("impact_energy_totals", std::vector<double>{shadow0_, contactWork_, defect_,
                                                             static_cast<double>(unresolvedClosures_),
                                                             static_cast<double>(closureSteps_),
                                                             static_cast<double>(closureMax_)});
  out.writeArray("impact_totals", std::vector<double>{static_cast<double>(iterationsMax_), static_cast<double>(iterationsTotal_),
                                                      static_cast<double>(caps_), static_cast<double>(cycles_),
                                                      static_cast<double>(notConverged_)});
}

void ImpactModule::loadCheckpoint(run::RunContext&, const io::CheckpointReader& in) {
  const std::int64_t n = stepper_->globalBodies();
  if (in.readInt("impact_bodies") != n || in.readString("impact_scene") != sceneType_)
    throw InputError(str(in.path(), ": checkpoint of ", in.readInt("impact_bodies"), " bodies (scene ",
                         in.readString("impact_scene"), "), but the scene has ", n, " (", sceneType_, ")"));
  // The bodies move to their block of ids, take the saved state, and the next step redistributes them.
  const std::int64_t first = stepper_->toBlocks();
  SimWorld& w = stepper_->world();
  const auto rows = static_cast<std::uint64_t>(w.numBodies());
  const std::vector<double> s = readBodyState(in, n, first, rows);
  const std::string bad = applyBodyState(in, s, w);
  raiseOnEveryRank(stepper_->comm(), !bad.empty(), bad);
  restoreSubdomains(in, *stepper_, n, first, rows);
  w.time = in.readReal("impact_time");
  stepper_->setSteps(static_cast<long>(in.readInt("impact_step")));
  energy0_ = in.readReal("impact_energy0");
  shadowPrev_ = stepper_->shadowEnergy();
  shadow0_ = shadowPrev_;
  energyNow_ = stepper_->kineticEnergy() + stepper_->potentialEnergy();
  momentumNow_ = stepper_->linearMomentum();
  if (in.has("impact_energy_totals")) {
    const std::vector<double> e = in.readArray("impact_energy_totals");
    if (e.size() == 6) {
      shadow0_ = e[0];
      contactWork_ = e[1];
      defect_ = e[2];
      unresolvedClosures_ = static_cast<std::int64_t>(e[3]);
      closureSteps_ = static_cast<std::int64_t>(e[4]);
      closureMax_ = static_cast<std::int64_t>(e[5]);
    }
  }
  const std::vector<double> t = in.readArray("impact_totals");
  if (t.size() == 5) {
    iterationsMax_ = static_cast<std::int64_t>(t[0]);
    iterationsTotal_ = static_cast<std::int64_t>(t[1]);
    caps_ = static_cast<std::int64_t>(t[2]);
    cycles_ = static_cast<std::int64_t>(t[3]);
    notConverged_ = static_cast<std::int64_t>(t[4]);
  }
}

std::string ImpactModule::summary() const {
  if (!stepper_) return "";
  const SimWorld& w = stepper_->world();
  const double e = energyNow_;
  const SimOptions& o = stepper_->options();
  const double rel = energy0_ != 0.0 ? 100.0 * (e - energy0_) / std::abs(energy0_) : 0.0;
  return str("impact: ", stepper_->steps(), " steps to t = ", w.time, "; resolver iterations max ", iterationsMax_,
             " per island, ", iterationsTotal_, " in all; ", caps_, " island solves hit the cap, ", cycles_,
             " reported cycles, ", notConverged_, " not converged; energy ", energy0_, " -> ", e, " (",
             rel >= 0.0 ? "+" : "", rel, " %)\n",
             "impact: energy (gravity_kick ", o.gravityKick == GravityKick::Split ? "split" : "before",
             "): shadow energy ", shadow0_, " -> ", shadowPrev_, ", of it contacts ", contactWork_,
             " J and integration defect ", defect_, " J; KE + PE = shadow - dt/2 g.p (",
             -0.5 * o.dt * w.gravity.dot(momentumNow_), " J now)\n",
             "impact: closure passes ", o.closurePasses, ": ", unresolvedClosures_, " contacts still closing after the last pass in ",
             closureSteps_, " steps (at most ", closureMax_, " in one step; they penetrate by at most one step's approach)");
}

}  // namespace kinema::impact

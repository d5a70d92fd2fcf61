#include "modules/impact/sim_stepper.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "framework/core/error.hpp"
#include "framework/core/timer.hpp"
#include "modules/impact/distributed_gr.hpp"
#include "modules/impact/friction.hpp"
#include "modules/impact/impact_system.hpp"
#include "modules/impact/resolver.hpp"
#include "modules/impact/restitution.hpp"
#include "modules/impact/sim_partition.hpp"

namespace kinema::impact {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
std::size_t u(std::int64_t i) { return static_cast<std::size_t>(i); }

// Velocity of a body's material point p.
Eigen::Vector3d pointVelocity(const SimBody& b, const Eigen::Vector3d& p) {
  if (b.isStatic) return Eigen::Vector3d::Zero();
  if (!b.rigid) return b.v;
  return b.v + b.omega.cross(p - b.x);
}

constexpr int kSlot = 6;  // doubles exchanged per body: v, ω

}  // namespace

GravityKick parseGravityKick(const std::string& name) {
  if (name == "split") return GravityKick::Split;
  if (name == "before") return GravityKick::Before;
  throw InputError(str("gravity kick: unknown order '", name, "' (split | before)"));
}

SimStepper::SimStepper(SimWorld world, SimOptions options, Comm comm)
    : world_(std::move(world)), options_(std::move(options)), comm_(comm), detector_(options_.broadPhase) {
  world_.validate();
  if (!(options_.dt > 0.0)) throw InputError(str("impact simulator: dt must be > 0, got ", options_.dt));
  if (!(options_.contactTolerance >= 0.0))
    throw InputError(str("impact simulator: contact tolerance must be >= 0, got ", options_.contactTolerance));
  if (options_.closurePasses < 1) throw InputError("impact simulator: closure passes must be >= 1");
  impactOperators().get(options_.impact.op);  // unknown operator: an error now, not in step 1
  if (world_.dimension == 2)
    for (const SimPlane& p : world_.planes)
      if (p.normal[2] != 0.0) throw InputError("impact simulator: a plane of a 2D world has a z normal component");
  const int n = world_.numBodies();
  isStatic_.assign(u(n) + 1, 0);
  for (int k = 0; k < n; ++k) isStatic_[u(k)] = world_.bodies[u(k)].isStatic ? 1 : 0;
  isStatic_[u(n)] = 1;  // the world: planes
  localOf_.assign(u(n), -1);
}

double SimStepper::normalVelocity(const SimContact& c, const Eigen::Vector3d& shift) const {
  const SimBody& a = world_.bodies[u(c.a)];
  Eigen::Vector3d rel = -pointVelocity(a, c.point);
  if (!a.isStatic) rel -= shift;
  if (c.b >= 0) {
    const SimBody& b = world_.bodies[u(c.b)];
    rel += pointVelocity(b, c.point);
    if (!b.isStatic) rel += shift;
  }
  return c.normal.dot(rel);  // > 0: separating
}

bool SimStepper::isConstraint(const SimContact& c, double dt) const {
  return c.distance <= options_.contactTolerance || c.distance + dt * normalVelocity(c) < 0.0;
}

void SimStepper::buildIslands() {
  const int n = world_.numBodies();
  edges_.clear();
  for (int k : constraints_) {
    const SimContact& c = candidates_[u(k)];
    edges_.push_back({static_cast<std::int32_t>(c.a), static_cast<std::int32_t>(c.b >= 0 ? c.b : n)});
  }
  graph_.build(n + 1, isStatic_, edges_);
  // Islands to resolve: those with an approaching constraint, in island order.
  resolved_.clear();
  cost_.clear();
  stats_.islands = 0;
  for (std::int32_t isl = 0; isl < graph_.numIslands(); ++isl) {
    const auto cs = graph_.islandContacts(isl);
    if (cs.empty()) continue;
    ++stats_.islands;
    // Approaching under w (the impact acts) or under w + h (the support projection acts).
    bool approaching = false;
    for (std::int32_t e : cs) {
      const SimContact& c = candidates_[u(constraints_[u(e)])];
      if (normalVelocity(c) < 0.0 || (half_ != Eigen::Vector3d::Zero() && normalVelocity(c, half_) < 0.0))
        approaching = true;
    }
    if (!approaching) continue;
    resolved_.push_back(isl);
    cost_.push_back(static_cast<double>(cs.size()));
    stats_.largestIsland = std::max<std::int64_t>(stats_.largestIsland, static_cast<std::int64_t>(cs.size()));
  }
  stats_.resolvedIslands = static_cast<std::int64_t>(resolved_.size());
  stats_.imbalance = assignIslands(cost_, comm_.size(), rankOf_, order_, load_);
}

void SimStepper::buildIslandSystem(int island, ImpactSystem& sys, Eigen::VectorXd& q0) {
  const auto bodies = graph_.islandBodies(island);
  const auto cs = graph_.islandContacts(island);
  for (std::int32_t b : bodies) {
    const SimBody& B = world_.bodies[u(b)];
    if (world_.dimension == 2) localOf_[u(b)] = sys.addBall2D(B.mass, B.x.head<2>());
    else if (B.rigid) localOf_[u(b)] = sys.addRigidBody(B.mass, B.inertiaWorld(), B.x);
    else localOf_[u(b)] = sys.addBall3D(B.mass, B.x);
  }
  const int n = world_.numBodies();
  const auto local = [&](int b) { return b < 0 || b >= n || world_.bodies[u(b)].isStatic ? -1 : localOf_[u(b)]; };
  for (std::int32_t e : cs) {
    const SimContact& c = candidates_[u(constraints_[u(e)])];
    sys.addContact(local(c.a), local(c.b), c.point, c.normal);
  }
  q0.resize(sys.dofs());
  for (std::int32_t b : bodies) {
    const SimBody& B = world_.bodies[u(b)];
    const Body& S = sys.body(localOf_[u(b)]);
    q0.segment(S.offset, std::min(S.dofs, 3)) = B.v.head(std::min(S.dofs, 3));
    if (S.dofs == 6) q0.segment<3>(S.offset + 3) = B.omega;
  }
}

bool SimStepper::distributedIsland(int island) const {
  const ImpactParams& P = options_.impact;
  return options_.distributedIslandContacts > 0 && comm_.size() > 1 && options_.backend &&
         options_.backend->distributed() && P.op == "gr" && P.restitution == 1.0 &&
         static_cast<std::int64_t>(graph_.islandContacts(island).size()) >= options_.distributedIslandContacts;
}

// Collective: every rank builds the same island system and resolves it together; the result is
// replicated, so the velocities are written directly (the island takes no part in the exchange).
SimStepper::IslandResult SimStepper::resolveDistributedIsland(int island) {
  ImpactSystem sys;
  Eigen::VectorXd q0;
  buildIslandSystem(island, sys, q0);
  const ImpactParams& P = options_.impact;
  DistributedGROptions o;
  o.arithmetic = P.resolver.arithmetic;
  o.epsilon = P.resolver.epsilon;
  o.renormalise = P.resolver.renormalise;
  o.maxIterations = P.resolver.maxIterations;
  const DistributedGRResult res = resolveDistributedGR(sys, q0, *options_.backend, comm_, o);
  IslandResult r;
  const Eigen::VectorXd qdot = finishIsland(sys, q0, res.qdot, res.impulse, P.operatorOptions, r);
  for (std::int32_t b : graph_.islandBodies(island)) {
    touched_[u(b)] = 1;
    const Body& S = sys.body(localOf_[u(b)]);
    SimBody& B = world_.bodies[u(b)];
    B.v = Eigen::Vector3d(qdot[S.offset], qdot[S.offset + 1], S.dofs >= 3 ? qdot[S.offset + 2] : 0.0);
    if (B.rigid && S.dofs == 6) B.omega = qdot.segment<3>(S.offset + 3);
    localOf_[u(b)] = -1;
  }
  r.iterations = res.stats.iterations;
  r.cap = res.stats.capReached;
  r.converged = res.stats.converged;
  return r;
}

Eigen::VectorXd SimStepper::finishIsland(const ImpactSystem& sys, const Eigen::VectorXd& q0, Eigen::VectorXd qdot,
                                         Eigen::VectorXd impulse, const OperatorOptions& oo, IslandResult& r) const {
  const ImpactParams& P = options_.impact;
  r.impactWork = sys.kineticEnergy(qdot) - sys.kineticEnergy(q0);
  // h on the translational DOFs of every body (2 for a disc, the first 3 of a ball or rigid body).
  Eigen::VectorXd h = Eigen::VectorXd::Zero(sys.dofs());
  if (half_ != Eigen::Vector3d::Zero())
    for (int k = 0; k < sys.numBodies(); ++k) {
      const Body& S = sys.body(k);
      if (S.dofs > 0) h.segment(S.offset, std::min(S.dofs, 3)) = half_.head(std::min(S.dofs, 3));
    }
  if (P.friction.mu > 0.0) {
    // Coulomb's bound is the step's whole normal impulse: the impact's plus the support the second
    // half kick will need, taken from a tentative support projection of w⁺ + h.
    if (half_ != Eigen::Vector3d::Zero() && minRelativeFeasibility(sys, qdot + h) < -P.resolver.epsilon) {
      const InelasticResult support = solveInelastic(sys, qdot + h, oo);
      if (support.lambda.size() == impulse.size()) impulse += support.lambda;
    }
    qdot = applyFriction(sys, qdot, impulse, P.friction).qdot;
    // One-way friction (paper section 6.3) changes the velocity of bodies with several contacts and
    // can make another of their constraints approaching again; a final inelastic projection
    // argmin ‖v − q̇‖_M s.t. Nᵀv ≥ 0 restores feasibility without adding energy. Friction acts on
    // the impact's result w⁺, before the second half kick: applied after it, its impulses (tangent
    // to tilted contacts, partly vertical) do work against the half kick and a settled pile creeps
    // with a steady energy gain (measured: +1e-5 J per step in a 60-disc pile; docs/modules/impact.md,
    // Energy).
    if (minRelativeFeasibility(sys, qdot) < -P.resolver.epsilon) qdot = solveInelastic(sys, qdot, oo).qdot;
  }
  if (half_ != Eigen::Vector3d::Zero()) {
    qdot += h;
    // The second half kick pressed a contact the impact left at rest (or barely separating): the
    // support projection, the inelastic QP of paper section 6.2 on the kicked velocity. A body
    // resting on a floor ends the step at rest exactly (no micro-bounce from the c_r blend).
    if (minRelativeFeasibility(sys, qdot) < -P.resolver.epsilon) {
      qdot = solveInelastic(sys, qdot, oo).qdot;
      r.supportProjection = true;
    }
  }
  // ΔH̃ of this island (sim_stepper.hpp): ½‖v⁺ − h‖²_M − ½‖w‖²_M.
  r.contactWork = sys.kineticEnergy(qdot - h) - sys.kineticEnergy(q0);
  return qdot;
}

SimStepper::IslandResult SimStepper::resolveIsland(int island, std::vector<double>& out) {
  // Allocation: ImpactSystem, the operator and the resolver results allocate per island (their
  // API has no reusable workspace); the simulator's own buffers are reused.
  const auto bodies = graph_.islandBodies(island);
  ImpactSystem sys;
  Eigen::VectorXd q0;
  buildIslandSystem(island, sys, q0);
  const ImpactParams& P = options_.impact;
  OperatorOptions oo = P.operatorOptions;
  oo.seed = P.operatorOptions.seed + 1000003ull * static_cast<std::uint64_t>(step_) + static_cast<std::uint64_t>(bodies[0]);
  ImpactOperatorPtr op = makeImpactOperator(P.op, oo);
  Resolver resolver(P.resolver);
  IslandResult r;
  Eigen::VectorXd qdot, impulse;
  if (P.restitution == 1.0) {
    ResolveResult res = resolver.resolve(sys, *op, q0);
    qdot = std::move(res.qdot);
    impulse = std::move(res.impulse);
    r.iterations = res.stats.iterations;
    r.cycle = res.stats.cycleDetected;
    r.cap = res.stats.capReached;
    r.converged = res.stats.converged;
    r.linealityDetections = res.stats.implicitEqualities > 0 ? 1 : 0;
    r.constraintsRemoved = res.stats.constraintsRemoved;
  } else {
    RestitutionResult res = resolveWithRestitution(sys, q0, P.restitution, *op, resolver, oo);
    qdot = std::move(res.qdot);
    impulse = std::move(res.impulse);
    r.qpConverged = res.qp.converged;
    const double scale = sys.normM(q0);
    r.qpResidual = scale > 0.0 ? res.qp.kktResidual / scale : 0.0;
    if (P.restitution > 0.0) {
      r.iterations = res.elasticStats.iterations;
      r.cycle = res.elasticStats.cycleDetected;
      r.cap = res.elasticStats.capReached;
      r.converged = res.elasticStats.converged;
      r.linealityDetections = res.elasticStats.implicitEqualities > 0 ? 1 : 0;
      r.constraintsRemoved = res.elasticStats.constraintsRemoved;
    }
  }
  qdot = finishIsland(sys, q0, std::move(qdot), std::move(impulse), oo, r);
  for (std::int32_t b : bodies) {
    const Body& S = sys.body(localOf_[u(b)]);
    double slot[kSlot] = {0, 0, 0, 0, 0, 0};
    for (int k = 0; k < S.dofs; ++k) slot[k] = qdot[S.offset + k];
    out.insert(out.end(), slot, slot + kSlot);
    localOf_[u(b)] = -1;
  }
  return r;
}

void SimStepper::resolveAll() {
  auto t0 = Clock::now();
  const int me = comm_.rank(), R = comm_.size();
  send_.clear();
  touched_.assign(world_.bodies.size(), 0);
  std::int64_t itMax = 0, itTotal = 0, cycles = 0, caps = 0, bad = 0, qpBad = 0, lineal = 0, removed = 0,
               support = 0;
  double qpResidual = 0.0, contactWork = 0.0, impactWork = 0.0;
  // Islands above the size threshold first, by every rank together (collective, same order on
  // every rank); their figures are added after the reductions below (they are already global).
  std::int64_t dItMax = 0, dItTotal = 0, dCaps = 0, dBad = 0, dSupport = 0;
  double dContactWork = 0.0, dImpactWork = 0.0;
  for (std::size_t k = 0; k < resolved_.size(); ++k) {
    if (!distributedIsland(resolved_[k])) continue;
    const IslandResult r = resolveDistributedIsland(resolved_[k]);
    ++stats_.distributedIslands;
    dItMax = std::max<std::int64_t>(dItMax, r.iterations);
    dItTotal += r.iterations;
    dCaps += r.cap ? 1 : 0;
    dBad += r.converged ? 0 : 1;
    dSupport += r.supportProjection ? 1 : 0;
    dContactWork += r.contactWork;
    dImpactWork += r.impactWork;
  }
  for (std::size_t k = 0; k < resolved_.size(); ++k) {
    if (rankOf_[k] != me || distributedIsland(resolved_[k])) continue;
    const IslandResult r = resolveIsland(resolved_[k], send_);
    itMax = std::max<std::int64_t>(itMax, r.iterations);
    itTotal += r.iterations;
    cycles += r.cycle ? 1 : 0;
    caps += r.cap ? 1 : 0;
    bad += r.converged ? 0 : 1;
    qpBad += r.qpConverged ? 0 : 1;
    lineal += r.linealityDetections;
    removed += r.constraintsRemoved;
    qpResidual = std::max(qpResidual, r.qpResidual);
    support += r.supportProjection ? 1 : 0;
    contactWork += r.contactWork;
    impactWork += r.impactWork;
  }
  stats_.secondsResolve += since(t0);
  t0 = Clock::now();
  // Exchange: rank r's block is its islands' bodies in island order (6 doubles each).
  counts_.assign(u(R), 0);
  for (std::size_t k = 0; k < resolved_.size(); ++k)
    if (!distributedIsland(resolved_[k]))
      counts_[u(rankOf_[k])] += kSlot * static_cast<int>(graph_.islandBodies(resolved_[k]).size());
  displs_.assign(u(R) + 1, 0);
  for (int r = 0; r < R; ++r) displs_[u(r) + 1] = displs_[u(r)] + counts_[u(r)];
  if (R == 1) {
    recv_.swap(send_);
  } else {
    recv_.resize(u(displs_[u(R)]));
    MPI_Allgatherv(send_.data(), static_cast<int>(send_.size()), MPI_DOUBLE, recv_.data(), counts_.data(),
                   displs_.data(), MPI_DOUBLE, comm_.raw());
  }
  std::vector<int>& cursor = order_;  // reuse: read position per rank
  cursor.assign(displs_.begin(), displs_.end() - 1);
  for (std::size_t k = 0; k < resolved_.size(); ++k) {
    if (distributedIsland(resolved_[k])) continue;
    int& at = cursor[u(rankOf_[k])];
    for (std::int32_t b : graph_.islandBodies(resolved_[k])) {
      SimBody& B = world_.bodies[u(b)];
      touched_[u(b)] = 1;
      const double* s = recv_.data() + at;
      B.v = Eigen::Vector3d(s[0], s[1], world_.dimension == 2 ? 0.0 : s[2]);
      if (B.rigid) B.omega = Eigen::Vector3d(s[3], s[4], s[5]);
      at += kSlot;
    }
  }
  if (R > 1) {
    itMax = comm_.max(itMax);
    itTotal = comm_.sum(itTotal);
    cycles = comm_.sum(cycles);
    caps = comm_.sum(caps);
    bad = comm_.sum(bad);
    qpBad = comm_.sum(qpBad);
    lineal = comm_.sum(lineal);
    removed = comm_.sum(removed);
    qpResidual = comm_.max(qpResidual);
    support = comm_.sum(support);
    contactWork = comm_.sum(contactWork);
    impactWork = comm_.sum(impactWork);
  }
  // Bodies of islands left alone get the second half kick here (those resolved got it in step 4):
  // v⁻ itself, so that free flight is bitwise the same under either kick order.
  if (half_ != Eigen::Vector3d::Zero())
    for (std::size_t k = 0; k < world_.bodies.size(); ++k)
      if (!touched_[k]) world_.bodies[k].v = vKicked_[k];
  stats_.iterationsMax = std::max({stats_.iterationsMax, itMax, dItMax});
  stats_.iterationsTotal += itTotal + dItTotal;
  stats_.cycles += cycles;
  stats_.caps += caps + dCaps;
  stats_.notConverged += bad + dBad;
  stats_.qpNotConverged += qpBad;
  stats_.linealityDetections += lineal;
  stats_.constraintsRemoved += removed;
  stats_.qpResidualMax = std::max(stats_.qpResidualMax, qpResidual);
  // The work of the last pass only: earlier passes were undone (the step restarts from w).
  stats_.supportProjections = support + dSupport;
  stats_.contactWork = contactWork + dContactWork;
  stats_.impactWork = impactWork + dImpactWork;
  stats_.secondsExchange += since(t0);
}

void SimStepper::checkFinite() const {
  for (int k = 0; k < world_.numBodies(); ++k) {
    const SimBody& b = world_.bodies[u(k)];
    if (!b.v.allFinite() || !b.omega.allFinite())
      throw Error(str("impact simulator: body ", k, " has a non-finite velocity (", b.v.transpose(), " | ",
                      b.omega.transpose(), ") in step ", step_ + 1,
                      "; check dt, masses and the resolver options"));
  }
}

void SimStepper::integrate() {
  const double dt = options_.dt;
  for (SimBody& b : world_.bodies) {
    if (b.isStatic) continue;
    b.x += dt * b.v;
    if (world_.dimension == 2) b.x[2] = 0.0;
    if (b.rigid) {
      const double w = b.omega.norm();
      if (w > 0.0) {
        const Eigen::Vector3d L = b.inertiaWorld() * b.omega;
        b.q = (Eigen::Quaterniond(Eigen::AngleAxisd(w * dt, b.omega / w)) * b.q).normalized();
        const Eigen::Matrix3d R = b.rotation();
        b.omega = R * (R.transpose() * L).cwiseQuotient(b.inertiaBody);
      }
    }
  }
}

const SimStepStats& SimStepper::step() {
  ScopedTimer timer("impact.step");
  stats_ = SimStepStats{};
  const double dt = options_.dt;
  half_ = options_.gravityKick == GravityKick::Split ? Eigen::Vector3d(0.5 * dt * world_.gravity) : Eigen::Vector3d::Zero();
  // w = v + (Δt g − h), the impact's pre-impact velocity (v⁻ itself under Before), kept for the
  // closure passes; ω has no gravity kick.
  vMinus_.resize(world_.bodies.size());
  omegaMinus_.resize(world_.bodies.size());
  const Eigen::Vector3d preKick = dt * world_.gravity - half_;
  for (std::size_t k = 0; k < world_.bodies.size(); ++k) {
    vMinus_[k] = world_.bodies[k].isStatic ? world_.bodies[k].v : Eigen::Vector3d(world_.bodies[k].v + preKick);
    omegaMinus_[k] = world_.bodies[k].omega;
  }
  // 1. kick: v⁻ = v + Δt g for the detection (the drift velocity if no contact acts).
  vKicked_.resize(world_.bodies.size());
  for (std::size_t k = 0; k < world_.bodies.size(); ++k) {
    SimBody& b = world_.bodies[k];
    if (!b.isStatic) b.v += dt * world_.gravity;
    vKicked_[k] = b.v;
  }
  checkFinite();
  // 2. detection
  auto t0 = Clock::now();
  detector_.detect(world_, dt, options_.contactTolerance, candidates_);
  stats_.candidates = static_cast<std::int64_t>(candidates_.size());
  constraintOf_.assign(candidates_.size(), -1);
  constraints_.clear();
  for (std::size_t k = 0; k < candidates_.size(); ++k) {
    stats_.maxPenetration = std::max(stats_.maxPenetration, -candidates_[k].distance);
    if (isConstraint(candidates_[k], dt)) {
      constraintOf_[k] = static_cast<int>(constraints_.size());
      constraints_.push_back(static_cast<int>(k));
    }
  }
  stats_.secondsDetect = since(t0);
  for (int pass = 0; pass < options_.closurePasses; ++pass) {
    if (pass > 0 || half_ != Eigen::Vector3d::Zero())
      for (std::size_t k = 0; k < world_.bodies.size(); ++k) {
        world_.bodies[k].v = vMinus_[k];
        world_.bodies[k].omega = omegaMinus_[k];
      }
    t0 = Clock::now();
    buildIslands();
    stats_.secondsIslands += since(t0);
    ++stats_.closurePasses;
    resolveAll();
    checkFinite();
    // 6. closure: contacts the new velocities would close within the step.
    std::int64_t added = 0;
    for (std::size_t k = 0; k < candidates_.size(); ++k)
      if (constraintOf_[k] < 0 && isConstraint(candidates_[k], dt)) {
        if (pass + 1 < options_.closurePasses) {
          constraintOf_[k] = static_cast<int>(constraints_.size());
          constraints_.push_back(static_cast<int>(k));
        }
        ++added;
      }
    if (added == 0) break;
    if (pass + 1 == options_.closurePasses) stats_.unresolvedClosures = added;
  }
  stats_.constraints = static_cast<std::int64_t>(constraints_.size());
  // 7. drift
  t0 = Clock::now();
  integrate();
  world_.time += dt;
  ++step_;
  stats_.secondsIntegrate = since(t0);
  if (comm_.size() > 1) {
    for (double* s : {&stats_.secondsDetect, &stats_.secondsIslands, &stats_.secondsResolve, &stats_.secondsExchange,
                      &stats_.secondsIntegrate})
      *s = comm_.max(*s);
  }
  return stats_;
}

}  // namespace kinema::impact

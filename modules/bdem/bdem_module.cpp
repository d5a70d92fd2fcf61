#include "modules/bdem/bdem_module.hpp"

#include <algorithm>
#include <cmath>

#include "framework/core/error.hpp"
#include "framework/core/log.hpp"
#include "framework/la/distributed_backends.hpp"
#include "framework/solvers/manifold_rigid.hpp"
#include "modules/bdem/explicit_stepper.hpp"
#include "modules/bdem/fracture.hpp"
#include "modules/bdem/fragments.hpp"
#include "modules/bdem/implicit_stepper.hpp"
#include "modules/bdem/incremental_potential.hpp"
#include "modules/bdem/lattice_calibration.hpp"
#include "modules/bdem/loads.hpp"
#include "modules/bdem/particle_sets.hpp"
#include "modules/bdem/supports.hpp"
#include "modules/bdem/scene_params.hpp"

namespace kinema::bdem {

namespace {

constexpr int kCheckpointState = 14;  // p (3), q (4), v (3), qdot (4) per particle

// Energies, momenta and penetration of the current state (README decision 43: T-R, T-C); collective.
struct Measures {
  double kinetic = 0, potential = 0;
  Vec3 momentum = Vec3::Zero(), angularMomentum = Vec3::Zero();
  double maxPenetration = 0, maxPenetrationOverR = 0;
};

// World angular velocity of a particle: (omega, 0) = 2 qdot (x) conj(q) (README decision 43: T-D3).
Vec3 angularVelocity(const Vec4& q, const Vec4& qdot) {
  const Vec4 qc(-q[0], -q[1], -q[2], q[3]);
  const Vec4 w = 2.0 * solvers::RigidManifold::multiply(qdot, qc);
  return w.head<3>();
}

// Solver work and contacts of one runner step's substeps: summed, the last substep's, or the worst.
struct SubstepTotals {
  long newton = 0, linear = 0, trials = 0, broken = 0, pairs = 0, obst = 0;
  bool converged = true;
  double measure = 0;
  StepPhases phases;  // seconds by phase over the substeps (implicit_stepper.hpp)

  // Adds one substep; the explicit integrator (implicit = false) always counts as converged.
  void add(const StepStats& st, bool implicit) {
    phases += st.phases;
    newton += st.newtonIterations;
    linear += st.linearIterations;
    trials += st.lineSearchTrials;
    broken += st.bondsBroken;
    pairs = st.activePairContacts;
    obst = st.activeObstacleContacts;
    converged = converged && (st.converged || !implicit);
    measure = std::max(measure, st.measure);
  }
};

// Energies, momenta and penetration of the current state from the diagnostics' terms T and contact
// candidates; collective.
Measures measureState(const System& s, const IncrementalPotential& diag, const PotentialTerms& T, const Comm& comm) {
  Measures m;
  double pen = 0, penR = 0;
  const Particles& P = s.P;
  for (std::size_t a = 0; a < P.numOwned; ++a) {
    const Vec3 w = angularVelocity(P.q[a], P.qdot[a]);
    const double I = 0.4 * P.m[a] * P.r[a] * P.r[a];
    m.kinetic += 0.5 * P.m[a] * P.v[a].squaredNorm() + 0.5 * I * w.squaredNorm();
    m.momentum += P.m[a] * P.v[a];
    m.angularMomentum += P.p[a].cross(P.m[a] * P.v[a]) + I * w;
    if (s.contact.enabled)
      for (const Obstacle& o : s.obstacles) {
        const double d = P.r[a] - o.distance(P.p[a], s.time);
        pen = std::max(pen, d);
        penR = std::max(penR, d / P.r[a]);
      }
  }
  for (const ContactCandidate& cc : diag.candidates()) {
    const double d = P.r[cc.i] + P.r[cc.j] - (P.p[cc.i] - P.p[cc.j]).norm();
    pen = std::max(pen, d);
    penR = std::max(penR, d / std::min(P.r[cc.i], P.r[cc.j]));
  }
  m.kinetic = comm.sum(m.kinetic);
  m.potential = T.total() - T.inertia;
  for (int k = 0; k < 3; ++k) {
    m.momentum[k] = comm.sum(m.momentum[k]);
    m.angularMomentum[k] = comm.sum(m.angularMomentum[k]);
  }
  m.maxPenetration = comm.max(pen);
  m.maxPenetrationOverR = comm.max(penR);
  return m;
}

// The values of one runner step's diagnostics row (all global except the phase seconds).
struct RowValues {
  const Measures& m;
  double bondEnergy;
  const SubstepTotals& sub;
  long alive, bonds0;
  double fragments, largest, split;  // -1 where the fragments were not computed at this step
  long ghosts;
};

// Appends the bdem columns of the diagnostics row, in their fixed order.
void appendColumns(io::Diagnostics::Row& row, const RowValues& v) {
  const auto d = [](long x) { return static_cast<double>(x); };
  const Measures& m = v.m;
  const StepPhases& phases = v.sub.phases;
  const io::Diagnostics::Row mine = {{"kinetic_energy", m.kinetic},
                                     {"potential_energy", m.potential},
                                     {"total_energy", m.kinetic + m.potential},
                                     {"bond_energy", v.bondEnergy},
                                     {"momentum_x", m.momentum[0]},
                                     {"momentum_y", m.momentum[1]},
                                     {"momentum_z", m.momentum[2]},
                                     {"angular_momentum_x", m.angularMomentum[0]},
                                     {"angular_momentum_y", m.angularMomentum[1]},
                                     {"angular_momentum_z", m.angularMomentum[2]},
                                     {"newton_iterations", d(v.sub.newton)},
                                     {"linear_iterations", d(v.sub.linear)},
                                     {"line_search_trials", d(v.sub.trials)},
                                     {"converged", v.sub.converged ? 1.0 : 0.0},
                                     {"measure", v.sub.measure},
                                     {"bonds_alive", d(v.alive)},
                                     {"bonds_broken", d(v.bonds0 - v.alive)},
                                     {"bonds_broken_step", d(v.sub.broken)},
                                     {"active_pair_contacts", d(v.sub.pairs)},
                                     {"active_obstacle_contacts", d(v.sub.obst)},
                                     {"fragments", v.fragments},
                                     {"largest_fragment", v.largest},
                                     {"split", v.split},
                                     {"max_penetration", m.maxPenetration},
                                     {"max_penetration_over_r", m.maxPenetrationOverR},
                                     {"ghosts", d(v.ghosts)},
                                     // Wall seconds by phase on this rank (rank 0's row), summed over the substeps.
                                     {"time_step", phases.step},
                                     {"time_energy", phases.newton.energy},
                                     {"time_gradient", phases.newton.gradient},
                                     {"time_assemble", phases.newton.assemble},
                                     {"time_pc_setup", phases.newton.preconditioner},
                                     {"time_krylov", phases.newton.krylov},
                                     {"time_line_search", phases.newton.lineSearch},
                                     {"time_contact", phases.contact},
                                     {"time_friction", phases.friction},
                                     {"time_fracture", phases.fracture}};
  row.insert(row.end(), mine.begin(), mine.end());
}

}  // namespace

BdemModule::BdemModule() = default;
BdemModule::~BdemModule() = default;

void BdemModule::declare(ParamSchema& schema) { declareBdemParams(schema); }

void BdemModule::setup(run::RunContext& ctx) {
  const Config& c = ctx.config;
  p_ = readBdemParams(c);
  backend_ = &ctx.backend;
  generator_ = c.getString("bdem.scene.generator");
  la::requireDistributedBackend(ctx.backend, ctx.comm.size(), "bdem");
  s_ = buildScene(c, kSceneGroup);
  applyModelParams(p_, s_);
  if (packedGenerator(generator_) && c.getString("bdem.scene.material.calibration") == "lattice") {
    const Lattice lattice = parseLattice(c.getString("bdem.scene.lattice"));
    const LatticeCalibration cal = calibrateLattice(lattice, s_.materials[0], s_.model);
    applyLatticeCalibration(s_, cal);
    log::info("bdem: ", toString(lattice), " lattice calibrated to E = ", cal.after.young(Vec3::UnitX()),
              " Pa along x (", cal.after.young(Vec3::UnitZ()), " along z): bond stiffnesses and strengths x ",
              cal.stiffnessScale, ", masses x ", cal.massScale, "; the lattice's Poisson ratio is ",
              cal.after.poisson(Vec3::UnitX(), Vec3::UnitY()), " (xy), ", cal.after.poisson(Vec3::UnitX(), Vec3::UnitZ()), " (xz)");
  }
  if (s_.P.size() == 0) throw InputError(str(c.where("bdem.scene.generator"), ": bdem.scene: the scene has no particles"));
  dt_ = p_.dt > 0 ? p_.dt : stableStep(s_);
  if (!(dt_ > 0) || !std::isfinite(dt_))
    throw InputError(str(c.where("bdem.dt"), ": bdem.dt: cannot use a time step of ", dt_));
  // Particle sets, supports, loads and probes on the whole scene (every bad entry stops here,
  // before any step): supports become Dirichlet DOFs before the distribution.
  const ParticleSets sets = readParticleSets(c, s_);
  applySupports(c, sets, s_, dt_);
  const std::vector<Vec3> sceneLoads = readLoads(c, sets, s_);
  probes_.read(c, sets);
  const double frame = dt_ * p_.substeps;
  steps_ = p_.steps > 0 ? p_.steps : std::max(1L, static_cast<long>(std::ceil(p_.endTime / frame - 1e-9)));
  bonds0_ = static_cast<long>(s_.bonds.size());

  domain_ = std::make_unique<Domain>(ctx.comm);
  domain_->distribute(s_, ghostReach(s_, Comm::self(), p_.integrator.contactPadding, dt_));
  s_.load = localLoads(sceneLoads, domain_->sceneIds());
  probes_.bind(domain_->sceneIds());
  restarted_ = false;
  {
    const std::size_t n = s_.P.numOwned;
    restP_.assign(s_.P.p.begin(), s_.P.p.begin() + static_cast<std::ptrdiff_t>(n));
    restV_.assign(s_.P.v.begin(), s_.P.v.begin() + static_cast<std::ptrdiff_t>(n));
    restQ_.assign(s_.P.q.begin(), s_.P.q.begin() + static_cast<std::ptrdiff_t>(n));
    restQdot_.assign(s_.P.qdot.begin(), s_.P.qdot.begin() + static_cast<std::ptrdiff_t>(n));
  }
  if (p_.integrator.integrator == "implicit")
    implicit_ = std::make_unique<ImplicitStepper>(s_, *domain_, ctx.backend, p_.integrator);
  else
    explicit_ = std::make_unique<ExplicitStepper>(s_, *domain_, ctx.backend, p_.integrator);
  diag_ = std::make_unique<IncrementalPotential>(s_, ctx.comm, p_.integrator);
  diag_->setInertia(false);
  stepsDone_ = 0;
  fractureStep_ = -1;
  fractureTime_ = -1;

  // Initial energy (kinetic + potential), for the summary.
  domain_->exchangeState(s_);
  diag_->beginStep(dt_);
  diag_->setObstacleTime(s_.time);
  if (!diagX_ || diagMap_ != domain_->pointMap()) {
    diagMap_ = domain_->pointMap();
    diagX_ = ctx.backend.createVector(diagMap_);
  }
  diag_->gather(*diagX_);
  const PotentialTerms T = diag_->terms(*diagX_);
  double ke = 0;
  for (std::size_t a = 0; a < s_.P.numOwned; ++a)
    ke += 0.5 * s_.P.m[a] * s_.P.v[a].squaredNorm() +
          0.5 * 0.4 * s_.P.m[a] * s_.P.r[a] * s_.P.r[a] * angularVelocity(s_.P.q[a], s_.P.qdot[a]).squaredNorm();
  energy0_ = ctx.comm.sum(ke) + T.total() - T.inertia;
  energyLast_ = energy0_;
  log::info("bdem: ", generator_, ", ", domain_->globalParticles(), " particles, ", bonds0_, " bonds, ",
            s_.obstacles.size(), " obstacles, ", s_.grips.size(), " grips; ", p_.integrator.integrator,
            p_.integrator.integrator == "implicit" ? " (" + p_.integrator.solver + ")" : std::string(), ", dt ", dt_,
            " x ", p_.substeps, " substeps, ", steps_, " steps, ", ctx.comm.size(), ctx.comm.size() == 1 ? " rank" : " ranks",
            " on ", ctx.backend.name());
}

StepStats BdemModule::advance(double dt) {
  if (!implicit_) return explicit_->step(dt);
  // A fresh Hessian pattern every step: the matrix (and the order in which a distributed backend
  // sums its off-rank columns) then depends on the current state only (README decision 12). With
  // the pattern kept, it is still renewed at the first step after each checkpoint: a run restarted
  // from that checkpoint builds its first pattern (and preconditioner) at that step too, so the
  // restart reproduces the uninterrupted run bitwise on every backend either way. (The ghost
  // rebuild of prepareCheckpoint gives Newton a new point map, hence a new assembler, as well;
  // the reset says so here rather than leaving it to that side effect.)
  if (p_.freshPattern || patternResetPending_) implicit_->newton().resetPattern();
  patternResetPending_ = false;
  return implicit_->step(dt);
}

void BdemModule::step(run::RunContext& ctx, io::Diagnostics::Row& row) {
  const Comm& comm = ctx.comm;
  SubstepTotals sub;
  for (int k = 0; k < p_.substeps; ++k) sub.add(advance(dt_), implicit_ != nullptr);
  ++stepsDone_;
  newtonTotal_ += sub.newton;
  linearTotal_ += sub.linear;
  trialsTotal_ += sub.trials;
  notConverged_ += sub.converged ? 0 : 1;

  // Energies, momenta and penetration at the new state.
  domain_->exchangeState(s_);
  diag_->beginStep(dt_);
  diag_->setObstacleTime(s_.time);
  if (!diagX_ || diagMap_ != domain_->pointMap()) {
    diagMap_ = domain_->pointMap();
    diagX_ = backend_->createVector(diagMap_);
  }
  diag_->gather(*diagX_);
  const PotentialTerms T = diag_->terms(*diagX_);
  const Measures m = measureState(s_, *diag_, T, comm);
  energyLast_ = m.kinetic + m.potential;

  const long alive = static_cast<long>(comm.sum(static_cast<std::int64_t>(s_.aliveBonds())));
  double fragments = -1, largest = -1, split = -1;
  if (p_.fragmentsEvery > 0 && stepsDone_ % p_.fragmentsEvery == 0) {
    std::vector<GlobalId> labels;
    const FragmentStats fs = computeFragments(s_, comm, domain_->globalParticles(), &labels);
    const bool isSplit = fractureSplit(s_, comm, fs, labels);
    fragments = static_cast<double>(fs.count);
    largest = static_cast<double>(fs.largest);
    split = isSplit ? 1.0 : 0.0;
    lastFragments_ = fs.count;
    if (isSplit && fractureStep_ < 0) {
      fractureStep_ = stepsDone_;
      fractureTime_ = s_.time;
    }
  }
  const Particles& P = s_.P;
  const long ghosts = comm.sum(static_cast<std::int64_t>(P.size() - P.numOwned));
  appendColumns(row, {m, T.bonds, sub, alive, bonds0_, fragments, largest, split, ghosts});

  // Probes (probes.hpp): the support forces need grad V on the Dirichlet particles.
  if (!probes_.empty()) {
    if (!diagG_ || diagGMap_ != diagMap_) {
      diagGMap_ = diagMap_;
      diagG_ = backend_->createVector(solvers::RigidManifold().tangentMap(diagMap_));
    }
    diag_->supportGradient(*diagX_, *diagG_);
    la::Vector::ConstView gv = diagG_->constView();
    probes_.addColumns(s_, gv.data(), s_.load, comm, row);
  }
}

std::vector<double> BdemModule::aliveBondsPerParticle() const {
  const Particles& P = s_.P;
  const Comm& comm = domain_->comm();
  std::vector<double> count(P.size(), 0.0);
  for (const Bond& b : s_.bonds)
    if (b.alive) {
      count[static_cast<std::size_t>(b.i)] += 1;
      count[static_cast<std::size_t>(b.j)] += 1;
    }
  std::vector<std::vector<std::int64_t>> send(static_cast<std::size_t>(comm.size()));
  for (std::size_t a = P.numOwned; a < P.size(); ++a)
    if (count[a] > 0) {
      auto& buf = send[static_cast<std::size_t>(domain_->ownerOf(P.gid[a]))];
      buf.push_back(P.gid[a]);
      buf.push_back(static_cast<std::int64_t>(count[a]));
    }
  const auto recv = comm.alltoallv(send);
  count.resize(P.numOwned);
  for (const auto& buf : recv)
    for (std::size_t k = 0; k + 1 < buf.size(); k += 2)
      count[static_cast<std::size_t>(buf[k] - domain_->ownedBegin())] += static_cast<double>(buf[k + 1]);
  return count;
}

// Before every checkpoint (by step count, by wall time, at the end or on a signal: the runner
// decides) the ghost layer is chosen afresh from the state, as after loading that checkpoint: the
// restarted run then continues with the same ghosts (bitwise restarts).
void BdemModule::prepareCheckpoint(run::RunContext& ctx) {
  domain_->rebuildGhosts(s_, ghostReach(s_, ctx.comm, p_.integrator.contactPadding, dt_));
}

void BdemModule::writeFrame(run::RunContext& ctx, io::FrameWriter& frames) {
  // The first frame of a fresh run is the state at t = 0 (the rest state): written from the
  // snapshot of setup, with every bond alive, before the frame that is due.
  if (!restarted_ && frames.frames() == 0 && restP_.size() == s_.P.numOwned) {
    Particles& P = s_.P;
    const std::size_t n = P.numOwned;
    std::vector<char> alive(s_.bonds.size());
    for (std::size_t k = 0; k < s_.bonds.size(); ++k) {
      alive[k] = s_.bonds[k].alive ? 1 : 0;
      s_.bonds[k].alive = true;
    }
    for (std::size_t a = 0; a < n; ++a) {
      std::swap(P.p[a], restP_[a]);
      std::swap(P.v[a], restV_[a]);
      std::swap(P.q[a], restQ_[a]);
      std::swap(P.qdot[a], restQdot_[a]);
    }
    emitFrame(ctx, frames, 0.0);
    for (std::size_t a = 0; a < n; ++a) {
      std::swap(P.p[a], restP_[a]);
      std::swap(P.v[a], restV_[a]);
      std::swap(P.q[a], restQ_[a]);
      std::swap(P.qdot[a], restQdot_[a]);
    }
    for (std::size_t k = 0; k < s_.bonds.size(); ++k) s_.bonds[k].alive = alive[k] != 0;
  }
  emitFrame(ctx, frames, time());
}

// This rank's owned particles (the rows of its frames).
void BdemModule::exportState(run::StateArrays& out) const {
  const Particles& P = s_.P;
  const std::size_t n = P.numOwned;
  std::vector<double> x(3 * n), v(3 * n), q(4 * n), r(n), m(n);
  std::vector<std::int64_t> gid(n);
  for (std::size_t a = 0; a < n; ++a) {
    for (int k = 0; k < 3; ++k) {
      x[3 * a + k] = P.p[a][k];
      v[3 * a + k] = P.v[a][k];
    }
    for (int k = 0; k < 4; ++k) q[4 * a + k] = P.q[a][k];
    r[a] = P.r[a];
    m[a] = P.m[a];
    gid[a] = static_cast<std::int64_t>(P.gid[a]);
  }
  out.add("positions", x, 3);
  out.add("velocities", v, 3);
  out.add("orientations", q, 4);
  out.add("radius", r);
  out.add("masses", m);
  out.add("particle_id", std::span<const std::int64_t>(gid));
  std::int64_t alive = 0;
  for (const Bond& b : s_.bonds) alive += b.alive ? 1 : 0;
  out.addScalar("bonds_alive", static_cast<double>(alive));
}

void BdemModule::emitFrame(run::RunContext& ctx, io::FrameWriter& frames, double t) {
  const Particles& P = s_.P;
  const std::size_t n = P.numOwned;
  positions_.resize(3 * n);
  displacement_.resize(3 * n);
  velocity_.resize(3 * n);
  quaternion_.resize(4 * n);
  radius_.resize(n);
  gid_.resize(n);
  sceneId_.resize(n);
  for (std::size_t a = 0; a < n; ++a) {
    for (int k = 0; k < 3; ++k) {
      positions_[3 * a + k] = P.p[a][k];
      displacement_[3 * a + k] = P.p[a][k] - P.pRef[a][k];
      velocity_[3 * a + k] = P.v[a][k];
    }
    for (int k = 0; k < 4; ++k) quaternion_[4 * a + k] = P.q[a][k];
    radius_[a] = P.r[a];
    gid_[a] = static_cast<double>(P.gid[a]);
    sceneId_[a] = static_cast<double>(domain_->sceneIds()[a]);
  }
  bondsAlive_ = aliveBondsPerParticle();
  std::vector<GlobalId> labels;
  computeFragments(s_, ctx.comm, domain_->globalParticles(), &labels);
  fragmentId_.assign(labels.begin(), labels.end());
  // Ids and counts are integers.
  const auto ints = [](const std::vector<double>& v) {
    std::vector<std::int64_t> out(v.size());
    for (std::size_t k = 0; k < v.size(); ++k) out[k] = static_cast<std::int64_t>(v[k]);
    return out;
  };
  // The bonds as line cells between global particle indices (every bond is held by one rank),
  // with their state: alive (1/0) and the stress ratio max(sigma / sigma_c, tau / tau_c) of the
  // fracture criterion (fracture.hpp; 1 breaks). The rest frame (swapped-in owned state, ghosts at
  // the current state) is unstressed by definition: ratio 0.
  const bool restFrame = !restarted_ && frames.frames() == 0 && restP_.size() == P.numOwned;
  std::vector<std::int64_t> bondEnds, bondAlive;
  std::vector<double> bondRatio;
  bondEnds.reserve(2 * s_.bonds.size());
  for (const Bond& b : s_.bonds) {
    bondEnds.insert(bondEnds.end(), {b.gi, b.gj});
    bondAlive.push_back(b.alive ? 1 : 0);
    double ratio = 0;
    if (b.alive && !restFrame) {
      const auto i = static_cast<std::size_t>(b.i), j = static_cast<std::size_t>(b.j);
      const BondStress st = bondStress(b, s_.model, P.p[i], P.q[i], P.p[j], P.q[j]);
      ratio = std::max(st.sigma / b.sigmaC, st.tau / b.tauC);
    }
    bondRatio.push_back(ratio);
  }
  io::PointSet points;
  points.globalCount = domain_->globalParticles();
  points.rowOffset = domain_->ownedBegin();
  points.positions = positions_;
  frames.beginFrame(t, points);
  frames.addField("radius", radius_, 1, "m");
  frames.addField("displacement", displacement_, 3, "m");
  frames.addField("velocity", velocity_, 3, "m/s");
  frames.addField("quaternion", quaternion_, 4, "1");
  frames.addField("gid", std::span<const std::int64_t>(ints(gid_)));
  frames.addField("scene_id", std::span<const std::int64_t>(ints(sceneId_)));
  frames.addField("bonds", std::span<const std::int64_t>(ints(bondsAlive_)));
  frames.addField("fragment", std::span<const std::int64_t>(ints(fragmentId_)));
  frames.addCells("bonds", io::CellType::line, bondEnds);
  frames.addCellField("bonds", "alive", std::span<const std::int64_t>(bondAlive));
  frames.addCellField("bonds", "stress_ratio", bondRatio, 1, "1");
  frames.endFrame();
}

// Per particle, in global order: p, q, v, qdot (dataset /bdem/state, N x 14); broken bonds as
// global index pairs (/bdem/dead_bonds, D x 2); scalars. The global numbering depends on the
// scene only (domain.hpp), so any rank count can read it back.
void BdemModule::saveCheckpoint(run::RunContext& ctx, io::CheckpointWriter& out) const {
  const Comm& comm = ctx.comm;
  patternResetPending_ = true;
  const Particles& P = s_.P;
  out.writeString("bdem_generator", generator_);
  out.writeInt("bdem_particles", domain_->globalParticles());
  out.writeInt("bdem_bonds0", bonds0_);
  out.writeInt("bdem_step", stepsDone_);
  out.writeReal("bdem_time", s_.time);
  out.writeReal("bdem_dt", dt_);
  out.writeReal("bdem_energy0", energy0_);
  out.writeArray("bdem_totals", std::vector<double>{static_cast<double>(newtonTotal_), static_cast<double>(linearTotal_),
                                                    static_cast<double>(trialsTotal_), static_cast<double>(notConverged_),
                                                    static_cast<double>(fractureStep_), fractureTime_});
  std::vector<double> state;
  state.reserve(P.numOwned * kCheckpointState);
  for (std::size_t a = 0; a < P.numOwned; ++a) {
    for (int k = 0; k < 3; ++k) state.push_back(P.p[a][k]);
    for (int k = 0; k < 4; ++k) state.push_back(P.q[a][k]);
    for (int k = 0; k < 3; ++k) state.push_back(P.v[a][k]);
    for (int k = 0; k < 4; ++k) state.push_back(P.qdot[a][k]);
  }
  auto& f = out.file();
  f.writeSlab("/bdem/state",
              {static_cast<std::uint64_t>(domain_->globalParticles()), static_cast<std::uint64_t>(kCheckpointState)},
              static_cast<std::uint64_t>(domain_->ownedBegin()), state);
  std::vector<std::int64_t> dead;
  for (const Bond& b : s_.bonds)
    if (!b.alive) {
      dead.push_back(b.gi);
      dead.push_back(b.gj);
    }
  const std::int64_t rows = static_cast<std::int64_t>(dead.size() / 2);
  const std::int64_t total = comm.sum(rows), offset = comm.exscan(rows);
  out.writeInt("bdem_dead_bonds", total);
  if (total > 0)
    f.writeSlab("/bdem/dead_bonds", {static_cast<std::uint64_t>(total), 2}, static_cast<std::uint64_t>(offset), dead);
}

void BdemModule::loadCheckpoint(run::RunContext&, const io::CheckpointReader& in) {
  const std::string where = in.path();
  if (in.readString("bdem_generator") != generator_ || in.readInt("bdem_particles") != domain_->globalParticles() ||
      in.readInt("bdem_bonds0") != bonds0_)
    throw InputError(str(where, ": checkpoint of a ", in.readString("bdem_generator"), " scene with ",
                         in.readInt("bdem_particles"), " particles and ", in.readInt("bdem_bonds0"),
                         " bonds, but the scene is ", generator_, " with ", domain_->globalParticles(), " particles and ",
                         bonds0_, " bonds"));
  restarted_ = true;  // the frames so far (the rest frame included) are the checkpoint's
  stepsDone_ = static_cast<long>(in.readInt("bdem_step"));
  s_.time = in.readReal("bdem_time");
  energy0_ = in.readReal("bdem_energy0");
  const std::vector<double> t = in.readArray("bdem_totals");
  if (t.size() != 6) throw InputError(str(where, ": bdem_totals has ", t.size(), " entries, expected 6"));
  newtonTotal_ = static_cast<long>(t[0]);
  linearTotal_ = static_cast<long>(t[1]);
  trialsTotal_ = static_cast<long>(t[2]);
  notConverged_ = static_cast<long>(t[3]);
  fractureStep_ = static_cast<long>(t[4]);
  fractureTime_ = t[5];
  Particles& P = s_.P;
  const std::vector<double> state =
      in.file().readSlab("/bdem/state", static_cast<std::uint64_t>(domain_->ownedBegin()), P.numOwned);
  if (state.size() != P.numOwned * kCheckpointState)
    throw InputError(str(where, ": /bdem/state holds ", state.size(), " values for ", P.numOwned, " particles x ",
                         kCheckpointState));
  for (std::size_t a = 0; a < P.numOwned; ++a) {
    const double* x = state.data() + kCheckpointState * a;
    P.p[a] = Vec3(x[0], x[1], x[2]);
    P.q[a] = Vec4(x[3], x[4], x[5], x[6]);
    P.v[a] = Vec3(x[7], x[8], x[9]);
    P.qdot[a] = Vec4(x[10], x[11], x[12], x[13]);
  }
  for (Bond& b : s_.bonds) b.alive = true;
  if (in.readInt("bdem_dead_bonds") > 0) {
    const std::vector<std::int64_t> dead = in.file().readAllInt("/bdem/dead_bonds");
    std::vector<std::pair<GlobalId, GlobalId>> pairs;
    for (std::size_t k = 0; k + 1 < dead.size(); k += 2) pairs.emplace_back(dead[k], dead[k + 1]);
    std::sort(pairs.begin(), pairs.end());
    for (Bond& b : s_.bonds)
      if (std::binary_search(pairs.begin(), pairs.end(), std::make_pair(b.gi, b.gj))) b.alive = false;
  }
  domain_->rebuildGhosts(s_, ghostReach(s_, domain_->comm(), p_.integrator.contactPadding, dt_));
}

std::string BdemModule::summary() const {
  if (!domain_) return "";
  const Comm& comm = domain_->comm();
  const long alive = static_cast<long>(comm.sum(static_cast<std::int64_t>(s_.aliveBonds())));
  const double steps = std::max(1.0, static_cast<double>(stepsDone_ * p_.substeps));
  std::string s = str("bdem: ", generator_, ", ", domain_->globalParticles(), " particles; ", stepsDone_ * p_.substeps,
                      " time steps of ", dt_, " s to t = ", s_.time, "; ");
  if (implicit_)
    s += str("Newton iterations ", static_cast<double>(newtonTotal_) / steps, " per step, CG ",
             static_cast<double>(linearTotal_) / steps, " per step, ", notConverged_, " unconverged steps; ");
  if (implicit_) {  // seconds by phase on rank 0, all steps (implicit_stepper.hpp StepPhases)
    const StepPhases& t = implicit_->phaseTotals();
    s += str("time ", t.step, " s: assemble ", t.newton.assemble, ", energy ", t.newton.energy, ", gradient ",
             t.newton.gradient, ", preconditioner set-up ", t.newton.preconditioner, ", Krylov ", t.newton.krylov,
             ", line search ", t.newton.lineSearch, ", contact ", t.contact, ", fracture ", t.fracture, ", friction ",
             t.friction, "; ");
  }
  s += str("bonds broken ", bonds0_ - alive, " of ", bonds0_);
  if (lastFragments_ >= 0) s += str(", fragments ", lastFragments_);
  if (fractureStep_ >= 0) s += str(", first split (fragments.hpp) at step ", fractureStep_, ", t = ", fractureTime_);
  s += str("; energy ", energy0_, " -> ", energyLast_);
  return s;
}

}  // namespace kinema::bdem

#include "modules/bdem/implicit_stepper.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "framework/core/error.hpp"
#include "framework/core/log.hpp"
#include "modules/bdem/constrained_formulations.hpp"
#include "modules/bdem/fracture.hpp"
#include "modules/bdem/friction.hpp"
#include "modules/bdem/grips.hpp"

namespace kinema::bdem {

void checkFiniteState(const System& s, const Comm& comm, long step, double time, const std::string& what) {
  bool bad = false;
  std::size_t where = 0;
  for (std::size_t a = 0; a < s.P.numOwned && !bad; ++a)
    if (!s.P.p[a].allFinite() || !s.P.q[a].allFinite() || !s.P.v[a].allFinite() || !s.P.qdot[a].allFinite()) {
      bad = true;
      where = a;
    }
  if (comm.any(bad))
    throw Error(str("bdem: non-finite particle state ", what, " at step ", step, " (t = ", time, ")",
                    bad ? str(", particle ", s.P.gid[where]) : std::string()));
}

long breakBonds(System& s, const Comm& comm) {
  long broken = 0;
  for (Bond& b : s.bonds) {
    if (!b.alive) continue;
    const auto i = static_cast<std::size_t>(b.i), j = static_cast<std::size_t>(b.j);
    const BondStress st = bondStress(b, s.model, s.P.p[i], s.P.q[i], s.P.p[j], s.P.q[j]);
    if (st.breaks(b)) {  // Eqs. 12-13, all bonds over threshold in one pass (Alg. 3 line 20)
      b.alive = false;
      ++broken;
    }
  }
  return static_cast<long>(comm.sum(static_cast<std::int64_t>(broken)));
}

double ghostReach(const System& s, const Comm& comm, double padding, double dt) {
  double rmax = 0, vmax = 0;
  for (std::size_t a = 0; a < s.P.numOwned; ++a) {
    rmax = std::max(rmax, s.P.r[a]);
    vmax = std::max(vmax, s.P.v[a].norm());
  }
  return 2.0 * comm.max(rmax) * (1.0 + padding) + 2.0 * comm.max(vmax) * dt;
}

ImplicitStepper::ImplicitStepper(System& s, Domain& domain, const la::Backend& backend, IntegratorOptions options)
    : s_(s), domain_(domain), backend_(backend), opt_(std::move(options)) {
  const std::string& v = opt_.solver;
  if (v != "newton" && v != "first_order" && v != "penalty" && v != "augmented_lagrangian" && v != "lagrange")
    throw InputError(str("bdem: unknown implicit solver '", v,
                         "' (newton, first_order, penalty, augmented_lagrangian, lagrange)"));
  if (!(opt_.tolerance > 0)) throw InputError(str("bdem: tolerance must be positive, got ", opt_.tolerance));
  // The Lagrange formulation's KKT matrix (Eq. 37) is an indefinite saddle point: it is solved with
  // bdem.kkt_solver, no preconditioner and a relative tolerance of kKktRtol (solveLagrange). The
  // user's linear options that this overrides are reported, not silently dropped.
  const la::LinearSolverOptions& lin = opt_.newton.linear;
  if (v == "lagrange" && (lin.type != opt_.kktSolver || lin.preconditioner != "none" || lin.rtol != kKktRtol))
    log::info("bdem: solver lagrange solves its saddle-point KKT system (Eq. 37) with bdem.kkt_solver = ",
              opt_.kktSolver, ", no preconditioner and rtol ", kKktRtol, "; bdem.newton.linear.type = ", lin.type,
              ", preconditioner = ", lin.preconditioner, " and rtol = ", lin.rtol, " are not used");
  potential_ = std::make_unique<IncrementalPotential>(s_, domain_.comm(), opt_);
  solvers::NewtonOptions no = opt_.newton;
  no.gtolAbs = opt_.tolerance;  // on the relative force residual (IncrementalPotential::convergenceMeasure)
  no.gtolRel = 0.0;
  newton_ = std::make_unique<solvers::NewtonSolver>(backend_, manifold_, no);
}

ImplicitStepper::~ImplicitStepper() = default;

void ImplicitStepper::setEnergyObserver(EnergyObserver obs) {
  energyObserver_ = std::move(obs);
  if (!energyObserver_) {
    newton_->setObserver({});
    return;
  }
  newton_->setObserver([this](int k, const la::Vector& x, const solvers::NewtonStats&) {
    energyObserver_(k, potential_->energy(x));
  });
}

void ImplicitStepper::ensureVectors() {
  if (x_ && map_ == domain_.pointMap()) return;
  map_ = domain_.pointMap();
  x_ = backend_.createVector(map_);
  work_ = backend_.createVector(map_);
}

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Writes the initial guess of the free particles into x: p_hat + dt^2 g and q_hat normalised.
void setInitialGuess(la::Vector& x, const IncrementalPotential& phi, const System& s, std::size_t n, double dt) {
  la::Vector::View w = x.view();
  const auto& pHat = phi.pHat();
  const auto& qHat = phi.qHat();
  const Vec3 dg = dt * dt * s.gravity;
  for (std::size_t a = 0; a < n; ++a) {
    if (s.P.dof[a] != Dof::Free) continue;
    double* b = w.data() + 7 * a;
    const Vec4 q = qHat[a].normalized();
    for (int k = 0; k < 3; ++k) b[k] = pHat[a][k] + dg[k];
    for (int k = 0; k < 4; ++k) b[3 + k] = q[k];
  }
}

// Copies the outcome of the `newton` variant into the step statistics.
void recordNewton(StepStats& st, const solvers::NewtonStats& ns) {
  st.newtonIterations = ns.iterations;
  st.linearIterations = ns.linearIterations;
  st.lineSearchTrials = ns.lineSearchTrials;
  st.converged = ns.converged;
  st.reason = ns.reason;
  st.measure = ns.finalMeasure;
  st.outerIterations = 1;
  st.phases.newton = ns.phases;
}

// Copies the outcome of the first_order, penalty, augmented_lagrangian or lagrange variant into the statistics.
void recordVariant(StepStats& st, const VariantResult& r) {
  st.newtonIterations = r.iterations;
  st.linearIterations = r.linearIterations;
  st.lineSearchTrials = r.lineSearchTrials;
  st.outerIterations = r.outerIterations;
  st.converged = r.converged;
  st.reason = r.reason;
  st.measure = r.measure;
  st.constraintViolation = r.constraintViolation;
}

// Puts back the positions and orientations x^n of the first n particles.
void restoreStart(System& s, const std::vector<Vec3>& p0, const std::vector<Vec4>& q0, std::size_t n) {
  for (std::size_t a = 0; a < n; ++a) {
    s.P.p[a] = p0[a];
    s.P.q[a] = q0[a];
  }
}

// v^{n+1} = (x^{n+1} - x^n)/dt for the 7 components of the first n particles.
void setVelocities(System& s, const std::vector<Vec3>& p0, const std::vector<Vec4>& q0, std::size_t n, double dt) {
  const double idt = 1.0 / dt;
  for (std::size_t a = 0; a < n; ++a) {
    s.P.v[a] = (s.P.p[a] - p0[a]) * idt;
    s.P.qdot[a] = (s.P.q[a] - q0[a]) * idt;
  }
}

// Whether any contact (particle pair or obstacle) has a positive friction coefficient.
bool anyFriction(const System& s) {
  bool any = s.contact.muS > 0 || s.contact.muR > 0;
  for (const Obstacle& o : s.obstacles) any = any || o.friction > 0;
  return any;
}

}  // namespace

// Minimises Eq. 6 from x_ with the chosen solver variant and records its outcome in st.
void ImplicitStepper::minimise(StepStats& st) {
  const std::string& v = opt_.solver;
  if (v == "newton") {
    recordNewton(st, newton_->solve(*potential_, *x_));
    return;
  }
  VariantResult r;
  IterationObserver obs;
  if (energyObserver_) obs = energyObserver_;
  if (v == "first_order")
    r = solveFirstOrder(*potential_, manifold_, backend_, opt_, *x_, obs);
  else if (v == "penalty" || v == "augmented_lagrangian")
    r = solvePenalty(*potential_, backend_, opt_, v == "augmented_lagrangian", *x_, obs);
  else
    r = solveLagrange(*potential_, backend_, opt_, *x_, obs);
  recordVariant(st, r);
}

// Restores x^n and throws if the solve gave a non-finite state or (unless allowed) did not converge;
// warns at the first unconverged step that is accepted.
void ImplicitStepper::checkSolveOutcome(const StepStats& st, std::size_t n, double tNext, double dt) {
  const std::string& v = opt_.solver;
  if (!std::isfinite(st.measure) || x_->hasNonFinite() || st.reason == SolverOutcome::NonFinite) {
    restoreStart(s_, p0_, q0_, n);  // restore x^n
    throw Error(str("bdem: the ", v, " solve of step ", st.step, " (t = ", tNext, ", dt = ", dt,
                    ") produced a non-finite state"));
  }
  if (!st.converged && !opt_.allowUnconverged) {
    restoreStart(s_, p0_, q0_, n);
    throw Error(str("bdem: the ", v, " solve of step ", st.step, " (t = ", tNext, ", dt = ", dt,
                    ") did not converge: ", st.reason, " after ", st.newtonIterations,
                    " iterations, measure ", st.measure, " > tolerance ", opt_.tolerance));
  }
  if (!st.converged) {
    // Under allow_unconverged: warn at the first such step (rank 0), count the rest for the summary.
    if (unconvergedSteps_++ == 0)
      log::warn("bdem: step ", st.step, " (t = ", tNext, ") ended unconverged (", st.reason, " after ",
                st.newtonIterations, " iterations, relative residual ", st.measure, " > tolerance ",
                opt_.tolerance, ") and was accepted (bdem.allow_unconverged); later ones are counted in the summary");
  }
}

StepStats ImplicitStepper::step(double dt) {
  const auto t0 = Clock::now();
  const Comm& comm = domain_.comm();
  StepStats st;
  st.step = steps_ + 1;
  st.dt = dt;
  if (!(dt > 0) || !std::isfinite(dt)) throw InputError(str("bdem: time step must be positive, got ", dt));
  checkFiniteState(s_, comm, st.step, s_.time, "before the step");

  // 1. ghosts, x^n, predictor, candidates, prescribed DOFs at t^{n+1}.
  auto tp = Clock::now();
  domain_.refreshGhosts(s_, ghostReach(s_, comm, opt_.contactPadding, dt));
  ensureVectors();
  const std::size_t n = s_.P.size();
  p0_.assign(s_.P.p.begin(), s_.P.p.end());
  q0_.assign(s_.P.q.begin(), s_.P.q.end());
  potential_->beginStep(dt);
  st.phases.contact = since(tp);
  const double tNext = s_.time + dt;
  applyPrescribedMotion(s_, tNext);
  // 2. initial guess x_0 = x_hat, q normalised (Alg. 3 line 2), with p shifted by dt^2 g, the
  // exact minimiser of inertia + gravity (README decision 26). Without the shift, a free-flight step whose
  // gravity displacement dt^2 g is below tolerance * r converged at x_hat and dropped gravity.
  potential_->gather(*x_);
  setInitialGuess(*x_, *potential_, s_, n, dt);
  x_->updateGhosts();

  // 3. minimise Eq. 6.
  minimise(st);
  checkSolveOutcome(st, n, tNext, dt);
  {
    const PotentialTerms T = potential_->terms(*x_);
    st.energy = T.total();
    st.activePairContacts = T.activePairs;
    st.activeObstacleContacts = T.activeObstacle;
  }

  // 4. x^{n+1} and v^{n+1} = (x^{n+1} - x^n)/dt (Alg. 3 line 18), ghosts included.
  potential_->scatter(*x_);
  setVelocities(s_, p0_, q0_, n, dt);
  s_.time = tNext;

  // 5. friction (Alg. 3 line 19), fracture (line 20).
  const bool withFriction = anyFriction(s_);
  tp = Clock::now();
  if (opt_.friction && withFriction && s_.contact.enabled) {
    applyFriction(s_, dt, potential_->kec(), potential_->kc(), potential_->candidates(), *work_, comm);
    domain_.exchangeState(s_);
  }
  st.phases.friction = since(tp);
  tp = Clock::now();
  if (opt_.fracture) {
    st.bondsBroken = breakBonds(s_, comm);
    if (st.bondsBroken > 0) newton_->resetPattern();  // topology changed (Alg. 3)
  }
  st.phases.fracture = since(tp);
  checkFiniteState(s_, comm, st.step, s_.time, "after the step");
  ++steps_;
  st.time = s_.time;
  st.seconds = since(t0);
  st.phases.step = st.seconds;
  phaseTotals_ += st.phases;
  return st;
}

}  // namespace kinema::bdem

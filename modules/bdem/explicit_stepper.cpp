#include "modules/bdem/explicit_stepper.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"
#include "modules/bdem/friction.hpp"
#include "modules/bdem/grips.hpp"
#include "modules/bdem/quaternion.hpp"

namespace kinema::bdem {

double characteristicPeriod(const System& s, const Comm& comm) {
  double T = std::numeric_limits<double>::infinity();
  for (std::size_t a = 0; a < s.P.numOwned; ++a) {
    const auto mi = static_cast<std::size_t>(std::max(0, s.P.material[a]));
    if (mi >= s.materials.size())
      throw InputError(str("bdem: particle ", s.P.gid[a], " has material ", s.P.material[a], " of ",
                           s.materials.size()));
    const Material& m = s.materials[mi];
    T = std::min(T, s.P.r[a] * std::sqrt(2.0 * m.density / (3.0 * m.E)));  // Eq. 30
  }
  return comm.min(T);
}

double stableStep(const System& s, const Comm& comm) { return 0.2 * characteristicPeriod(s, comm); }
double stableStep(const System& s) { return stableStep(s, Comm::self()); }

ExplicitStepper::ExplicitStepper(System& s, Domain& domain, const la::Backend& backend, IntegratorOptions options)
    : s_(s), domain_(domain), backend_(backend), opt_(std::move(options)) {
  potential_ = std::make_unique<IncrementalPotential>(s_, domain_.comm(), opt_);
  potential_->setInertia(false);
}

ExplicitStepper::~ExplicitStepper() = default;

StepStats ExplicitStepper::step(double dt) {
  const auto t0 = std::chrono::steady_clock::now();
  const Comm& comm = domain_.comm();
  StepStats st;
  st.step = steps_ + 1;
  st.dt = dt;
  if (!(dt > 0) || !std::isfinite(dt)) throw InputError(str("bdem: time step must be positive, got ", dt));
  domain_.refreshGhosts(s_, ghostReach(s_, comm, opt_.contactPadding, dt));
  if (!x_ || map_ != domain_.pointMap()) {
    map_ = domain_.pointMap();
    x_ = backend_.createVector(map_);
    work_ = backend_.createVector(map_);
    g_ = backend_.createVector(manifold_.tangentMap(map_));
  }
  potential_->beginStep(dt);
  potential_->setObstacleTime(s_.time);  // forces at t^n (symplectic Euler)
  potential_->gather(*x_);
  potential_->gradient(*x_, *g_);  // grad V: (grad_p V, G_r grad_q V)
  const double tNext = s_.time + dt;
  {
    la::Vector::ConstView g = g_->constView();
    for (std::size_t a = 0; a < s_.P.numOwned; ++a) {
      Particles& P = s_.P;
      if (P.dof[a] != Dof::Free) {
        prescribedState(s_, a, tNext, P.p[a], P.q[a]);
        prescribedVelocity(s_, a, tNext, P.v[a], P.qdot[a]);
        continue;
      }
      const double* b = g.data() + 6 * a;
      const Vec3 gp(b[0], b[1], b[2]), gy(b[3], b[4], b[5]);
      P.v[a] -= dt * gp / P.m[a];  // f = -grad_p V
      P.p[a] += dt * P.v[a];
      Vec3 omega = quat::omegaFromQdot(P.q[a], P.qdot[a]);
      const double I = 0.4 * P.m[a] * P.r[a] * P.r[a];
      omega += dt * (-0.5 * gy) / I;  // tau_world = -1/2 G_r grad_q V
      P.q[a] = quat::multiply(quat::expRotation(omega * dt), P.q[a]).normalized();
      P.qdot[a] = quat::qdotFromOmega(P.q[a], omega);
    }
  }
  s_.time = tNext;
  domain_.exchangeState(s_);
  bool anyFriction = s_.contact.muS > 0 || s_.contact.muR > 0;
  for (const Obstacle& o : s_.obstacles) anyFriction = anyFriction || o.friction > 0;
  if (opt_.friction && anyFriction && s_.contact.enabled) {
    const FrictionStats fs =
        applyFriction(s_, dt, potential_->kec(), potential_->kc(), potential_->candidates(), *work_, comm);
    st.activePairContacts = fs.pairContacts;
    st.activeObstacleContacts = fs.obstacleContacts;
    domain_.exchangeState(s_);
  }
  if (opt_.fracture) st.bondsBroken = breakBonds(s_, comm);
  checkFiniteState(s_, comm, st.step, s_.time, "after the explicit step");
  ++steps_;
  st.converged = true;
  st.reason = SolverOutcome::Explicit;
  st.time = s_.time;
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  st.phases.step = st.seconds;
  return st;
}

}  // namespace kinema::bdem

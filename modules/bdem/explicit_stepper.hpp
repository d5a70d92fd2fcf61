#pragma once
// The explicit BDEM baseline (Lu et al. 2021, the method the paper compares against in §6.4, Table 1;
// README decision 32),
// sharing every energy with the implicit integrator (IncrementalPotential with the inertia term
// off): forces f = -grad_p V, world torques tau = -1/2 G_r(q) grad_q V = -1/2 g_y (the reduced
// gradient of Eqs. 28-29), symplectic Euler
//   v += dt f/m,  p += dt v,  omega += dt tau / I (I = 2/5 m r^2, no gyroscopic term for spheres),
//   q <- normalize(exp(omega dt) (x) q),  qdot = 1/2 (omega, 0) (x) q,
// the same contacts (penalty forces, candidates rebuilt every step), friction (friction.hpp) and
// fracture (Eqs. 12-17 every step). Fixed and gripped particles follow their prescribed motion.
// Stable step (§5.1, Eq. 30): dt = 0.2 T with T = r sqrt(2 rho / (3 E)).
#include <memory>

#include "framework/la/backend.hpp"
#include "framework/solvers/manifold_rigid.hpp"
#include "modules/bdem/domain.hpp"
#include "modules/bdem/implicit_stepper.hpp"
#include "modules/bdem/incremental_potential.hpp"

namespace kinema::bdem {

// T = min over particles of r sqrt(2 rho / (3 E)) (Eq. 30 closed form; collective).
double characteristicPeriod(const System& s, const Comm& comm);
// The explicit stable step 0.2 T (§5.1). Collective.
double stableStep(const System& s, const Comm& comm);
// Single-rank convenience (Comm::self()).
double stableStep(const System& s);

class ExplicitStepper {
 public:
  ExplicitStepper(System& s, Domain& domain, const la::Backend& backend, IntegratorOptions options);
  ~ExplicitStepper();
  ExplicitStepper(const ExplicitStepper&) = delete;
  ExplicitStepper& operator=(const ExplicitStepper&) = delete;
  // One symplectic Euler step (collective). newtonIterations etc. are 0; energy is not computed.
  StepStats step(double dt);
  long steps() const { return steps_; }

 private:
  System& s_;
  Domain& domain_;
  const la::Backend& backend_;
  IntegratorOptions opt_;
  solvers::RigidManifold manifold_;
  std::unique_ptr<IncrementalPotential> potential_;
  la::IndexMapPtr map_;
  la::VectorPtr x_, g_, work_;
  long steps_ = 0;
};

}  // namespace kinema::bdem

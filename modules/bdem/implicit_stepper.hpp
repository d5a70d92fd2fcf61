#pragma once
// One implicit BDEM time step, Alg. 3 of the paper (§5):
//   1. ghosts refreshed (Domain), predictor x_hat = x^n + dt v^n, prescribed p, q of fixed and
//      gripped particles at t^{n+1} (README decision 28), contact candidates (README decision 44)
//   2. initial guess p = p_hat, q = q_hat / |q_hat|
//   3. the incremental potential (Eq. 6) minimised by the chosen solver variant
//      (IntegratorOptions::solver): newton (Alg. 2-3, NewtonSolver over RigidManifold),
//      first_order (Alg. 1), penalty (Eq. 36), augmented_lagrangian (Eq. 38), lagrange (Eq. 37)
//   4. v = (x^{n+1} - x^n)/dt, 7 components (Alg. 3 line 18)
//   5. friction (Eqs. 34-35, friction.hpp), fracture (Eqs. 12-17: every owned bond over its
//      threshold at the converged x^{n+1} is removed in one pass, alive = false; the Newton
//      pattern is reset when the topology changed), time advance.
// A non-finite state, or a solve that does not converge (unless allowUnconverged), raises an
// Error naming the step; the state is then the last completed step's.
#include <memory>
#include <string>

#include "framework/la/backend.hpp"
#include "framework/solvers/manifold_rigid.hpp"
#include "framework/solvers/newton.hpp"
#include "modules/bdem/domain.hpp"
#include "modules/bdem/incremental_potential.hpp"
#include "modules/bdem/integrator_options.hpp"

namespace kinema::bdem {

// Wall seconds of implicit steps by phase, disjoint (their sum is at most `step`): the Newton
// solve's phases (energy, gradient, Hessian assembly, preconditioner set-up, Krylov solve, line
// search: solvers::NewtonPhaseSeconds; zero for the other solver variants, whose time is in
// `step` only), the contact candidate search (ghost refresh, predictor, candidate pairs), the
// friction correction and the fracture pass.
struct StepPhases {
  solvers::NewtonPhaseSeconds newton;
  double contact = 0, friction = 0, fracture = 0;
  double step = 0;  // the whole step
  double sum() const { return newton.sum() + contact + friction + fracture; }
  StepPhases& operator+=(const StepPhases& o) {
    newton += o.newton;
    contact += o.contact;
    friction += o.friction;
    fracture += o.fracture;
    step += o.step;
    return *this;
  }
};

struct StepStats {
  long step = 0;                 // 1-based index of the step just taken
  double time = 0, dt = 0;       // t^{n+1} and the step size
  int newtonIterations = 0;      // Newton (or gradient) iterations, summed over outer iterations
  int linearIterations = 0;      // CG (Krylov) iterations
  int lineSearchTrials = 0;
  int outerIterations = 0;       // augmented Lagrangian multiplier updates (1 otherwise)
  bool converged = false;
  SolverOutcome reason = SolverOutcome::None;  // the solver's exit reason
  double measure = 0;            // final convergence measure (README decision 36)
  double constraintViolation = 0;  // max |C(q)| before normalisation (constrained variants)
  long bondsBroken = 0;          // this step, global
  long activePairContacts = 0, activeObstacleContacts = 0;  // at x^{n+1}, global
  double energy = 0;             // incremental potential at x^{n+1}
  double seconds = 0;
  StepPhases phases;             // seconds by phase (phases.step == seconds)
};

// Raises an Error naming `what` and the step if the particle state is not finite (collective).
void checkFiniteState(const System& s, const Comm& comm, long step, double time, const std::string& what);
// Fracture pass (Alg. 3 line 20, §3.3): marks every owned alive bond over its threshold dead.
// Returns the global number of bonds broken. Collective.
long breakBonds(System& s, const Comm& comm);
// Contact-candidate reach for Domain ghost refresh: 2 r_max (1 + padding) + 2 max|v| dt (collective).
double ghostReach(const System& s, const Comm& comm, double padding, double dt);

class ImplicitStepper {
 public:
  // s, domain and backend must outlive the stepper; s must have been distributed by `domain`.
  ImplicitStepper(System& s, Domain& domain, const la::Backend& backend, IntegratorOptions options);
  ~ImplicitStepper();
  ImplicitStepper(const ImplicitStepper&) = delete;
  ImplicitStepper& operator=(const ImplicitStepper&) = delete;

  StepStats step(double dt);  // collective
  long steps() const { return steps_; }
  // Steps accepted unconverged under allow_unconverged (the first is warned about).
  long unconvergedSteps() const { return unconvergedSteps_; }
  // Seconds by phase summed over every step taken (this run; not restored by a restart).
  const StepPhases& phaseTotals() const { return phaseTotals_; }
  // The Newton solver of the `newton` variant (observer, options); also used by penalty and
  // augmented_lagrangian through their own instance (euclideanNewton()).
  solvers::NewtonSolver& newton() { return *newton_; }
  IncrementalPotential& potential() { return *potential_; }
  const IntegratorOptions& options() const { return opt_; }
  // Observer for every solver variant: iteration k and energy after it.
  using EnergyObserver = std::function<void(int k, double energy)>;
  void setEnergyObserver(EnergyObserver obs);

 private:
  void ensureVectors();
  void minimise(StepStats& st);
  void checkSolveOutcome(const StepStats& st, std::size_t n, double tNext, double dt);
  System& s_;
  Domain& domain_;
  const la::Backend& backend_;
  IntegratorOptions opt_;
  solvers::RigidManifold manifold_;
  std::unique_ptr<IncrementalPotential> potential_;
  std::unique_ptr<solvers::NewtonSolver> newton_;
  la::VectorPtr x_, work_;
  la::IndexMapPtr map_;
  std::vector<Vec3> p0_;
  std::vector<Vec4> q0_;
  EnergyObserver energyObserver_;
  long steps_ = 0;
  long unconvergedSteps_ = 0;
  StepPhases phaseTotals_;
};

}  // namespace kinema::bdem

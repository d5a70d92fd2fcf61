#pragma once
// MPRGP (Dostál & Schöberl 2005) for box-constrained convex QPs, written once over the abstract
// layer: min 1/2 x^T A x - b^T x subject to l <= x <= u (any bound may be infinite), A SPD given
// as an Operator. Conjugate-gradient, expansion and proportioning steps; the proportioning step is
// capped at the feasible length for two-sided boxes (Dostál & Schöberl 2005, ref. [16] of the der paper; docs/solvers/mprgp.md). Every iterate is
// exactly feasible. Preconditioning by any la::Preconditioner; active-set-aware ones receive the
// free mask each time the free set changes.
#include <functional>
#include <string>

#include "framework/core/solver_outcome.hpp"
#include "framework/la/preconditioner.hpp"
#include "framework/solvers/active_set.hpp"

namespace kinema::solvers {

struct MprgpOptions {
  double gamma = 1.0;                // Gamma of the proportioning test ||beta||^2 <= Gamma^2 phit.phi
  // How alpha_bar is set: power | fixed. (No "gershgorin": an Operator, even an la::Matrix, gives
  // no access to its rows, so max_i sum_j |A_ij| cannot be computed through the abstract layer.)
  std::string alphaRule = "power";
  double alphaFactor = 1.9;          // alpha_bar = alphaFactor / (1.01 * power estimate), in (0, 2]
  double alphaFixed = 0.0;           // alpha_bar for the rule "fixed" (must be in (0, 2/||A||])
  int powerIterations = 20;          // power iterations for the ||A|| estimate
  double rtol = 1e-8;                // ||g^P|| <= max(atol, rtol ||g^P(x0)||)
  double atol = 0.0;
  int maxIterations = 10000;
};

struct MprgpStats {
  int iterations = 0;
  int cgSteps = 0;
  int expansionSteps = 0;
  int proportioningSteps = 0;
  int activeSetChanges = 0;          // times the free set changed
  int matvecs = 0;                   // applications of A, including the norm estimate
  int preconditionerApplications = 0;
  double normEstimate = 0.0;         // the ||A|| used for alpha_bar
  double alphaBar = 0.0;
  double initialProjectedGradient = 0.0;
  double finalProjectedGradient = 0.0;
  bool converged = false;
  SolverOutcome reason = SolverOutcome::None;  // Rtol, Atol, MaxIterations, Breakdown
  double seconds = 0.0;
};

class Mprgp {
 public:
  explicit Mprgp(MprgpOptions options = {});
  // A must be symmetric positive definite. Estimates ||A|| now if the rule needs it.
  void setOperator(la::OperatorPtr A);
  // Optional; identity by default. Applied "in face": its result is zeroed on active indices. One
  // that implements ActiveSetAware gets the free mask when the free set changes.
  void setPreconditioner(la::PreconditionerPtr M);
  // Called after every iteration with the iterate and the objective 1/2 x^T A x - b^T x (tests).
  using Observer = std::function<void(const la::Vector& x, double objective)>;
  void setObserver(Observer observer);
  // x: initial guess on entry (projected onto the box first), solution on exit. lower/upper hold
  // -inf/+inf where unbounded; lower <= upper is required (an InputError otherwise).
  MprgpStats solve(const la::Vector& b, const la::Vector& lower, const la::Vector& upper, la::Vector& x);
  const MprgpOptions& options() const { return options_; }

 private:
  MprgpOptions options_;
  la::OperatorPtr A_;
  la::PreconditionerPtr M_;
  ActiveSetAware* activeSet_ = nullptr;  // M_'s active-set interface, if it has one
  Observer observer_;
  double normA_ = 0.0;
  int normMatvecs_ = 0;
};

}  // namespace kinema::solvers

// The parameters (mprgpBindings), for the callers that found
// them here before they had a header of their own.
#include "framework/solvers/mprgp_params.hpp"

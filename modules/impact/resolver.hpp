#pragma once
// Algorithm 1 of the paper (loop R until Nᵀq̇ ≥ 0) and its floating-point forms, Algorithms 3/4
// (specs/impact.md 1.4, 2.12): the ϵ-relaxed feasibility test n_iᵀq̇ ≥ −ϵ‖q̇‖_M and the
// renormalisation q̇ ← (‖q̇_0‖_M / ‖q̇‖_M) q̇ after every application (ϵDRIFT). Any ImpactOperator
// plugs in. An iteration cap and a cycle detector turn non-termination (implicit equalities,
// specs 2.5) into a report instead of a hang.
#include <functional>
#include <string>

#include "modules/impact/cycle_detector.hpp"
#include "modules/impact/impact_operator.hpp"

namespace kinema::impact {

enum class Arithmetic {
  Exact,   // Algorithm 1: feasible iff Nᵀq̇ ≥ 0, no renormalisation
  Relaxed  // Algorithms 3/4: feasible iff Nᵀq̇ ≥ −ϵ‖q̇‖_M·1, renormalised to ‖q̇_0‖_M (default)
};

struct ResolverOptions {
  Arithmetic arithmetic = Arithmetic::Relaxed;
  // ϵ (unitless, a fraction of the largest possible violation ‖q̇‖_M, specs 1.1). Default 1e-10:
  // well above the rounding noise of n_iᵀq̇ (~1e-15..1e-14 for 12-DOF pair gradients) and below
  // the proof-driven scale √ε_mach ≈ 1.5e-8 (specs 2.12 [I]); it also keeps the O(ϵ) constraint
  // drift of footnote 3 negligible.
  double epsilon = 1e-10;
  bool renormalise = true;         // Relaxed mode only (Algorithms 3/4)
  long maxIterations = 100000;     // cap K
  bool detectCycles = true;
  int cycleWindow = 16;            // longest period detected
  double cycleTolerance = 1e-12;   // relative to ‖q̇_0‖_M
  bool stopOnCycle = false;        // stop at the first cycle (memoryless operators only) or at the cap
  // Optional certificate w (size d, feasible: Nᵀw ≥ 0, e.g. from the lineality helper's LP-1):
  // k_w(i) = ⟨w, q̇_i⟩_M must not decrease (Lemma 5.1); no increase by more than
  // certificateTolerance·‖w‖_M‖q̇_0‖_M over `stallWindow` iterations is reported as a stall.
  Eigen::VectorXd certificate;
  long stallWindow = 1000;
  double certificateTolerance = 1e-14;
};

struct ResolverStats {
  long iterations = 0;          // applications of R
  long impulses = 0;            // nonzero λ_i applied, summed over iterations
  double energyBefore = 0.0;
  double energyAfter = 0.0;
  double relativeEnergyDrift = 0.0;  // (E_after − E_before)/E_before
  // max over steps of |‖R(q̇)‖²_M − ‖q̇‖²_M| / ‖q̇‖²_M before renormalisation: round-off for
  // (KIN) operators; a large value means the operator dissipates and renormalisation is meaningless.
  double maxStepEnergyChange = 0.0;
  double minRelativeFeasibility = 0.0;  // min_i n_iᵀq̇/‖q̇‖_M at exit (≥ −ϵ when converged)
  double seconds = 0.0;
  bool converged = false;       // feasible (exact or ϵ-relaxed) at exit
  bool capReached = false;
  bool cycleDetected = false;
  int cyclePeriod = 0;
  long cycleFirstSeen = -1;     // iteration at which the revisit was first seen
  bool certificateStalled = false;
  bool certificateDecreased = false;  // Lemma 5.1 violated: the operator breaks NORM/ONE
  std::string report;           // one paragraph for logs (always set)
};

struct ResolveResult {
  Eigen::VectorXd qdot;
  Eigen::VectorXd impulse;  // α = Σ_i λ^(i): accumulated impulses per constraint (friction bound)
  ResolverStats stats;
};

class Resolver {
 public:
  explicit Resolver(ResolverOptions options = {});
  // Called after every application with the iteration, q̇ before and after (after renormalisation),
  // and λ. For tests (certificates, desiderata on every step) and diagnostics.
  using Observer = std::function<void(long iteration, const Eigen::VectorXd& before,
                                      const Eigen::VectorXd& after, const Eigen::VectorXd& lambda)>;
  void setObserver(Observer observer) { observer_ = std::move(observer); }
  ResolveResult resolve(const ImpactSystem& system, ImpactOperator& op, const Eigen::VectorXd& qdot0);
  const ResolverOptions& options() const { return options_; }

  // The feasibility test of the configured mode: n_iᵀq̇ ≥ −threshold(q̇) for all i.
  double threshold(const ImpactSystem& system, const Eigen::VectorXd& qdot) const;

 private:
  ResolverOptions options_;
  Observer observer_;
};

// min_i n_iᵀq̇ / ‖q̇‖_M (+inf without constraints; −inf·sign for q̇ = 0 is avoided: returns 0).
double minRelativeFeasibility(const ImpactSystem& system, const Eigen::VectorXd& qdot);

}  // namespace kinema::impact

#pragma once
// Algorithm 1 of the paper (loop R until Nᵀq̇ ≥ 0) and its floating-point forms, Algorithms 3/4
// (the paper's Secs. 1-2 and 7): the ϵ-relaxed feasibility test n_iᵀq̇ ≥ −ϵ‖q̇‖_M and the
// renormalisation q̇ ← (‖q̇_0‖_M / ‖q̇‖_M) q̇ after every application (ϵDRIFT). Any ImpactOperator
// plugs in. An iteration cap and a cycle detector turn non-termination (implicit equalities,
// paper §4) into a report instead of a hang.
//
// Algorithm 2 (anti-locking, paper §4.1; ResolverOptions::antiLocking, anti_locking.hpp): detect the
// implicit equalities I (lineality.hpp), project the velocity (line 3) and the constraint covectors
// (lines 4-7), drop the vanished ones and run the same operator on the projected problem (a new
// ImpactSystem over the same bodies; a dense pairwise-GS fallback if a projected covector touches
// more than two bodies). Results (q̇, α in the ORIGINAL constraint indices, observer calls, stats)
// are mapped back. With I = ∅ eager and lazy give exactly the Algorithm 1/3/4 result.
#include <functional>
#include <string>

#include "modules/impact/anti_locking.hpp"
#include "modules/impact/cycle_detector.hpp"
#include "modules/impact/impact_operator.hpp"
#include "modules/impact/lineality.hpp"

namespace kinema::impact {

enum class Arithmetic {
  Exact,   // Algorithm 1: feasible iff Nᵀq̇ ≥ 0, no renormalisation
  Relaxed  // Algorithms 3/4: feasible iff Nᵀq̇ ≥ −ϵ‖q̇‖_M·1, renormalised to ‖q̇_0‖_M (default)
};

struct ResolverOptions {
  Arithmetic arithmetic = Arithmetic::Relaxed;
  // ϵ (unitless, a fraction of the largest possible violation ‖q̇‖_M, paper §2). Default 1e-10:
  // well above the rounding noise of n_iᵀq̇ (~1e-15..1e-14 for 12-DOF pair gradients) and below
  // the proof-driven scale √ε_mach ≈ 1.5e-8 (README decision 1); it also keeps the O(ϵ) constraint
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

  // ---- Anti-locking, Algorithm 2 (paper §4-4.1, §8; anti_locking.hpp) ----
  // Off (the default of this struct, so that existing callers keep Algorithms 1/3/4 bit for bit):
  // lineality runs to the cap with a cycle report. Eager: Algorithm 2 (one LP per resolution when
  // I = ∅, then exactly Algorithm 1/3/4 on the unchanged system and velocity: identical results).
  // Lazy (README decision 13): `lazyIterations` plain iterations first; detection only if they do not
  // terminate (or a cycle is seen earlier); I = ∅ continues the same loop untouched (identical
  // results), I ≠ ∅ projects the current iterate and continues on the projected constraints.
  // The scene parameters (impact_params.hpp) default to lazy: defaultSafeResolverOptions().
  AntiLockingMode antiLocking = AntiLockingMode::Off;
  long lazyIterations = 1000;  // K of the lazy variant
  // Detection and projection options. Its `epsilon` is ignored: the resolver passes its own ϵ in
  // relaxed mode (approximate lineality of paper §7 at the tolerance the loop uses) and 0 in exact
  // mode (with method lp2, which is exact-only, always 0).
  LinealityOptions lineality;
  // Entries of a projected covector below this times its largest entry are round-off (they decide
  // whether n̄_i still touches at most two bodies, anti_locking.hpp).
  double projectionDropTolerance = 1e-12;
  // Feed LP-1's strictly feasible certificate to the k_w check above when no certificate is given
  // and its M-norm margin is at least ϵ (Lemma 7.1). Diagnostics only: q̇ is unaffected.
  bool certificateFromLineality = true;
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

  // ---- Anti-locking (Algorithm 2); zero/false when ResolverOptions::antiLocking is Off ----
  AntiLockingMode antiLocking = AntiLockingMode::Off;
  int linealityDetections = 0;   // successful detectLineality calls (0 or 1 per resolution)
  bool linealityFailed = false;  // an LP failed (Error): resolved as Algorithm 1/3/4, see the report
  int implicitEqualities = 0;    // |I|
  int linealityRank = 0;         // dim E
  int constraintsRemoved = 0;    // line 6
  double energyRemoved = 0.0;    // kinetic energy removed by line 3 (lazy: by projecting the iterate), ½‖Eᵀq̇‖²
  long iterationsBeforeProjection = 0;  // lazy: plain iterations run before projecting
  bool denseFallback = false;    // the projected constraints spread over > 2 bodies (anti_locking.hpp)
  int lpSolves = 0;
  double lpSeconds = 0.0;        // detectLineality wall time
  double antiLockingSeconds = 0.0;  // detection + projection + building the projected system
  double lpFraction = 0.0;       // lpSeconds / seconds
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

  // What one run of the plain Algorithm 1/3/4 loop is asked to do. `lazyCheck` (may be empty) is
  // asked once, at iteration `checkAt` or at the first detected cycle if earlier, whether to stop.
  using LazyCheck = std::function<bool(long iteration)>;
  struct LoopSpec {
    long cap = 0;                                   // iterations at most
    const LazyCheck* lazyCheck = nullptr;           // none: never asked
    long checkAt = -1;
    const Observer* observer = nullptr;             // none: no observer calls
    const Eigen::VectorXd* certificate = nullptr;   // w for the k_w check; none or empty: no check
  };
  struct LoopResult {
    ResolveResult result;
    bool interrupted = false;  // the lazy check answered true and the loop stopped there
  };
  LoopResult run(const ImpactSystem& system, ImpactOperator& op, const Eigen::VectorXd& qdot0,
                 const LoopSpec& spec) const;
  // Runs `op` (or the dense fallback) on the projected problem from the projected velocity v and
  // maps stats, impulses and observer calls back to the original constraints.
  ResolveResult runProjected(const ImpactSystem& system, const ProjectedProblem& problem, ImpactOperator& op,
                             const Eigen::VectorXd& v, long cap, long iterationOffset) const;
  ResolveResult resolveAntiLocked(const ImpactSystem& system, ImpactOperator& op, const Eigen::VectorXd& qdot0);
  void finish(const ImpactSystem& system, ResolverStats& st, const Eigen::VectorXd& v, const std::string& opName) const;
  LinealityOptions linealityOptions() const;
};

// min_i n_iᵀq̇ / ‖q̇‖_M (+inf without constraints; −inf·sign for q̇ = 0 is avoided: returns 0).
double minRelativeFeasibility(const ImpactSystem& system, const Eigen::VectorXd& qdot);

}  // namespace kinema::impact

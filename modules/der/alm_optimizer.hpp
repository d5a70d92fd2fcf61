#pragma once
// Static-equilibrium parameter optimisation of ONE strand (paper Algorithm 1, §IV-F):
// the augmented Lagrangian method on
//   min_{pmin <= p <= pmax} 1/2 ||p - p0||_W^2   subject to   c(p) = M^-1/2 f(p) = 0
// with fixed rho, one Gauss-Newton step per ALM iteration solved as a box-constrained QP by MPRGP
// (preconditioned by the active-set Cholesky, one LDL^T factorisation per iteration), a
// backtracking line search on L(., lambda^k) and the dual update lambda += rho c(p) (Eq. 13).
// The configuration q is fixed: kinematics, mass and gravity are computed once.
//
// Written as a stepper: iterate() does one ALM iteration; state()/restore() capture everything
// needed to continue bitwise-identically after a restart. By default the BCQP is solved in
// variables scaled by sqrt(diag A) (OptimizerOptions::scaleBcqp), and MPRGP starts from 0.
// Termination: ||dp||_2 <= eps_p (dp = the BCQP solution, before the line search; p is then left
// unchanged), k >= k_max, or a failed line search (p unchanged). The backend must outlive the
// optimiser.
//
// Storage (docs/modules/der.md, "Memory"): an optimiser holds only the strand's state (q, p,
// lambda, the previous step, k, statistics) and whatever inputs it was given explicitly. Everything
// else (the force model with its kinematics, p0, W, the box, J, the banded A, the preconditioner
// and its factor, MPRGP and its vectors) is work storage in an AlmWorkspace, rebuilt from the
// state when the workspace last served another strand and reused otherwise. Many optimisers may
// share one workspace (one per rank in the der module), so the memory per strand is its state
// alone. The rebuilt data are computed by the same functions from the same inputs, so results do
// not depend on how the workspace is shared (bitwise).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "framework/la/backend.hpp"
#include "framework/solvers/mprgp.hpp"
#include "modules/der/banded.hpp"
#include "modules/der/banded_operator.hpp"
#include "modules/der/box_qp_ipm.hpp"
#include "modules/der/force_jacobian.hpp"
#include "modules/der/optimizer_params.hpp"
#include "modules/der/parameters.hpp"
#include "modules/der/qp_preconditioner.hpp"
#include "modules/der/rod_kinematics.hpp"
#include "modules/der/strand.hpp"

namespace kinema::der {

// The Newton BCQP of the current iterate (Eq. 20-23), for benchmarks: min 1/2 x^T A x - b^T x
// subject to lower <= x <= upper, with A = W + rho J^T M^-1 J, b = -grad L, bounds pmin/max - p.
struct BcqpInstance {
  BandedSymmetric A;
  std::vector<double> b, lower, upper;
};

// The optimiser's change of variables x = S y with S = diag(A)^-1/2: A <- S A S, b <- S b,
// bounds <- bounds / S (the box stays a box). Returns S.
std::vector<double> scaleBcqp(BcqpInstance& qp);

struct AlmIterationStats {
  int iteration = 0;            // k of the iterate the step started from
  double stepNorm = 0.0;        // ||dp||_2 of the BCQP solution
  double stepLength = 0.0;      // accepted t (0 if none)
  int halvings = 0;             // line-search halvings
  int mprgpIterations = 0;
  bool mprgpConverged = false;
  SolverOutcome mprgpReason = SolverOutcome::None;
  double lagrangianBefore = 0.0, lagrangianAfter = 0.0;  // L(p^k, lambda^k), L(p^{k+1}, lambda^k)
  double residual = 0.0;        // relative residual ||M^-1/2 f|| / ||M^-1/2 f_ext|| after the step
  int activeBounds = 0;         // entries of p^{k+1} on a bound (frozen entries excluded)
  double assemblySeconds = 0.0, factorSeconds = 0.0, mprgpSeconds = 0.0, lineSearchSeconds = 0.0;
};

struct AlmStats {
  int newtonIterations = 0;     // BCQPs solved (= accepted steps, plus the final rejected one if any)
  long mprgpIterations = 0;     // summed over BCQPs
  int mprgpNotConverged = 0;    // BCQPs where MPRGP stopped before its tolerance (cap, breakdown)
  long factorizations = 0;      // numeric factorisations of the preconditioner
  long lineSearchHalvings = 0;
  double assemblySeconds = 0.0, factorSeconds = 0.0, mprgpSeconds = 0.0, lineSearchSeconds = 0.0;
  double initialResidual = 0.0;
  double residual = 0.0;        // relative residual at the current p
  std::string stopReason;       // "" while running; "step_small", "k_max", "line_search"
  std::vector<AlmIterationStats> history;
  double mprgpPerSolve() const {
    return newtonIterations > 0 ? static_cast<double>(mprgpIterations) / newtonIterations : 0.0;
  }
  double totalSeconds() const { return assemblySeconds + factorSeconds + mprgpSeconds + lineSearchSeconds; }
};

// Everything that determines the continuation of a run.
struct AlmState {
  std::vector<double> p, lambda, previousStep;
  int k = 0;
  bool done = false;
  AlmStats stats;
};

class AlmOptimizer;

// Work storage of AlmOptimizer for one strand at a time (see above). Not thread-safe: the
// optimisers sharing it must iterate one after the other.
class AlmWorkspace {
 public:
  // `options` fixes the preconditioner (name and options) the workspace builds; optimisers that
  // share it must use the same. The backend must outlive the workspace.
  AlmWorkspace(const OptimizerOptions& options, const la::Backend& backend);
  AlmWorkspace(const AlmWorkspace&) = delete;
  AlmWorkspace& operator=(const AlmWorkspace&) = delete;
  // Strands (re)built into this workspace so far (each change of strand counts once).
  long rebuilds() const { return rebuilds_; }

 private:
  friend class AlmOptimizer;
  void resize(int N);  // buffers for a strand of N vertices (no allocation if the size is unchanged)

  const la::Backend& backend_;
  std::string preconditioner_;
  QpPreconditionerOptions qpOptions_;
  std::uint64_t owner_ = 0;  // id of the optimiser whose data the workspace holds (0: none)
  long rebuilds_ = 0;
  int N_ = -1;

  // Derived inputs of the current strand.
  ReferenceFrames frames_;
  RestState rest0_;
  std::vector<double> mass_, fext_, p0_, w_;
  ParameterBox box_;
  StrandForceModel model_;
  // Iteration buffers.
  std::vector<double> f_, fTrial_, pTrial_, grad_, work_, dp_, b_, lo_, hi_, scaling_;
  std::vector<double> ipmB_, ipmLo_, ipmHi_, ipmX_;  // the scaled BCQP for bcqp_solver = ipm
  ForceJacobianMatrix J_;
  std::shared_ptr<BandedSymmetric> A_;
  la::IndexMapPtr map_;
  std::shared_ptr<BandedOperator> op_;
  la::VectorPtr bVec_, loVec_, hiVec_, xVec_;
  std::shared_ptr<BandedQpPreconditioner> prec_;
  solvers::Mprgp mprgp_;
};

class AlmOptimizer {
 public:
  // q: interleaved configuration (fixed); frames: its reference frames; the initial rest state
  // is the naive one, restStateFrom(q, frames, material); mass and gravity from rod_mass.
  // `workspace`: shared work storage (null: the optimiser makes its own).
  AlmOptimizer(const std::vector<double>& q, const ReferenceFrames& frames, const Material& material,
               const OptimizerOptions& options, const la::Backend& backend, int strandId = 0,
               std::shared_ptr<AlmWorkspace> workspace = nullptr);
  // The frames are initialFrames(q), recomputed whenever the workspace is rebuilt for this strand
  // rather than stored: the smallest state (the der module's). This constructor builds nothing:
  // the workspace is built for the strand, and its initial state (p = p0, lambda = 0, the initial
  // residual) set, when it is first needed (the first iteration, which builds it anyway, or an
  // accessor below), so a set-up of many strands does not build each one twice (bitwise the same
  // results: the same functions on the same inputs). Its input errors (a zero external force)
  // come then too.
  AlmOptimizer(std::vector<double> q, const Material& material, const OptimizerOptions& options,
               const la::Backend& backend, int strandId, std::shared_ptr<AlmWorkspace> workspace);
  ~AlmOptimizer();
  AlmOptimizer(const AlmOptimizer&) = delete;
  AlmOptimizer& operator=(const AlmOptimizer&) = delete;

  // One ALM iteration (assemble, factor, MPRGP, line search, dual update); returns done().
  bool iterate();
  // Iterates until done; returns the statistics.
  const AlmStats& run();
  bool done() const { return done_; }
  int iteration() const { return k_; }

  AlmState state() const;  // (starts the state first, see below)
  void restore(const AlmState& state);

  RestState restState() const;         // optimised (current) rest state, kbar synchronised
  RestState initialRestState() const;  // p0 as a RestState (kbar synchronised, README decision 11)
  const AlmStats& stats() const { return started().stats_; }
  const std::vector<double>& parameters() const { return started().p_; }
  const std::vector<double>& multipliers() const { return started().lambda_; }
  double scale() const { return derived_ ? scale_ : (bound(), scale_); }
  const OptimizerOptions& options() const { return options_; }
  const std::vector<double>& configuration() const { return q_; }
  const AlmWorkspace& workspace() const { return *ws_; }
  // Derived data, held by the workspace: valid until another optimiser uses the workspace.
  const std::vector<double>& initialParameters() const { return bound().p0_; }
  const std::vector<double>& lowerBounds() const { return bound().box_.lower; }
  const std::vector<double>& upperBounds() const { return bound().box_.upper; }
  const std::vector<double>& weights() const { return bound().w_; }
  const StrandForceModel& model() const { return bound().model_; }

  // Relative residual ||M^-1/2 f(p)|| / ||M^-1/2 f_ext|| at p (current p by default; the same
  // number as stats().residual, recomputed).
  double relativeResidual() const;
  double relativeResidual(const std::vector<double>& p) const;
  // L(p, lambda) of Eq. 15 at the given p with the current lambda.
  double lagrangian(const std::vector<double>& p) const;
  // The BCQP of the current iterate (copies); does not change the optimiser's state. asSolved:
  // with the diagonal scaling the optimiser applies before MPRGP (options().scaleBcqp).
  BcqpInstance currentBcqp(bool asSolved = false);

 private:
  // Makes the workspace hold this strand's derived data (rebuilding it if it served another
  // strand last) and returns it.
  AlmWorkspace& bound() const;
  void init(bool deferred);
  void start(const AlmWorkspace& w) const;  // the initial state (see the constructor without frames)
  const AlmOptimizer& started() const {
    if (!started_) bound();
    return *this;
  }
  void assemble();  // f_, J_, grad_, A_, b_, lo_, hi_ of the workspace at p_
  double lagrangianOf(const std::vector<double>& p, const std::vector<double>& f) const;
  double scaledNorm(const std::vector<double>& f) const;  // ||M^-1/2 f||
  void checkFinite(const std::vector<double>& v, const char* what) const;
  void finish(const char* reason);
  // The steps of one iterate() (Algorithm 1's inner iteration): scale the assembled BCQP, solve it
  // for the step w.dp_, search along it, accept the trial point.
  void scaleAssembled(AlmWorkspace& w) const;
  solvers::MprgpStats solveBcqp(AlmWorkspace& w);
  bool lineSearch(AlmWorkspace& w, AlmIterationStats& it) const;
  void accept(AlmWorkspace& w);

  // Inputs. frames_ and rest0_ are empty when derived from q_ and material_.
  OptimizerOptions options_;
  const la::Backend& backend_;
  int strandId_;
  int N_ = 0;
  std::vector<double> q_;
  Material material_;
  ReferenceFrames frames_;
  RestState rest0_;
  // State, and the scale and ||M^-1/2 f_ext|| of the strand's model. Mutable: bound() sets them
  // when it first builds the workspace for the strand (started_, derived_), which may be deferred
  // from the constructor to the first use (see the constructor without frames).
  mutable std::vector<double> p_, lambda_, prevDp_;
  mutable double scale_ = 1.0, fextNorm_ = 0.0;
  int k_ = 0;
  bool done_ = false;
  mutable AlmStats stats_;
  mutable bool started_ = false, derived_ = false;
  std::uint64_t id_;
  std::shared_ptr<AlmWorkspace> ws_;
};

}  // namespace kinema::der

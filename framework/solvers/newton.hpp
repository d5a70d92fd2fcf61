#pragma once
// Newton with backtracking line search on a manifold (bdem paper, Lu et al., §4.2 and §5;
// docs/solvers/newton.md), written
// once over the abstract linear-algebra layer. The caller implements a NewtonProblem: energy
// f(x), the reduced Riemannian gradient g_red (tangent coordinates, bdem Eqs. 28-29) and the
// reduced Riemannian Hessian H_red, curvature term included (bdem Eqs. 23-29; RigidManifold::
// reduceHessian does it for (R^3 x S^3)^n). Each iteration k:
//   1. g_red(x_k); stop when the measure (||g_red||_2 by default) <= max(gtolAbs, gtolRel * m_0)
//   2. H_red assembled through a ReducedHessian (element blocks PSD-projected on request, 3.5)
//   3. H_red y = -g_red by any backend LinearSolver with rtol = eta_k, the forcing term
//      (Eq. 31: eta_k = min(0.5, sqrt(||g_red||)); options "quadratic" and "fixed" as well)
//   4. if y is not a descent direction (g^T y >= 0 or non-finite), y = -D^{-1} g_red when the
//      diagonal D of H_red is positive, else y = -g_red (docs/solvers/newton.md)
//   5. backtracking Armijo along the retraction (bdem Alg. 2 line 8):
//      f(R_x(alpha y)) <= f(x) + c1 alpha g^T y,  alpha = alpha_0, alpha_0 * shrink, ...
//      with alpha_0 = min(1, manifold.maxStep(y)); if every trial fails, steepest descent with
//      the same line search; if that fails too, stop with reason "line_search_failed". A trial
//      whose required decrease is below f's round-off is judged by the convergence measure
//      instead (NewtonOptions::gradientTestWhenFlat).
// The point x is an la::Vector with the manifold's ambient block size.
#include <Eigen/Core>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "framework/core/solver_outcome.hpp"
#include "framework/la/backend.hpp"
#include "framework/solvers/manifold.hpp"
#include "framework/solvers/newton_psd.hpp"

namespace kinema::solvers {

struct NewtonOptions {
  double gtolAbs = 1e-8;             // stop when ||g_red|| <= max(gtolAbs, gtolRel ||g_red(x_0)||)
  double gtolRel = 0.0;
  int maxIterations = 100;           // Newton iterations (logged when hit)
  double armijoC1 = 1e-4;            // Armijo constant c (our choice; bdem Alg. 2 gives none)
  double shrink = 0.5;               // alpha <- shrink * alpha on a rejected trial
  int maxLineSearch = 30;            // trials per line search
  // Armijo slack for round-off in f: accept when f_trial - f <= c1 alpha g^T y + energyNoise *
  // max(|f|, |f_trial|). Needed close to a minimum with f = O(1), where the decrease is ~ eps |f|.
  double energyNoise = 1e-13;
  // Where the decrease a trial asks for, c1 alpha |g^T y|, is below that slack, f cannot rank the
  // trial: at the round-off floor of f (f a small difference of large terms, e.g. an incremental
  // potential near its minimum) the sign of f_trial - f is noise, and a full Newton step that
  // lowers the residual is rejected as often as not, and Newton stalls there (docs/modules/bdem.md,
  // "Convergence"; Hager and Zhang's approximate Wolfe test rests on the same observation). With
  // this on, the first such trial that fails the energy test is accepted if it lowers the
  // convergence measure (one gradient evaluation, reused as the next iterate's).
  bool gradientTestWhenFlat = true;
  std::string forcing = "eq31";      // eq31: min(forcingMax, c sqrt(||g||)); quadratic: min(max, c ||g||); fixed: linear.rtol
  double forcingConstant = 1.0;      // c above
  double forcingMax = 0.5;           // the 0.5 of Eq. 31
  double forcingMin = 1e-14;         // lower bound on the linear rtol
  // What the forcing term is computed from: "gradient" (||g_red||_2, Eq. 31 as printed: depends on
  // the unit system, bdem Eq. 31 as printed) or "measure" (the problem's convergenceMeasure, which a problem
  // may make dimensionless, e.g. bdem's).
  std::string forcingOf = "gradient";
  bool psdProjection = true;         // ReducedHessian::addElement projects element blocks
  double psdFloor = 0.0;             // eigenvalues below are clamped to it
  bool steepestFallback = true;      // steepest descent when the Newton line search fails
  la::LinearSolverOptions linear;    // type, preconditioner, max iterations; rtol used by "fixed"
};

// Wall seconds of one solve by phase. The phases are disjoint, so their sum is at most
// NewtonStats::seconds (the rest: vector copies, the observer, the descent-direction check).
struct NewtonPhaseSeconds {
  double energy = 0;          // f(x_0) (energies of line-search trials are in lineSearch)
  double gradient = 0;        // g_red and the convergence measure, every iteration
  double assemble = 0;        // H_red: the problem's element loop, the assembler's end(), near-null space
  double preconditioner = 0;  // LinearSolver::setOperator: preconditioner set-up (AMG hierarchy, IC(0))
  double krylov = 0;          // LinearSolver::solve
  double lineSearch = 0;      // retractions and trial energies
  double sum() const { return energy + gradient + assemble + preconditioner + krylov + lineSearch; }
  NewtonPhaseSeconds& operator+=(const NewtonPhaseSeconds& o);
};

struct NewtonStats {
  int iterations = 0;                // Newton steps taken
  int lineSearchTrials = 0;          // energy evaluations in line searches, all iterations
  int flatGradientTests = 0;         // trials judged by the measure, f being flat (gradientTestWhenFlat)
  int linearSolves = 0;
  int linearIterations = 0;          // summed over the solves
  int linearNotConverged = 0;        // solves that ended without reaching their rtol
  int steepestDescentSteps = 0;      // directions replaced by -D^{-1} g_red or -g_red
  long psdElements = 0;              // element blocks passed through the PSD safeguard
  long psdClamped = 0;               // eigenvalues it clamped
  double initialEnergy = 0.0, finalEnergy = 0.0;
  double initialGradientNorm = 0.0;  // ||g_red(x_0)||_2
  double finalGradientNorm = 0.0;    // ||g_red||_2 at exit
  double finalMeasure = 0.0;         // the convergence measure at exit
  bool converged = false;
  SolverOutcome reason = SolverOutcome::None;  // Gtol | MaxIterations | LineSearchFailed | NonFinite
  std::vector<double> gradientNorms; // ||g_red(x_k)||_2, k = 0..iterations
  std::vector<double> stepLengths;   // accepted alpha per iteration
  std::vector<double> forcingTerms;  // eta_k per iteration
  double seconds = 0.0;
  NewtonPhaseSeconds phases;         // seconds by phase (sum <= seconds)
};

// The reduced Hessian as the problem assembles it: blocks of the tangent block size, global block
// indices. addElement is the PSD-safeguard hook: an element over nb particles, (nb*bs)^2 dense,
// projected to semidefinite (NewtonOptions::psdProjection) and scattered in bs x bs blocks.
class ReducedHessian {
 public:
  ReducedHessian(la::MatrixAssembler& assembler, const NewtonOptions& options, NewtonStats& stats);
  int blockSize() const { return bs_; }
  // One bs x bs block, row-major, added.
  void add(la::GlobalIndex I, la::GlobalIndex J, const double* block) { asm_.add(I, J, block); }
  template <class Derived>
  void addBlock(la::GlobalIndex I, la::GlobalIndex J, const Eigen::MatrixBase<Derived>& b) {
    asm_.addBlock(I, J, b);
  }
  // Element block over particles `blocks` (N = blocks.size() * blockSize()). With safeguard (and
  // the option on) the block is replaced by its PSD projection first.
  template <int N>
  void addElement(std::span<const la::GlobalIndex> blocks, Eigen::Matrix<double, N, N> H, bool safeguard = true) {
    checkElement(N, blocks.size());
    if (safeguard && psd_) {
      ++stats_.psdElements;
      stats_.psdClamped += projectPSD(H, floor_);
    }
    scatter(blocks, H.data(), N);
  }
  // A two-particle element whose energy depends on the positions only through p_j - p_i (a bond):
  // the same projection as addElement, computed on the relative coordinates
  // (projectPSDTranslationInvariantPair, about 0.4 of the cost). Needs block size 6.
  template <int N>
  void addTranslationInvariantPair(std::span<const la::GlobalIndex, 2> blocks, Eigen::Matrix<double, N, N> H) {
    static_assert(N % 2 == 0 && N >= 6, "a pair element over two blocks of size >= 3");
    checkElement(N, blocks.size());
    if (psd_) {
      ++stats_.psdElements;
      stats_.psdClamped += projectPSDTranslationInvariantPair<N / 2>(H, floor_);
    }
    scatter(blocks, H.data(), N);
  }

 private:
  void checkElement(int n, std::size_t blocks) const;
  void scatter(std::span<const la::GlobalIndex> blocks, const double* colMajor, int n);
  la::MatrixAssembler& asm_;
  NewtonStats& stats_;
  int bs_;
  bool psd_;
  double floor_;
  std::vector<double> buf_;  // bs x bs, row-major
};

// What the caller implements. x is on the point map (ambient block size, ghosts current); g on
// the tangent map of the manifold (Manifold::tangentMap).
class NewtonProblem {
 public:
  virtual ~NewtonProblem() = default;
  // Collective: the global energy, the same value on every rank (sum the owned contributions
  // over the point map's communicator).
  virtual double energy(const la::Vector& x) = 0;
  // Reduced Riemannian gradient g_red (bdem Eqs. 28-29), owned entries.
  virtual void gradient(const la::Vector& x, la::Vector& g) = 0;
  // Reduced Riemannian Hessian with the curvature term (bdem Eqs. 23-29). begin()/end() of the
  // assembler are done by the solver.
  virtual void hessian(const la::Vector& x, ReducedHessian& H) = 0;
  // Convergence measure (bdem Alg. 2-3 leave it open; a dimensionless one is allowed); ||g||_2 by default. Collective.
  virtual double convergenceMeasure(const la::Vector& x, const la::Vector& g) {
    (void)x;
    return g.norm2();
  }
  // Near-null space of H_red for algebraic multigrid (e.g. the six rigid-body modes of
  // bdem), as vectors on `tangentMap` created with `backend`. The solver attaches them to
  // its matrix (la::Matrix::setNearNullSpace) after every assembly. Default: none. Collective.
  virtual std::vector<std::shared_ptr<const la::Vector>> nearNullSpace(const la::Vector& x,
                                                                       const la::Backend& backend,
                                                                       const la::IndexMapPtr& tangentMap) {
    (void)x;
    (void)backend;
    (void)tangentMap;
    return {};
  }
};

class NewtonSolver {
 public:
  // backend and manifold must outlive the solver.
  NewtonSolver(const la::Backend& backend, const Manifold& manifold, NewtonOptions options = {});
  // Called after every accepted step: iteration k (1-based), the new point, stats so far.
  using Observer = std::function<void(int iteration, const la::Vector& x, const NewtonStats& stats)>;
  void setObserver(Observer observer) { observer_ = std::move(observer); }
  // x: initial point on entry, result on exit. Does not throw on non-convergence.
  NewtonStats solve(NewtonProblem& problem, la::Vector& x);
  // Forget the Hessian's sparsity pattern (topology changed).
  void resetPattern();
  const NewtonOptions& options() const { return options_; }
  NewtonOptions& options() { return options_; }

 private:
  void setup(const la::Vector& x);
  double forcingTerm(double gnorm) const;
  const la::Backend& backend_;
  const Manifold& manifold_;
  NewtonOptions options_;
  Observer observer_;
  // Work objects, kept while the point map stays the same.
  la::IndexMapPtr pointMap_;  // held so its address is not reused
  la::IndexMapPtr tmap_;
  std::unique_ptr<la::MatrixAssembler> assembler_;
  la::VectorPtr g_, y_, rhs_, diag_, xTrial_, gTrial_;
  la::LinearSolverPtr linear_;
  double linearRtol_ = -1.0;
  long modesPattern_ = -1;  // assembler pattern builds when the near-null space was last attached
};

}  // namespace kinema::solvers

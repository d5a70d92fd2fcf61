#include "framework/solvers/newton.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "framework/core/error.hpp"
#include "framework/core/log.hpp"

namespace kinema::solvers {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

NewtonPhaseSeconds& NewtonPhaseSeconds::operator+=(const NewtonPhaseSeconds& o) {
  energy += o.energy;
  gradient += o.gradient;
  assemble += o.assemble;
  preconditioner += o.preconditioner;
  krylov += o.krylov;
  lineSearch += o.lineSearch;
  return *this;
}

// ---------------------------------------------------------------------------------------------
ReducedHessian::ReducedHessian(la::MatrixAssembler& assembler, const NewtonOptions& options, NewtonStats& stats)
    : asm_(assembler),
      stats_(stats),
      bs_(assembler.blockSize()),
      psd_(options.psdProjection),
      floor_(options.psdFloor),
      buf_(static_cast<std::size_t>(bs_ * bs_)) {}

void ReducedHessian::checkElement(int n, std::size_t blocks) const {
  KINEMA_CHECK(static_cast<std::size_t>(n) == blocks * static_cast<std::size_t>(bs_),
               "ReducedHessian::addElement: element of size ", n, " over ", blocks,
               " blocks of size ", bs_);
}

void ReducedHessian::scatter(std::span<const la::GlobalIndex> blocks, const double* colMajor, int n) {
  const std::size_t nb = blocks.size();
  for (std::size_t a = 0; a < nb; ++a)
    for (std::size_t b = 0; b < nb; ++b) {
      for (int i = 0; i < bs_; ++i)
        for (int j = 0; j < bs_; ++j) {
          const std::size_t r = a * static_cast<std::size_t>(bs_) + static_cast<std::size_t>(i);
          const std::size_t c = b * static_cast<std::size_t>(bs_) + static_cast<std::size_t>(j);
          buf_[static_cast<std::size_t>(i * bs_ + j)] = colMajor[c * static_cast<std::size_t>(n) + r];
        }
      asm_.add(blocks[a], blocks[b], buf_.data());
    }
}

// ---------------------------------------------------------------------------------------------
NewtonSolver::NewtonSolver(const la::Backend& backend, const Manifold& manifold, NewtonOptions options)
    : backend_(backend), manifold_(manifold), options_(std::move(options)) {
  KINEMA_CHECK(options_.shrink > 0.0 && options_.shrink < 1.0, "Newton: shrink must be in (0, 1)");
  KINEMA_CHECK(options_.armijoC1 > 0.0 && options_.armijoC1 < 1.0, "Newton: armijo c1 must be in (0, 1)");
  KINEMA_CHECK(options_.forcing == "eq31" || options_.forcing == "quadratic" || options_.forcing == "fixed",
               "Newton: unknown forcing term '", options_.forcing, "' (eq31, quadratic, fixed)");
}

void NewtonSolver::resetPattern() {
  if (assembler_) assembler_->resetPattern();
}

void NewtonSolver::setup(const la::Vector& x) {
  KINEMA_CHECK(x.map().blockSize() == manifold_.ambientBlockSize(), "Newton: the point has block size ",
               x.map().blockSize(), ", the manifold '", manifold_.name(), "' needs ",
               manifold_.ambientBlockSize());
  if (pointMap_.get() == &x.map() && assembler_) return;
  backend_.requireUsable(x.map());
  pointMap_ = x.mapPtr();
  tmap_ = manifold_.tangentMap(x.mapPtr());
  assembler_ = backend_.createAssembler(tmap_, tmap_);
  g_ = backend_.createVector(tmap_);
  y_ = backend_.createVector(tmap_);
  rhs_ = backend_.createVector(tmap_);
  diag_ = backend_.createVector(tmap_);
  gTrial_ = backend_.createVector(tmap_);
  xTrial_ = x.clone();
  linear_.reset();
  linearRtol_ = -1.0;
  modesPattern_ = -1;
}

double NewtonSolver::forcingTerm(double gnorm) const {
  double eta = options_.linear.rtol;
  if (options_.forcing == "eq31")
    eta = std::min(options_.forcingMax, options_.forcingConstant * std::sqrt(gnorm));  // Eq. 31
  else if (options_.forcing == "quadratic")
    eta = std::min(options_.forcingMax, options_.forcingConstant * gnorm);
  return std::max(eta, options_.forcingMin);
}

namespace {

// The work objects of one Newton solve: the solver's members, by reference (made after setup()).
struct NewtonWork {
  const la::Backend& backend;
  const Manifold& manifold;
  const NewtonOptions& options;
  la::MatrixAssembler& assembler;
  const la::IndexMapPtr& tmap;
  long& modesPattern;  // assembler pattern builds when the near-null space was last attached
  la::LinearSolverPtr& linear;
  double& linearRtol;
  la::Vector &g, &y, &rhs, &xt, &diag, &gt;
};

// The outcome that ends the iteration at iterate k, or None to go on (the iteration cap is logged).
SolverOutcome stopReason(const NewtonOptions& o, int k, double f, double gnorm, double measure, double measure0) {
  if (!std::isfinite(f) || !std::isfinite(measure)) return SolverOutcome::NonFinite;
  if (measure <= std::max(o.gtolAbs, o.gtolRel * measure0)) return SolverOutcome::Gtol;
  if (k >= o.maxIterations) {
    log::info("Newton: iteration cap ", o.maxIterations, " reached, ||g_red|| = ", gnorm);
    return SolverOutcome::MaxIterations;
  }
  return SolverOutcome::None;
}

// Assembles H_red at x and attaches the problem's near-null space when it may be needed.
la::MatrixPtr assembleHessian(NewtonWork& w, NewtonProblem& problem, const la::Vector& x, NewtonStats& st) {
  // Reduced Hessian (bdem Eqs. 23-29), PSD-safeguarded per element (bdem §5.2).
  const auto tp = Clock::now();
  w.assembler.begin();
  {
    ReducedHessian H(w.assembler, w.options, st);
    problem.hessian(x, H);
  }
  la::MatrixPtr A = w.assembler.end();
  // The near-null space only shapes an AMG hierarchy built from scratch: under a reuse policy a
  // refill of the same pattern keeps the modes attached before.
  const long builds = w.assembler.stats().patternBuilds;
  if (w.options.linear.reusePreconditioner == "none" || builds != w.modesPattern || A->nearNullSpace().empty()) {
    if (auto modes = problem.nearNullSpace(x, w.backend, w.tmap); !modes.empty()) A->setNearNullSpace(std::move(modes));
    w.modesPattern = builds;
  }
  st.phases.assemble += since(tp);
  return A;
}

// Inexact solve H y = -g with rtol = eta (Eq. 31), through the solver's kept LinearSolver.
void solveNewtonSystem(NewtonWork& w, const la::MatrixPtr& A, double eta, NewtonStats& st) {
  NewtonPhaseSeconds& ph = st.phases;
  if (!w.linear) w.linear = w.backend.createLinearSolver(w.options.linear);
  if (eta != w.linearRtol) {
    w.linear->setTolerances(std::min(eta, 1.0), w.options.linear.atol);  // no new solver per iteration
    w.linearRtol = eta;
  }
  // Preconditioner set-up; with linear.reuse_preconditioner the backend keeps what it may of
  // the previous set-up when only the values of the same pattern changed (a Newton refill).
  auto tp = Clock::now();
  w.linear->setOperator(A);
  ph.preconditioner += since(tp);
  w.rhs.copy(w.g);
  w.rhs.scale(-1.0);
  w.y.set(0.0);
  tp = Clock::now();
  const la::SolverStats ls = w.linear->solve(w.rhs, w.y);
  ph.krylov += since(tp);
  ++st.linearSolves;
  st.linearIterations += ls.iterations;
  if (!ls.converged) ++st.linearNotConverged;
}

// The search direction in y and its slope g^T y.
struct Direction {
  double slope;
  bool newton;  // y is the Newton direction (not a fallback)
};

// Keeps the Newton direction y if it is a descent direction, else replaces it by a fallback.
Direction descentDirection(NewtonWork& w, const la::MatrixPtr& A, double gnorm, NewtonStats& st) {
  la::Vector &g = w.g, &y = w.y;
  double slope = g.dot(y);
  if (!(slope < 0.0) || !std::isfinite(slope)) {
    // Not a descent direction (indefinite H without safeguard, Krylov breakdown): docs/solvers/newton.md
    // falls back to y = -D^{-1} g when the diagonal is positive, else y = -g.
    A->diagonal(w.diag);
    if (w.diag.min() > 0.0) {
      y.pointwiseDivide(g, w.diag);
      y.scale(-1.0);
      slope = g.dot(y);
    } else {
      y.copy(g);
      y.scale(-1.0);
      slope = -gnorm * gnorm;
    }
    ++st.steepestDescentSteps;
    return {slope, false};
  }
  return {slope, true};
}

// Where a line search starts: f, ||g_red|| and the measure at x, and the direction in y.
struct LineSearchStart {
  double f, gnorm, measure;
  Direction direction;
};

// What a line search found: the last trial (alpha, f at it) and, when the measure accepted it,
// the measure there (the gradient there is then in g).
struct LineSearchResult {
  bool accepted = false;
  double alpha = 0.0, ft = 0.0;
  bool haveGradient = false;
  double measureT = 0.0;
};

// The trial xt, at which f is flat to round-off, judged by the convergence measure instead:
// accepted if the measure there is below the measure at x.
bool lowersMeasure(NewtonWork& w, NewtonProblem& problem, double measure, Clock::time_point& tp, NewtonStats& st,
                   LineSearchResult& r) {
  ++st.flatGradientTests;
  const auto tg = Clock::now();
  problem.gradient(w.xt, w.gt);
  const double mt = problem.convergenceMeasure(w.xt, w.gt);
  st.phases.gradient += since(tg);
  tp += Clock::now() - tg;  // keep the phases disjoint
  if (std::isfinite(mt) && mt < measure) {
    w.g.copy(w.gt);
    r.measureT = mt;
    r.haveGradient = true;
    r.accepted = true;
    return true;
  }
  return false;
}

// Backtracking Armijo along the retraction (bdem Alg. 2 line 8), then along -g if that fails.
LineSearchResult lineSearch(NewtonWork& w, NewtonProblem& problem, const la::Vector& x, const LineSearchStart& s,
                            NewtonStats& st) {
  const NewtonOptions& o = w.options;
  auto tp = Clock::now();
  LineSearchResult r;
  r.ft = s.f;
  bool flatTested = false;
  double slope = s.direction.slope;
  for (int pass = 0; pass < 2 && !r.accepted; ++pass) {
    if (pass == 1) {
      if (!s.direction.newton || !o.steepestFallback) break;
      w.y.copy(w.g);
      w.y.scale(-1.0);
      slope = -s.gnorm * s.gnorm;
      ++st.steepestDescentSteps;
    }
    r.alpha = std::min(1.0, w.manifold.maxStep(w.y));
    for (int t = 0; t < o.maxLineSearch; ++t, r.alpha *= o.shrink) {
      w.xt.copy(x);
      w.manifold.retract(w.xt, w.y, r.alpha);
      r.ft = problem.energy(w.xt);
      ++st.lineSearchTrials;
      const double slack = o.energyNoise * std::max(std::abs(s.f), std::abs(r.ft));
      if (std::isfinite(r.ft) && r.ft - s.f <= o.armijoC1 * r.alpha * slope + slack) {
        r.accepted = true;
        break;
      }
      // f is flat to round-off along y here: the Armijo decrease is below f's resolution, so
      // the sign of ft - f says nothing. Judge the trial by the measure instead (once per line
      // search; all quantities are global, so every rank takes the same branch).
      if (o.gradientTestWhenFlat && !flatTested && std::isfinite(r.ft) && -o.armijoC1 * r.alpha * slope <= slack) {
        flatTested = true;
        if (lowersMeasure(w, problem, s.measure, tp, st, r)) break;
      }
    }
  }
  st.phases.lineSearch += since(tp);
  return r;
}

}  // namespace

NewtonStats NewtonSolver::solve(NewtonProblem& problem, la::Vector& x) {
  const auto t0 = Clock::now();
  setup(x);
  NewtonStats st;
  st.gradientNorms.reserve(static_cast<std::size_t>(options_.maxIterations) + 1);
  st.stepLengths.reserve(static_cast<std::size_t>(options_.maxIterations));
  st.forcingTerms.reserve(static_cast<std::size_t>(options_.maxIterations));
  la::Vector& g = *g_;
  NewtonWork w{backend_, manifold_, options_, *assembler_, tmap_, modesPattern_, linear_, linearRtol_,
               g, *y_, *rhs_, *xTrial_, *diag_, *gTrial_};

  NewtonPhaseSeconds& ph = st.phases;
  auto tp = Clock::now();
  x.updateGhosts();
  double f = problem.energy(x);
  ph.energy += since(tp);
  st.initialEnergy = f;
  double measure0 = 0.0;
  bool haveGradient = false;  // g and measureT already hold the gradient at x (flat-f trial)
  double measureT = 0.0;
  for (int k = 0;; ++k) {
    tp = Clock::now();
    if (!haveGradient) problem.gradient(x, g);
    const double gnorm = g.norm2();
    const double measure = haveGradient ? measureT : problem.convergenceMeasure(x, g);
    haveGradient = false;
    ph.gradient += since(tp);
    st.gradientNorms.push_back(gnorm);
    st.finalGradientNorm = gnorm;
    st.finalMeasure = measure;
    st.finalEnergy = f;
    if (k == 0) {
      st.initialGradientNorm = gnorm;
      measure0 = measure;
    }
    if (const SolverOutcome stop = stopReason(options_, k, f, gnorm, measure, measure0); stop != SolverOutcome::None) {
      st.converged = stop == SolverOutcome::Gtol;
      st.reason = stop;
      break;
    }

    const la::MatrixPtr A = assembleHessian(w, problem, x, st);
    // Inexact solve H y = -g with rtol = eta_k (Eq. 31).
    const double eta = forcingTerm(options_.forcingOf == "measure" ? measure : gnorm);
    st.forcingTerms.push_back(eta);
    solveNewtonSystem(w, A, eta, st);
    const Direction direction = descentDirection(w, A, gnorm, st);

    const LineSearchResult ls = lineSearch(w, problem, x, {f, gnorm, measure, direction}, st);
    if (!ls.accepted) {
      st.reason = SolverOutcome::LineSearchFailed;
      break;
    }
    haveGradient = ls.haveGradient;
    measureT = ls.measureT;
    x.copy(w.xt);
    x.updateGhosts();
    f = ls.ft;
    st.iterations = k + 1;
    st.stepLengths.push_back(ls.alpha);
    if (observer_) observer_(k + 1, x, st);
  }
  st.seconds = since(t0);
  return st;
}

}  // namespace kinema::solvers

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

NewtonStats NewtonSolver::solve(NewtonProblem& problem, la::Vector& x) {
  const auto t0 = Clock::now();
  setup(x);
  NewtonStats st;
  st.gradientNorms.reserve(static_cast<std::size_t>(options_.maxIterations) + 1);
  st.stepLengths.reserve(static_cast<std::size_t>(options_.maxIterations));
  st.forcingTerms.reserve(static_cast<std::size_t>(options_.maxIterations));
  la::Vector &g = *g_, &y = *y_, &rhs = *rhs_, &xt = *xTrial_, &diag = *diag_, &gt = *gTrial_;

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
    if (!std::isfinite(f) || !std::isfinite(measure)) {
      st.reason = SolverOutcome::NonFinite;
      break;
    }
    if (measure <= std::max(options_.gtolAbs, options_.gtolRel * measure0)) {
      st.converged = true;
      st.reason = SolverOutcome::Gtol;
      break;
    }
    if (k >= options_.maxIterations) {
      st.reason = SolverOutcome::MaxIterations;
      log::info("Newton: iteration cap ", options_.maxIterations, " reached, ||g_red|| = ", gnorm);
      break;
    }

    // Reduced Hessian (bdem Eqs. 23-29), PSD-safeguarded per element (bdem §5.2).
    tp = Clock::now();
    assembler_->begin();
    {
      ReducedHessian H(*assembler_, options_, st);
      problem.hessian(x, H);
    }
    la::MatrixPtr A = assembler_->end();
    // The near-null space only shapes an AMG hierarchy built from scratch: under a reuse policy a
    // refill of the same pattern keeps the modes attached before.
    const long builds = assembler_->stats().patternBuilds;
    if (options_.linear.reusePreconditioner == "none" || builds != modesPattern_ || A->nearNullSpace().empty()) {
      if (auto modes = problem.nearNullSpace(x, backend_, tmap_); !modes.empty()) A->setNearNullSpace(std::move(modes));
      modesPattern_ = builds;
    }
    ph.assemble += since(tp);

    // Inexact solve H y = -g with rtol = eta_k (Eq. 31).
    const double eta = forcingTerm(options_.forcingOf == "measure" ? measure : gnorm);
    st.forcingTerms.push_back(eta);
    if (!linear_) linear_ = backend_.createLinearSolver(options_.linear);
    if (eta != linearRtol_) {
      linear_->setTolerances(std::min(eta, 1.0), options_.linear.atol);  // no new solver per iteration
      linearRtol_ = eta;
    }
    // Preconditioner set-up; with linear.reuse_preconditioner the backend keeps what it may of
    // the previous set-up when only the values of the same pattern changed (a Newton refill).
    tp = Clock::now();
    linear_->setOperator(A);
    ph.preconditioner += since(tp);
    rhs.copy(g);
    rhs.scale(-1.0);
    y.set(0.0);
    tp = Clock::now();
    const la::SolverStats ls = linear_->solve(rhs, y);
    ph.krylov += since(tp);
    ++st.linearSolves;
    st.linearIterations += ls.iterations;
    if (!ls.converged) ++st.linearNotConverged;

    double slope = g.dot(y);
    bool newtonDirection = true;
    if (!(slope < 0.0) || !std::isfinite(slope)) {
      // Not a descent direction (indefinite H without safeguard, Krylov breakdown): docs/solvers/newton.md
      // falls back to y = -D^{-1} g when the diagonal is positive, else y = -g.
      A->diagonal(diag);
      if (diag.min() > 0.0) {
        y.pointwiseDivide(g, diag);
        y.scale(-1.0);
        slope = g.dot(y);
      } else {
        y.copy(g);
        y.scale(-1.0);
        slope = -gnorm * gnorm;
      }
      newtonDirection = false;
      ++st.steepestDescentSteps;
    }

    // Backtracking Armijo along the retraction (bdem Alg. 2 line 8).
    tp = Clock::now();
    bool accepted = false, flatTested = false;
    double alpha = 0.0, ft = f;
    for (int pass = 0; pass < 2 && !accepted; ++pass) {
      if (pass == 1) {
        if (!newtonDirection || !options_.steepestFallback) break;
        y.copy(g);
        y.scale(-1.0);
        slope = -gnorm * gnorm;
        ++st.steepestDescentSteps;
      }
      alpha = std::min(1.0, manifold_.maxStep(y));
      for (int t = 0; t < options_.maxLineSearch; ++t, alpha *= options_.shrink) {
        xt.copy(x);
        manifold_.retract(xt, y, alpha);
        ft = problem.energy(xt);
        ++st.lineSearchTrials;
        const double slack = options_.energyNoise * std::max(std::abs(f), std::abs(ft));
        if (std::isfinite(ft) && ft - f <= options_.armijoC1 * alpha * slope + slack) {
          accepted = true;
          break;
        }
        // f is flat to round-off along y here: the Armijo decrease is below f's resolution, so
        // the sign of ft - f says nothing. Judge the trial by the measure instead (once per line
        // search; all quantities are global, so every rank takes the same branch).
        if (options_.gradientTestWhenFlat && !flatTested && std::isfinite(ft) &&
            -options_.armijoC1 * alpha * slope <= slack) {
          flatTested = true;
          ++st.flatGradientTests;
          const auto tg = Clock::now();
          problem.gradient(xt, gt);
          const double mt = problem.convergenceMeasure(xt, gt);
          ph.gradient += since(tg);
          tp += Clock::now() - tg;  // keep the phases disjoint
          if (std::isfinite(mt) && mt < measure) {
            g.copy(gt);
            measureT = mt;
            haveGradient = true;
            accepted = true;
            break;
          }
        }
      }
    }
    ph.lineSearch += since(tp);
    if (!accepted) {
      st.reason = SolverOutcome::LineSearchFailed;
      break;
    }
    x.copy(xt);
    x.updateGhosts();
    f = ft;
    st.iterations = k + 1;
    st.stepLengths.push_back(alpha);
    if (observer_) observer_(k + 1, x, st);
  }
  st.seconds = since(t0);
  return st;
}

}  // namespace kinema::solvers

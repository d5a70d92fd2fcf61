// MPRGP (Dostál & Schöberl 2005) over the abstract linear-algebra layer; see mprgp.hpp and
// docs/solvers/mprgp.md. The per-index work (the split into free / chopped / reduced gradients,
// the feasible step and the snapped move) runs over the owned entries of local views, so it is
// the same on every backend; reductions go through the map's communicator.
#include "framework/solvers/mprgp.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>

#include "framework/core/error.hpp"

namespace kinema::solvers {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// The power iteration estimates ||A|| from below; the estimate is multiplied by this margin.
constexpr double kPowerSafety = 1.01;

// Deterministic start vector of the power iteration: a hash of the global index in [-1, 1],
// so the estimate does not depend on the number of ranks.
double startValue(std::int64_t g) {
  std::uint64_t z = static_cast<std::uint64_t>(g) + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return 2.0 * (static_cast<double>(z >> 11) * 0x1.0p-53) - 1.0;
}

void validateOptions(const MprgpOptions& o) {
  if (!(o.gamma > 0.0) || !std::isfinite(o.gamma))
    throw InputError(str("MPRGP: gamma must be positive and finite, got ", o.gamma));
  if (o.alphaRule != "power" && o.alphaRule != "fixed")
    throw InputError(str("MPRGP: alpha_rule must be power or fixed, got '", o.alphaRule, "'"));
  if (o.alphaRule == "power" && !(o.alphaFactor > 0.0 && o.alphaFactor <= 2.0))
    throw InputError(str("MPRGP: alpha_factor must be in (0, 2], got ", o.alphaFactor));
  if (o.alphaRule == "fixed" && !(o.alphaFixed > 0.0 && std::isfinite(o.alphaFixed)))
    throw InputError(str("MPRGP: alpha_rule fixed needs alpha_fixed > 0, got ", o.alphaFixed));
  if (o.powerIterations < 1)
    throw InputError(str("MPRGP: power_iterations must be at least 1, got ", o.powerIterations));
  if (!(o.rtol >= 0.0) || !(o.atol >= 0.0))
    throw InputError(str("MPRGP: rtol and atol must be nonnegative, got ", o.rtol, " and ", o.atol));
  if (o.maxIterations < 0)
    throw InputError(str("MPRGP: max_iterations must be nonnegative, got ", o.maxIterations));
}

std::int64_t globalIndex(const la::Vector& v, la::LocalIndex i) {
  return static_cast<std::int64_t>(v.map().ownedBegin()) * v.map().blockSize() + i;
}

// Everything the iteration needs from the split of g at x.
struct Split {
  double betaSq = 0.0;    // ||beta||^2
  double phitPhi = 0.0;   // phit . phi
  double phiSq = 0.0;     // ||phi||^2
  bool maskChanged = false;
  double projected() const { return std::sqrt(phiSq + betaSq); }
};

// freeMask_i = 1 if l_i < x_i < u_i else 0; phi = free gradient; beta = chopped gradient (0 on
// fixed variables l_i = u_i, which can never move). Set membership is by exact comparison.
Split split(const la::Vector& x, const la::Vector& g, const la::Vector& l, const la::Vector& u,
            double alphaBar, la::Vector& freeMask, la::Vector& phi, la::Vector& beta) {
  Split s;
  bool changed = false;
  {
    la::Vector::ConstView xv = x.view(), gv = g.view(), lv = l.view(), uv = u.view();
    la::Vector::View mv = freeMask.view(), pv = phi.view(), bv = beta.view();
    const la::LocalIndex n = x.ownedSize();
    for (la::LocalIndex i = 0; i < n; ++i) {
      const double xi = xv[i], gi = gv[i], li = lv[i], ui = uv[i];
      const bool atLower = xi == li, atUpper = xi == ui;
      const double m = (atLower || atUpper) ? 0.0 : 1.0;
      changed = changed || (mv[i] != m);
      mv[i] = m;
      if (m != 0.0) {
        pv[i] = gi;
        bv[i] = 0.0;
        double phit = 0.0;
        if (gi > 0.0) phit = std::min((xi - li) / alphaBar, gi);
        else if (gi < 0.0) phit = std::max((xi - ui) / alphaBar, gi);
        s.phitPhi += phit * gi;
        s.phiSq += gi * gi;
      } else {
        pv[i] = 0.0;
        double b = 0.0;
        if (atLower && atUpper) b = 0.0;
        else if (atLower) b = std::min(gi, 0.0);
        else b = std::max(gi, 0.0);
        bv[i] = b;
        s.betaSq += b * b;
      }
    }
  }
  const Comm& comm = x.map().comm();
  s.betaSq = comm.sum(s.betaSq);
  s.phitPhi = comm.sum(s.phitPhi);
  s.phiSq = comm.sum(s.phiSq);
  s.maskChanged = comm.any(changed);
  return s;
}

// The feasible step length along -p: min over p_i > 0 of (x_i - l_i)/p_i and over p_i < 0 of
// (u_i - x_i)/(-p_i), infinite bounds skipped; +inf if nothing blocks. Through Vector::minRatio.
double feasibleStep(const la::Vector& x, const la::Vector& p, const la::Vector& l, const la::Vector& u,
                    la::Vector& num, la::Vector& den) {
  {
    la::Vector::ConstView xv = x.view(), pv = p.view(), lv = l.view(), uv = u.view();
    la::Vector::View nv = num.view(), dv = den.view();
    const la::LocalIndex n = x.ownedSize();
    for (la::LocalIndex i = 0; i < n; ++i) {
      const double pi = pv[i];
      if (pi > 0.0 && lv[i] > -kInf) {
        nv[i] = xv[i] - lv[i];
        dv[i] = pi;
      } else if (pi < 0.0 && uv[i] < kInf) {
        nv[i] = uv[i] - xv[i];
        dv[i] = -pi;
      } else {
        nv[i] = 0.0;
        dv[i] = 0.0;  // skipped by minRatio
      }
    }
  }
  return num.minRatio(den);
}

// x -= a p, snapping exactly onto its bound every index whose blocking ratio (computed as in
// feasibleStep) is <= a, then clamping to the box (round-off only).
void moveAlong(la::Vector& x, const la::Vector& p, double a, const la::Vector& l, const la::Vector& u) {
  la::Vector::View xv = x.view();
  la::Vector::ConstView pv = p.view(), lv = l.view(), uv = u.view();
  const la::LocalIndex n = x.ownedSize();
  for (la::LocalIndex i = 0; i < n; ++i) {
    const double pi = pv[i], li = lv[i], ui = uv[i];
    if (pi == 0.0) continue;
    double xi = xv[i];
    if (pi > 0.0 && li > -kInf && (xi - li) / pi <= a) {
      xi = li;
    } else if (pi < 0.0 && ui < kInf && (ui - xi) / (-pi) <= a) {
      xi = ui;
    } else {
      xi -= a * pi;
      xi = std::min(std::max(xi, li), ui);
    }
    xv[i] = xi;
  }
}

// The checks of solve's input (collective): b and x finite, every box [l_i, u_i] non-empty with
// l_i < +inf and u_i > -inf. The first offending global index is reported, on every rank alike.
void checkInputs(const la::Vector& b, const la::Vector& lower, const la::Vector& upper, const la::Vector& x) {
  const Comm& comm = x.map().comm();
  if (b.hasNonFinite()) throw InputError("MPRGP: the right-hand side b has a NaN or infinite entry");
  if (x.hasNonFinite()) throw InputError("MPRGP: the initial guess has a NaN or infinite entry");
  std::int64_t bad = std::numeric_limits<std::int64_t>::max();
  std::int64_t badNan = bad;
  {
    la::Vector::ConstView lv = lower.view(), uv = upper.view();
    for (la::LocalIndex i = 0; i < lower.ownedSize(); ++i) {
      const double li = lv[i], ui = uv[i];
      if (std::isnan(li) || std::isnan(ui)) badNan = std::min(badNan, globalIndex(lower, i));
      else if (!(li <= ui) || li == kInf || ui == -kInf) bad = std::min(bad, globalIndex(lower, i));
    }
  }
  badNan = comm.min(badNan);
  bad = comm.min(bad);
  if (badNan != std::numeric_limits<std::int64_t>::max())
    throw InputError(str("MPRGP: a bound is NaN at index ", badNan));
  if (bad != std::numeric_limits<std::int64_t>::max()) {
    double li = 0, ui = 0;
    {
      la::Vector::ConstView lv = lower.view(), uv = upper.view();
      for (la::LocalIndex i = 0; i < lower.ownedSize(); ++i)
        if (globalIndex(lower, i) == bad) li = lv[i], ui = uv[i];
    }
    li = comm.sum(li);
    ui = comm.sum(ui);
    throw InputError(str("MPRGP: empty box at index ", bad, ": lower ", li, " > upper ", ui,
                         " (lower must be < +inf, upper > -inf, lower <= upper)"));
  }
}

// What one solve works on: the operator, the preconditioner (null: identity) and its active-set
// interface, the observer, the problem's vectors and alpha_bar.
struct MprgpProblem {
  const la::Operator& A;
  const la::Preconditioner* M;
  ActiveSetAware* activeSet;
  const Mprgp::Observer& observer;
  const la::Vector& b;
  const la::Vector& lower;
  const la::Vector& upper;
  la::Vector& x;
  double abar;
};

// The state of one solve: the work vectors (all created before the loop), the split at the
// current iterate and the bookkeeping of the free mask. The steps return false on a breakdown.
struct MprgpIteration {
  MprgpIteration(const MprgpProblem& problem, MprgpStats& stats)
      : pb(problem),
        st(stats),
        g(pb.b.zerosLike()),
        phi(pb.b.zerosLike()),
        beta(pb.b.zerosLike()),
        z(pb.b.zerosLike()),
        p(pb.b.zerosLike()),
        Ap(pb.b.zerosLike()),
        mask(pb.b.zerosLike()),
        num(pb.b.zerosLike()),
        den(pb.b.zerosLike()) {
    mask->set(-1.0);  // so the first split reports a change
  }

  // g = A x - b
  void gradient() {
    pb.A.apply(pb.x, *g);
    ++st.matvecs;
    g->axpy(-1.0, pb.b);
  }

  // The split of g at x (free mask, phi, beta and their norms).
  void doSplit() {
    s = split(pb.x, *g, pb.lower, pb.upper, pb.abar, *mask, *phi, *beta);
    if (s.maskChanged) maskPending = true;
  }

  // z = Prec(phi; F), zero on active indices. Runs once per iterate, so a free set that changed
  // since the previous iterate is counted (and handed to an active-set-aware M) here, once.
  void precondition() {
    if (maskPending) {
      if (!first) ++st.activeSetChanges;
      if (pb.activeSet) pb.activeSet->setFreeMask(*mask);
      maskPending = false;
    }
    first = false;
    if (pb.M) {
      pb.M->apply(*phi, *z);
      ++st.preconditionerApplications;
      z->pointwiseMultiply(*z, *mask);
    } else {
      z->copy(*phi);
    }
  }

  // The observer, if any, with the objective at x.
  void observe() {
    if (!pb.observer) return;
    const double f = 0.5 * (pb.x.dot(*g) - pb.x.dot(pb.b));  // 1/2 x.Ax - b.x with g = Ax - b
    pb.observer(pb.x, f);
  }

  // x projected onto the box; g, the split, z and p = z there.
  void begin() {
    pb.x.clamp(pb.lower, pb.upper);
    gradient();
    doSplit();
    precondition();
    p->copy(*z);
  }

  // Along p: a conjugate-gradient step if it stays feasible, else an expansion step.
  bool proportionalStep() {
    la::Vector& x = pb.x;
    pb.A.apply(*p, *Ap);
    ++st.matvecs;
    const double pAp = p->dot(*Ap);
    if (!(pAp > 0.0) || !std::isfinite(pAp)) return false;
    const double acg = g->dot(*p) / pAp;
    const double af = feasibleStep(x, *p, pb.lower, pb.upper, *num, *den);
    if (acg <= af) {  // conjugate-gradient step
      moveAlong(x, *p, acg, pb.lower, pb.upper);
      g->axpy(-acg, *Ap);
      doSplit();
      precondition();
      const double gcg = z->dot(*Ap) / pAp;
      p->axpby(1.0, *z, -gcg);
      ++st.cgSteps;
    } else {  // expansion step: feasible step, then fixed-step reduced gradient projection
      moveAlong(x, *p, af, pb.lower, pb.upper);
      g->axpy(-af, *Ap);
      doSplit();
      x.axpy(-pb.abar, *phi);
      x.clamp(pb.lower, pb.upper);
      gradient();
      doSplit();
      precondition();
      p->copy(*z);
      ++st.expansionSteps;
    }
    return true;
  }

  // Proportioning step along the chopped gradient, capped at the feasible length.
  bool proportioningStep() {
    pb.A.apply(*beta, *Ap);
    ++st.matvecs;
    const double dAd = beta->dot(*Ap);
    if (!(dAd > 0.0) || !std::isfinite(dAd)) return false;
    const double acg = g->dot(*beta) / dAd;
    const double af = feasibleStep(pb.x, *beta, pb.lower, pb.upper, *num, *den);
    const double a = std::min(acg, af);
    moveAlong(pb.x, *beta, a, pb.lower, pb.upper);
    g->axpy(-a, *Ap);
    doSplit();
    precondition();
    p->copy(*z);
    ++st.proportioningSteps;
    return true;
  }

  const MprgpProblem& pb;
  MprgpStats& st;
  la::VectorPtr g, phi, beta, z, p, Ap, mask, num, den;
  Split s;
  bool maskPending = true;  // mask changed since the last setFreeMask
  bool first = true;
};

}  // namespace

Mprgp::Mprgp(MprgpOptions options) : options_(std::move(options)) { validateOptions(options_); }

void Mprgp::setOperator(la::OperatorPtr A) {
  KINEMA_CHECK(A != nullptr, "MPRGP: null operator");
  A_ = std::move(A);
  normA_ = 0.0;
  normMatvecs_ = 0;
  if (options_.alphaRule == "power") {
    // Power iteration from a deterministic start; ||A v|| for unit v is a lower bound of ||A||
    // that increases towards it. The largest value seen, times kPowerSafety, is used.
    la::VectorPtr v = A_->createDomainVector();
    la::VectorPtr w = A_->createRangeVector();
    {
      la::Vector::View vv = v->view();
      for (la::LocalIndex i = 0; i < v->ownedSize(); ++i) vv[i] = startValue(globalIndex(*v, i));
    }
    double nv = v->norm2();
    if (nv == 0.0) return;  // empty problem
    v->scale(1.0 / nv);
    double est = 0.0;
    for (int k = 0; k < options_.powerIterations; ++k) {
      A_->apply(*v, *w);
      ++normMatvecs_;
      const double nw = w->norm2();
      if (!std::isfinite(nw)) throw Error(str("MPRGP: the power iteration on ", A_->description(), " gave ", nw));
      est = std::max(est, nw);
      if (nw == 0.0) break;
      v->axpby(1.0 / nw, *w, 0.0);
    }
    if (!(est > 0.0))
      throw Error(str("MPRGP: the norm estimate of ", A_->description(), " is 0; A must be SPD"));
    normA_ = kPowerSafety * est;
  }
  if (M_) M_->setup(A_);
}

void Mprgp::setPreconditioner(la::PreconditionerPtr M) {
  M_ = std::move(M);
  activeSet_ = activeSetInterface(M_.get());
  if (M_ && A_) M_->setup(A_);
}

void Mprgp::setObserver(Observer observer) { observer_ = std::move(observer); }

MprgpStats Mprgp::solve(const la::Vector& b, const la::Vector& lower, const la::Vector& upper, la::Vector& x) {
  const auto t0 = std::chrono::steady_clock::now();
  if (!A_) throw Error("MPRGP: solve called before setOperator");
  MprgpStats st;

  // ---- input checks (collective) ----
  checkInputs(b, lower, upper, x);

  // ---- alpha_bar ----
  st.normEstimate = normA_;
  st.alphaBar = options_.alphaRule == "fixed" ? options_.alphaFixed
                                              : (normA_ > 0.0 ? options_.alphaFactor / normA_ : 1.0);
  const double abar = st.alphaBar;
  st.matvecs = normMatvecs_;
  normMatvecs_ = 0;  // the estimate is counted once, in the first solve after setOperator

  // ---- work vectors, all created before the loop ----
  const MprgpProblem problem{*A_, M_.get(), activeSet_, observer_, b, lower, upper, x, abar};
  MprgpIteration it(problem, st);
  it.begin();

  st.initialProjectedGradient = it.s.projected();
  const double threshold = std::max(options_.atol, options_.rtol * st.initialProjectedGradient);
  const double gamma2 = options_.gamma * options_.gamma;
  double gp = st.initialProjectedGradient;

  while (true) {
    if (gp <= threshold) {
      st.converged = true;
      st.reason = gp <= options_.atol ? SolverOutcome::Atol : SolverOutcome::Rtol;
      break;
    }
    if (st.iterations >= options_.maxIterations) {
      st.reason = SolverOutcome::MaxIterations;
      break;
    }
    const bool proportional = it.s.betaSq <= gamma2 * it.s.phitPhi;
    if (!(proportional ? it.proportionalStep() : it.proportioningStep())) {
      st.reason = SolverOutcome::Breakdown;
      break;
    }
    ++st.iterations;
    gp = it.s.projected();
    it.observe();
  }
  st.finalProjectedGradient = gp;
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

}  // namespace kinema::solvers

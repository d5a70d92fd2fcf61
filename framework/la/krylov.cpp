// CG, MINRES and GMRES(m) over the abstract Vector API. Every method declares convergence on the
// true residual ||b - A x||_2 <= max(rtol ||b||, atol): CG and MINRES monitor a recurrence and
// confirm with the true residual (restarting the recurrence from it if the two have drifted
// apart), GMRES checks the true residual at the end of every cycle. Work vectors are allocated
// once per solve, never inside the iteration loops.
#include "framework/la/krylov.hpp"

#include "framework/la/solve_support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "framework/core/error.hpp"

namespace kinema::la {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

struct Target {
  double tol;
  SolverOutcome reason;  // the criterion that sets the bar: the larger of the two
};

Target target(double bnorm, const LinearSolverOptions& o) {
  const double rel = o.rtol * bnorm;
  return rel >= o.atol ? Target{rel, SolverOutcome::Rtol} : Target{o.atol, SolverOutcome::Atol};
}

class Clock {
 public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }

 private:
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

// Shared prologue: stats, r = b - A x0. Returns true if the solve is already finished
// (b = 0, a non-finite input, or x0 already meets the tolerance).
bool start(const Operator& A, const Vector& b, Vector& x, Vector& r, const LinearSolverOptions& o,
           SolverStats& s) {
  KINEMA_CHECK(o.maxIterations >= 0, "linear solver: max_iterations must be >= 0");
  s.rhsNorm = b.norm2();
  s.initialResidual = trueResidual(A, b, x, r);
  s.finalResidual = s.initialResidual;
  if (settledWithoutIterating(s, x)) return true;
  const Target t = target(s.rhsNorm, o);
  if (s.initialResidual <= t.tol) {
    s.converged = true;
    s.reason = t.reason;
    return true;
  }
  return false;
}

}  // namespace

SolverStats conjugateGradient(const Operator& A, const Preconditioner& M, const Vector& b, Vector& x,
                              const LinearSolverOptions& opts) {
  Clock clock;
  checkSolveArguments(A, b, x, "cg");
  SolverStats s;
  VectorPtr r = b.zerosLike();
  if (start(A, b, x, *r, opts, s)) {
    s.seconds = clock.seconds();
    return s;
  }
  VectorPtr z = x.zerosLike(), p = x.zerosLike(), q = b.zerosLike();
  const Target t = target(s.rhsNorm, opts);

  double rnorm = s.initialResidual;  // true residual whenever `fresh`
  bool fresh = true, rIsTrue = true;
  double rz = 0.0;
  int k = 0;
  while (true) {
    if (rIsTrue && rnorm <= t.tol) {
      s.converged = true;
      s.reason = t.reason;
      break;
    }
    if (k >= opts.maxIterations) {
      s.reason = SolverOutcome::MaxIterations;
      break;
    }
    if (fresh) {  // (re)start the directions from the current residual
      M.apply(*r, *z);
      rz = r->dot(*z);
      if (!(rz > 0.0)) {  // M is not positive definite (or r = 0 in M's null space)
        s.reason = SolverOutcome::Breakdown;
        break;
      }
      p->copy(*z);
      fresh = false;
    }
    A.apply(*p, *q);
    const double pq = p->dot(*q);
    if (!(pq > 0.0)) {  // negative (or zero) curvature: CG needs A SPD
      s.reason = pq < 0.0 ? SolverOutcome::Indefinite : SolverOutcome::Breakdown;
      break;
    }
    const double alpha = rz / pq;
    x.axpy(alpha, *p);
    r->axpy(-alpha, *q);
    ++k;
    rnorm = r->norm2();
    rIsTrue = false;
    if (rnorm <= t.tol) {  // confirm on the true residual; restart from it if they disagree
      rnorm = trueResidual(A, b, x, *r);
      rIsTrue = fresh = true;
      continue;
    }
    M.apply(*r, *z);
    const double rzNew = r->dot(*z);
    if (!(rzNew > 0.0)) {
      s.reason = SolverOutcome::Breakdown;
      break;
    }
    p->axpby(1.0, *z, rzNew / rz);
    rz = rzNew;
  }
  s.iterations = k;
  s.finalResidual = rIsTrue ? rnorm : trueResidual(A, b, x, *r);
  s.seconds = clock.seconds();
  return s;
}

namespace {

// The work vectors of MINRES. A cycle rotates them by swapping the handles (r1 <- r2 <- y,
// w1 <- w2 <- w, Aw1 <- Aw2 <- Aw), so they are kept together.
struct MinresVectors {
  // All but r1, which the prologue creates first.
  void allocate(const Vector& b, const Vector& x) {
    r2 = b.zerosLike();
    y = b.zerosLike();
    v = x.zerosLike();
    w = x.zerosLike();
    w1 = x.zerosLike();
    w2 = x.zerosLike();
    Av = b.zerosLike();
    Aw = b.zerosLike();
    Aw1 = b.zerosLike();
    Aw2 = b.zerosLike();
    rr = b.zerosLike();
  }
  VectorPtr r1, r2, y, v, w, w1, w2, Av, Aw, Aw1, Aw2, rr;
};

// What one MINRES cycle reads: the operator, the preconditioner and the stopping limits.
struct MinresCycleArgs {
  const Operator& A;
  const Preconditioner& M;
  double tol;
  int maxIterations;
};

// How one Lanczos cycle of MINRES ended.
enum class CycleEnd {
  Stopped,            // the residual recurrence met the tolerance, or the iteration cap
  BadPreconditioner,  // r^T M^{-1} r < 0: M is not positive definite
  Invariant,          // beta = 0: the Krylov space is invariant
};

// One Lanczos cycle from the true residual (r1 = rr = r2, y = M^{-1} r1, beta1 = sqrt(r1^T y)):
// updates x and the residual recurrence rr, counts the iterations in k.
CycleEnd lanczosCycle(const MinresCycleArgs& a, MinresVectors& V, Vector& x, double beta1, int& k) {
  VectorPtr &r1 = V.r1, &r2 = V.r2, &y = V.y, &v = V.v, &w = V.w, &w1 = V.w1, &w2 = V.w2;
  VectorPtr &Av = V.Av, &Aw = V.Aw, &Aw1 = V.Aw1, &Aw2 = V.Aw2, &rr = V.rr;
  for (Vector* u : {w.get(), w1.get(), w2.get(), Aw.get(), Aw1.get(), Aw2.get()}) u->set(0.0);
  double oldb = 0.0, beta = beta1, dbar = 0.0, epsln = 0.0, phibar = beta1;
  double tnorm2 = 0.0, cs = -1.0, sn = 0.0;
  for (int it = 1; k < a.maxIterations; ++it) {
    v->axpby(1.0 / beta, *y, 0.0);
    a.A.apply(*v, *y);
    Av->copy(*y);
    if (it >= 2) y->axpy(-beta / oldb, *r1);
    const double alfa = v->dot(*y);
    y->axpy(-alfa / beta, *r2);
    std::swap(r1, r2);  // r1 <- r2, r2 <- y, y reuses the old r1
    std::swap(r2, y);
    a.M.apply(*r2, *y);
    oldb = beta;
    const double bb = r2->dot(*y);
    const bool badPreconditioner = bb < 0.0;
    beta = std::sqrt(std::max(bb, 0.0));
    tnorm2 += alfa * alfa + oldb * oldb + beta * beta;

    // Previous rotation, then the new one that annihilates beta.
    const double oldeps = epsln;
    const double delta = cs * dbar + sn * alfa;
    const double gbar = sn * dbar - cs * alfa;
    epsln = sn * beta;
    dbar = -cs * beta;
    const double gamma = std::max(std::hypot(gbar, beta), kEps);
    cs = gbar / gamma;
    sn = beta / gamma;
    const double phi = cs * phibar;
    phibar = sn * phibar;

    // w_k = (v_k - oldeps w_{k-2} - delta w_{k-1}) / gamma, and the same for A w.
    const double denom = 1.0 / gamma;
    std::swap(w1, w2);  // w1 <- w2, w2 <- w, w reuses the old w1
    std::swap(w2, w);
    w->axpby(denom, *v, 0.0);
    w->axpy(-oldeps * denom, *w1);
    w->axpy(-delta * denom, *w2);
    std::swap(Aw1, Aw2);
    std::swap(Aw2, Aw);
    Aw->axpby(denom, *Av, 0.0);
    Aw->axpy(-oldeps * denom, *Aw1);
    Aw->axpy(-delta * denom, *Aw2);
    x.axpy(phi, *w);
    rr->axpy(-phi, *Aw);
    ++k;

    if (badPreconditioner) return CycleEnd::BadPreconditioner;
    // beta = 0: the Krylov space is invariant, x is the exact solution in it.
    if (beta <= 1e-14 * std::sqrt(tnorm2)) return CycleEnd::Invariant;
    if (rr->norm2() <= a.tol) break;
  }
  return CycleEnd::Stopped;
}

}  // namespace

// Preconditioned MINRES after Paige & Saunders (1975), in the form of SOL's minres.m, plus a
// recurrence for the unpreconditioned residual r_k = r_{k-1} - phi_k A w_k (the method's own
// estimate phibar is the M^{-1}-norm, not the 2-norm the convergence test is stated in).
SolverStats minres(const Operator& A, const Preconditioner& M, const Vector& b, Vector& x,
                   const LinearSolverOptions& opts) {
  Clock clock;
  checkSolveArguments(A, b, x, "minres");
  SolverStats s;
  MinresVectors V;
  V.r1 = b.zerosLike();
  if (start(A, b, x, *V.r1, opts, s)) {
    s.seconds = clock.seconds();
    return s;
  }
  V.allocate(b, x);
  const Target t = target(s.rhsNorm, opts);
  const MinresCycleArgs cycle{A, M, t.tol, opts.maxIterations};

  double rnorm = s.initialResidual;  // true residual, held in r1 at each (re)start
  int k = 0;
  while (true) {
    if (rnorm <= t.tol) {
      s.converged = true;
      s.reason = t.reason;
      break;
    }
    if (k >= opts.maxIterations) {
      s.reason = SolverOutcome::MaxIterations;
      break;
    }
    // (Re)start the Lanczos process from the true residual in r1.
    V.rr->copy(*V.r1);
    V.r2->copy(*V.r1);
    M.apply(*V.r1, *V.y);
    double beta1 = V.r1->dot(*V.y);
    if (!(beta1 > 0.0)) {  // M is not positive definite
      s.reason = SolverOutcome::Breakdown;
      break;
    }
    beta1 = std::sqrt(beta1);
    const CycleEnd end = lanczosCycle(cycle, V, x, beta1, k);
    rnorm = trueResidual(A, b, x, *V.r1);
    if (rnorm <= t.tol) continue;  // reported at the top of the loop
    if (end != CycleEnd::Stopped) {
      s.reason = SolverOutcome::Breakdown;
      break;
    }
  }
  s.iterations = k;
  s.finalResidual = rnorm;
  s.seconds = clock.seconds();
  return s;
}

namespace {

// The work of GMRES(m), allocated once per solve: the Arnoldi basis V, the work vectors z and u,
// the Hessenberg matrix H ((m+1) x m, column-major), the Givens rotations (cs, sn), the rotated
// right-hand side g and the least-squares solution yk.
struct GmresWork {
  GmresWork(const Vector& b, const Vector& x, std::size_t m) : mm(m), V(m + 1) {
    for (auto& vi : V) vi = b.zerosLike();
    z = x.zerosLike();
    u = x.zerosLike();
    H.assign((mm + 1) * mm, 0.0);
    cs.assign(mm, 0.0);
    sn.assign(mm, 0.0);
    g.assign(mm + 1, 0.0);
    yk.assign(mm, 0.0);
  }
  double& h(std::size_t i, std::size_t j) { return H[j * (mm + 1) + i]; }
  std::size_t mm;
  std::vector<VectorPtr> V;
  VectorPtr z, u;
  std::vector<double> H, cs, sn, g, yk;
};

// Arnoldi step j: V[j+1] = A M^{-1} V[j], orthogonalised against V[0..j] by modified Gram-Schmidt
// into column j of H, then normalised. Returns true on a lucky breakdown.
bool arnoldiStep(const Operator& A, const Preconditioner& M, GmresWork& W, std::size_t j) {
  std::vector<VectorPtr>& V = W.V;
  M.apply(*V[j], *W.z);
  A.apply(*W.z, *V[j + 1]);
  double colNorm2 = 0.0;
  for (std::size_t i = 0; i <= j; ++i) {
    W.h(i, j) = V[j + 1]->dot(*V[i]);
    V[j + 1]->axpy(-W.h(i, j), *V[i]);
    colNorm2 += W.h(i, j) * W.h(i, j);
  }
  const double hn = V[j + 1]->norm2();
  W.h(j + 1, j) = hn;
  // Lucky breakdown: the new direction is lost in rounding, the Krylov space is invariant.
  if (hn > kEps * std::sqrt(colNorm2 + hn * hn)) {
    V[j + 1]->scale(1.0 / hn);
    return false;
  }
  return true;
}

// Column j of H through the previous rotations, then the new rotation that zeroes h(j+1, j),
// applied to g as well.
void givensRotation(GmresWork& W, std::size_t j) {
  std::vector<double>& cs = W.cs, &sn = W.sn, &g = W.g;
  for (std::size_t i = 0; i < j; ++i) {
    const double a = W.h(i, j), c = W.h(i + 1, j);
    W.h(i, j) = cs[i] * a + sn[i] * c;
    W.h(i + 1, j) = -sn[i] * a + cs[i] * c;
  }
  const double d = std::hypot(W.h(j, j), W.h(j + 1, j));
  cs[j] = d == 0.0 ? 1.0 : W.h(j, j) / d;
  sn[j] = d == 0.0 ? 0.0 : W.h(j + 1, j) / d;
  W.h(j, j) = d;
  W.h(j + 1, j) = 0.0;
  g[j + 1] = -sn[j] * g[j];
  g[j] = cs[j] * g[j];
}

// Least squares: H(0:j, 0:j) yk = g(0:j) by back substitution. Returns true if H is singular.
bool solveLeastSquares(GmresWork& W, std::size_t j) {
  bool singular = false;
  for (std::size_t ii = j; ii-- > 0;) {
    double acc = W.g[ii];
    for (std::size_t l = ii + 1; l < j; ++l) acc -= W.h(ii, l) * W.yk[l];
    if (W.h(ii, ii) == 0.0) {
      singular = true;
      W.yk[ii] = 0.0;
    } else {
      W.yk[ii] = acc / W.h(ii, ii);
    }
  }
  return singular;
}

// x += M^{-1} V(:, 0:j) yk.
void applyCorrection(const Preconditioner& M, GmresWork& W, std::size_t j, Vector& x) {
  W.u->set(0.0);
  for (std::size_t i = 0; i < j; ++i) W.u->axpy(W.yk[i], *W.V[i]);
  M.apply(*W.u, *W.z);
  x.axpy(1.0, *W.z);
}

}  // namespace

// Right-preconditioned GMRES(m): Arnoldi with modified Gram-Schmidt on A M^{-1}, Givens
// rotations on the Hessenberg matrix (Saad & Schultz 1986). With right preconditioning the
// least-squares residual is the unpreconditioned one, so the inner test and the true residual
// agree up to rounding; the true residual is checked at the end of every cycle.
SolverStats gmres(const Operator& A, const Preconditioner& M, const Vector& b, Vector& x,
                  const LinearSolverOptions& opts) {
  Clock clock;
  checkSolveArguments(A, b, x, "gmres");
  SolverStats s;
  VectorPtr r = b.zerosLike();
  if (start(A, b, x, *r, opts, s)) {
    s.seconds = clock.seconds();
    return s;
  }
  const int m = std::max(1, std::min(opts.restart, opts.maxIterations));
  const std::size_t mm = static_cast<std::size_t>(m);
  GmresWork W(b, x, mm);
  std::vector<double>& g = W.g;
  const Target t = target(s.rhsNorm, opts);

  double rnorm = s.initialResidual;
  int k = 0;
  while (true) {
    if (rnorm <= t.tol) {
      s.converged = true;
      s.reason = t.reason;
      break;
    }
    if (k >= opts.maxIterations) {
      s.reason = SolverOutcome::MaxIterations;
      break;
    }
    const double cycleStart = rnorm;
    W.V[0]->axpby(1.0 / rnorm, *r, 0.0);
    std::fill(g.begin(), g.end(), 0.0);
    g[0] = rnorm;
    std::size_t j = 0;
    bool happy = false;
    while (j < mm && k < opts.maxIterations) {
      happy = arnoldiStep(A, M, W, j);
      givensRotation(W, j);
      ++j;
      ++k;
      if (std::abs(g[j]) <= t.tol || happy) break;
    }
    // Least squares: H(0:j, 0:j) y = g(0:j), then x += M^{-1} V y.
    const bool singular = solveLeastSquares(W, j);
    applyCorrection(M, W, j, x);
    rnorm = trueResidual(A, b, x, *r);
    if (rnorm <= t.tol) continue;
    // An invariant subspace without convergence, or no progress: a restart cannot help.
    if (singular || !std::isfinite(rnorm) || (happy && rnorm > 0.5 * cycleStart)) {
      s.reason = SolverOutcome::Breakdown;
      break;
    }
  }
  s.iterations = k;
  s.finalResidual = rnorm;
  s.seconds = clock.seconds();
  return s;
}

KrylovSolver::KrylovSolver(LinearSolverOptions opts, PreconditionerPtr preconditioner)
    : opts_(std::move(opts)), pc_(std::move(preconditioner)), reuse_(opts_.reusePreconditioner) {
  if (opts_.type != "cg" && opts_.type != "minres" && opts_.type != "gmres")
    throw InputError(str("Krylov solver: unknown type '", opts_.type, "' (cg, minres, gmres)"));
  checkReusePolicy(opts_.reusePreconditioner, "Krylov solver");
  if (!pc_) pc_ = std::make_shared<IdentityPreconditioner>();
}

void KrylovSolver::setOperator(OperatorPtr A) {
  KINEMA_CHECK(A != nullptr, "KrylovSolver::setOperator: null operator");
  A_ = std::move(A);
  if (reuse_.keep(A_)) return;  // same matrix and pattern, policy "full": keep the set-up
  pc_->setup(A_);
  reuse_.record(A_);
}

void KrylovSolver::setPreconditioner(PreconditionerPtr P) {
  pc_ = P ? std::move(P) : std::make_shared<IdentityPreconditioner>();
  reuse_.forget();
  if (A_) {
    pc_->setup(A_);
    reuse_.record(A_);
  }
}

SolverStats KrylovSolver::solve(const Vector& b, Vector& x) {
  if (!A_) throw Error(str(description(), ": solve() called before setOperator()"));
  const SolverStats s = opts_.type == "cg"       ? conjugateGradient(*A_, *pc_, b, x, opts_)
                        : opts_.type == "minres" ? minres(*A_, *pc_, b, x, opts_)
                                                 : gmres(*A_, *pc_, b, x, opts_);
  reuse_.solved(s.iterations);
  return s;
}

std::string KrylovSolver::description() const {
  std::string d = str(opts_.type, " + ", pc_->name(), " (rtol ", opts_.rtol, ", atol ", opts_.atol,
                      ", max ", opts_.maxIterations, " iterations");
  if (opts_.type == "gmres") d += str(", restart ", opts_.restart);
  return d + ")";
}

}  // namespace kinema::la

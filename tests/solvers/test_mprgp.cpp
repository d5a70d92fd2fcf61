// MPRGP on small random box QPs against an independent dense reference (brute-force enumeration
// of the active set for n <= 8, a primal active-set method in long double for every n, both
// verified by their own KKT check): accuracy, exact feasibility of every iterate, monotone
// objective, KKT signs at exit, statistics, active-set-aware preconditioning, input errors and
// the registry parameters.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cstdio>
#include <limits>
#include <random>

#include "framework/solvers/mprgp.hpp"
#include "la/la_test_util.hpp"

namespace kinema::test {
namespace {

using solvers::Mprgp;
using solvers::MprgpOptions;
using solvers::MprgpStats;
using MatL = Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic>;
using VecL = Eigen::Matrix<long double, Eigen::Dynamic, 1>;
constexpr double kInf = std::numeric_limits<double>::infinity();

struct BoxQp {
  int n = 0;
  Eigen::MatrixXd A;
  Eigen::VectorXd b, l, u;
  double cond = 1.0;
};

// A = Q diag(eigs) Q^T with Q random orthogonal and eigenvalues log-spaced from 1 to cond (times a
// random scale); b = A y with y ~ N(0, 1.5^2) so the unconstrained minimiser is O(1). Bounds per
// index: none, lower only, upper only, two-sided (narrow: half-width 0.05 / 0.5 / 2), or fixed.
BoxQp randomQp(std::mt19937_64& rng, int k) {
  std::uniform_int_distribution<int> nd(5, 12);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  std::normal_distribution<double> N(0.0, 1.0);
  BoxQp q;
  q.n = nd(rng);
  const int n = q.n;
  const double e = (k % 4 == 0) ? 8.0 : 8.0 * U(rng);
  q.cond = std::pow(10.0, e);
  const double scale = std::pow(10.0, 4.0 * U(rng) - 2.0);
  Eigen::MatrixXd G(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) G(i, j) = N(rng);
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(G);
  Eigen::MatrixXd Q = qr.householderQ();
  Eigen::VectorXd eig(n);
  for (int i = 0; i < n; ++i) eig(i) = scale * std::pow(q.cond, static_cast<double>(i) / (n - 1));
  q.A = Q * eig.asDiagonal() * Q.transpose();
  q.A = 0.5 * (q.A + q.A.transpose()).eval();
  Eigen::VectorXd y(n);
  for (int i = 0; i < n; ++i) y(i) = 1.5 * N(rng);
  q.b = q.A * y;
  q.l.resize(n);
  q.u.resize(n);
  const double widths[3] = {0.05, 0.5, 2.0};
  for (int i = 0; i < n; ++i) {
    const double r = U(rng), c = 2.0 * U(rng) - 1.0;
    const double w = widths[std::uniform_int_distribution<int>(0, 2)(rng)];
    if (r < 0.12) {
      q.l(i) = -kInf, q.u(i) = kInf;
    } else if (r < 0.30) {
      q.l(i) = c, q.u(i) = kInf;
    } else if (r < 0.45) {
      q.l(i) = -kInf, q.u(i) = c;
    } else if (r < 0.97) {
      q.l(i) = c - w, q.u(i) = c + w;
    } else {
      q.l(i) = c, q.u(i) = c;
    }
  }
  return q;
}

// ---- independent reference (long double) ----

// Largest KKT violation of x, relative to ||A|| ||x|| + ||b|| for the gradient conditions; negative
// infinity-free: primal violation in absolute units. Exact comparisons for set membership.
struct Kkt {
  double primal = 0.0, dual = 0.0;
};
Kkt kktViolation(const BoxQp& q, const VecL& x) {
  const MatL A = q.A.cast<long double>();
  const VecL g = A * x - q.b.cast<long double>();
  const long double scale = A.norm() * x.norm() + q.b.cast<long double>().norm() + 1e-300L;
  Kkt k;
  for (int i = 0; i < q.n; ++i) {
    const long double li = q.l(i), ui = q.u(i), xi = x(i);
    k.primal = std::max(k.primal, static_cast<double>(std::max(li - xi, xi - ui)));
    long double v = 0.0L;
    if (li == ui) v = 0.0L;
    else if (xi <= li) v = std::max(-g(i), 0.0L);
    else if (xi >= ui) v = std::max(g(i), 0.0L);
    else v = std::abs(g(i));
    k.dual = std::max(k.dual, static_cast<double>(v / scale));
  }
  return k;
}

// Solution with the given state per index (0 free, 1 at lower, 2 at upper).
VecL solveState(const BoxQp& q, const std::vector<int>& state) {
  const int n = q.n;
  VecL x = VecL::Zero(n);
  std::vector<int> F;
  for (int i = 0; i < n; ++i) {
    if (state[i] == 1) x(i) = q.l(i);
    else if (state[i] == 2) x(i) = q.u(i);
    else F.push_back(i);
  }
  if (F.empty()) return x;
  const int m = static_cast<int>(F.size());
  MatL AF(m, m);
  VecL r(m);
  for (int a = 0; a < m; ++a) {
    long double s = q.b(F[a]);
    for (int j = 0; j < n; ++j)
      if (state[j] != 0) s -= static_cast<long double>(q.A(F[a], j)) * x(j);
    r(a) = s;
    for (int c = 0; c < m; ++c) AF(a, c) = q.A(F[a], F[c]);
  }
  const VecL xF = AF.ldlt().solve(r);
  for (int a = 0; a < m; ++a) x(F[a]) = xF(a);
  return x;
}

// Brute force: every state (free / lower / upper where that bound is finite); the one with the
// smallest KKT violation.
VecL enumerate(const BoxQp& q) {
  const int n = q.n;
  std::vector<int> state(n, 0);
  VecL best;
  double bestViol = kInf;
  long total = 1;
  for (int i = 0; i < n; ++i) total *= 3;
  for (long s = 0; s < total; ++s) {
    long t = s;
    bool ok = true;
    for (int i = 0; i < n; ++i) {
      state[i] = static_cast<int>(t % 3);
      t /= 3;
      if (state[i] == 1 && q.l(i) == -kInf) ok = false;
      if (state[i] == 2 && (q.u(i) == kInf || q.l(i) == q.u(i))) ok = false;
      if (state[i] == 0 && q.l(i) == q.u(i)) ok = false;
    }
    if (!ok) continue;
    VecL x = solveState(q, state);
    const Kkt k = kktViolation(q, x);
    const double viol = std::max(k.primal, k.dual);
    if (viol < bestViol) bestViol = viol, best = x;
  }
  return best;
}

// Primal active-set method (Nocedal & Wright, Algorithm 16.3) for bounds, from a feasible point.
VecL activeSet(const BoxQp& q, bool* converged) {
  const int n = q.n;
  std::vector<int> W(n, 0);  // 0 free, 1 lower, 2 upper
  VecL x(n);
  for (int i = 0; i < n; ++i) {
    x(i) = std::min(std::max(0.0, q.l(i)), q.u(i));
    if (q.l(i) == q.u(i)) W[i] = 1;
  }
  const MatL A = q.A.cast<long double>();
  const VecL b = q.b.cast<long double>();
  *converged = false;
  for (int it = 0; it < 2000; ++it) {
    const VecL xs = solveState(q, [&] {
      std::vector<int> st(W);
      return st;
    }());
    // xs has the working-set values at their bounds; x already has them too.
    VecL p = xs - x;
    long double alpha = 1.0L;
    int block = -1, blockState = 0;
    for (int i = 0; i < n; ++i) {
      if (W[i] != 0) continue;
      if (p(i) < 0 && q.l(i) > -kInf) {
        const long double r = (static_cast<long double>(q.l(i)) - x(i)) / p(i);
        if (r < alpha) alpha = r, block = i, blockState = 1;
      } else if (p(i) > 0 && q.u(i) < kInf) {
        const long double r = (static_cast<long double>(q.u(i)) - x(i)) / p(i);
        if (r < alpha) alpha = r, block = i, blockState = 2;
      }
    }
    if (block >= 0) {
      x += std::max(alpha, 0.0L) * p;
      W[block] = blockState;
      x(block) = blockState == 1 ? q.l(block) : q.u(block);
      for (int i = 0; i < n; ++i) x(i) = std::min<long double>(std::max<long double>(x(i), q.l(i)), q.u(i));
      continue;
    }
    x = xs;
    const VecL g = A * x - b;
    int drop = -1;
    long double worst = 0.0L;
    for (int i = 0; i < n; ++i) {
      if (W[i] == 0 || q.l(i) == q.u(i)) continue;
      const long double lam = W[i] == 1 ? g(i) : -g(i);
      if (lam < worst) worst = lam, drop = i;
    }
    if (drop < 0) {
      *converged = true;
      return x;
    }
    W[drop] = 0;
  }
  return x;
}

struct Reference {
  VecL x;
  bool verified = false;
};

Reference reference(const BoxQp& q) {
  Reference r;
  bool conv = false;
  r.x = activeSet(q, &conv);
  const Kkt k = kktViolation(q, r.x);
  r.verified = conv && k.primal == 0.0 && k.dual < 1e-14;
  if (q.n <= 8) {  // cross-check against enumeration
    const VecL xe = enumerate(q);
    const double d = static_cast<double>((xe - r.x).norm() / std::max(r.x.norm(), 1e-300L));
    r.verified = r.verified && d < 1e-10;
  }
  return r;
}

// ---- MPRGP on a backend ----

struct QpRun {
  Eigen::VectorXd x;
  MprgpStats stats;
  bool feasible = true;      // every iterate, exactly
  double maxIncrease = 0.0;  // largest objective increase between iterates, relative to |f|
  long iterates = 0;
};

long double objective(const BoxQp& q, const Eigen::VectorXd& x) {
  const VecL xl = x.cast<long double>();
  return 0.5L * xl.dot(q.A.cast<long double>() * xl) - xl.dot(q.b.cast<long double>());
}

struct QpData {
  la::IndexMapPtr map;
  std::shared_ptr<la::Matrix> A;
  la::VectorPtr b, l, u, x;
};

QpData upload(const la::Backend& backend, const BoxQp& q) {
  QpData s;
  s.map = la::IndexMap::uniform(Comm::self(), q.n);
  auto asmb = backend.createAssembler(s.map, s.map);
  asmb->begin();
  for (int i = 0; i < q.n; ++i)
    for (int j = 0; j < q.n; ++j) asmb->addScalar(i, j, q.A(i, j));
  s.A = asmb->end();
  s.b = backend.createVector(s.map);
  s.l = backend.createVector(s.map);
  s.u = backend.createVector(s.map);
  s.x = backend.createVector(s.map);
  fill(*s.b, [&](GlobalIndex g) { return q.b(g); });
  fill(*s.l, [&](GlobalIndex g) { return q.l(g); });
  fill(*s.u, [&](GlobalIndex g) { return q.u(g); });
  return s;
}

Eigen::VectorXd download(const la::Vector& v) {
  Eigen::VectorXd out(v.ownedSize());
  la::Vector::ConstView r = v.view();
  for (la::LocalIndex i = 0; i < v.ownedSize(); ++i) out(i) = r[i];
  return out;
}

QpRun runMprgp(const la::Backend& backend, const BoxQp& q, MprgpOptions opts, la::PreconditionerPtr M = nullptr) {
  QpData s = upload(backend, q);
  QpRun run;
  Mprgp solver(opts);
  solver.setOperator(s.A);
  if (M) solver.setPreconditioner(M);
  long double prev = objective(q, Eigen::VectorXd::Zero(q.n).cwiseMax(q.l).cwiseMin(q.u));
  solver.setObserver([&](const la::Vector& x, double) {
    Eigen::VectorXd xv = download(x);
    for (int i = 0; i < q.n; ++i)
      if (!(q.l(i) <= xv(i) && xv(i) <= q.u(i))) run.feasible = false;
    const long double f = objective(q, xv);
    run.maxIncrease = std::max(run.maxIncrease, static_cast<double>((f - prev) / std::max(std::abs(f), 1e-300L)));
    prev = f;
    ++run.iterates;
  });
  s.x->set(0.0);
  run.stats = solver.solve(*s.b, *s.l, *s.u, *s.x);
  run.x = download(*s.x);
  return run;
}

MprgpOptions tightOptions() {
  MprgpOptions o;
  o.rtol = 1e-13;
  o.maxIterations = 20000;
  return o;
}

// Exact free-block solve z_F = A_FF^{-1} r_F, z_C = 0: what DER's active-set Cholesky computes when
// no constraint precedes a free index. Counts setFreeMask calls.
class FreeBlockPreconditioner : public la::Preconditioner, public solvers::ActiveSetAware {
 public:
  explicit FreeBlockPreconditioner(Eigen::MatrixXd A) : A_(std::move(A)), free_(A_.rows(), 1.0) {}
  void setup(la::OperatorPtr) override { ++setups; }
  void apply(const la::Vector& r, la::Vector& z) const override {
    Eigen::VectorXd rv = download(r);
    std::vector<int> F;
    for (int i = 0; i < static_cast<int>(free_.size()); ++i)
      if (free_[i] != 0.0) F.push_back(i);
    Eigen::VectorXd zv = Eigen::VectorXd::Zero(rv.size());
    if (!F.empty()) {
      const int m = static_cast<int>(F.size());
      Eigen::MatrixXd AF(m, m);
      Eigen::VectorXd rF(m);
      for (int a = 0; a < m; ++a) {
        rF(a) = rv(F[a]);
        for (int c = 0; c < m; ++c) AF(a, c) = A_(F[a], F[c]);
      }
      const Eigen::VectorXd zF = AF.ldlt().solve(rF);
      for (int a = 0; a < m; ++a) zv(F[a]) = zF(a);
    }
    la::Vector::View w = z.view();
    for (int i = 0; i < zv.size(); ++i) w[i] = zv(i);
  }
  std::string name() const override { return "test_free_block"; }
  void setFreeMask(const la::Vector& mask) override {
    ++maskCalls;
    la::Vector::ConstView m = mask.view();
    for (int i = 0; i < static_cast<int>(free_.size()); ++i) free_[i] = m[i];
  }
  int maskCalls = 0, setups = 0;

 private:
  Eigen::MatrixXd A_;
  std::vector<double> free_;
};

class MprgpTest : public BackendTest {};

TEST_P(MprgpTest, RandomBoxQpsMatchTheReference) {
  std::mt19937_64 rng(20261121);
  const int count = 300;
  double maxErr = 0.0, maxIncrease = 0.0, sumIt = 0.0, maxErrCond[9] = {};
  long sumCg = 0, sumExp = 0, sumProp = 0, sumChanges = 0, maxIt = 0, verifiedRefs = 0;
  for (int k = 0; k < count; ++k) {
    const BoxQp q = randomQp(rng, k);
    const Reference ref = reference(q);
    ASSERT_TRUE(ref.verified) << "reference failed its own KKT check, problem " << k;
    ++verifiedRefs;
    const QpRun run = runMprgp(*backend, q, tightOptions());
    const MprgpStats& st = run.stats;
    EXPECT_TRUE(st.converged) << "problem " << k << " n " << q.n << " cond " << q.cond << ": " << st.reason
                              << " gp " << st.finalProjectedGradient << " / " << st.initialProjectedGradient;
    EXPECT_TRUE(run.feasible) << "problem " << k;
    EXPECT_EQ(st.iterations, st.cgSteps + st.expansionSteps + st.proportioningSteps);
    EXPECT_EQ(run.iterates, st.iterations);
    EXPECT_EQ(st.matvecs, 20 + 1 + st.cgSteps + 2 * st.expansionSteps + st.proportioningSteps);
    // Exactly feasible at exit too, and the KKT signs hold to the stopping threshold.
    for (int i = 0; i < q.n; ++i) {
      ASSERT_LE(q.l(i), run.x(i));
      ASSERT_LE(run.x(i), q.u(i));
    }
    {
      const Eigen::VectorXd g = q.A * run.x - q.b;
      const double tol = 1e-13 * st.initialProjectedGradient + 1e-15 * (q.A.norm() * run.x.norm() + q.b.norm());
      for (int i = 0; i < q.n; ++i) {
        if (q.l(i) == q.u(i)) continue;
        if (run.x(i) == q.l(i)) EXPECT_GE(g(i), -tol) << "problem " << k << " index " << i;
        else if (run.x(i) == q.u(i)) EXPECT_LE(g(i), tol) << "problem " << k << " index " << i;
        else EXPECT_LE(std::abs(g(i)), tol) << "problem " << k << " index " << i;
      }
    }
    const VecL xr = ref.x;
    const double err = static_cast<double>((run.x.cast<long double>() - xr).norm() / std::max(xr.norm(), 1e-300L));
    EXPECT_LE(err, 1e-8) << "problem " << k << " n " << q.n << " cond " << q.cond;
    maxErr = std::max(maxErr, err);
    const int decade = static_cast<int>(std::floor(std::log10(q.cond) + 1e-9));
    maxErrCond[std::clamp(decade, 0, 8)] = std::max(maxErrCond[std::clamp(decade, 0, 8)], err);
    maxIncrease = std::max(maxIncrease, run.maxIncrease);
    sumIt += st.iterations;
    maxIt = std::max<long>(maxIt, st.iterations);
    sumCg += st.cgSteps, sumExp += st.expansionSteps, sumProp += st.proportioningSteps;
    sumChanges += st.activeSetChanges;
  }
  EXPECT_LE(maxIncrease, 1e-12);
  std::printf("[%s] %d random box QPs (%ld references verified): mean iterations %.1f (max %ld), "
              "per problem CG %.1f expansion %.1f proportioning %.1f, active-set changes %.1f; "
              "max rel. error %.2e, max relative objective increase %.2e\n",
              GetParam().c_str(), count, verifiedRefs, sumIt / count, maxIt, double(sumCg) / count,
              double(sumExp) / count, double(sumProp) / count, double(sumChanges) / count, maxErr, maxIncrease);
  for (int d = 0; d < 9; ++d) std::printf("  cond decade 1e%d: max rel. error %.2e\n", d, maxErrCond[d]);
}

TEST_P(MprgpTest, PowerEstimateIsSafe) {
  std::mt19937_64 rng(7);
  double lo = kInf, hi = 0.0;
  for (int k = 0; k < 100; ++k) {
    const BoxQp q = randomQp(rng, k);
    QpData s = upload(*backend, q);
    Mprgp solver;
    solver.setOperator(s.A);
    s.x->set(0.0);
    const MprgpStats st = solver.solve(*s.b, *s.l, *s.u, *s.x);
    const double normA = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(q.A).eigenvalues().maxCoeff();
    lo = std::min(lo, st.normEstimate / normA);
    hi = std::max(hi, st.normEstimate / normA);
    EXPECT_LE(st.alphaBar, 2.0 / normA) << "problem " << k;
    EXPECT_DOUBLE_EQ(st.alphaBar, 1.9 / st.normEstimate);
  }
  std::printf("[%s] power estimate (x1.01) / ||A|| over 100 problems: min %.6f max %.6f\n",
              GetParam().c_str(), lo, hi);
  EXPECT_LE(hi, 1.01 * (1 + 1e-12));
}

TEST_P(MprgpTest, ActiveSetAwarePreconditionerGetsTheFreeMask) {
  std::mt19937_64 rng(99);
  double maxErr = 0.0, sumIt = 0.0, sumPlainIt = 0.0;
  for (int k = 0; k < 100; ++k) {
    const BoxQp q = randomQp(rng, k);
    const Reference ref = reference(q);
    ASSERT_TRUE(ref.verified);
    auto M = std::make_shared<FreeBlockPreconditioner>(q.A);
    const QpRun run = runMprgp(*backend, q, tightOptions(), M);
    const QpRun plain = runMprgp(*backend, q, tightOptions());
    EXPECT_TRUE(run.stats.converged) << k << " " << run.stats.reason;
    EXPECT_TRUE(run.feasible);
    EXPECT_EQ(M->setups, 1);
    EXPECT_EQ(M->maskCalls, run.stats.activeSetChanges + 1) << "problem " << k;
    EXPECT_EQ(run.stats.preconditionerApplications,
              1 + run.stats.cgSteps + run.stats.expansionSteps + run.stats.proportioningSteps);
    const double err = static_cast<double>((run.x.cast<long double>() - ref.x).norm() / std::max(ref.x.norm(), 1e-300L));
    EXPECT_LE(err, 1e-8) << "problem " << k;
    maxErr = std::max(maxErr, err);
    sumIt += run.stats.iterations;
    sumPlainIt += plain.stats.iterations;
  }
  std::printf("[%s] free-block preconditioned: mean iterations %.1f (plain %.1f), max rel. error %.2e\n",
              GetParam().c_str(), sumIt / 100, sumPlainIt / 100, maxErr);
}

TEST_P(MprgpTest, ExactFreeBlockPreconditionerWithoutActiveBoundsTakesOneIteration) {
  std::mt19937_64 rng(5);
  BoxQp q = randomQp(rng, 0);
  q.l.setConstant(-kInf);
  q.u.setConstant(kInf);
  auto M = std::make_shared<FreeBlockPreconditioner>(q.A);
  const QpRun run = runMprgp(*backend, q, MprgpOptions{}, M);
  EXPECT_TRUE(run.stats.converged);
  EXPECT_EQ(run.stats.iterations, 1);
  EXPECT_EQ(run.stats.cgSteps, 1);
  EXPECT_EQ(run.stats.activeSetChanges, 0);
  EXPECT_EQ(M->maskCalls, 1);
}

TEST_P(MprgpTest, FixedRuleJacobiAndProjectionOfTheInitialGuess) {
  std::mt19937_64 rng(11);
  const BoxQp q = randomQp(rng, 1);
  const Reference ref = reference(q);
  ASSERT_TRUE(ref.verified);
  const double normA = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(q.A).eigenvalues().maxCoeff();
  MprgpOptions o = tightOptions();
  o.alphaRule = "fixed";
  o.alphaFixed = 1.0 / normA;
  QpData s = upload(*backend, q);
  Mprgp solver(o);
  solver.setOperator(s.A);
  solver.setPreconditioner(std::shared_ptr<la::Preconditioner>(backend->createPreconditioner("jacobi")));
  s.x->set(1e3);  // far outside every finite bound: projected first
  const MprgpStats st = solver.solve(*s.b, *s.l, *s.u, *s.x);
  EXPECT_TRUE(st.converged);
  EXPECT_EQ(st.normEstimate, 0.0);
  EXPECT_EQ(st.alphaBar, 1.0 / normA);
  EXPECT_EQ(st.matvecs, 1 + st.cgSteps + 2 * st.expansionSteps + st.proportioningSteps);
  EXPECT_GT(st.preconditionerApplications, 0);
  const Eigen::VectorXd x = download(*s.x);
  EXPECT_LE(static_cast<double>((x.cast<long double>() - ref.x).norm() / ref.x.norm()), 1e-8);
}

TEST_P(MprgpTest, StoppingReasons) {
  std::mt19937_64 rng(3);
  const BoxQp q = randomQp(rng, 2);
  QpData s = upload(*backend, q);
  {
    MprgpOptions o;
    o.maxIterations = 2;
    o.rtol = 0.0;
    Mprgp solver(o);
    solver.setOperator(s.A);
    s.x->set(0.0);
    const MprgpStats st = solver.solve(*s.b, *s.l, *s.u, *s.x);
    EXPECT_FALSE(st.converged);
    EXPECT_EQ(st.reason, SolverOutcome::MaxIterations);
    EXPECT_EQ(st.iterations, 2);
  }
  {
    MprgpOptions o;
    o.rtol = 0.0;
    o.atol = 1e-6 * q.b.norm();
    Mprgp solver(o);
    solver.setOperator(s.A);
    s.x->set(0.0);
    const MprgpStats st = solver.solve(*s.b, *s.l, *s.u, *s.x);
    EXPECT_TRUE(st.converged);
    EXPECT_EQ(st.reason, SolverOutcome::Atol);
    EXPECT_LE(st.finalProjectedGradient, o.atol);
    // Restarting from the solution: converged at once, no iteration.
    const MprgpStats again = solver.solve(*s.b, *s.l, *s.u, *s.x);
    EXPECT_EQ(again.iterations, 0);
    EXPECT_EQ(again.reason, SolverOutcome::Atol);
    EXPECT_EQ(again.matvecs, 1);  // the norm estimate is counted in the first solve only
  }
  {
    Mprgp solver;  // rtol 1e-8
    solver.setOperator(s.A);
    s.x->set(0.0);
    const MprgpStats st = solver.solve(*s.b, *s.l, *s.u, *s.x);
    EXPECT_TRUE(st.converged);
    EXPECT_EQ(st.reason, SolverOutcome::Rtol);
    EXPECT_LE(st.finalProjectedGradient, 1e-8 * st.initialProjectedGradient);
  }
}

TEST_P(MprgpTest, InputErrors) {
  std::mt19937_64 rng(1);
  BoxQp q = randomQp(rng, 3);
  q.l.setConstant(-1.0);
  q.u.setConstant(1.0);
  q.l(3) = 2.0;
  QpData s = upload(*backend, q);
  Mprgp solver;
  solver.setOperator(s.A);
  std::string m = messageOf([&] { solver.solve(*s.b, *s.l, *s.u, *s.x); });
  EXPECT_NE(m.find("index 3"), std::string::npos) << m;
  EXPECT_THROW(solver.solve(*s.b, *s.l, *s.u, *s.x), InputError);
  fill(*s.l, [](GlobalIndex g) { return g == 4 ? std::nan("") : -1.0; });
  m = messageOf([&] { solver.solve(*s.b, *s.l, *s.u, *s.x); });
  EXPECT_NE(m.find("NaN at index 4"), std::string::npos) << m;
  fill(*s.l, [](GlobalIndex) { return -1.0; });
  fill(*s.b, [](GlobalIndex g) { return g == 1 ? std::nan("") : 0.0; });
  EXPECT_THROW(solver.solve(*s.b, *s.l, *s.u, *s.x), InputError);
  MprgpOptions bad;
  bad.alphaRule = "fixed";
  EXPECT_THROW({ Mprgp m(bad); }, InputError);
  bad.alphaRule = "gershgorin";
  EXPECT_THROW({ Mprgp m(bad); }, InputError);
}

INSTANTIATE_TEST_SUITE_P(Backends, MprgpTest, ::testing::ValuesIn(backendNames()), paramName);

TEST(MprgpParams, DeclaredAndReadFromAScene) {
  ParamSchema schema;
  solvers::mprgpBindings().declare(schema, "der.mprgp");
  for (const char* key : {"gamma", "alpha_rule", "alpha_factor", "alpha_fixed", "power_iterations", "rtol",
                          "atol", "max_iterations"})
    EXPECT_NE(schema.find(std::string("der.mprgp.") + key), nullptr) << key;
  Config c = Config::fromString(
      "der:\n  mprgp:\n    gamma: 2.5\n    alpha_rule: fixed\n    alpha_fixed: 0.01\n    rtol: 1e-10\n"
      "    max_iterations: 77\n",
      "<test>");
  c.validate(schema);
  const MprgpOptions o = solvers::mprgpBindings().read(c, "der.mprgp");
  EXPECT_EQ(o.gamma, 2.5);
  EXPECT_EQ(o.alphaRule, "fixed");
  EXPECT_EQ(o.alphaFixed, 0.01);
  EXPECT_EQ(o.rtol, 1e-10);
  EXPECT_EQ(o.maxIterations, 77);
  EXPECT_EQ(o.alphaFactor, MprgpOptions{}.alphaFactor);
  EXPECT_EQ(o.powerIterations, MprgpOptions{}.powerIterations);
  Config bad = Config::fromString("der:\n  mprgp:\n    alpha_factor: 3\n    alpha_rule: gershgorin\n", "<test>");
  EXPECT_THROW(bad.validate(schema), InputError);
}

}  // namespace
}  // namespace kinema::test

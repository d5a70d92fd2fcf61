// The BCQP preconditioners (asc and the paper's baselines), MPRGP with each of them, and the
// interior-point baseline (paper §V, §VI-E; acceptance tests C1-C5, D1-D2,
// README decision 34).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/core/error.hpp"
#include "framework/la/backend.hpp"
#include "framework/la/index_map.hpp"
#include "framework/solvers/mprgp.hpp"
#include "modules/der/asc_preconditioner.hpp"
#include "modules/der/band_incomplete_cholesky.hpp"
#include "modules/der/banded.hpp"
#include "der_test_util.hpp"
#include "test_util.hpp"
#include "modules/der/banded_operator.hpp"
#include "modules/der/box_qp_ipm.hpp"
#include "modules/der/qp_masked_preconditioner.hpp"
#include "modules/der/qp_preconditioner.hpp"

namespace kinema::der {
namespace {

using test::dominantSpd;
using ::kinema::test::messageOf;
using test::gramSpd;
using test::toDense;

constexpr double kInf = std::numeric_limits<double>::infinity();
using Mask = std::vector<std::uint8_t>;

// ---------------------------------------------------------------------------------------------
// Problem generators and dense references
// ---------------------------------------------------------------------------------------------

struct BoxQp {
  BandedSymmetric A;
  std::vector<double> b, l, u;
};

// b = A y with y ~ U(-2, 2) so the unconstrained minimiser is O(1). Bounds per index: none, lower
// only, upper only, two-sided wide, two-sided narrow (width 0.1, so proportioning steps hit the
// opposite bound), drawn around a random centre.
BoxQp randomQp(BandedSymmetric A, std::mt19937& rng, bool allowInfinite = true) {
  const int n = A.size();
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> kind(allowInfinite ? 0 : 3, 4);
  BoxQp q;
  q.A = std::move(A);
  std::vector<double> y(static_cast<std::size_t>(n));
  for (double& v : y) v = 2.0 * u(rng);
  q.b.assign(static_cast<std::size_t>(n), 0.0);
  q.A.multiply(y, q.b);
  q.l.assign(static_cast<std::size_t>(n), -kInf);
  q.u.assign(static_cast<std::size_t>(n), kInf);
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
    const double c = 1.5 * u(rng);
    switch (kind(rng)) {
      case 0: break;
      case 1: q.l[i] = c; break;
      case 2: q.u[i] = c; break;
      case 3: q.l[i] = c - 0.8; q.u[i] = c + 0.8; break;
      default: q.l[i] = c - 0.05; q.u[i] = c + 0.05; break;
    }
  }
  return q;
}

double objective(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const Eigen::VectorXd& x) {
  return 0.5 * x.dot(A * x) - b.dot(x);
}

// Brute force over the 3^n assignments free / at lower / at upper: the KKT point (n <= 10).
Eigen::VectorXd bruteForce(const BoxQp& q) {
  const Eigen::MatrixXd A = toDense(q.A);
  const int n = q.A.size();
  const Eigen::VectorXd b = Eigen::Map<const Eigen::VectorXd>(q.b.data(), n);
  std::vector<int> state(static_cast<std::size_t>(n), 0);  // 0 free, 1 lower, 2 upper
  Eigen::VectorXd best;
  double bestF = kInf, bestViol = kInf;
  while (true) {
    bool ok = true;
    for (int i = 0; i < n; ++i) {
      const int s = state[static_cast<std::size_t>(i)];
      if ((s == 1 && q.l[static_cast<std::size_t>(i)] == -kInf) || (s == 2 && q.u[static_cast<std::size_t>(i)] == kInf))
        ok = false;
    }
    if (ok) {
      std::vector<int> F;
      Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
      for (int i = 0; i < n; ++i) {
        const int s = state[static_cast<std::size_t>(i)];
        if (s == 0) F.push_back(i);
        else x(i) = s == 1 ? q.l[static_cast<std::size_t>(i)] : q.u[static_cast<std::size_t>(i)];
      }
      const int m = static_cast<int>(F.size());
      if (m > 0) {
        Eigen::MatrixXd AFF(m, m);
        Eigen::VectorXd rhs(m);
        const Eigen::VectorXd Ax = A * x;
        for (int a = 0; a < m; ++a) {
          rhs(a) = b(F[a]) - Ax(F[a]);
          for (int c = 0; c < m; ++c) AFF(a, c) = A(F[a], F[c]);
        }
        const Eigen::VectorXd xF = AFF.llt().solve(rhs);
        for (int a = 0; a < m; ++a) x(F[a]) = xF(a);
      }
      // Violation of feasibility and of the sign conditions.
      const Eigen::VectorXd g = A * x - b;
      double viol = 0.0;
      for (int i = 0; i < n; ++i) {
        const std::size_t si = static_cast<std::size_t>(i);
        viol = std::max(viol, std::max(q.l[si] - x(i), x(i) - q.u[si]));
        const int s = state[si];
        if (s == 1) viol = std::max(viol, -g(i));
        if (s == 2) viol = std::max(viol, g(i));
      }
      const double f = objective(A, b, x);
      if (viol < 1e-9 * (1.0 + g.norm()) && (bestViol >= 1e-9 * (1.0 + g.norm()) || f < bestF)) {
        best = x;
        bestF = f;
        bestViol = viol;
      }
    }
    int k = 0;
    while (k < n && state[static_cast<std::size_t>(k)] == 2) state[static_cast<std::size_t>(k++)] = 0;
    if (k == n) break;
    ++state[static_cast<std::size_t>(k)];
  }
  EXPECT_LT(bestViol, kInf) << "brute force found no KKT point";
  return best;
}

double relErr(std::span<const double> x, const Eigen::VectorXd& ref) {
  double d = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) d += (x[i] - ref(static_cast<Eigen::Index>(i))) * (x[i] - ref(static_cast<Eigen::Index>(i)));
  return std::sqrt(d) / std::max(ref.norm(), 1e-300);
}

// ---------------------------------------------------------------------------------------------
// MPRGP on the abstract layer with a banded operator
// ---------------------------------------------------------------------------------------------

struct Env {
  la::BackendPtr backend = la::createBackend("eigen");
};

Env& env() {
  static Env e;
  return e;
}

la::VectorPtr makeVector(const la::Backend& backend, const la::IndexMapPtr& map, const std::vector<double>& v) {
  la::VectorPtr x = backend.createVector(map);
  la::Vector::View xv = x->view();
  for (std::size_t i = 0; i < v.size(); ++i) xv[static_cast<la::LocalIndex>(i)] = v[i];
  return x;
}

struct MprgpRun {
  std::vector<double> x;
  solvers::MprgpStats stats;
  bool feasibleEveryIterate = true;
  long observed = 0;
};

// Runs MPRGP on q with `prec` (already given the matrix through setMatrix), from x0 = 0.
MprgpRun runMprgp(const BoxQp& q, const std::shared_ptr<la::Preconditioner>& prec, double rtol = 1e-12,
                  const la::Backend* backendPtr = nullptr) {
  const la::Backend& backend = backendPtr ? *backendPtr : *env().backend;
  const int n = q.A.size();
  auto map = std::make_shared<const la::IndexMap>(Comm::self(), n);
  auto Aop = std::make_shared<BandedOperator>(backend, map, std::make_shared<const BandedSymmetric>(q.A));
  solvers::MprgpOptions o;
  o.rtol = rtol;
  o.maxIterations = 20000;
  solvers::Mprgp mprgp(o);
  mprgp.setOperator(Aop);
  if (prec) mprgp.setPreconditioner(prec);
  MprgpRun run;
  mprgp.setObserver([&](const la::Vector& x, double) {
    ++run.observed;
    la::Vector::ConstView xv = x.view();
    for (int i = 0; i < n; ++i) {
      const double xi = xv[i];
      if (!(xi >= q.l[static_cast<std::size_t>(i)] && xi <= q.u[static_cast<std::size_t>(i)])) run.feasibleEveryIterate = false;
    }
  });
  la::VectorPtr b = makeVector(backend, map, q.b), l = makeVector(backend, map, q.l), u = makeVector(backend, map, q.u);
  la::VectorPtr x = backend.createVector(map);
  run.stats = mprgp.solve(*b, *l, *u, *x);
  la::Vector::ConstView xv = x->constView();
  run.x.assign(xv.owned().begin(), xv.owned().end());
  return run;
}

std::shared_ptr<BandedQpPreconditioner> makePrec(const std::string& name, const BandedSymmetric& A) {
  auto p = makeQpPreconditioner(name, QpPreconditionerOptions{}, *env().backend);
  p->setMatrix(A);
  return p;
}

// The dense matrix of the filtered operator r -> z (P_FF^{-1} on F, 0 elsewhere).
Eigen::MatrixXd denseOperator(const MaskedBandPreconditioner& P, const Mask& mask) {
  const int n = P.size();
  Eigen::MatrixXd M(n, n);
  std::vector<double> e(static_cast<std::size_t>(n), 0.0), z(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) {
    e[static_cast<std::size_t>(j)] = 1.0;
    P.applyFiltered(e, mask, z);
    for (int i = 0; i < n; ++i) M(i, j) = z[static_cast<std::size_t>(i)];
    e[static_cast<std::size_t>(j)] = 0.0;
  }
  return M;
}

Eigen::MatrixXd restrictTo(const Eigen::MatrixXd& M, const Mask& mask) {
  std::vector<int> F;
  for (int i = 0; i < static_cast<int>(mask.size()); ++i)
    if (mask[static_cast<std::size_t>(i)]) F.push_back(i);
  Eigen::MatrixXd R(F.size(), F.size());
  for (std::size_t a = 0; a < F.size(); ++a)
    for (std::size_t c = 0; c < F.size(); ++c) R(a, c) = M(F[a], F[c]);
  return R;
}

std::vector<std::string> bandNames() {
  std::vector<std::string> names;
  for (const auto& n : qpPreconditionerNames())
    if (n != "amg") names.push_back(n);
  return names;
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

TEST(QpPreconditioner, NamesAndFactory) {
  const auto& names = qpPreconditionerNames();
  EXPECT_EQ(names.size(), 8u);
  for (const char* n : {"asc", "none", "jacobi", "wjacobi", "ssor", "ic0", "mic", "amg"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  EXPECT_THROW(makeQpPreconditioner("cholesky", {}, *env().backend), InputError);
  for (const auto& n : bandNames()) {
    auto p = makeQpPreconditioner(n, {}, *env().backend);
    EXPECT_EQ(p->name(), n);
    EXPECT_TRUE(solvers::activeSetAware(p.get())) << n;
  }
}

// der's preconditioners are entries of the linear layer's registry, created by the backend's
// factory like any other; they are for der's banded operator only, so no linear solver is offered
// them, and the options reach them (a value out of range is refused).
TEST(QpPreconditioner, RegisteredInTheLinearLayerAndCreatedByTheBackend) {
  const auto names = qpPreconditionerNames();
  const std::vector<std::string> offered = la::preconditionerNames();
  for (const auto& n : names) {
    const std::string full = qpPreconditionerRegistryName(n);
    EXPECT_EQ(full, "der." + n);
    ASSERT_TRUE(la::customPreconditioners().has(full)) << full;
    EXPECT_FALSE(la::customPreconditioners().get(full).forOperator.empty()) << full;
    EXPECT_EQ(std::find(offered.begin(), offered.end(), full), offered.end()) << full;
    EXPECT_EQ(std::find(la::anyOperatorPreconditioners().begin(), la::anyOperatorPreconditioners().end(), full),
              la::anyOperatorPreconditioners().end()) << full;
  }
  for (const auto& n : bandNames()) {
    auto p = env().backend->createPreconditioner(qpPreconditionerRegistryName(n));
    EXPECT_EQ(p->name(), n);
    EXPECT_NE(dynamic_cast<BandedQpPreconditioner*>(p.get()), nullptr) << n;
  }
  // "amg" is created by the same factory and refused by a backend without AMG, naming it.
  EXPECT_THROW(env().backend->createPreconditioner(qpPreconditionerRegistryName("amg")), InputError);

  QpPreconditionerOptions bad;
  bad.ssorOmega = 2.5;
  const std::string ssor = messageOf<InputError>([&] { makeQpPreconditioner("ssor", bad, *env().backend); });
  EXPECT_NE(ssor.find("omega must be in (0, 2), got 2.5"), std::string::npos) << ssor;
  bad = {};
  bad.wjacobiSweeps = 0;
  const std::string wj = messageOf<InputError>([&] { makeQpPreconditioner("wjacobi", bad, *env().backend); });
  EXPECT_NE(wj.find("sweeps must be at least 1"), std::string::npos) << wj;
  // The options are the ones configure() received: IC(0) with pivot floor 1 replaces every
  // pivot below A_jj by A_jj, i.e. falls back on every row of a matrix with fill.
  std::mt19937 rng(5);
  const BandedSymmetric A = gramSpd(30, 9, rng, 1e-2);
  QpPreconditionerOptions floor1;
  floor1.pivotFloor = 1.0;
  auto ic = makeQpPreconditioner("ic0", floor1, *env().backend);
  auto icDefault = makeQpPreconditioner("ic0", {}, *env().backend);
  ic->setMatrix(A);
  icDefault->setMatrix(A);
  EXPECT_GT(dynamic_cast<IncompleteCholeskyQpPreconditioner&>(*ic).factor().fallbacks(),
            dynamic_cast<IncompleteCholeskyQpPreconditioner&>(*icDefault).factor().fallbacks());
}

TEST(QpPreconditioner, C1EmptyActiveSetAscIsExactAndMprgpTakesOneIteration) {
  std::mt19937 rng(11);
  for (int n : {12, 60, 150}) {
    BandedSymmetric A = gramSpd(n, 21, rng, 1e-2);
    auto P = makePrec("asc", A);
    // P r == A^{-1} r through the abstract-vector apply (all free: no setFreeMask yet).
    auto map = std::make_shared<const la::IndexMap>(Comm::self(), n);
    std::vector<double> r(static_cast<std::size_t>(n));
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (double& v : r) v = u(rng);
    la::VectorPtr rv = makeVector(*env().backend, map, r), zv = env().backend->createVector(map);
    P->apply(*rv, *zv);
    const Eigen::VectorXd ref = toDense(A).ldlt().solve(Eigen::Map<const Eigen::VectorXd>(r.data(), n));
    la::Vector::ConstView z = zv->constView();
    EXPECT_LE(relErr(z.owned(), ref), 1e-12);

    // A box QP whose solution and starting point (0) are interior: one CG step.
    BoxQp q;
    q.A = A;
    q.b.assign(static_cast<std::size_t>(n), 0.0);
    std::vector<double> y(static_cast<std::size_t>(n));
    for (double& v : y) v = u(rng);
    A.multiply(y, q.b);
    q.l.resize(static_cast<std::size_t>(n));
    q.u.resize(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
      q.l[i] = std::min(0.0, y[i]) - 1.0;
      q.u[i] = std::max(0.0, y[i]) + 1.0;
    }
    const MprgpRun run = runMprgp(q, P, 1e-10);
    EXPECT_TRUE(run.stats.converged);
    EXPECT_EQ(run.stats.iterations, 1) << "n " << n;
    EXPECT_LE(relErr(run.x, Eigen::Map<const Eigen::VectorXd>(y.data(), n)), 1e-10);
    EXPECT_EQ(P->factorizations(), 1);
  }
}

TEST(QpPreconditioner, C3SymmetricAndPositiveOnTheFreeSubspace) {
  std::mt19937 rng(12);
  std::bernoulli_distribution coin(0.65);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double worstSym = 0.0;
  for (int trial = 0; trial < 12; ++trial) {
    const int n = 10 + 3 * trial, kd = 1 + trial % 8;
    // wjacobi is SPD only if omega lambda_max(D^-1 A_FF) < 2: diagonally dominant matrices for it.
    const BandedSymmetric dom = dominantSpd(n, kd, rng, 0.3, trial % 2 == 0);
    const BandedSymmetric gram = gramSpd(n, kd, rng, 1e-2);
    Mask mask(static_cast<std::size_t>(n));
    for (auto& m : mask) m = coin(rng) ? 1 : 0;
    mask[0] = 1;
    for (const auto& name : bandNames()) {
      for (int which = 0; which < 2; ++which) {
        if (which == 1 && name == "wjacobi") continue;
        const BandedSymmetric& A = which == 0 ? dom : gram;
        auto P = makePrec(name, A);
        const auto& mp = dynamic_cast<const MaskedBandPreconditioner&>(*P);
        const Eigen::MatrixXd M = denseOperator(mp, mask);
        const double normP = M.operatorNorm();
        // <u, P v> - <P u, v> on random vectors (C3), and the whole matrix.
        for (int k = 0; k < 5; ++k) {
          Eigen::VectorXd a(n), c(n);
          for (int i = 0; i < n; ++i) a(i) = u(rng), c(i) = u(rng);
          const double d = std::abs(a.dot(M * c) - (M * a).dot(c));
          worstSym = std::max(worstSym, d / (a.norm() * c.norm() * normP));
          EXPECT_LE(d, 1e-13 * a.norm() * c.norm() * normP) << name << " trial " << trial;
          // Positive on the free subspace: a_F != 0 -> <a, P a> > 0.
          EXPECT_GT(a.dot(M * a), 0.0) << name << " trial " << trial;
        }
        // Zero rows and columns on the active set; SPD restricted to F.
        for (int i = 0; i < n; ++i)
          if (!mask[static_cast<std::size_t>(i)]) {
            EXPECT_EQ(M.row(i).norm(), 0.0) << name;
            EXPECT_EQ(M.col(i).norm(), 0.0) << name;
          }
        const Eigen::MatrixXd MF = restrictTo(M, mask);
        const Eigen::MatrixXd S = 0.5 * (MF + MF.transpose());
        EXPECT_GT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(S).eigenvalues().minCoeff(), 0.0)
            << name << " trial " << trial;
      }
    }
  }
  std::printf("C3: worst |<u,Pv>-<Pu,v>| / (|u||v||P|) = %.3g\n", worstSym);
}

// lambda(P_FF^{-1} A_FF) from the dense filtered operator Z = P_FF^{-1}: eigenvalues of
// C^T A_FF C with Z = C C^T.
Eigen::VectorXd preconditionedSpectrum(const Eigen::MatrixXd& AFF, const Eigen::MatrixXd& ZFF) {
  const Eigen::MatrixXd Zs = 0.5 * (ZFF + ZFF.transpose());
  Eigen::LLT<Eigen::MatrixXd> llt(Zs);
  const Eigen::MatrixXd C = llt.matrixL();
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(C.transpose() * AFF * C).eigenvalues();
}

TEST(QpPreconditioner, C4AscSpectralBound) {
  std::mt19937 rng(13);
  std::bernoulli_distribution coin(0.6);
  double worstMin = kInf, maxMax = 0.0;
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 15 + 2 * trial, kd = 2 + trial % 10;
    const BandedSymmetric A = trial % 2 ? gramSpd(n, kd, rng, 1e-2) : dominantSpd(n, kd, rng, 0.1);
    const Eigen::MatrixXd Ad = toDense(A);
    auto P = makePrec("asc", A);
    const auto& mp = dynamic_cast<const MaskedBandPreconditioner&>(*P);
    // Random mask: every eigenvalue >= 1.
    Mask mask(static_cast<std::size_t>(n));
    for (auto& m : mask) m = coin(rng) ? 1 : 0;
    mask[1] = 1;
    const Eigen::VectorXd lam = preconditionedSpectrum(restrictTo(Ad, mask), restrictTo(denseOperator(mp, mask), mask));
    worstMin = std::min(worstMin, lam.minCoeff());
    maxMax = std::max(maxMax, lam.maxCoeff());
    EXPECT_GE(lam.minCoeff(), 1.0 - 1e-10) << "trial " << trial;
    // Every active index after every free index: exact, all eigenvalues 1.
    Mask tail(static_cast<std::size_t>(n), 1);
    for (int i = n / 2; i < n; ++i) tail[static_cast<std::size_t>(i)] = 0;
    const Eigen::VectorXd lt = preconditionedSpectrum(restrictTo(Ad, tail), restrictTo(denseOperator(mp, tail), tail));
    EXPECT_NEAR(lt.minCoeff(), 1.0, 1e-10);
    EXPECT_NEAR(lt.maxCoeff(), 1.0, 1e-10);
  }
  std::printf("C4: min eigenvalue of P_FF^-1 A_FF over random masks %.15g (max %.4g)\n", worstMin, maxMax);
}

TEST(QpPreconditioner, C5OneFactorizationPerBcqpWhateverTheActiveSetChanges) {
  std::mt19937 rng(14);
  int maxChanges = 0;
  for (int trial = 0; trial < 5; ++trial) {
    const int n = 200;
    BoxQp q = randomQp(gramSpd(n, 21, rng, 1e-2), rng, false);  // every index boxed, many narrow
    auto P = makePrec("asc", q.A);
    EXPECT_EQ(P->factorizations(), 1);
    const MprgpRun run = runMprgp(q, P, 1e-10);
    EXPECT_TRUE(run.stats.converged);
    EXPECT_GT(run.stats.activeSetChanges, 3);
    maxChanges = std::max(maxChanges, run.stats.activeSetChanges);
    EXPECT_EQ(P->factorizations(), 1) << "active-set changes " << run.stats.activeSetChanges;
    // The next Newton step: one new factorisation.
    P->setMatrix(q.A);
    EXPECT_EQ(P->factorizations(), 2);
  }
  std::printf("C5: up to %d active-set changes with one factorisation\n", maxChanges);
}

TEST(QpPreconditioner, C6NearSingularInputStaysFinite) {
  std::mt19937 rng(15);
  const int n = 60, kd = 8;
  Eigen::MatrixXd B = Eigen::MatrixXd::Zero(n, n);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int i = 0; i < n; i += 3)
    for (int j = i; j <= std::min(n - 1, i + kd / 2); ++j) B(i, j) = u(rng);
  const Eigen::MatrixXd M = B.transpose() * B;
  BandedSymmetric A(n, kd);
  for (int j = 0; j < n; ++j)
    for (int i = j; i <= std::min(n - 1, j + kd); ++i) A.at(i, j) = M(i, j) + (i == j ? 1e-18 : 0.0);
  auto P = std::make_shared<AscPreconditioner>();
  P->setMatrix(A);
  EXPECT_GT(P->factorStats().clampedPivots, 0);
  Mask mask(static_cast<std::size_t>(n), 1);
  for (int i = 0; i < n; i += 4) mask[static_cast<std::size_t>(i)] = 0;
  std::vector<double> r(static_cast<std::size_t>(n)), z(static_cast<std::size_t>(n));
  for (double& v : r) v = u(rng);
  P->applyFiltered(r, mask, z);
  for (double v : z) EXPECT_TRUE(std::isfinite(v));
}

// MPRGP with every band preconditioner reaches the brute-force solution (and the IPM's) on small
// banded box QPs; every iterate is exactly feasible (D2).
TEST(QpPreconditioner, EveryPreconditionerSolvesSmallBoxQpsToTheReference) {
  std::mt19937 rng(16);
  BoxQpIpm ipm;
  double worst = 0.0, worstIpm = 0.0;
  for (int trial = 0; trial < 16; ++trial) {
    const int n = 6 + trial % 4, kd = 1 + trial % 4;
    const BandedSymmetric A = trial % 2 ? dominantSpd(n, kd, rng, 0.2, trial % 4 == 1) : gramSpd(n, kd, rng, 0.05);
    const BoxQp q = randomQp(A, rng);
    const Eigen::VectorXd ref = bruteForce(q);
    std::vector<double> xi(static_cast<std::size_t>(n));
    const BoxQpIpmResult ir = ipm.solve(q.A, q.b, q.l, q.u, xi);
    EXPECT_TRUE(ir.converged) << ir.reason;
    worstIpm = std::max(worstIpm, relErr(xi, ref));
    EXPECT_LE(relErr(xi, ref), 1e-8) << "IPM trial " << trial;
    for (const auto& name : bandNames()) {
      if (name == "wjacobi" && trial % 2 == 0) continue;  // SPD only on dominant matrices
      auto P = makePrec(name, q.A);
      const MprgpRun run = runMprgp(q, P);
      EXPECT_TRUE(run.stats.converged) << name << " trial " << trial << " " << run.stats.reason;
      EXPECT_TRUE(run.feasibleEveryIterate) << name << " trial " << trial;
      EXPECT_EQ(run.observed, run.stats.iterations);
      const double e = relErr(run.x, ref);
      worst = std::max(worst, e);
      EXPECT_LE(e, 1e-8) << name << " trial " << trial;
      EXPECT_LE(relErr(run.x, Eigen::Map<const Eigen::VectorXd>(xi.data(), n)), 1e-8) << name << " vs IPM";
    }
  }
  std::printf("small QPs: worst relative error MPRGP %.3g, IPM %.3g vs brute force\n", worst, worstIpm);
}

// On a mid-size banded QP every band preconditioner converges to the same point as ASC, and the
// iteration counts are printed (ASC fewest: the paper's Fig. 8 ranking, not asserted beyond ASC <= none).
TEST(QpPreconditioner, EveryPreconditionerAgreesWithAscOnABandedQp) {
  std::mt19937 rng(17);
  const int n = 150, kd = 21;
  const BoxQp q = randomQp(dominantSpd(n, kd, rng, 0.05, true), rng);
  const MprgpRun asc = runMprgp(q, makePrec("asc", q.A));
  ASSERT_TRUE(asc.stats.converged);
  std::vector<double> xi(static_cast<std::size_t>(n));
  BoxQpIpm ipm;
  ipm.solve(q.A, q.b, q.l, q.u, xi);
  const Eigen::VectorXd ref = Eigen::Map<const Eigen::VectorXd>(asc.x.data(), n);
  EXPECT_LE(relErr(xi, ref), 1e-8);
  std::printf("n %d kd %d:", n, kd);
  int noneIts = 0;
  for (const auto& name : bandNames()) {
    const MprgpRun run = runMprgp(q, makePrec(name, q.A));
    EXPECT_TRUE(run.stats.converged) << name;
    EXPECT_TRUE(run.feasibleEveryIterate) << name;
    EXPECT_LE(relErr(run.x, ref), 1e-8) << name;
    if (name == "none") noneIts = run.stats.iterations;
    std::printf(" %s %d", name.c_str(), run.stats.iterations);
  }
  std::printf(" iterations\n");
  EXPECT_LE(asc.stats.iterations, noneIts);
}

// A harder, non-dominant banded QP (wjacobi left out: not SPD there): the iteration counts of
// each preconditioner, printed; every one reaches the ASC solution.
TEST(QpPreconditioner, IterationCountsOnAnIllConditionedBandedQp) {
  std::mt19937 rng(23);
  const int n = 300, kd = 21;
  const BoxQp q = randomQp(gramSpd(n, kd, rng, 1e-3), rng);
  const MprgpRun asc = runMprgp(q, makePrec("asc", q.A), 1e-10);
  ASSERT_TRUE(asc.stats.converged);
  const Eigen::VectorXd ref = Eigen::Map<const Eigen::VectorXd>(asc.x.data(), n);
  std::printf("gram n %d kd %d:", n, kd);
  for (const auto& name : bandNames()) {
    if (name == "wjacobi") continue;
    const MprgpRun run = runMprgp(q, makePrec(name, q.A), 1e-10);
    EXPECT_TRUE(run.stats.converged) << name;
    EXPECT_TRUE(run.feasibleEveryIterate) << name;
    EXPECT_LE(relErr(run.x, ref), 1e-6) << name;  // rtol 1e-10 on g^P, cond ~1e5
    std::printf(" %s %d", name.c_str(), run.stats.iterations);
  }
  std::printf(" iterations\n");
}

// The abstract-vector path (setFreeMask + apply, what MPRGP uses) equals applyFiltered; BandedOperator
// equals the band multiply and reports the diagonal.
TEST(QpPreconditioner, AbstractVectorPathMatchesSpans) {
  std::mt19937 rng(24);
  const int n = 50;
  const BandedSymmetric A = dominantSpd(n, 7, rng, 0.2, true);
  auto map = std::make_shared<const la::IndexMap>(Comm::self(), n);
  const la::Backend& be = *env().backend;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> r(static_cast<std::size_t>(n)), maskD(static_cast<std::size_t>(n));
  Mask mask(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    r[static_cast<std::size_t>(i)] = u(rng);
    mask[static_cast<std::size_t>(i)] = u(rng) > -0.3 ? 1 : 0;
    maskD[static_cast<std::size_t>(i)] = mask[static_cast<std::size_t>(i)];
  }
  la::VectorPtr rv = makeVector(be, map, r), mv = makeVector(be, map, maskD), zv = be.createVector(map);
  for (const auto& name : bandNames()) {
    auto P = makePrec(name, A);
    auto& masked = dynamic_cast<MaskedBandPreconditioner&>(*P);
    solvers::activeSetInterface(P.get())->setFreeMask(*mv);
    P->apply(*rv, *zv);
    std::vector<double> z(static_cast<std::size_t>(n));
    masked.applyFiltered(r, mask, z);
    la::Vector::ConstView zz = zv->constView();
    for (int i = 0; i < n; ++i) EXPECT_EQ(zz[i], z[static_cast<std::size_t>(i)]) << name;
  }
  BandedOperator op(be, map, std::make_shared<const BandedSymmetric>(A));
  op.apply(*rv, *zv);
  std::vector<double> y(static_cast<std::size_t>(n));
  A.multiply(r, y);
  la::VectorPtr d = be.createVector(map);
  op.diagonal(*d);
  la::Vector::ConstView zz = zv->constView(), dd = d->constView();
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(zz[i], y[static_cast<std::size_t>(i)]);
    EXPECT_EQ(dd[i], A.at(i, i));
  }
  auto wrong = std::make_shared<const la::IndexMap>(Comm::self(), n + 1);
  EXPECT_THROW(BandedOperator(be, wrong, std::make_shared<const BandedSymmetric>(A)), Error);
}

TEST(QpPreconditioner, IcEqualsAscOnAFullBandAndDiffersWithHoles) {
  std::mt19937 rng(18);
  const int n = 40, kd = 5;
  Mask mask(static_cast<std::size_t>(n), 1);
  for (int i = 0; i < n; i += 3) mask[static_cast<std::size_t>(i)] = 0;
  const BandedSymmetric full = gramSpd(n, kd, rng, 0.1);
  auto ic = makePrec("ic0", full), asc = makePrec("asc", full);
  const auto& icm = dynamic_cast<const MaskedBandPreconditioner&>(*ic);
  const auto& ascm = dynamic_cast<const MaskedBandPreconditioner&>(*asc);
  const Eigen::MatrixXd Mi = denseOperator(icm, mask), Ma = denseOperator(ascm, mask);
  EXPECT_LE((Mi - Ma).norm(), 1e-12 * Ma.norm());
  const BandedSymmetric holes = dominantSpd(n, kd, rng, 0.1, true);
  auto ic2 = makePrec("ic0", holes), mic2 = makePrec("mic", holes), asc2 = makePrec("asc", holes);
  const Eigen::MatrixXd I2 = denseOperator(dynamic_cast<const MaskedBandPreconditioner&>(*ic2), mask);
  const Eigen::MatrixXd M2 = denseOperator(dynamic_cast<const MaskedBandPreconditioner&>(*mic2), mask);
  const Eigen::MatrixXd A2 = denseOperator(dynamic_cast<const MaskedBandPreconditioner&>(*asc2), mask);
  EXPECT_GT((I2 - A2).norm(), 1e-6 * A2.norm());
  EXPECT_GT((M2 - I2).norm(), 1e-6 * I2.norm());
  // The IC factor keeps the pattern: L_ij == 0 where A_ij == 0.
  const auto& f = dynamic_cast<const IncompleteCholeskyQpPreconditioner&>(*ic2).factor();
  for (int j = 0; j < n; ++j)
    for (int i = j + 1; i <= std::min(n - 1, j + kd); ++i)
      if (holes.at(i, j) == 0.0) {
        EXPECT_EQ(f.l(i, j), 0.0);
      }
  // MIC with tau = 1 keeps row sums: (L D L^T) 1 == A 1 (no fallback on this dominant matrix).
  IncompleteLdltOptions o;
  o.modified = true;
  o.tau = 1.0;
  o.sigma = 0.0;
  IncompleteBandedLdlt mic(o);
  mic.factor(holes);
  EXPECT_EQ(mic.fallbacks(), 0);
  Eigen::MatrixXd L(n, n);
  Eigen::VectorXd D(n);
  for (int i = 0; i < n; ++i) {
    D(i) = mic.d(i);
    for (int j = 0; j < n; ++j) L(i, j) = mic.l(i, j);
  }
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(n);
  const Eigen::VectorXd lhs = L * D.asDiagonal() * L.transpose() * ones, rhs = toDense(holes) * ones;
  EXPECT_LE((lhs - rhs).norm(), 1e-12 * rhs.norm());
}

TEST(QpPreconditioner, IcBreakdownFallsBackToTheDiagonal) {
  // SPD tridiagonal-in-a-wider-band matrix (det = 0.02): pivots D = (1, 0.51, 0.039). IC keeps them;
  // MIC's safeguard (pivot < sigma A_jj, sigma = 0.25) replaces the last one by A_22 = 1.
  BandedSymmetric A(3, 2);
  A.at(0, 0) = 1.0;
  A.at(1, 0) = 0.7;
  A.at(1, 1) = 1.0;
  A.at(2, 0) = 0.0;  // outside the pattern; no fill reaches it here
  A.at(2, 1) = 0.7;
  A.at(2, 2) = 1.0;
  IncompleteLdltOptions o;
  IncompleteBandedLdlt ic(o);
  ic.factor(A);
  EXPECT_EQ(ic.fallbacks(), 0);
  o.modified = true;
  IncompleteBandedLdlt mic(o);
  mic.factor(A);
  EXPECT_EQ(mic.fallbacks(), 1);
  EXPECT_EQ(mic.d(2), 1.0);
  // Genuine IC(0) breakdowns (non-positive pivots) on non-dominant matrices with holes: the factor
  // must stay finite and positive.
  std::mt19937 rng(19);
  int breakdowns = 0;
  for (int t = 0; t < 200 && breakdowns == 0; ++t) {
    const int n = 12, kd = 4;
    BandedSymmetric G = gramSpd(n, kd, rng, 1e-3);
    std::bernoulli_distribution hole(0.4);
    for (int j = 0; j < n; ++j)
      for (int i = j + 1; i <= std::min(n - 1, j + kd); ++i)
        if (hole(rng)) G.at(i, j) = 0.0;
    IncompleteBandedLdlt f{IncompleteLdltOptions{}};
    f.factor(G);
    breakdowns += f.fallbacks();
    for (int i = 0; i < n; ++i) {
      EXPECT_GT(f.d(i), 0.0);
      EXPECT_TRUE(std::isfinite(f.d(i)));
    }
  }
  EXPECT_GT(breakdowns, 0) << "no IC(0) breakdown found to exercise the fallback";
}

// The IPM baseline against MPRGP + ASC on ~50 random banded box QPs.
TEST(BoxQpIpm, AgreesWithAscMprgpOnRandomBandedBoxQps) {
  std::mt19937 rng(20);
  BoxQpIpm ipm;
  double worst = 0.0;
  int itsMin = 1 << 30, itsMax = 0;
  long itsSum = 0;
  const int trials = 50;
  for (int trial = 0; trial < trials; ++trial) {
    const int n = 20 + 7 * trial, kd = 1 + trial % 21;
    const BandedSymmetric A = trial % 3 == 0 ? dominantSpd(n, kd, rng, 0.01) : gramSpd(n, kd, rng, 1e-2);
    const BoxQp q = randomQp(A, rng, trial % 2 == 0);
    std::vector<double> x(static_cast<std::size_t>(n));
    const BoxQpIpmResult r = ipm.solve(q.A, q.b, q.l, q.u, x);
    EXPECT_TRUE(r.converged) << "trial " << trial << " " << r.reason << " kkt " << r.kktResidual;
    EXPECT_EQ(r.factorizations, r.iterations + 1);  // one per iteration plus the starting point
    for (int i = 0; i < n; ++i) {
      EXPECT_GE(x[static_cast<std::size_t>(i)], q.l[static_cast<std::size_t>(i)]);
      EXPECT_LE(x[static_cast<std::size_t>(i)], q.u[static_cast<std::size_t>(i)]);
    }
    const MprgpRun m = runMprgp(q, makePrec("asc", q.A));
    ASSERT_TRUE(m.stats.converged);
    const double e = relErr(x, Eigen::Map<const Eigen::VectorXd>(m.x.data(), n));
    worst = std::max(worst, e);
    EXPECT_LE(e, 1e-8) << "trial " << trial << " n " << n << " kd " << kd;
    itsMin = std::min(itsMin, r.iterations);
    itsMax = std::max(itsMax, r.iterations);
    itsSum += r.iterations;
  }
  std::printf("IPM vs ASC-MPRGP: worst relative difference %.3g; IPM iterations %d..%d (mean %.1f)\n", worst,
              itsMin, itsMax, static_cast<double>(itsSum) / trials);
}

TEST(BoxQpIpm, FixedVariablesAndInputErrors) {
  std::mt19937 rng(21);
  const int n = 8;
  BoxQp q = randomQp(gramSpd(n, 3, rng, 0.1), rng);
  q.l[2] = q.u[2] = 0.3;  // fixed
  q.l[5] = q.u[5] = -0.2;
  const Eigen::VectorXd ref = bruteForce(q);
  std::vector<double> x(static_cast<std::size_t>(n));
  BoxQpIpm ipm;
  const BoxQpIpmResult r = ipm.solve(q.A, q.b, q.l, q.u, x);
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(x[2], 0.3);
  EXPECT_LE(relErr(x, ref), 1e-8);
  q.l[1] = 0.0;
  std::vector<double> bad = q.u;
  bad[1] = -1.0;  // upper < lower
  EXPECT_THROW(ipm.solve(q.A, q.b, q.l, bad, x), InputError);
}

// The amg baseline on every backend of the build that provides AMG; elsewhere a clear InputError.
TEST(QpPreconditioner, AmgOnEveryBackendThatHasIt) {
  std::mt19937 rng(22);
  const BoxQp q = randomQp(dominantSpd(80, 21, rng, 0.05), rng);
  const MprgpRun ref = runMprgp(q, makePrec("asc", q.A));
  int ran = 0;
  for (const auto& name : la::backends().names()) {
    la::BackendPtr backend = la::createBackend(name);
    const auto native = backend->nativePreconditioners();
    const bool hasAmg = std::find(native.begin(), native.end(), "amg") != native.end();
    if (!hasAmg) {
      try {
        makeQpPreconditioner("amg", {}, *backend);
        ADD_FAILURE() << "no error for amg on " << name;
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      }
      continue;
    }
    auto P = makeQpPreconditioner("amg", {}, *backend);
    EXPECT_FALSE(solvers::activeSetAware(P.get()));
    P->setMatrix(q.A);
    const MprgpRun run = runMprgp(q, P, 1e-12, backend.get());
    EXPECT_TRUE(run.stats.converged) << name;
    EXPECT_TRUE(run.feasibleEveryIterate) << name;
    EXPECT_LE(relErr(run.x, Eigen::Map<const Eigen::VectorXd>(ref.x.data(), q.A.size())), 1e-8) << name;
    std::printf("amg on %s: %d MPRGP iterations (asc %d)\n", name.c_str(), run.stats.iterations, ref.stats.iterations);
    ++ran;
  }
  std::printf("amg ran on %d backend(s)\n", ran);
}

}  // namespace
}  // namespace kinema::der

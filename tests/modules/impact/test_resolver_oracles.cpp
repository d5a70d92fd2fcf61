// Algorithm 1/3/4 against the team's derived oracles (modules/impact/README.md, decision 19):
// chains (paper section 3, A1-A5), wedge (Fig. 3, A6-A9), parallel walls (Fig. 2: cycles reported
// as lineality), the perturbed mini-geyser, hex-19 (F4), and the scene tests F1-F3, S1, M1, R1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "modules/impact/desiderata.hpp"
#include "modules/impact/gauss_seidel.hpp"
#include "modules/impact/generalized_reflections.hpp"
#include "modules/impact/resolver.hpp"
#include "modules/impact/scenes.hpp"

namespace kinema::impact {
namespace {

ResolverOptions exact(long cap = 100000) {
  ResolverOptions o;
  o.arithmetic = Arithmetic::Exact;
  o.maxIterations = cap;
  return o;
}
ResolverOptions relaxed(double eps = 1e-12, long cap = 100000) {
  ResolverOptions o;
  o.epsilon = eps;
  o.maxIterations = cap;
  return o;
}

struct ChainCase {
  std::vector<double> masses, q0, gs;
  long gsIters;
  std::vector<double> gr;  // empty: no GR oracle
  long grIters;
};

// The chain table of README decision 19 (ϵ = 1e-12 relative, renormalised: exact counts restored).
TEST(ResolverOracles, ChainsA1ToA5) {
  const double t = 1.0 / 3.0;
  const std::vector<ChainCase> cases = {
      {{1, 1, 1, 1, 1}, {1, 0, 0, 0, 0}, {0, 0, 0, 0, 1}, 4, {0, 0, 0, 0, 1}, 4},
      {{1, 1, 1, 1, 1}, {5, 4, 3, 2, 1}, {1, 2, 3, 4, 5}, 10, {1, 2, 3, 4, 5}, 1},
      {{1, 1, 1, 1, 1}, {3, 1, 4, 1, 5}, {1, 1, 3, 4, 5}, 3, {}, 0},
      {{1, 1, 1, 1, 1}, {2, 1, 0, 0, 0}, {0, 0, 0, 1, 2}, 7, {}, 0},
      {{1, 1, 1, 1, 1}, {0, 0, 0, 0, -1}, {-1, 0, 0, 0, 0}, 4, {}, 0},
      {{1, 1, 1}, {1, 0, 0}, {0, 0, 1}, 2, {0, 0, 1}, 2},
      {{1, 1, 1}, {1, 0, -1}, {-1, 0, 1}, 3, {-1, 0, 1}, 1},
      {{1, 1, 1}, {2, 0, -1}, {-1, 0, 2}, 3, {-4 * t, 2 * t, 5 * t}, 1},  // A4
      {{1, 1, 1}, {1, 1, 0}, {0, 1, 1}, 2, {0, 1, 1}, 2},
      {{1, 1, 1}, {0, 1, 0}, {0, 0, 1}, 1, {0, 0, 1}, 1},
      {{1, 2, 3}, {1, 0, 0}, {-t, -2.0 / 15, 8.0 / 15}, 2, {-t, -2.0 / 15, 8.0 / 15}, 2},  // A5
      {{1, 2, 3}, {3, 0, -1}, {-9.0 / 5, -6.0 / 5, 7.0 / 5}, 3, {-3, 0, 1}, 1},           // A5
  };
  for (const auto& c : cases) {
    auto s = scenes::chain(c.masses, c.q0);
    const double E0 = s.system.kineticEnergy(s.qdot);
    const Eigen::Vector3d p0 = s.system.linearMomentum(s.qdot);
    Resolver res(relaxed());
    PairwiseGaussSeidel gs;
    auto r = res.resolve(s.system, gs, s.qdot);
    ASSERT_TRUE(r.stats.converged) << r.stats.report;
    EXPECT_EQ(r.stats.iterations, c.gsIters) << "GS on " << Eigen::Map<const Eigen::VectorXd>(c.q0.data(), 3).transpose();
    EXPECT_LT((scenes::xComponents(r.qdot) - Eigen::Map<const Eigen::VectorXd>(c.gs.data(), c.gs.size())).norm(), 1e-12);
    EXPECT_NEAR(s.system.kineticEnergy(r.qdot), E0, 1e-14 * E0);
    EXPECT_LT((s.system.linearMomentum(r.qdot) - p0).norm(), 1e-13);
    if (c.gr.empty()) continue;
    GeneralizedReflections gr;
    auto g = res.resolve(s.system, gr, s.qdot);
    ASSERT_TRUE(g.stats.converged) << g.stats.report;
    EXPECT_EQ(g.stats.iterations, c.grIters);
    EXPECT_LT((scenes::xComponents(g.qdot) - Eigen::Map<const Eigen::VectorXd>(c.gr.data(), c.gr.size())).norm(), 1e-12)
        << scenes::xComponents(g.qdot).transpose();
    EXPECT_NEAR(s.system.kineticEnergy(g.qdot), E0, 1e-14 * E0);
    EXPECT_LT((s.system.linearMomentum(g.qdot) - p0).norm(), 1e-13);
  }
}

// A3: any GS order on an equal-mass 1D chain sorts q̇_0 in exactly inv(q̇_0) iterations, and the
// sortedness certificate Σ i·v_i strictly increases.
TEST(ResolverOracles, ChainsA3AnyOrderSortsInInversionCount) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> u(-4, 4);
  for (int trial = 0; trial < 30; ++trial) {
    const int b = 3 + trial % 6;
    std::vector<double> q0(b);
    for (auto& x : q0) x = u(rng);
    long inv = 0;
    for (int i = 0; i < b; ++i)
      for (int j = i + 1; j < b; ++j) inv += q0[i] > q0[j];
    std::vector<double> sorted = q0;
    std::sort(sorted.begin(), sorted.end());
    auto s = scenes::chain(q0);
    for (Selection sel : {Selection::Lexicographic, Selection::Random, Selection::MostViolated, Selection::CyclicSweep}) {
      PairwiseGaussSeidel gs(sel, 100 + trial);
      Resolver res(relaxed());
      double potential = -1e300;
      bool increasing = true;
      res.setObserver([&](long, const Eigen::VectorXd&, const Eigen::VectorXd& after, const Eigen::VectorXd&) {
        const Eigen::VectorXd x = scenes::xComponents(after);
        double p = 0.0;
        for (int i = 0; i < x.size(); ++i) p += (i + 1) * x[i];
        if (!(p > potential)) increasing = false;
        potential = p;
      });
      auto r = res.resolve(s.system, gs, s.qdot);
      ASSERT_TRUE(r.stats.converged);
      EXPECT_EQ(r.stats.iterations, inv) << gs.name();
      EXPECT_LT((scenes::xComponents(r.qdot) - Eigen::Map<Eigen::VectorXd>(sorted.data(), b)).norm(), 1e-12);
      EXPECT_TRUE(increasing) << gs.name();
    }
    // Coloured Jacobi is a GS sequence: sorted result, one impulse per removed inversion.
    auto cj = makeImpactOperator("jacobi-colored");
    Resolver res(relaxed());
    auto r = res.resolve(s.system, *cj, s.qdot);
    ASSERT_TRUE(r.stats.converged);
    EXPECT_EQ(r.stats.impulses, inv);
    EXPECT_LE(r.stats.iterations, inv);
    EXPECT_LT((scenes::xComponents(r.qdot) - Eigen::Map<Eigen::VectorXd>(sorted.data(), b)).norm(), 1e-12);
  }
}

// A6-A9 (README decision 19). Certificates w_i = (cos(iθ/3), sin(iθ/3)) are nondecreasing (Lemma 5.1).
TEST(ResolverOracles, WedgeA6ToA9) {
  struct W { double deg; long bisector, down; };
  const std::vector<W> table = {{90, 2, 1}, {70, 3, 2}, {50, 4, 2}, {45, 4, 2}, {37, 5, 3}, {25, 7, 4},
                                {13, 14, 7}, {10, 18, 9}, {7, 26, 13}, {3, 60, 30}, {1, 180, 90},
                                {0.5, 360, 180}, {0.1, 1800, 900}};
  for (const auto& w : table) {
    const double th = w.deg * M_PI / 180.0;
    auto s = scenes::wedge(th);
    Resolver res(relaxed());
    Eigen::Vector2d w1(std::cos(th / 3), std::sin(th / 3)), w2(std::cos(2 * th / 3), std::sin(2 * th / 3));
    bool monotone = true;
    double k1 = -1e300, k2 = -1e300;
    res.setObserver([&](long, const Eigen::VectorXd& before, const Eigen::VectorXd& after, const Eigen::VectorXd&) {
      if (k1 == -1e300) k1 = w1.dot(before), k2 = w2.dot(before);
      const double n1 = w1.dot(after), n2 = w2.dot(after);
      if (n1 < k1 - 1e-14 || n2 < k2 - 1e-14) monotone = false;
      k1 = n1, k2 = n2;
    });
    PairwiseGaussSeidel gs;
    auto r = res.resolve(s.system, gs, s.qdot);  // A6
    ASSERT_TRUE(r.stats.converged);
    EXPECT_EQ(r.stats.iterations, w.bisector) << w.deg << " deg";
    EXPECT_TRUE(monotone) << w.deg;
    EXPECT_LE(r.stats.iterations, static_cast<long>(std::ceil(M_PI / th)));
    if (w.deg == 90 || w.deg == 45 || w.deg == 10 || w.deg == 1) {
      EXPECT_LT((r.qdot + s.qdot).norm(), 1e-9) << w.deg;
    }
    if (w.deg == 25) {
      EXPECT_LT((r.qdot - Eigen::Vector2d(0.953717, 0.300706)).norm(), 1e-6);
    }
    // A7: from (0, −1), GS and GR need ⌈π/(2θ)⌉.
    Resolver plain(relaxed());
    PairwiseGaussSeidel gs2;
    GeneralizedReflections gr;
    const Eigen::Vector2d down(0, -1);
    EXPECT_EQ(plain.resolve(s.system, gs2, down).stats.iterations, w.down) << w.deg;
    EXPECT_EQ(plain.resolve(s.system, gr, down).stats.iterations, w.down) << w.deg;
    // A9: GR from the bisector returns −q̇_0 in one step.
    auto g = plain.resolve(s.system, gr, s.qdot);
    EXPECT_EQ(g.stats.iterations, 1);
    EXPECT_LT((g.qdot + s.qdot).norm(), 1e-12) << w.deg;
  }
}

TEST(ResolverOracles, WedgeA8BoundOverManyDirections) {
  for (double deg : {70.0, 25.0, 7.0}) {
    const double th = deg * M_PI / 180.0;
    auto s = scenes::wedge(th);
    Resolver res(relaxed());
    PairwiseGaussSeidel gs;
    long worst = 0;
    for (int k = 0; k < 2000; ++k) {
      const double a = 2 * M_PI * (k + 0.5) / 2000;
      auto r = res.resolve(s.system, gs, Eigen::Vector2d(std::cos(a), std::sin(a)));
      ASSERT_TRUE(r.stats.converged);
      worst = std::max(worst, r.stats.iterations);
    }
    EXPECT_LE(worst, static_cast<long>(std::ceil(M_PI / th))) << deg;
    EXPECT_GE(worst, static_cast<long>(std::ceil(M_PI / th)) - 1) << deg;  // nearly attained
  }
}

// Fig. 2 left / L1: plain GS and GR cycle with period 2; the resolver stops at the cap and names
// lineality. (The anti-locking fix belongs to the lineality helper.)
TEST(ResolverOracles, ParallelWallsCycleIsReportedAsLineality) {
  auto s = scenes::parallelWalls();
  for (int which = 0; which < 2; ++which) {
    PairwiseGaussSeidel gs;
    GeneralizedReflections gr;
    ImpactOperator& op = which == 0 ? static_cast<ImpactOperator&>(gs) : gr;
    Resolver res(exact(2000));
    auto r = res.resolve(s.system, op, s.qdot);
    EXPECT_FALSE(r.stats.converged);
    EXPECT_TRUE(r.stats.capReached);
    EXPECT_EQ(r.stats.iterations, 2000);
    EXPECT_TRUE(r.stats.cycleDetected);
    EXPECT_EQ(r.stats.cyclePeriod, 2);
    EXPECT_EQ(r.stats.cycleFirstSeen, 2);
    EXPECT_NE(r.stats.report.find("lineality"), std::string::npos) << r.stats.report;
    EXPECT_LT((r.qdot - s.qdot).norm(), 1e-15);  // even count: back at (1, 0.5)
    // stopOnCycle ends it at the first revisit.
    ResolverOptions o = exact(2000);
    o.stopOnCycle = true;
    Resolver early(o);
    auto e = early.resolve(s.system, op, s.qdot);
    EXPECT_EQ(e.stats.iterations, 2);
    EXPECT_FALSE(e.stats.converged);
    // Relaxed mode cycles too (the walls are exact opposites).
    Resolver rel(relaxed(1e-10, 1000));
    EXPECT_TRUE(rel.resolve(s.system, op, s.qdot).stats.cycleDetected);
  }
}

// Fig. 2 centre / L3: plain GS cycles with period 4 through the derived states.
TEST(ResolverOracles, TwoBallsBetweenWallsCycleWithPeriodFour) {
  auto s = scenes::twoBallsBetweenWalls();
  PairwiseGaussSeidel gs;
  Resolver res(exact(1000));
  std::vector<Eigen::VectorXd> seen;
  res.setObserver([&](long it, const Eigen::VectorXd&, const Eigen::VectorXd& after, const Eigen::VectorXd&) {
    if (it < 4) seen.push_back(after);
  });
  auto r = res.resolve(s.system, gs, s.qdot);
  EXPECT_TRUE(r.stats.capReached);
  EXPECT_EQ(r.stats.cyclePeriod, 4);
  ASSERT_EQ(seen.size(), 4u);
  Eigen::VectorXd e(4);
  e << 0, .3, 1, -.2;
  EXPECT_LT((seen[0] - e).norm(), 1e-14);
  e << 0, .3, -1, -.2;
  EXPECT_LT((seen[1] - e).norm(), 1e-14);
  e << -1, .3, 0, -.2;
  EXPECT_LT((seen[2] - e).norm(), 1e-14);
  e << 1, .3, 0, -.2;
  EXPECT_LT((seen[3] - e).norm(), 1e-14);
}

// A certificate that stops increasing is reported (paper §5.1): in the parallel-wall cycle k_w of
// the only feasible direction family w = (0, 1) stays constant.
TEST(ResolverOracles, CertificateStallIsReported) {
  auto s = scenes::parallelWalls();
  ResolverOptions o = exact(500);
  o.detectCycles = false;
  o.certificate = Eigen::Vector2d(0.0, 1.0);
  o.stallWindow = 100;
  Resolver res(o);
  PairwiseGaussSeidel gs;
  auto r = res.resolve(s.system, gs, s.qdot);
  EXPECT_TRUE(r.stats.certificateStalled);
  EXPECT_FALSE(r.stats.certificateDecreased);
  EXPECT_NE(r.stats.report.find("lineality"), std::string::npos);
}

// F1 / F2: renormalised iterates keep ‖q̇_0‖_M to a few ulp; exit test; GR QPs meet the KKT tolerance.
TEST(ResolverOracles, FloatingPointF1F2) {
  for (unsigned seed : {1u, 2u, 3u}) {
    auto s = scenes::hexCluster19(seed);
    const double n0 = s.system.normM(s.qdot);
    GeneralizedReflections gr;
    PairwiseGaussSeidel gs;
    for (ImpactOperator* op : {static_cast<ImpactOperator*>(&gs), static_cast<ImpactOperator*>(&gr)}) {
      Resolver res(relaxed(1e-10));
      double worst = 0.0, worstKkt = 0.0;
      long mprgpIts = 0, polished = 0;
      res.setObserver([&](long, const Eigen::VectorXd&, const Eigen::VectorXd& after, const Eigen::VectorXd&) {
        worst = std::max(worst, std::abs(s.system.normM(after) - n0));
        if (op == &gr) {
          worstKkt = std::max(worstKkt, gr.lastQp().kktResidual / n0);
          mprgpIts += gr.lastQp().mprgpIterations;
          polished += gr.lastQp().polishSteps;
        }
      });
      auto r = res.resolve(s.system, *op, s.qdot);
      ASSERT_TRUE(r.stats.converged) << r.stats.report;
      std::printf("hex-19 seed %u %s: %ld iterations, %ld impulses (derived: GS 53/63/32, GR 3/3/4 with its RNG)",
                  seed, op->name().c_str(), r.stats.iterations, r.stats.impulses);
      if (op == &gr) std::printf(", MPRGP iterations %ld, polished QPs %ld, worst KKT %.2g", mprgpIts, polished, worstKkt);
      std::printf("\n");
      EXPECT_LE(worst, 8 * std::numeric_limits<double>::epsilon() * n0) << op->name();
      EXPECT_GE(r.stats.minRelativeFeasibility, -1e-10);
      EXPECT_LT(std::abs(r.stats.relativeEnergyDrift), 1e-14);
      if (op == &gr) {
        EXPECT_LE(worstKkt, 1e-13);
      }
      const Eigen::Vector3d dp = s.system.linearMomentum(r.qdot) - s.system.linearMomentum(s.qdot);
      EXPECT_LT(dp.norm(), 1e-12 * n0) << op->name();  // M1
    }
  }
}

// Lineality-free cases (README decision 19): dependent-but-redundant normals and the corner terminate.
TEST(ResolverOracles, RedundantNormalsAndCornerTerminate) {
  ImpactSystem red;
  const int b = red.addBall2D(1.0);
  red.addConstraint(b, Eigen::Vector2d(1, 1));
  red.addConstraint(b, Eigen::Vector2d(-1, 1));
  red.addConstraint(b, Eigen::Vector2d(0, 1));
  const Eigen::Vector2d q0(0.3, -1.0);
  auto corner = scenes::corner();
  PairwiseGaussSeidel gs;
  GeneralizedReflections gr;
  Resolver res(relaxed());
  auto a = res.resolve(red, gs, q0);
  auto g = res.resolve(red, gr, q0);
  EXPECT_EQ(a.stats.iterations, 2);
  EXPECT_EQ(g.stats.iterations, 1);
  EXPECT_LT((a.qdot - Eigen::Vector2d(-0.3, 1.0)).norm(), 1e-12) << a.qdot.transpose();
  EXPECT_LT((g.qdot - Eigen::Vector2d(-0.3, 1.0)).norm(), 1e-12) << g.qdot.transpose();
  EXPECT_TRUE(gr.lastQp().converged);  // A = NᵀM⁻¹N is singular (3 normals in 2D)
  auto c = res.resolve(corner.system, gs, corner.qdot);
  auto d = res.resolve(corner.system, gr, corner.qdot);
  EXPECT_EQ(c.stats.iterations, 2);
  EXPECT_EQ(d.stats.iterations, 1);
  EXPECT_LT((c.qdot - Eigen::Vector2d(-2, 1)).norm(), 1e-12);
  EXPECT_LT((d.qdot - Eigen::Vector2d(-2, 1)).norm(), 1e-12);
}

// T-CERT (Lemma 5.1): for a strictly feasible w, k_w = ⟨w, q̇_i⟩_M never decreases and strictly
// increases with every nonzero impulse. For a wall-free ball cluster the radial expansion field
// w_b = x_b is strictly feasible: n_iᵀw = |x_b − x_a|/√2 > 0 for unit masses.
TEST(ResolverOracles, CertificateIncreasesTCert) {
  for (unsigned seed : {1u, 2u, 3u}) {
    auto s = scenes::hexCluster19(seed);
    Eigen::VectorXd w(s.system.dofs());
    for (int b = 0; b < s.system.numBodies(); ++b) w.segment<2>(2 * b) = s.system.body(b).position.head<2>();
    for (int i = 0; i < s.system.numConstraints(); ++i) ASSERT_GT(s.system.dot(i, w), 1.0);
    for (const std::string& name : impactOperators().names()) {
      if (name == "jacobi-naive" || name.rfind("test-", 0) == 0) continue;
      auto op = makeImpactOperator(name);
      ResolverOptions o = relaxed(1e-10);
      o.certificate = w;
      Resolver res(o);
      bool strict = true;
      res.setObserver([&](long, const Eigen::VectorXd& before, const Eigen::VectorXd& after, const Eigen::VectorXd& l) {
        if (l.cwiseAbs().maxCoeff() > 0.0 && !(s.system.dotM(w, after) > s.system.dotM(w, before))) strict = false;
      });
      auto r = res.resolve(s.system, *op, s.qdot);
      EXPECT_TRUE(r.stats.converged) << name;
      EXPECT_FALSE(r.stats.certificateDecreased) << name;
      EXPECT_FALSE(r.stats.certificateStalled) << name;
      EXPECT_TRUE(strict) << name;
    }
  }
}

// Scale: a 20 x 20 hex patch (400 balls, 1121 contacts) resolves with GS, coloured Jacobi and GR;
// energy, momentum and feasibility as on the small cases.
TEST(ResolverOracles, HexPatchAtScale) {
  auto s = scenes::hexPatch(20, 20, 3);
  ASSERT_EQ(s.system.numConstraints(), 20 * 19 + 19 * 20 + 19 * 19);
  for (const char* name : {"gs-lexicographic", "gs-cyclic", "jacobi-colored", "gr"}) {
    auto op = makeImpactOperator(name);
    Resolver res(relaxed(1e-10));
    auto* gr = dynamic_cast<GeneralizedReflections*>(op.get());
    int qpFailures = 0, polished = 0;
    res.setObserver([&](long, const Eigen::VectorXd&, const Eigen::VectorXd&, const Eigen::VectorXd&) {
      if (gr) qpFailures += !gr->lastQp().converged, polished += gr->lastQp().polishSteps;
    });
    auto r = res.resolve(s.system, *op, s.qdot);
    EXPECT_TRUE(r.stats.converged) << name << ": " << r.stats.report;
    EXPECT_EQ(qpFailures, 0) << name;
    if (gr) std::printf("hex 20x20 gr: %d of %ld QPs needed the polish\n", polished, r.stats.iterations);
    EXPECT_LT(std::abs(r.stats.relativeEnergyDrift), 1e-13) << name;
    EXPECT_GE(r.stats.minRelativeFeasibility, -1e-10);
    EXPECT_LT((s.system.linearMomentum(r.qdot) - s.system.linearMomentum(s.qdot)).norm(), 1e-10) << name;
    std::printf("hex 20x20 %s: %ld iterations, %ld impulses, %.3f s\n", name, r.stats.iterations, r.stats.impulses,
                r.stats.seconds);
  }
}

// F3: the strict test on the normalised cradle may take spurious round-off iterations; with
// ϵ = 1e-12 exactly 4.
TEST(ResolverOracles, StrictTestVersusToleranceF3) {
  auto s = scenes::chain({1, 0, 0, 0, 0});
  PairwiseGaussSeidel gs;
  Resolver strict(exact());
  auto a = strict.resolve(s.system, gs, s.qdot);
  ASSERT_TRUE(a.stats.converged);
  EXPECT_GE(a.stats.iterations, 4);
  Resolver tol(relaxed(1e-12));
  EXPECT_EQ(tol.resolve(s.system, gs, s.qdot).stats.iterations, 4);
  RecordProperty("strict_iterations", static_cast<int>(a.stats.iterations));
  std::printf("F3: strict test took %ld iterations (spec: 6 with its rounding), eps 1e-12: 4\n", a.stats.iterations);
}

// F4: ϵ sweep on hex-19 and random systems, every operator: terminates, final ≥ −ϵ.
TEST(ResolverOracles, EpsilonSweepF4) {
  for (double eps : {1e-12, 1e-10, 1e-8, 1e-6}) {
    for (unsigned seed : {4u, 5u}) {
      for (auto s : {scenes::hexCluster19(seed), scenes::randomBalls2D(8, 14, 4, seed)}) {
        for (const char* name : {"gs-lexicographic", "gs-random", "gs-most-violated", "gs-cyclic", "jacobi-colored", "gr"}) {
          auto op = makeImpactOperator(name);
          Resolver res(relaxed(eps));
          auto r = res.resolve(s.system, *op, s.qdot);
          EXPECT_TRUE(r.stats.converged) << name << " eps " << eps << ": " << r.stats.report;
          EXPECT_GE(r.stats.minRelativeFeasibility, -eps) << name;
          EXPECT_LT(std::abs(r.stats.relativeEnergyDrift), 1e-13) << name;
        }
      }
    }
  }
}

// S1: GR keeps mirror symmetry (ball C hits the touching pair A, B head-on); GS breaks it.
TEST(ResolverOracles, SymmetryS1) {
  ImpactSystem sys;
  const int A = sys.addBall2D(1.0, Eigen::Vector2d(-1, 0));
  const int B = sys.addBall2D(1.0, Eigen::Vector2d(1, 0));
  const int C = sys.addBall2D(1.0, Eigen::Vector2d(0, -std::sqrt(3.0)));
  sys.addBallBall(A, B);
  sys.addBallBall(A, C);
  sys.addBallBall(B, C);
  Eigen::VectorXd q0 = Eigen::VectorXd::Zero(6);
  q0[5] = 1.0;
  auto mirrorError = [](const Eigen::VectorXd& v) {
    return std::abs(v[0] + v[2]) + std::abs(v[1] - v[3]) + std::abs(v[4]);
  };
  GeneralizedReflections gr;
  PairwiseGaussSeidel gs;
  Resolver res(relaxed());
  auto g = res.resolve(sys, gr, q0);
  ASSERT_TRUE(g.stats.converged);
  EXPECT_LT(mirrorError(g.qdot), 1e-12) << g.qdot.transpose();
  auto p = res.resolve(sys, gs, q0);
  ASSERT_TRUE(p.stats.converged);
  EXPECT_GT(mirrorError(p.qdot), 1e-3) << p.qdot.transpose();
  // M1 for both.
  EXPECT_LT((sys.linearMomentum(g.qdot) - sys.linearMomentum(q0)).norm(), 1e-13);
  EXPECT_LT((sys.linearMomentum(p.qdot) - sys.linearMomentum(q0)).norm(), 1e-13);
}

// Mini-geyser (c) / L9: the mini-geyser with the right wall moved off: no lineality, plain GS and GR
// terminate with the derived values.
TEST(ResolverOracles, PerturbedMiniGeyserTerminates) {
  auto s = scenes::miniGeyser(true, 4.001);
  ASSERT_EQ(s.system.numConstraints(), 4);
  const double r3 = std::sqrt(3.0);
  PairwiseGaussSeidel gs;
  GeneralizedReflections gr;
  Resolver res(relaxed());
  auto a = res.resolve(s.system, gs, s.qdot);
  ASSERT_TRUE(a.stats.converged);
  EXPECT_EQ(a.stats.iterations, 4);
  Eigen::VectorXd e(6);
  e << 0, .75, 5 * r3 / 16, 3.0 / 16, 3 * r3 / 16, 1.0 / 16;
  EXPECT_LT((a.qdot - e).norm(), 1e-12) << a.qdot.transpose();
  auto b = res.resolve(s.system, gr, s.qdot);
  ASSERT_TRUE(b.stats.converged);
  EXPECT_EQ(b.stats.iterations, 2);
  e << r3 / 5, 0.6, r3 / 5, 0.6, 0, -0.2;  // mini-geyser (c): A = B = (√3/5, 3/5), C = (0, −1/5)
  EXPECT_LT((b.qdot - e).norm(), 1e-12) << b.qdot.transpose();
  for (auto* r : {&a, &b}) EXPECT_NEAR(s.system.kineticEnergy(r->qdot), 0.5, 1e-14);
  // Off-centre: GS = GR in 2 iterations.
  auto o = scenes::miniGeyser(false, 4.001);
  auto c = res.resolve(o.system, gs, o.qdot);
  auto d = res.resolve(o.system, gr, o.qdot);
  EXPECT_EQ(c.stats.iterations, 2);
  EXPECT_EQ(d.stats.iterations, 2);
  e << 0, 0.883022, 0.321394, 0, -0.321394, 0.116978;
  EXPECT_LT((c.qdot - e).norm(), 1e-6) << c.qdot.transpose();
  EXPECT_LT((d.qdot - e).norm(), 1e-6) << d.qdot.transpose();
  // The unperturbed symmetric geyser (L6) hits the cap with plain GS.
  auto l = scenes::miniGeyser(true, 4.0);
  Resolver capped(exact(3000));
  auto cy = capped.resolve(l.system, gs, l.qdot);
  EXPECT_TRUE(cy.stats.capReached);
  std::printf("L6 plain GS: %s\n", cy.stats.report.c_str());
}

// R1: rigid bodies with inertia tensors: every step meets the desiderata (ϵ-form), resolution
// terminates, energy and (without statics) linear and angular momentum are conserved.
TEST(ResolverOracles, RigidBodiesR1) {
  for (unsigned seed : {1u, 2u, 3u, 4u}) {
    for (bool withStatic : {false, true}) {
      auto s = scenes::randomRigid(5, 12, seed, withStatic);
      for (const char* name : {"gs-lexicographic", "gs-cyclic", "gr"}) {
        auto op = makeImpactOperator(name);
        const double eps = 1e-10;
        ResolverOptions o = relaxed(eps);
        o.renormalise = false;  // check the raw operator's KIN at each step
        Resolver res(o);
        bool ok = true;
        std::string why;
        res.setObserver([&](long, const Eigen::VectorXd& before, const Eigen::VectorXd& after, const Eigen::VectorXd& l) {
          DesiderataTolerances t;
          t.epsilon = eps;
          const auto rep = checkDesiderata(s.system, before, after, l, t);
          if (!rep.all()) ok = false, why = rep.describe();
        });
        auto r = res.resolve(s.system, *op, s.qdot);
        EXPECT_TRUE(r.stats.converged) << name << ": " << r.stats.report;
        EXPECT_TRUE(ok) << name << ": " << why;
        EXPECT_LT(std::abs(r.stats.relativeEnergyDrift), 1e-12) << name;
        if (!withStatic) {
          EXPECT_LT((s.system.linearMomentum(r.qdot) - s.system.linearMomentum(s.qdot)).norm(), 1e-12) << name;
          EXPECT_LT((s.system.angularMomentum(r.qdot) - s.system.angularMomentum(s.qdot)).norm(), 1e-11) << name;
        }
      }
    }
  }
}

TEST(ResolverOracles, BadOptionsAndInputAreInputErrors) {
  ResolverOptions o;
  o.epsilon = -1;
  EXPECT_THROW(Resolver{o}, InputError);
  auto s = scenes::chain({1, 0});
  Resolver res;
  PairwiseGaussSeidel gs;
  EXPECT_THROW(res.resolve(s.system, gs, Eigen::VectorXd::Zero(3)), InputError);
}

}  // namespace
}  // namespace kinema::impact

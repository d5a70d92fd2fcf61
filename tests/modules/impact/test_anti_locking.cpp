// Anti-locking (Algorithm 2) in the resolver (paper §4, §4.1, §7, §8; cases L1-L13 of
// modules/impact/README.md, decision 19): eager and lazy modes terminate on every lineality case
// with the derived values; with I = ∅ they give results bitwise identical to plain Algorithms 1/3/4
// (A1-A9 chains and wedge, hex-19, rigid bodies); statistics and report; the dense fallback when a
// projected constraint spreads over more than two bodies; the cost of detection as a fraction of
// the resolution.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "modules/impact/anti_locking.hpp"
#include "modules/impact/gauss_seidel.hpp"
#include "modules/impact/generalized_reflections.hpp"
#include "modules/impact/impact_params.hpp"
#include "modules/impact/resolver.hpp"
#include "modules/impact/scenes.hpp"

namespace kinema::impact {
namespace {

using Eigen::VectorXd;

ResolverOptions opts(AntiLockingMode mode, double eps = 1e-12, long cap = 20000,
                     Arithmetic arithmetic = Arithmetic::Relaxed) {
  ResolverOptions o;
  o.antiLocking = mode;
  o.epsilon = eps;
  o.maxIterations = cap;
  o.arithmetic = arithmetic;
  return o;
}

VectorXd vec(std::initializer_list<double> x) {
  VectorXd v(static_cast<Eigen::Index>(x.size()));
  Eigen::Index k = 0;
  for (double a : x) v[k++] = a;
  return v;
}

// L10 channel: 3 unit balls r = 1 at x = 1, 3, 5 between walls x = 0 and 6 (4 constraints).
scenes::Scene channel() {
  scenes::Scene s;
  ImpactSystem& sys = s.system;
  const int a = sys.addBall2D(1.0, {1, 0}), b = sys.addBall2D(1.0, {3, 0}), c = sys.addBall2D(1.0, {5, 0});
  sys.addWall(a, {1, 0, 0});
  sys.addBallBall(a, b);
  sys.addBallBall(b, c);
  sys.addWall(c, {-1, 0, 0});
  s.qdot = vec({.5, .2, -.3, .1, 0, -.4});
  return s;
}


// L5: one unit ball, normals (1,1), (−1,1), (0,1): redundant, not lineal.
scenes::Scene redundant() {
  scenes::Scene s;
  const int b = s.system.addBall2D(1.0);
  s.system.addConstraint(b, vec({1, 1}));
  s.system.addConstraint(b, vec({-1, 1}));
  s.system.addConstraint(b, vec({0, 1}));
  s.qdot = vec({0.3, -1});
  return s;
}

// L13 mass mixing: bodies 0 (m = 1) and 1 (m = 3) locked together along x by two opposite pair
// constraints (lineality direction (−1, 1) in their x-DOFs), plus a wall pushing body 0 along +x.
// With `third`, a third ball (m = 1) in x-contact with body 0 instead of the wall: its projected
// covector spreads over three bodies (the dense fallback).
scenes::Scene massMixing(bool third) {
  scenes::Scene s;
  ImpactSystem& sys = s.system;
  const int a = sys.addBall2D(1.0, {0, 0}), b = sys.addBall2D(3.0, {2, 0});
  sys.addConstraint(a, vec({-1, 0}), b, vec({1, 0}));
  sys.addConstraint(a, vec({1, 0}), b, vec({-1, 0}));
  if (!third) {
    sys.addConstraint(a, vec({1, 0}));
    s.qdot = vec({-1, 0.2, 0, -0.1});
  } else {
    const int c = sys.addBall2D(1.0, {-2, 0});
    sys.addConstraint(c, vec({-1, 0}), a, vec({1, 0}));  // c left of a: n = (a_x − c_x) >= 0
    s.qdot = vec({-1, 0.2, 0, -0.1, 0.5, 0});
  }
  return s;
}

struct Ops {
  PairwiseGaussSeidel gs;
  GeneralizedReflections gr;
  ImpactOperator& get(int k) { return k == 0 ? static_cast<ImpactOperator&>(gs) : gr; }
};

// ---- L1/L2 -------------------------------------------------------------------------------------
TEST(AntiLocking, ParallelWallsL2HorizontalRemovedVerticalKept) {
  auto s = scenes::parallelWalls();
  for (auto arith : {Arithmetic::Relaxed, Arithmetic::Exact})
    for (auto mode : {AntiLockingMode::Eager, AntiLockingMode::Lazy})
      for (int k = 0; k < 2; ++k) {
        Ops ops;
        Resolver res(opts(mode, 1e-12, 2000, arith));
        auto r = res.resolve(s.system, ops.get(k), s.qdot);
        SCOPED_TRACE(r.stats.report);
        ASSERT_TRUE(r.stats.converged);
        EXPECT_FALSE(r.stats.capReached);
        EXPECT_NEAR(r.qdot[0], 0.0, 1e-15);
        EXPECT_EQ(r.qdot[1], 0.5);  // vertical kept bitwise
        EXPECT_EQ(r.stats.linealityDetections, 1);
        EXPECT_EQ(r.stats.implicitEqualities, 2);
        EXPECT_EQ(r.stats.linealityRank, 1);
        EXPECT_EQ(r.stats.constraintsRemoved, 2);
        EXPECT_NEAR(r.stats.energyBefore, 0.625, 1e-15);
        EXPECT_NEAR(r.stats.energyAfter, 0.125, 1e-15);
        EXPECT_NEAR(r.stats.energyRemoved, 0.5, 1e-15);
        EXPECT_LT(std::abs(r.stats.relativeEnergyDrift), 1e-14);
        EXPECT_EQ(r.stats.lpSolves, 2);  // LP-1 (t* = 0) then LP-2
        EXPECT_GT(r.stats.lpSeconds, 0.0);
        EXPECT_NE(r.stats.report.find("2 implicit equalities"), std::string::npos);
        if (mode == AntiLockingMode::Eager) {
          EXPECT_EQ(r.stats.iterations, 0);  // test L2: 0 iterations
        } else {
          // Lazy: the period-2 cycle is seen after 2 plain iterations (back at (1, 0.5)); detection
          // then, not at K = 1000.
          EXPECT_EQ(r.stats.iterationsBeforeProjection, 2);
          EXPECT_EQ(r.stats.iterations, 2);
          EXPECT_NE(r.stats.report.find("Lazy: detection after 2"), std::string::npos);
        }
      }
  // Lazy without the cycle detector: detection at K.
  ResolverOptions o = opts(AntiLockingMode::Lazy, 1e-12, 2000);
  o.detectCycles = false;
  o.lazyIterations = 50;
  PairwiseGaussSeidel gs;
  auto r = Resolver(o).resolve(s.system, gs, s.qdot);
  EXPECT_TRUE(r.stats.converged);
  EXPECT_EQ(r.stats.iterationsBeforeProjection, 50);
  EXPECT_NEAR(r.qdot[0], 0.0, 1e-15);
  // Off: the cap with a lineality report (as test_resolver_oracles).
  auto off = Resolver(opts(AntiLockingMode::Off, 1e-12, 2000)).resolve(s.system, gs, s.qdot);
  EXPECT_TRUE(off.stats.capReached);
  EXPECT_NE(off.stats.report.find("lineality"), std::string::npos);
  EXPECT_EQ(off.stats.linealityDetections, 0);
}

// ---- L3/L4 -------------------------------------------------------------------------------------
TEST(AntiLocking, TwoBallsBetweenWallsL4) {
  auto s = scenes::twoBallsBetweenWalls();
  for (auto mode : {AntiLockingMode::Eager, AntiLockingMode::Lazy})
    for (int k = 0; k < 2; ++k) {
      Ops ops;
      auto r = Resolver(opts(mode)).resolve(s.system, ops.get(k), s.qdot);
      ASSERT_TRUE(r.stats.converged) << r.stats.report;
      EXPECT_LT((r.qdot - vec({0, .3, 0, -.2})).norm(), 1e-14) << r.qdot.transpose();
      EXPECT_EQ(r.stats.implicitEqualities, 3);
      EXPECT_EQ(r.stats.linealityRank, 2);
      EXPECT_NEAR(r.stats.energyBefore, 0.565, 1e-14);
      EXPECT_NEAR(r.stats.energyAfter, 0.065, 1e-14);
      if (mode == AntiLockingMode::Eager) {
        EXPECT_EQ(r.stats.iterations, 0);
      }
    }
}

// ---- L5 and the corner: I = ∅, identical to Algorithm 1 ----------------------------------------
TEST(AntiLocking, RedundantL5AndCornerUnchanged) {
  for (auto s : {redundant(), scenes::corner()}) {
    const bool isCorner = s.system.numConstraints() == 2;
    const VectorXd expect = isCorner ? vec({-2, 1}) : vec({-0.3, 1.0});
    for (int k = 0; k < 2; ++k) {
      Ops a, b;
      auto plain = Resolver(opts(AntiLockingMode::Off)).resolve(s.system, a.get(k), s.qdot);
      auto al = Resolver(opts(AntiLockingMode::Eager)).resolve(s.system, b.get(k), s.qdot);
      ASSERT_TRUE(al.stats.converged);
      EXPECT_LT((al.qdot - expect).norm(), 1e-12);
      EXPECT_EQ(al.stats.iterations, k == 0 ? 2 : 1);
      EXPECT_TRUE(al.qdot == plain.qdot);
      EXPECT_EQ(al.stats.implicitEqualities, 0);
      EXPECT_EQ(al.stats.lpSolves, 1);  // the common case: a single LP (paper §4)
      EXPECT_EQ(al.stats.energyRemoved, 0.0);
      EXPECT_NE(al.stats.report.find("no implicit equalities"), std::string::npos);
      EXPECT_FALSE(al.stats.certificateDecreased);  // LP-1's certificate is checked along the way
    }
  }
}

// ---- L6/L7/L8: mini-geyser ----------------------------------------------------------------------
TEST(AntiLocking, MiniGeyserL7L8) {
  const double r3 = std::sqrt(3.0);
  auto s = scenes::miniGeyser(true);
  {
    Ops ops;
    Resolver res(opts(AntiLockingMode::Eager));
    long observed = 0;
    bool sizesOk = true;
    res.setObserver([&](long, const VectorXd& bf, const VectorXd& af, const VectorXd& lambda) {
      ++observed;
      sizesOk = sizesOk && lambda.size() == 5 && bf.size() == 6 && af.size() == 6;
    });
    auto g = res.resolve(s.system, ops.gs, s.qdot);  // AL-GS: 2 iterations
    ASSERT_TRUE(g.stats.converged) << g.stats.report;
    EXPECT_EQ(g.stats.iterations, 2);
    EXPECT_EQ(observed, 2);
    EXPECT_TRUE(sizesOk);
    EXPECT_LT((g.qdot - vec({0, 6.0 / 7, 0, 18.0 / 49, 8 * r3 / 49, -11.0 / 49})).norm(), 1e-12) << g.qdot.transpose();
    auto r = res.resolve(s.system, ops.gr, s.qdot);  // AL-GR: 1 iteration, symmetric
    ASSERT_TRUE(r.stats.converged) << r.stats.report;
    EXPECT_EQ(r.stats.iterations, 1);
    EXPECT_LT((r.qdot - vec({0, 2.0 / 3, 0, 2.0 / 3, 0, -1.0 / 3})).norm(), 1e-12) << r.qdot.transpose();
    for (auto* x : {&g, &r}) {
      EXPECT_NEAR(s.system.kineticEnergy(x->qdot), 0.5, 1e-14);
      EXPECT_NEAR(s.system.linearMomentum(x->qdot)[1], 1.0, 1e-14);  // vertical momentum
      EXPECT_GE(x->stats.minRelativeFeasibility, -1e-12);           // original constraints
      EXPECT_EQ(x->stats.implicitEqualities, 3);
      EXPECT_EQ(x->stats.constraintsRemoved, 3);
      EXPECT_EQ(x->stats.energyRemoved, 0.0);  // the plug is at rest: nothing to remove
      EXPECT_FALSE(x->stats.denseFallback);
      // Impulses are mapped to the original constraint indices: only A–C (3) and B–C (4) push.
      EXPECT_EQ(x->impulse.size(), 5);
      EXPECT_EQ(x->impulse.head(3).norm(), 0.0);
      EXPECT_GT(x->impulse.tail(2).maxCoeff(), 0.0);
      EXPECT_GE(x->impulse.tail(2).minCoeff(), 0.0);
      // Constraints in I end tangent: wallL–A, A–B, B–wallR.
      for (int i = 0; i < 3; ++i) EXPECT_NEAR(s.system.dot(i, x->qdot), 0.0, 1e-14);
    }
  }
  // L6 made to terminate lazily: plain iterations first (the plug picks up horizontal velocity that
  // bounces between the walls), then the current iterate is projected; the values differ from the
  // eager ones (energy in the locked directions is removed) but vertical momentum is kept.
  for (int k = 0; k < 2; ++k) {
    Ops ops;
    auto r = Resolver(opts(AntiLockingMode::Lazy)).resolve(s.system, ops.get(k), s.qdot);
    ASSERT_TRUE(r.stats.converged) << r.stats.report;
    EXPECT_GT(r.stats.iterationsBeforeProjection, 0);
    EXPECT_NEAR(s.system.linearMomentum(r.qdot)[1], 1.0, 1e-12);
    EXPECT_GE(r.stats.minRelativeFeasibility, -1e-12);
    EXPECT_NEAR(r.stats.energyAfter, 0.5 - r.stats.energyRemoved, 1e-12);
    std::printf("L6 lazy %s: %s\n", k == 0 ? "GS" : "GR", r.stats.report.c_str());
  }
  // L8 off-centre: AL-GS = AL-GR, 1 iteration.
  auto o = scenes::miniGeyser(false);
  for (int k = 0; k < 2; ++k) {
    Ops ops;
    auto r = Resolver(opts(AntiLockingMode::Eager)).resolve(o.system, ops.get(k), o.qdot);
    ASSERT_TRUE(r.stats.converged);
    EXPECT_EQ(r.stats.iterations, 1);
    EXPECT_LT((r.qdot - vec({0, 0.937878, 0, 0, -0.341360, 0.062122})).norm(), 1e-6) << r.qdot.transpose();
    EXPECT_NEAR(o.system.kineticEnergy(r.qdot), 0.5, 1e-14);
  }
  // L6: off, the same cases hit the cap (both operators).
  for (int k = 0; k < 2; ++k) {
    Ops ops;
    auto r = Resolver(opts(AntiLockingMode::Off, 1e-12, 3000)).resolve(s.system, ops.get(k), s.qdot);
    EXPECT_TRUE(r.stats.capReached);
  }
  // L9: with the right wall moved to 4.001 there is no lineality: eager = plain bit for bit.
  auto p = scenes::miniGeyser(true, 4.001);
  for (int k = 0; k < 2; ++k) {
    Ops a, b;
    auto plain = Resolver(opts(AntiLockingMode::Off)).resolve(p.system, a.get(k), p.qdot);
    auto al = Resolver(opts(AntiLockingMode::Eager)).resolve(p.system, b.get(k), p.qdot);
    EXPECT_EQ(al.stats.implicitEqualities, 0);
    EXPECT_TRUE(al.qdot == plain.qdot);
    EXPECT_EQ(al.stats.iterations, k == 0 ? 4 : 2);
  }
}

// ---- L10 channel, L11 jammed box ------------------------------------------------------------------
TEST(AntiLocking, ChannelL10AndJammedBoxL11) {
  auto c = channel();
  for (auto mode : {AntiLockingMode::Eager, AntiLockingMode::Lazy})
    for (int k = 0; k < 2; ++k) {
      Ops ops;
      auto r = Resolver(opts(mode)).resolve(c.system, ops.get(k), c.qdot);
      ASSERT_TRUE(r.stats.converged) << r.stats.report;
      EXPECT_LT((r.qdot - vec({0, .2, 0, .1, 0, -.4})).norm(), 1e-14) << r.qdot.transpose();
      EXPECT_EQ(r.stats.implicitEqualities, 4);
      EXPECT_EQ(r.stats.linealityRank, 3);
      EXPECT_NEAR(r.stats.energyBefore, 0.275, 1e-14);
      EXPECT_NEAR(r.stats.energyAfter, 0.105, 1e-14);
    }
  auto b = scenes::jammedBox(3, 7);
  ASSERT_EQ(b.system.numConstraints(), 24);
  for (int k = 0; k < 2; ++k) {
    Ops ops;
    auto off = Resolver(opts(AntiLockingMode::Off, 1e-12, 2000)).resolve(b.system, ops.get(k), b.qdot);
    EXPECT_TRUE(off.stats.capReached);  // plain GS / GR hit the cap
    for (auto mode : {AntiLockingMode::Eager, AntiLockingMode::Lazy}) {
      auto r = Resolver(opts(mode, 1e-12, 2000)).resolve(b.system, ops.get(k), b.qdot);
      ASSERT_TRUE(r.stats.converged) << r.stats.report;
      EXPECT_EQ(r.stats.implicitEqualities, 24);
      EXPECT_EQ(r.stats.linealityRank, 18);  // dim E = d
      EXPECT_EQ(r.stats.constraintsRemoved, 24);
      EXPECT_EQ(r.qdot.norm(), 0.0);  // F = {0}: all kinetic energy removed
      EXPECT_NEAR(r.stats.energyRemoved, b.system.kineticEnergy(b.qdot), 1e-12);
    }
  }
}

// ---- L12 / bitwise identity with I = ∅ -----------------------------------------------------------
void expectIdentical(const scenes::Scene& s, const char* op, Arithmetic arith, const std::string& what) {
  ResolveResult r[3];
  const AntiLockingMode modes[3] = {AntiLockingMode::Off, AntiLockingMode::Eager, AntiLockingMode::Lazy};
  for (int k = 0; k < 3; ++k) {
    auto o = makeImpactOperator(op);
    r[k] = Resolver(opts(modes[k], 1e-12, 100000, arith)).resolve(s.system, *o, s.qdot);
  }
  for (int k = 1; k < 3; ++k) {
    SCOPED_TRACE(what + " " + op + " " + toString(modes[k]));
    ASSERT_TRUE(r[0].stats.converged);
    EXPECT_TRUE(r[k].qdot == r[0].qdot);  // bitwise
    EXPECT_TRUE(r[k].impulse == r[0].impulse);
    EXPECT_EQ(r[k].stats.iterations, r[0].stats.iterations);
    EXPECT_EQ(r[k].stats.implicitEqualities, 0);
    EXPECT_EQ(r[k].stats.energyRemoved, 0.0);
    EXPECT_FALSE(r[k].stats.certificateDecreased);
  }
  EXPECT_EQ(r[1].stats.linealityDetections, 1);
  EXPECT_EQ(r[1].stats.lpSolves, 1);
  // Lazy: no detection when the plain loop ends within K = 1000 (the 0.1° wedge needs 1800).
  EXPECT_EQ(r[2].stats.linealityDetections, r[0].stats.iterations > 1000 ? 1 : 0) << what << " " << op << ": "
                                                                                  << r[2].stats.report;
}

TEST(AntiLocking, IdenticalToPlainWithoutLinealityA1ToA9AndHex19) {
  const std::vector<std::vector<double>> chains = {{1, 0, 0, 0, 0}, {5, 4, 3, 2, 1}, {3, 1, 4, 1, 5},
                                                   {2, 1, 0, 0, 0}, {0, 0, 0, 0, -1}, {2, 0, -1}};
  for (const auto& q : chains)
    for (const char* op : {"gs-lexicographic", "gs-cyclic", "gr"})
      expectIdentical(scenes::chain(q), op, Arithmetic::Relaxed, "chain");
  for (const auto& q : chains) expectIdentical(scenes::chain(q), "gs-lexicographic", Arithmetic::Exact, "chain exact");
  expectIdentical(scenes::chain({1, 2, 3}, {3, 0, -1}), "gr", Arithmetic::Relaxed, "A5");
  for (double deg : {90.0, 45.0, 10.0, 1.0, 0.1})
    for (const char* op : {"gs-lexicographic", "gr"})
      expectIdentical(scenes::wedge(deg * M_PI / 180.0), op, Arithmetic::Relaxed, "wedge");
  for (unsigned seed : {1u, 2u, 3u})
    for (const char* op : {"gs-lexicographic", "gs-most-violated", "jacobi-colored", "gr"})
      expectIdentical(scenes::hexCluster19(seed), op, Arithmetic::Relaxed, "hex-19");
  for (unsigned seed : {1u, 2u})
    for (const char* op : {"gs-lexicographic", "gr"})
      expectIdentical(scenes::randomRigid(5, 12, seed, false), op, Arithmetic::Relaxed, "rigid");
}

// A slow-but-terminating lineality-free case past K: lazy detects (I = ∅) and the loop goes on
// untouched, bit for bit.
TEST(AntiLocking, LazyPastKWithoutLinealityIsIdentical) {
  auto s = scenes::wedge(0.1 * M_PI / 180.0);  // 1800 GS iterations
  PairwiseGaussSeidel a, b;
  ResolverOptions o = opts(AntiLockingMode::Lazy);
  o.lazyIterations = 100;
  auto plain = Resolver(opts(AntiLockingMode::Off)).resolve(s.system, a, s.qdot);
  auto lazy = Resolver(o).resolve(s.system, b, s.qdot);
  EXPECT_EQ(plain.stats.iterations, 1800);
  EXPECT_TRUE(lazy.qdot == plain.qdot);
  EXPECT_EQ(lazy.stats.iterations, 1800);
  EXPECT_EQ(lazy.stats.linealityDetections, 1);
  EXPECT_EQ(lazy.stats.implicitEqualities, 0);
  EXPECT_NE(lazy.stats.report.find("the loop went on"), std::string::npos) << lazy.stats.report;
}

// ---- L13 mass mixing (covector form) and the dense fallback ---------------------------------------
TEST(AntiLocking, MassMixingL13) {
  auto s = massMixing(false);
  for (int k = 0; k < 2; ++k) {
    Ops ops;
    Resolver res(opts(AntiLockingMode::Eager));
    bool inQbar = true;
    res.setObserver([&](long, const VectorXd&, const VectorXd& after, const VectorXd&) {
      inQbar = inQbar && std::abs(after[0] - after[2]) < 1e-14;  // Eᵀq̇ = 0: x-velocities equal
    });
    auto r = res.resolve(s.system, ops.get(k), s.qdot);
    ASSERT_TRUE(r.stats.converged) << r.stats.report;
    EXPECT_FALSE(r.stats.denseFallback);  // the wall constraint became a body 0-1 constraint
    EXPECT_EQ(r.stats.implicitEqualities, 2);
    EXPECT_EQ(r.stats.iterations, 1);
    EXPECT_TRUE(inQbar);
    // Projection: x-velocities (−1, 0) -> (−1/4, −1/4) (momentum −1 kept); the wall bounces the
    // locked pair: (1/4, 1/4). y untouched.
    EXPECT_LT((r.qdot - vec({0.25, 0.2, 0.25, -0.1})).norm(), 1e-14) << r.qdot.transpose();
    EXPECT_NEAR(r.stats.energyRemoved, 0.5 * (1.0 - 0.25), 1e-14);  // ½·1 − ½(1+3)/16
    EXPECT_GE(r.stats.minRelativeFeasibility, -1e-12);
  }
  // The projection alone (lazy with a huge K never projects; eager's line 3): momentum kept.
  ProjectedProblem pp = projectSystem(s.system, detectSystemLineality(s.system, {}), {}, 1e-12);
  VectorXd v = s.qdot;
  projectIterate(pp, v);
  EXPECT_LT((v - vec({-0.25, 0.2, -0.25, -0.1})).norm(), 1e-15);
  EXPECT_NEAR(s.system.linearMomentum(v)[0], s.system.linearMomentum(s.qdot)[0], 1e-15);
  ASSERT_TRUE(pp.representable);
  EXPECT_EQ(pp.system.numConstraints(), 1);
  EXPECT_EQ(pp.system.constraint(0).body[0], 0);
  EXPECT_EQ(pp.system.constraint(0).body[1], 1);
}

TEST(AntiLocking, SpreadProjectionUsesTheDenseFallback) {
  auto s = massMixing(true);
  for (auto arith : {Arithmetic::Relaxed, Arithmetic::Exact}) {
    Ops ops;
    auto r = Resolver(opts(AntiLockingMode::Eager, 1e-12, 20000, arith)).resolve(s.system, ops.gr, s.qdot);
    ASSERT_TRUE(r.stats.converged) << r.stats.report;
    EXPECT_TRUE(r.stats.denseFallback);
    EXPECT_NE(r.stats.report.find("dense pairwise Gauss-Seidel fallback"), std::string::npos);
    EXPECT_GE(r.stats.iterations, 1);
    EXPECT_NEAR(r.qdot[0], r.qdot[2], 1e-14);  // stays in ker Eᵀ
    EXPECT_GE(r.stats.minRelativeFeasibility, -1e-12);
    // No static body: x-momentum conserved through the projection and the loop; KE after line 3 kept.
    EXPECT_NEAR(s.system.linearMomentum(r.qdot)[0], s.system.linearMomentum(s.qdot)[0], 1e-14);
    EXPECT_NEAR(r.stats.energyAfter, r.stats.energyBefore - r.stats.energyRemoved, 1e-14);
    EXPECT_GT(r.impulse[2], 0.0);  // the c–a contact pushed
  }
}

// Random systems (3D rigid bodies with statics, 2D balls with random normals and walls; paper
// footnote 1: any normals are valid, so lineality and spreading projections can occur): eager and
// lazy always terminate, end ϵ-feasible on the ORIGINAL constraints, keep the loop's energy; without
// lineality they equal the plain result bit for bit.
TEST(AntiLocking, RandomSystemsTerminate) {
  int lineal = 0, spread = 0, total = 0;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    std::vector<scenes::Scene> ss = {scenes::randomRigid(4, 14, seed, true), scenes::randomBalls2D(4, 12, 6, seed)};
    for (auto& s : ss)
      for (const char* op : {"gs-lexicographic", "gr"}) {
        auto o0 = makeImpactOperator(op);
        auto plain = Resolver(opts(AntiLockingMode::Off, 1e-10, 20000)).resolve(s.system, *o0, s.qdot);
        for (auto mode : {AntiLockingMode::Eager, AntiLockingMode::Lazy}) {
          auto o = makeImpactOperator(op);
          auto r = Resolver(opts(mode, 1e-10, 20000)).resolve(s.system, *o, s.qdot);
          SCOPED_TRACE(std::string(op) + " seed " + std::to_string(seed) + ": " + r.stats.report);
          ++total;
          ASSERT_TRUE(r.stats.converged);
          EXPECT_GE(r.stats.minRelativeFeasibility, -1e-8);
          EXPECT_LT(std::abs(r.stats.relativeEnergyDrift), 1e-12);
          EXPECT_GE(r.stats.energyRemoved, 0.0);
          if (r.stats.implicitEqualities == 0 && (mode == AntiLockingMode::Eager || !plain.stats.capReached)) {
            EXPECT_TRUE(r.qdot == plain.qdot);
          }
          lineal += r.stats.implicitEqualities > 0;
          spread += r.stats.denseFallback;
        }
      }
  }
  std::printf("random systems: %d resolutions, %d with lineality, %d via the dense fallback\n", total, lineal, spread);
}

// ---- Parameters -------------------------------------------------------------------------------------
TEST(AntiLocking, ParametersDefaultsAndRoundTrip) {
  ParamSchema schema;
  impactBindings().declare(schema, "impact");
  auto d = Config::fromString("impact: {}\n");
  d.validate(schema);
  const ImpactParams q = impactBindings().read(d, "impact");
  EXPECT_EQ(q.resolver.antiLocking, AntiLockingMode::Lazy);  // the scene default (README decision 18)
  EXPECT_EQ(q.resolver.lazyIterations, 1000);
  EXPECT_EQ(ResolverOptions{}.antiLocking, AntiLockingMode::Off);
  EXPECT_EQ(defaultSafeResolverOptions().antiLocking, AntiLockingMode::Lazy);
  // A schema declared with the default-safe defaults.
  ParamSchema safe;
  ImpactParams dp;
  dp.resolver = defaultSafeResolverOptions();
  impactBindings().declare(safe, "impact", dp);
  auto e = Config::fromString("impact: {}\n");
  e.validate(safe);
  EXPECT_EQ(impactBindings().read(e, "impact").resolver.antiLocking, AntiLockingMode::Lazy);
  auto c = Config::fromString("impact:\n  anti_locking: eager\n  lazy_iterations: 5\n  lineality:\n"
                              "    method: support_and_shave\n    vanish_tolerance: 1.0e-6\n");
  c.validate(schema);
  const ImpactParams p = impactBindings().read(c, "impact");
  EXPECT_EQ(p.resolver.antiLocking, AntiLockingMode::Eager);
  EXPECT_EQ(p.resolver.lazyIterations, 5);
  EXPECT_EQ(p.resolver.lineality.method, LinealityMethod::supportAndShave);
  EXPECT_EQ(p.resolver.lineality.vanishTolerance, 1e-6);
  auto bad = Config::fromString("impact:\n  anti_locking: sometimes\n");
  EXPECT_THROW(bad.validate(schema), InputError);
  EXPECT_THROW(antiLockingModeFromString("x"), InputError);
  ResolverOptions o;
  o.lazyIterations = -1;
  EXPECT_THROW(Resolver{o}, InputError);
  o = ResolverOptions{};
  o.projectionDropTolerance = 1.0;
  EXPECT_THROW(Resolver{o}, InputError);
}

// ---- Cost: detection as a fraction of the resolution (paper §4: "a single LP solve") ----------
TEST(AntiLocking, CostOfDetection) {
  struct Case {
    const char* name;
    scenes::Scene s;
  };
  std::vector<Case> cases;
  cases.push_back({"hex-19", scenes::hexCluster19(1)});
  cases.push_back({"hex 20x20", scenes::hexPatch(20, 20, 3)});
  cases.push_back({"jammed 3x3", scenes::jammedBox(3, 7)});
  cases.push_back({"jammed 10x10", scenes::jammedBox(10, 7)});
  for (auto& c : cases)
    for (const char* op : {"gs-lexicographic", "gr"}) {
      const bool jammed = std::string(c.name).rfind("jammed", 0) == 0;
      auto o1 = makeImpactOperator(op), o2 = makeImpactOperator(op);
      const int reps = c.s.system.dofs() > 100 ? 1 : 20;
      double tPlain = 0.0, tEager = 0.0, lp = 0.0;
      ResolveResult e;
      for (int k = 0; k < reps; ++k) {
        auto p = Resolver(opts(AntiLockingMode::Off, 1e-10, jammed ? 200 : 100000)).resolve(c.s.system, *o1, c.s.qdot);
        e = Resolver(opts(AntiLockingMode::Eager, 1e-10)).resolve(c.s.system, *o2, c.s.qdot);
        tPlain += p.stats.seconds;
        tEager += e.stats.seconds;
        lp += e.stats.lpSeconds;
        if (!jammed) {
          EXPECT_TRUE(p.qdot == e.qdot);
        }
      }
      EXPECT_TRUE(e.stats.converged) << e.stats.report;
      std::printf("[anti-locking cost] %-12s %-16s d=%d m=%d: plain %s %.3g ms; eager %.3g ms, %d LP(s) %.3g ms = "
                  "%.1f%% of the eager resolution (%.1fx the plain one)\n",
                  c.name, op, c.s.system.dofs(), c.s.system.numConstraints(), jammed ? "(to cap 200)" : "",
                  1e3 * tPlain / reps, 1e3 * tEager / reps, e.stats.lpSolves, 1e3 * lp / reps, 100.0 * lp / tEager,
                  lp / tPlain);
    }
}

}  // namespace
}  // namespace kinema::impact

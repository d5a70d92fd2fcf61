// The desiderata checker on operators that break one desideratum each (paper section 5.3,
// Fig. 7; tests T-VIO, C6): it must flag exactly the broken one, and the resolver's
// cycle detector / certificate must catch the resulting non-termination.
#include <gtest/gtest.h>

#include "modules/impact/desiderata.hpp"
#include "modules/impact/gauss_seidel.hpp"
#include "modules/impact/resolver.hpp"
#include "modules/impact/scenes.hpp"

namespace kinema::impact {
namespace {

// Fig. 7: without (ONE), λ_1 = ∓1, λ_2 = ±1 alternate (2, −1) ↔ (1, −2), energy kept.
class CornerAdversary : public ImpactOperator {
 public:
  std::string name() const override { return "corner-adversary"; }
  void setup(const ImpactSystem&) override {}
  void apply(const ImpactSystem& system, Eigen::VectorXd& qdot, const StepContext& ctx, Eigen::VectorXd& lambda) override {
    lambda.setZero(system.numConstraints());
    const double s = ctx.iteration % 2 == 0 ? 1.0 : -1.0;
    lambda[0] = -s, lambda[1] = s;
    system.addMinvN(lambda, qdot);
  }
};

// (VIO) broken: in the (0, 1, 0) cradle the feasible left contact also pushes.
class PushesFeasible : public ImpactOperator {
 public:
  std::string name() const override { return "pushes-feasible"; }
  void setup(const ImpactSystem&) override {}
  void apply(const ImpactSystem& system, Eigen::VectorXd& qdot, const StepContext&, Eigen::VectorXd& lambda) override {
    lambda.setZero(system.numConstraints());
    lambda[0] = 1e-3;
    system.addMinvN(lambda, qdot);
    lambda[1] = reflect(system, 1, qdot);
  }
};

// (MOD) broken: never changes anything.
class DoesNothing : public ImpactOperator {
 public:
  std::string name() const override { return "does-nothing"; }
  void setup(const ImpactSystem&) override {}
  void apply(const ImpactSystem& system, Eigen::VectorXd&, const StepContext&, Eigen::VectorXd& lambda) override {
    lambda.setZero(system.numConstraints());
  }
};

TEST(Desiderata, CornerWithoutOneIsFlaggedAndCycles) {  // C6
  auto s = scenes::corner();
  EXPECT_NEAR(s.system.dot(0, s.qdot), -1.0, 0.0);
  CornerAdversary op;
  Eigen::VectorXd v = s.qdot;
  const Eigen::VectorXd l = applyOnce(op, s.system, v, 0);
  EXPECT_LT((v - Eigen::Vector2d(1, -2)).norm(), 1e-15);
  const auto r = checkDesiderata(s.system, s.qdot, v, l);
  EXPECT_FALSE(r.one);
  EXPECT_TRUE(r.norm && r.kin && r.vio && r.mod) << r.describe();
  EXPECT_NE(r.describe().find("ONE"), std::string::npos);
  // The resolver: cycle of period 2 (the operator has memory, so it runs to the cap), and a
  // feasible certificate w = (−1, 2) decreases on every other step (k_w: −4, −5, −4, ...;
  // Lemma 5.1 broken).
  ResolverOptions o;
  o.arithmetic = Arithmetic::Exact;
  o.maxIterations = 100;
  o.certificate = Eigen::Vector2d(-1.0, 2.0);
  Resolver res(o);
  auto out = res.resolve(s.system, op, s.qdot);
  EXPECT_TRUE(out.stats.capReached);
  EXPECT_EQ(out.stats.cyclePeriod, 2);
  EXPECT_TRUE(out.stats.certificateDecreased);
  EXPECT_NE(out.stats.report.find("(ONE)"), std::string::npos) << out.stats.report;
}

TEST(Desiderata, PushingAFeasibleContactBreaksVio) {  // T-VIO negative
  auto s = scenes::chain({0.0, 1.0, 0.0});
  PushesFeasible op;
  Eigen::VectorXd v = s.qdot;
  const auto l = applyOnce(op, s.system, v);
  const auto r = checkDesiderata(s.system, s.qdot, v, l);
  EXPECT_FALSE(r.vio);
  EXPECT_EQ(r.firstFeasiblePushed, 0);
  EXPECT_FALSE(r.kin);  // the extra push also changes the energy
  EXPECT_TRUE(r.norm && r.one && r.mod) << r.describe();
  // Pairwise GS on the same input passes VIO.
  PairwiseGaussSeidel gs;
  Eigen::VectorXd w = s.qdot;
  const auto lg = applyOnce(gs, s.system, w);
  EXPECT_TRUE(checkDesiderata(s.system, s.qdot, w, lg).all());
}

TEST(Desiderata, UnchangedInfeasibleVelocityBreaksModAndIsACycleOfPeriodOne) {
  auto s = scenes::chain({1.0, 0.0});
  DoesNothing op;
  Eigen::VectorXd v = s.qdot;
  const auto l = applyOnce(op, s.system, v);
  const auto r = checkDesiderata(s.system, s.qdot, v, l);
  EXPECT_FALSE(r.mod);
  EXPECT_TRUE(r.norm && r.kin && r.one && r.vio);
  // A feasible velocity left unchanged is fine.
  Eigen::VectorXd f = Eigen::Vector4d(0, 0, 1, 0);
  EXPECT_TRUE(checkDesiderata(s.system, f, f, Eigen::VectorXd::Zero(1)).mod);
  Resolver res;
  auto out = res.resolve(s.system, op, s.qdot);
  EXPECT_EQ(out.stats.cyclePeriod, 1);
  EXPECT_NE(out.stats.report.find("(MOD)"), std::string::npos) << out.stats.report;
}

TEST(Desiderata, NormResidualSeesAWrongImpulseReport) {
  auto s = scenes::chain({1.0, 0.0, 0.0});
  PairwiseGaussSeidel gs;
  Eigen::VectorXd v = s.qdot;
  Eigen::VectorXd l = applyOnce(gs, s.system, v);
  l[0] *= 0.5;  // an operator that misreports its impulse
  const auto r = checkDesiderata(s.system, s.qdot, v, l);
  EXPECT_FALSE(r.norm);
  EXPECT_NEAR(r.normResidual, 1.0 / std::sqrt(2.0), 1e-15);  // (λ/2)‖M⁻¹n‖_M / ‖q̇‖_M, λ = √2
  // A tangential change is outside span M⁻¹N at all: the least-squares residual sees it.
  Eigen::VectorXd t = s.qdot;
  t[1] += 0.1;  // y-velocity of ball 0
  EXPECT_NEAR(leastSquaresNormResidual(s.system, s.qdot, t), 0.1, 1e-14);
}

TEST(Desiderata, CycleDetectorFindsPeriodsAndIgnoresProgress) {
  auto s = scenes::chain({1.0, 0.0});
  CycleDetector det(4, 1e-12);
  det.reset(s.system, s.qdot);
  Eigen::Vector4d a(1, 0, 0, 0), b(0, 0, 1, 0), c(0.5, 0, 0.5, 0);
  EXPECT_EQ(det.push(s.system, b), 0);
  EXPECT_EQ(det.push(s.system, c), 0);
  EXPECT_EQ(det.push(s.system, a), 3);  // back to q̇_0 after 3 steps
  EXPECT_EQ(det.push(s.system, Eigen::Vector4d(a + Eigen::Vector4d(1e-13, 0, 0, 0))), 1);
  EXPECT_EQ(det.push(s.system, Eigen::Vector4d(a + Eigen::Vector4d(1e-6, 0, 0, 0))), 0);
}

}  // namespace
}  // namespace kinema::impact

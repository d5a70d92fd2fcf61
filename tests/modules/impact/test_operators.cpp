// Operator-level tests of the desiderata (paper section 2; test IDs: modules/impact/README.md,
// decision 19): T-NORM, T-KIN, T-ONE, T-VIO, T-MOD for every
// registered operator on random systems; naive Jacobi fails KIN on (1, 0, −1); T-REFL; GR:
// T-GR-1 (|V| = 1 equals eq. (1)), T-GR-KKT, T-GR-PROJ; coloured Jacobi equals a GS sequence;
// the registry.
#include <gtest/gtest.h>

#include <cmath>

#include "framework/core/error.hpp"
#include "modules/impact/desiderata.hpp"
#include "modules/impact/gauss_seidel.hpp"
#include "modules/impact/generalized_reflections.hpp"
#include "modules/impact/jacobi.hpp"
#include "modules/impact/resolver.hpp"
#include "modules/impact/scenes.hpp"

namespace kinema::impact {
namespace {

std::vector<scenes::Scene> randomSystems() {
  std::vector<scenes::Scene> out;
  for (unsigned seed = 1; seed <= 4; ++seed) {
    out.push_back(scenes::randomBalls2D(6, 9, 3, seed));
    out.push_back(scenes::randomRigid(4, 8, seed, seed % 2 == 0));  // R1 (operator level)
    out.push_back(scenes::hexCluster19(seed));
  }
  return out;
}

bool infeasible(const ImpactSystem& sys, const Eigen::VectorXd& v) {
  for (int i = 0; i < sys.numConstraints(); ++i)
    if (sys.dot(i, v) < 0.0) return true;
  return false;
}

TEST(Operators, EveryEnergyConservingOperatorMeetsTheDesiderata) {
  for (const std::string& name : impactOperators().names()) {
    if (name == "jacobi-naive") continue;  // breaks KIN by design (next test)
    auto op = makeImpactOperator(name);
    for (auto& s : randomSystems()) {
      const auto& sys = s.system;
      Eigen::VectorXd v = s.qdot;
      op->setup(sys);
      // A few consecutive applications (later ones see other violated sets).
      for (int it = 0; it < 5 && infeasible(sys, v); ++it) {
        const Eigen::VectorXd before = v;
        const Eigen::VectorXd lambda = applyOnce(*op, sys, v, it);
        DesiderataTolerances tol;
        tol.vio = 0.0;
        tol.one = 0.0;
        const DesiderataReport r = checkDesiderata(sys, before, v, lambda, tol);
        EXPECT_TRUE(r.all()) << name << " iteration " << it << ": " << r.describe();
        EXPECT_LT(leastSquaresNormResidual(sys, before, v), 1e-12) << name;  // T-NORM without λ
      }
    }
  }
}

TEST(Operators, NaiveJacobiDestroysEnergyOnTheSpecExample) {
  auto s = scenes::chain({1.0, 0.0, -1.0});
  NaiveJacobi op;
  Eigen::VectorXd v = s.qdot;
  const Eigen::VectorXd lambda = applyOnce(op, s.system, v);
  EXPECT_LT(v.norm(), 1e-15);  // (1, 0, −1) → (0, 0, 0)
  EXPECT_NEAR(lambda[0], std::sqrt(2.0), 1e-15);
  EXPECT_NEAR(lambda[1], std::sqrt(2.0), 1e-15);
  const DesiderataReport r = checkDesiderata(s.system, s.qdot, v, lambda);
  EXPECT_FALSE(r.kin);
  EXPECT_NEAR(r.kinRelative, -1.0, 1e-15);  // KE 1 → 0
  EXPECT_TRUE(r.norm && r.one && r.vio && r.mod) << r.describe();
  // Through the resolver without renormalisation it "terminates" with all kinetic energy gone
  // (after the first step only a ~1e-17 round-off velocity is left, which the scale-free relative
  // test then resolves on its own scale); the report names the broken (KIN).
  ResolverOptions o;
  o.renormalise = false;
  Resolver res(o);
  NaiveJacobi again;
  const auto out = res.resolve(s.system, again, s.qdot);
  EXPECT_TRUE(out.stats.converged);
  EXPECT_GE(out.stats.iterations, 1);
  EXPECT_NEAR(out.stats.relativeEnergyDrift, -1.0, 1e-15);
  EXPECT_NE(out.stats.report.find("breaks (KIN)"), std::string::npos) << out.stats.report;
  // With the default renormalisation the round-off remainder (~1e-17) is blown up to the initial
  // energy: meaningless, and the report says so.
  ResolverOptions capped;
  capped.maxIterations = 50;
  Resolver deflt(capped);
  const auto bad = deflt.resolve(s.system, again, s.qdot);
  EXPECT_NE(bad.stats.report.find("renormalisation"), std::string::npos) << bad.stats.report;
}

TEST(Operators, PairwiseReflectionReversesTheNormalVelocity) {  // T-REFL
  for (auto& s : randomSystems()) {
    const auto& sys = s.system;
    for (int i = 0; i < sys.numConstraints(); ++i) {
      Eigen::VectorXd v = s.qdot;
      const double before = sys.dot(i, v);
      const double lambda = reflect(sys, i, v);
      EXPECT_NEAR(sys.dot(i, v), -before, 1e-14 * (1.0 + std::abs(before)));
      EXPECT_NEAR(lambda, -2.0 * before, 1e-15 * (1.0 + std::abs(before)));
    }
  }
}

TEST(Operators, SelectionRulesPickAsDocumented) {
  // Cradle (1, 0, 0, 0, −1): constraints 0 and 3 violated, the same amount.
  auto s = scenes::chain({1.0, 0.0, 0.0, 0.5, -1.0});
  {
    PairwiseGaussSeidel op(Selection::Lexicographic);
    Eigen::VectorXd v = s.qdot;
    const auto l = applyOnce(op, s.system, v);
    EXPECT_GT(l[0], 0.0);
    EXPECT_EQ((l.array() != 0.0).count(), 1);
  }
  {
    PairwiseGaussSeidel op(Selection::MostViolated);  // n_3ᵀq̇ = −1.5/√2 is the worst
    Eigen::VectorXd v = s.qdot;
    const auto l = applyOnce(op, s.system, v);
    EXPECT_GT(l[3], 0.0);
    EXPECT_EQ((l.array() != 0.0).count(), 1);
  }
  {  // Random: both violated ones get picked over several seeds, nothing else.
    int picked[4] = {0, 0, 0, 0};
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      PairwiseGaussSeidel op(Selection::Random, seed);
      Eigen::VectorXd v = s.qdot;
      const auto l = applyOnce(op, s.system, v);
      for (int i = 0; i < 4; ++i) picked[i] += l[i] != 0.0;
    }
    EXPECT_GT(picked[0], 0);
    EXPECT_GT(picked[3], 0);
    EXPECT_EQ(picked[1] + picked[2], 0);
  }
  {  // Cyclic: after resolving 0 the sweep continues at 1, finds 3.
    PairwiseGaussSeidel op(Selection::CyclicSweep);
    op.setup(s.system);
    Eigen::VectorXd v = s.qdot;
    auto l = applyOnce(op, s.system, v, 0);
    EXPECT_GT(l[0], 0.0);
    l = applyOnce(op, s.system, v, 1);  // now c_1 (0.5 vs 1) is violated too: the sweep goes on
    EXPECT_GT(l[1], 0.0);
  }
}

TEST(Operators, GeneralizedReflectionsWithOneViolatedConstraintIsTheReflection) {  // T-GR-1
  GeneralizedReflections gr;
  PairwiseGaussSeidel gs;
  int checked = 0;
  for (auto& s : randomSystems()) {
    const auto& sys = s.system;
    for (int i = 0; i < sys.numConstraints(); ++i) {
      // A velocity violating only constraint i: its M⁻¹-dual direction, pushed into n_i.
      Eigen::VectorXd v = Eigen::VectorXd::Zero(sys.dofs());
      sys.applyImpulse(i, -1.0, v);  // n_iᵀv = −1
      bool onlyI = true;
      for (int j = 0; j < sys.numConstraints(); ++j)
        if (j != i && sys.dot(j, v) < 0.0) onlyI = false;
      if (!onlyI) continue;
      Eigen::VectorXd a = v, b = v;
      const auto la = applyOnce(gr, sys, a);
      const auto lb = applyOnce(gs, sys, b);
      EXPECT_LT((a - b).norm(), 1e-14 * (1.0 + v.norm()));
      EXPECT_LT((la - lb).norm(), 1e-14);
      ++checked;
    }
  }
  EXPECT_GE(checked, 5);  // the test must have compared something
  // The (0, 1, 0) cradle: only the right contact is violated; both give (0, 0, 1) in one step.
  auto c = scenes::chain({0.0, 1.0, 0.0});
  Eigen::VectorXd a = c.qdot, b = c.qdot;
  applyOnce(gr, c.system, a);
  applyOnce(gs, c.system, b);
  EXPECT_LT((scenes::xComponents(a) - Eigen::Vector3d(0, 0, 1)).norm(), 1e-15);
  EXPECT_LT((a - b).norm(), 1e-15);
}

TEST(Operators, GeneralizedReflectionsKktAndProjection) {  // T-GR-KKT, T-GR-PROJ
  GeneralizedReflections gr;
  for (auto& s : randomSystems()) {
    const auto& sys = s.system;
    if (!infeasible(sys, s.qdot)) continue;
    Eigen::VectorXd v = s.qdot;
    const auto lambda = applyOnce(gr, sys, v);
    EXPECT_TRUE(gr.lastQp().converged) << gr.lastQp().kktResidual;
    const double scale = sys.normM(s.qdot);
    // v* = (q̇ + q̇⁺)/2 is the inelastic projection: N_Vᵀv* ≥ 0, v* − q̇ = M⁻¹N_V μ, μ = λ/2 ≥ 0,
    // μ_i n_iᵀv* = 0 (complementarity), and n_jᵀq̇⁺ ≥ −n_jᵀq̇ on V.
    const Eigen::VectorXd vstar = 0.5 * (s.qdot + v);
    for (int i = 0; i < sys.numConstraints(); ++i) {
      const bool inV = sys.dot(i, s.qdot) < 0.0;
      if (!inV) {
        EXPECT_EQ(lambda[i], 0.0);
        continue;
      }
      EXPECT_GE(lambda[i], 0.0);
      EXPECT_GE(sys.dot(i, vstar), -1e-12 * scale);
      EXPECT_LE(std::abs(0.5 * lambda[i] * sys.dot(i, vstar)), 1e-12 * scale * scale);
      EXPECT_GE(sys.dot(i, v), -sys.dot(i, s.qdot) - 1e-12 * scale);
    }
  }
}

TEST(Operators, ColoredJacobiStepEqualsASequenceOfReflections) {
  for (auto& s : randomSystems()) {
    const auto& sys = s.system;
    ColoredJacobi cj;
    cj.setup(sys);
    // Colour classes share no dynamic body.
    for (int i = 0; i < sys.numConstraints(); ++i)
      for (int j = i + 1; j < sys.numConstraints(); ++j)
        if (cj.colorOf()[i] == cj.colorOf()[j]) {
          for (int a : sys.constraint(i).body)
            for (int b : sys.constraint(j).body) EXPECT_TRUE(a < 0 || a != b);
        }
    Eigen::VectorXd v = s.qdot;
    const auto lambda = applyOnce(cj, sys, v);
    Eigen::VectorXd w = s.qdot;
    for (int i = 0; i < sys.numConstraints(); ++i)
      if (lambda[i] != 0.0) {
        EXPECT_NEAR(reflect(sys, i, w), lambda[i], 1e-13);
      }
    EXPECT_LT((v - w).norm(), 1e-13);
  }
}

TEST(Operators, RegistryNamesBuiltinsAndAcceptsUserOperators) {
  auto names = impactOperators().names();
  for (const char* n : {"gs-lexicographic", "gs-random", "gs-most-violated", "gs-cyclic", "jacobi-naive",
                        "jacobi-colored", "gr"})
    EXPECT_TRUE(impactOperators().has(n)) << n;
  try {
    makeImpactOperator("gs-lexicografic");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'gs-lexicographic'"), std::string::npos) << e.what();
  }
  if (!impactOperators().has("test-user-gs"))
    impactOperators().add({"test-user-gs", "a user's operator", [](const OperatorOptions&) -> ImpactOperatorPtr {
                             return std::make_unique<PairwiseGaussSeidel>(Selection::MostViolated);
                           }});
  EXPECT_EQ(makeImpactOperator("test-user-gs")->name(), "gs-most-violated");
}

}  // namespace
}  // namespace kinema::impact

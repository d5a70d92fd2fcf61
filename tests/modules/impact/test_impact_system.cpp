// The impact problem at one instant (paper section 2): normalisation (T-NORMALISE),
// dropped static-static constraints, sparse operations against their dense forms, the rigid
// contact gradient (momentum conservation of one impulse), input errors.
#include <gtest/gtest.h>

#include <cmath>

#include "framework/core/error.hpp"
#include "modules/impact/scenes.hpp"

namespace kinema::impact {
namespace {

TEST(ImpactSystem, NormalisationGivesUnitDelassusDiagonal) {
  for (unsigned seed : {1u, 2u, 3u}) {
    auto balls = scenes::randomBalls2D(6, 10, 3, seed);
    auto rigid = scenes::randomRigid(4, 9, seed, true);
    for (auto* s : {&balls, &rigid}) {
      const Eigen::MatrixXd N = s->system.denseN();
      const Eigen::MatrixXd A = N.transpose() * s->system.denseMinv() * N;
      for (int i = 0; i < A.rows(); ++i) {
        EXPECT_NEAR(A(i, i), 1.0, 1e-14);
        for (int j = 0; j < A.cols(); ++j) EXPECT_NEAR(s->system.delassus(i, j), A(i, j), 1e-14);
      }
    }
  }
}

TEST(ImpactSystem, StaticAgainstStaticIsDropped) {
  ImpactSystem sys;
  const int w1 = sys.addStatic(), w2 = sys.addStatic();
  const int ball = sys.addBall2D(2.0);
  EXPECT_EQ(sys.addContact(w1, w2, Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitX()), -1);
  EXPECT_EQ(sys.addWall(ball, Eigen::Vector3d(0.0, 3.0, 0.0)), 0);
  EXPECT_EQ(sys.numConstraints(), 1);
  EXPECT_EQ(sys.numDropped(), 1);
  EXPECT_EQ(sys.constraint(0).source, 1);
  // Mass 2: n = (0, sqrt 2) so that nᵀM⁻¹n = 1.
  EXPECT_NEAR(sys.constraint(0).n[0][1], std::sqrt(2.0), 1e-15);
  EXPECT_EQ(sys.dofs(), 2);
}

TEST(ImpactSystem, SparseOperationsMatchDenseForms) {
  auto s = scenes::randomRigid(5, 12, 7, true);
  const auto& sys = s.system;
  const Eigen::MatrixXd N = sys.denseN(), M = sys.denseM(), Minv = sys.denseMinv();
  EXPECT_LT((M * Minv - Eigen::MatrixXd::Identity(sys.dofs(), sys.dofs())).norm(), 1e-12);
  Eigen::VectorXd s1(sys.numConstraints());
  sys.NT(s.qdot, s1);
  EXPECT_LT((s1 - N.transpose() * s.qdot).norm(), 1e-13);
  EXPECT_NEAR(sys.normM(s.qdot), std::sqrt(s.qdot.dot(M * s.qdot)), 1e-13);
  Eigen::VectorXd lambda = Eigen::VectorXd::LinSpaced(sys.numConstraints(), 0.1, 1.0);
  Eigen::VectorXd v = s.qdot;
  sys.addMinvN(lambda, v);
  EXPECT_LT((v - s.qdot - Minv * N * lambda).norm(), 1e-13);
  Eigen::VectorXd Mv, Mi;
  sys.applyM(s.qdot, Mv);
  sys.applyMinv(s.qdot, Mi);
  EXPECT_LT((Mv - M * s.qdot).norm(), 1e-13);
  EXPECT_LT((Mi - Minv * s.qdot).norm(), 1e-13);
}

TEST(ImpactSystem, RigidContactImpulseConservesLinearAndAngularMomentum) {
  auto s = scenes::randomRigid(4, 10, 11, false);
  const auto& sys = s.system;
  for (int i = 0; i < sys.numConstraints(); ++i) {
    Eigen::VectorXd v = s.qdot;
    const Eigen::Vector3d p0 = sys.linearMomentum(v), L0 = sys.angularMomentum(v);
    sys.applyImpulse(i, 0.7, v);
    EXPECT_LT((sys.linearMomentum(v) - p0).norm(), 1e-13);
    EXPECT_LT((sys.angularMomentum(v) - L0).norm(), 1e-13);
  }
}

TEST(ImpactSystem, BallBallGradientPointsApart) {
  ImpactSystem sys;
  const int a = sys.addBall3D(1.0, Eigen::Vector3d(0, 0, 0));
  const int b = sys.addBall3D(3.0, Eigen::Vector3d(0, 0, 2));
  sys.addBallBall(a, b);
  Eigen::VectorXd v = Eigen::VectorXd::Zero(6);
  v[2] = 1.0;  // a moves towards b: approaching, n^T v < 0
  EXPECT_LT(sys.dot(0, v), 0.0);
  EXPECT_NEAR(sys.dot(0, v), -1.0 / std::sqrt(1.0 + 1.0 / 3.0), 1e-15);
}

TEST(ImpactSystem, BadInputNamesWhatIsWrong) {
  ImpactSystem sys;
  EXPECT_THROW(sys.addBall2D(0.0), InputError);
  EXPECT_THROW(sys.addRigidBody(1.0, -Eigen::Matrix3d::Identity()), InputError);
  const int a = sys.addBall2D(1.0);
  EXPECT_THROW(sys.addConstraint(a, Eigen::Vector3d(1, 0, 0)), InputError);
  EXPECT_THROW(sys.addConstraint(5, Eigen::Vector2d(1, 0)), InputError);
  try {
    sys.addConstraint(a, Eigen::Vector3d(1, 0, 0));
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("2 DOFs"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kinema::impact

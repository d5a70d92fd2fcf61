// Quaternion algebra of the bdem module (paper App. A, Eqs. 39-54):
// T-Q1 the operator identities, T-Q2 direction rotation against R(q), T-D3 kinetic-energy
// consistency of the extended mass, and the exp/log, omega/qdot and relative-rotation helpers.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <random>

#include "modules/bdem/quaternion.hpp"

using namespace kinema::bdem;

namespace {

Vec4 randomQuat(std::mt19937& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  return Vec4(g(rng), g(rng), g(rng), g(rng)).normalized();
}
Vec3 randomVec(std::mt19937& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  return Vec3(g(rng), g(rng), g(rng));
}
double maxAbs(const Eigen::MatrixXd& A) { return A.cwiseAbs().maxCoeff(); }

}  // namespace

// T-Q1: Eqs. 40-50 for random unit q, both G_l and G_r, to 1e-13.
TEST(BdemQuaternion, OperatorIdentities) {
  std::mt19937 rng(1);
  const double tol = 1e-13;
  for (int trial = 0; trial < 50; ++trial) {
    const Vec4 q = randomQuat(rng), a = randomQuat(rng), b = randomQuat(rng) * 1.7;
    for (const quat::Mat34& G : {quat::Gl(q), quat::Gr(q)}) {
      EXPECT_LE((G * q).cwiseAbs().maxCoeff(), tol);                                           // G q = 0
      EXPECT_LE(maxAbs(G * G.transpose() - Mat3::Identity()), tol);                            // G G^T = I3
      EXPECT_LE(maxAbs(G.transpose() * G - (Eigen::Matrix4d::Identity() - q * q.transpose())), tol);  // = P(q)
    }
    // Eq. 40-42: q (x) a = Ql(q) a, a (x) q = Qr(q) a.
    EXPECT_LE((quat::Ql(q) * b - quat::multiply(q, b)).cwiseAbs().maxCoeff(), tol);
    EXPECT_LE((quat::Qr(q) * b - quat::multiply(b, q)).cwiseAbs().maxCoeff(), tol);
    // Ql = [G_l^T | q], Qr = [G_r^T | q].
    Eigen::Matrix4d L, R;
    L << quat::Gl(q).transpose(), q;
    R << quat::Gr(q).transpose(), q;
    EXPECT_LE(maxAbs(quat::Ql(q) - L), tol);
    EXPECT_LE(maxAbs(quat::Qr(q) - R), tol);
    // G_l(q) a = vec(q-bar (x) a), G_r(q) a = vec(a (x) q-bar).
    EXPECT_LE((quat::Gl(q) * b - quat::multiply(quat::conjugate(q), b).head<3>()).cwiseAbs().maxCoeff(), tol);
    EXPECT_LE((quat::Gr(q) * b - quat::multiply(b, quat::conjugate(q)).head<3>()).cwiseAbs().maxCoeff(), tol);
    // G_l(q_j) q_i = -G_l(q_i) q_j = relative(q_i, q_j).
    EXPECT_LE((quat::Gl(a) * q + quat::Gl(q) * a).cwiseAbs().maxCoeff(), tol);
    EXPECT_LE((quat::relative(q, a) - quat::Gl(a) * q).cwiseAbs().maxCoeff(), tol);
    // G_l G_r^T = R(q)^T.
    EXPECT_LE(maxAbs(quat::Gl(q) * quat::Gr(q).transpose() - quat::rotation(q).transpose()), tol);
    // R(q) is a proper rotation.
    EXPECT_LE(maxAbs(quat::rotation(q) * quat::rotation(q).transpose() - Mat3::Identity()), tol);
    EXPECT_NEAR(quat::rotation(q).determinant(), 1.0, tol);
  }
}

// T-Q2: d = q (.) d0 (Eq. 44) agrees with R(q) d0, and with Eigen's quaternion rotation.
TEST(BdemQuaternion, DirectionRotation) {
  std::mt19937 rng(2);
  for (int trial = 0; trial < 50; ++trial) {
    const Vec4 q = randomQuat(rng);
    const Vec3 d0 = randomVec(rng);
    const Vec3 d = quat::rotate(q, d0);
    EXPECT_LE((d - quat::rotation(q) * d0).cwiseAbs().maxCoeff(), 1e-13 * d0.norm());
    const Eigen::Quaterniond e(q[3], q[0], q[1], q[2]);  // Eigen stores (w, x, y, z)
    EXPECT_LE((d - e * d0).cwiseAbs().maxCoeff(), 1e-13 * d0.norm());
    // exp of a world rotation vector: rotates about phi by |phi|.
    const Vec3 phi = randomVec(rng);
    const Eigen::AngleAxisd aa(phi.norm(), phi.normalized());
    EXPECT_LE((quat::rotate(quat::expRotation(phi), d0) - aa * d0).cwiseAbs().maxCoeff(), 1e-13 * d0.norm());
  }
}

TEST(BdemQuaternion, ExpLogAndRelativeRotation) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 50; ++trial) {
    Vec3 phi = randomVec(rng);
    if (phi.norm() > 3.0) phi *= 3.0 / phi.norm();
    const Vec4 q = quat::expRotation(phi);
    EXPECT_NEAR(q.norm(), 1.0, 1e-15);
    EXPECT_LE((quat::logRotation(q) - phi).norm(), 1e-12 * phi.norm());
    EXPECT_LE((quat::logRotation(-q) - phi).norm(), 1e-12 * phi.norm());
    // Small angles through the series branch.
    const Vec3 small = 1e-6 * phi;
    EXPECT_LE((quat::logRotation(quat::expRotation(small)) - small).norm(), 1e-12 * small.norm());
    // q_i = q_j (x) (a sin(phi/2), cos(phi/2)) gives G_l(q_j) q_i = sin(phi/2) a: the half angle.
    const Vec4 qj = randomQuat(rng);
    const Vec4 qi = quat::multiply(qj, q);
    EXPECT_LE((quat::relative(qi, qj) - std::sin(0.5 * phi.norm()) * phi.normalized()).norm(), 1e-13);
  }
}

// Eqs. 51-53: qdot = 1/2 (omega, 0) (x) q and omega = vec(2 qdot (x) q-bar) are inverse; the
// velocity is tangent; omega is the world-frame angular velocity (finite rotation check).
TEST(BdemQuaternion, AngularVelocity) {
  std::mt19937 rng(4);
  for (int trial = 0; trial < 50; ++trial) {
    const Vec4 q = randomQuat(rng);
    const Vec3 w = randomVec(rng);
    const Vec4 qd = quat::qdotFromOmega(q, w);
    EXPECT_NEAR(q.dot(qd), 0.0, 1e-14 * w.norm());
    EXPECT_LE((quat::omegaFromQdot(q, qd) - w).norm(), 1e-13 * w.norm());
    // World frame: q(t) = exp(w t) (x) q has derivative qd at t = 0.
    const double h = 1e-6;
    const Vec4 fd = (quat::multiply(quat::expRotation(h * w), q) - quat::multiply(quat::expRotation(-h * w), q)) / (2 * h);
    EXPECT_LE((fd - qd).norm(), 1e-8 * w.norm());
  }
}

// T-D3: 1/2 qdot^T (8/5 m r^2) qdot = 1/2 (2/5 m r^2) |omega|^2 for qdot = 1/2 (omega, 0) (x) q.
TEST(BdemQuaternion, KineticEnergyConsistency) {
  std::mt19937 rng(5);
  const double m = 0.37, r = 0.021;
  for (int trial = 0; trial < 50; ++trial) {
    const Vec4 q = randomQuat(rng);
    const Vec3 w = randomVec(rng);
    const Vec4 qd = quat::qdotFromOmega(q, w);
    const double quatKE = 0.5 * (1.6 * m * r * r) * qd.squaredNorm();
    const double sphereKE = 0.5 * (0.4 * m * r * r) * w.squaredNorm();
    EXPECT_NEAR(quatKE, sphereKE, 1e-14 * sphereKE);
  }
}

// Bond, contact and obstacle elements of the bdem module (paper §3.2, §5.4, Eqs. 7-11, 28-29,
// 32-33; acceptance tests T-G, T-R of README decision 43): T-G1 finite differences of every Euclidean gradient and
// Hessian (both ShearForm, both RotMeasure), T-G2 the reduced gradient and Hessian along
// geodesics of (R^3 x S^3)^2, T-G3 Euler's identity, T-G5 symmetry, T-R2 rigid-motion invariance,
// T-R3 the six rigid modes in the kernel of a bonded cluster's reduced Hessian, T-S1 endpoint swap.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include "modules/bdem/bond.hpp"
#include "modules/bdem/bond_energy.hpp"
#include "modules/bdem/contact_energy.hpp"
#include "modules/bdem/fracture.hpp"
#include "modules/bdem/obstacle.hpp"
#include "modules/bdem/quaternion.hpp"

using namespace kinema::bdem;

namespace {

using VecX = Eigen::VectorXd;
using MatX = Eigen::MatrixXd;

const std::array<BondModel, 4> kModels = {
    BondModel{ShearForm::Paper, RotMeasure::Paper, false}, BondModel{ShearForm::Paper, RotMeasure::FullAngle, false},
    BondModel{ShearForm::Consistent, RotMeasure::Paper, false},
    BondModel{ShearForm::Consistent, RotMeasure::FullAngle, false}};

Vec3 randomUnit(std::mt19937& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  return Vec3(g(rng), g(rng), g(rng)).normalized();
}
Vec4 randomQuat(std::mt19937& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  return Vec4(g(rng), g(rng), g(rng), g(rng)).normalized();
}

// Two particles of radius ~r at distance ~2r along a random axis, both at orientation q0
// (bonds are created between equally oriented particles, as after packing), bonded.
struct TwoBody {
  Particles P;
  Bond bond;
};
TwoBody bondedPair(std::mt19937& rng, const Vec4& q0) {
  TwoBody t;
  const double r = 0.01;
  t.P.add(Vec3(0.1, -0.2, 0.3), r, 1e-3, 0);
  t.P.add(Vec3(0.1, -0.2, 0.3) + 2.1 * r * randomUnit(rng), 0.9 * r, 1e-3, 1);
  t.P.q[0] = t.P.q[1] = q0;
  Material mat;
  mat.E = 1e7;
  mat.nu = 0.3;
  t.bond = makeBond(t.P, 0, 1, mat);
  return t;
}

// State (p_i, q_i, p_j, q_j) packed in 14.
Vec14 pack(const Vec3& pi, const Vec4& qi, const Vec3& pj, const Vec4& qj) {
  Vec14 x;
  x << pi, qi, pj, qj;
  return x;
}

// Random deformation: positions moved by ~amp l0, orientations turned by ~ang radians.
Vec14 deformed(const TwoBody& t, std::mt19937& rng, double amp, double ang) {
  const double l0 = t.bond.l0;
  return pack(t.P.p[0] + amp * l0 * randomUnit(rng), quat::multiply(quat::expRotation(ang * randomUnit(rng)), t.P.q[0]),
              t.P.p[1] + amp * l0 * randomUnit(rng), quat::multiply(quat::expRotation(ang * randomUnit(rng)), t.P.q[1]));
}

using Term = std::function<double(const Vec14&, Vec14*, Mat14*)>;

struct FdError {
  double grad = 0, hess = 0;
};
// Central differences of size h (scaled per block: positions by l0, quaternions by 1) of the energy
// (against the gradient) and of the gradient (against the Hessian); max-norm errors relative to the
// max norm of the exact quantity.
FdError fdCheck(const Term& f, const Vec14& x, double l0, double h = 1e-6) {
  Vec14 g = Vec14::Zero();
  Mat14 H = Mat14::Zero();
  f(x, &g, &H);
  Vec14 gfd;
  Mat14 Hfd;
  for (int k = 0; k < 14; ++k) {
    const bool isP = k < 3 || (k >= 7 && k < 10);
    const double hk = h * (isP ? l0 : 1.0);
    Vec14 xp = x, xm = x;
    xp[k] += hk;
    xm[k] -= hk;
    Vec14 gp = Vec14::Zero(), gm = Vec14::Zero();
    const double fp = f(xp, &gp, nullptr), fm = f(xm, &gm, nullptr);
    gfd[k] = (fp - fm) / (2 * hk);
    Hfd.col(k) = (gp - gm) / (2 * hk);
  }
  FdError e;
  e.grad = (gfd - g).cwiseAbs().maxCoeff() / std::max(g.cwiseAbs().maxCoeff(), 1e-300);
  e.hess = (Hfd - H).cwiseAbs().maxCoeff() / std::max(H.cwiseAbs().maxCoeff(), 1e-300);
  return e;
}

Term stretchTerm(const Bond& b) {
  return [&b](const Vec14& x, Vec14* g, Mat14* H) { return stretchEnergy(b, x.segment<3>(0), x.segment<3>(7), g, H); };
}
Term shearTerm(const Bond& b, const BondModel& m) {
  return [&b, m](const Vec14& x, Vec14* g, Mat14* H) {
    return shearEnergy(b, m, x.segment<3>(0), x.segment<4>(3), x.segment<3>(7), x.segment<4>(10), g, H);
  };
}
Term bendTwistTerm(const Bond& b, const BondModel& m) {
  return [&b, m](const Vec14& x, Vec14* g, Mat14* H) {
    return bendTwistEnergy(b, m, x.segment<4>(3), x.segment<4>(10), g, H);
  };
}
Term bondTerm(const Bond& b, const BondModel& m) {
  return [&b, m](const Vec14& x, Vec14* g, Mat14* H) {
    return bondEnergy(b, m, x.segment<3>(0), x.segment<4>(3), x.segment<3>(7), x.segment<4>(10), g, H).total();
  };
}

}  // namespace

// T-G1: every bond term, both shear forms and both rot measures, at random deformed states; shear
// also at small angles on both sides of the series switch (theta = 0.05) and at theta ~ 1e-3.
TEST(BdemElements, BondTermsMatchFiniteDifferences) {
  std::mt19937 rng(11);
  double worstG = 0, worstH = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const TwoBody t = bondedPair(rng, randomQuat(rng));
    const double l0 = t.bond.l0;
    for (const BondModel& m : kModels) {
      const Vec14 x = deformed(t, rng, 0.05, 0.3);
      // Flip the sign of q_j on odd trials: the shear's q_c sign rule must give the same derivatives.
      Vec14 xs = x;
      if (trial % 2) xs.segment<4>(10) *= -1.0;
      for (const Term& f : {stretchTerm(t.bond), shearTerm(t.bond, m), bendTwistTerm(t.bond, m), bondTerm(t.bond, m)}) {
        const FdError e = fdCheck(f, xs, l0);
        EXPECT_LT(e.grad, 1e-6);
        EXPECT_LT(e.hess, 1e-6);
        worstG = std::max(worstG, e.grad);
        worstH = std::max(worstH, e.hess);
      }
    }
  }
  std::printf("[T-G1 bond] worst relative FD error: gradient %.2e, Hessian %.2e\n", worstG, worstH);
}

TEST(BdemElements, ShearSmallAnglesMatchFiniteDifferences) {
  // Shear alone, j displaced transversally so that theta is 1e-3, 0.049, 0.051, 0.5.
  std::mt19937 rng(12);
  const TwoBody t = bondedPair(rng, randomQuat(rng));
  const Bond& b = t.bond;
  const Vec3 d0 = (t.P.p[1] - t.P.p[0]).normalized();
  const Vec3 e = d0.unitOrthogonal();
  double worstG = 0, worstH = 0;
  for (const BondModel& m : kModels) {
    for (double theta : {1e-3, 0.049, 0.051, 0.5}) {
      const Vec3 pj = t.P.p[0] + b.l0 * (std::cos(theta) * d0 + std::sin(theta) * e);
      const Vec14 x = pack(t.P.p[0], t.P.q[0], pj, t.P.q[1]);
      EXPECT_NEAR(shearAngle(b, x.segment<3>(0), x.segment<4>(3), x.segment<3>(7), x.segment<4>(10)), theta, 1e-12);
      const FdError err = fdCheck(shearTerm(b, m), x, b.l0, theta < 0.01 ? 1e-5 : 1e-6);
      EXPECT_LT(err.grad, 1e-6) << "theta " << theta;
      // Stricter than T-G1's 1e-6: the series of h'' enters the Hessian only through h'' grad c
      // grad c^T = O(theta^2), so an error in its coefficients shows at the 1e-7 level.
      EXPECT_LT(err.hess, 1e-8) << "theta " << theta;
      worstG = std::max(worstG, err.grad);
      worstH = std::max(worstH, err.hess);
    }
  }
  std::printf("[T-G1 shear small angles] worst relative FD error: gradient %.2e, Hessian %.2e\n", worstG, worstH);
}

// Energies against closed forms: stretch 1/2 kn (l - l0)^2, shear 1/2 k~ theta^2 for a transverse
// offset, bend/twist 1/2 s^2 k sin^2(phi/2) for a relative rotation phi about d0 (twist) or a
// transverse axis (bend).
TEST(BdemElements, EnergiesMatchClosedForms) {
  std::mt19937 rng(13);
  const TwoBody t = bondedPair(rng, quat::identity());
  const Bond& b = t.bond;
  const Vec3 d0 = (t.P.p[1] - t.P.p[0]) / b.l0;
  const Vec3 e = d0.unitOrthogonal();
  const Vec4 id = quat::identity();
  for (const BondModel& m : kModels) {
    const double s = m.rotScale();
    const double kS = m.shear == ShearForm::Consistent ? b.kt * b.l0 * b.l0 : b.kt;
    const Vec3 pj = t.P.p[0] + 1.01 * b.l0 * d0;
    EXPECT_NEAR(bondEnergy(b, m, t.P.p[0], id, pj, id).stretch, 0.5 * b.kn * std::pow(0.01 * b.l0, 2),
                1e-12 * b.kn * b.l0 * b.l0);
    const double th = 0.2;
    const Vec3 pjs = t.P.p[0] + 1.3 * b.l0 * (std::cos(th) * d0 + std::sin(th) * e);
    EXPECT_NEAR(bondEnergy(b, m, t.P.p[0], id, pjs, id).shear, 0.5 * kS * th * th, 1e-12 * kS);
    const double phi = 0.3;
    const BondTerms tw = bondEnergy(b, m, t.P.p[0], quat::expRotation(phi * d0), t.P.p[1], id);
    EXPECT_NEAR(tw.bendTwist, 0.5 * s * s * b.kTwist * std::pow(std::sin(phi / 2), 2), 1e-12 * b.kTwist);
    EXPECT_NEAR(tw.shear, 0.0, 1e-20 * kS);  // a twist carries d0 into itself
    const BondTerms be = bondEnergy(b, m, t.P.p[0], quat::expRotation(0.5 * phi * e), t.P.p[1],
                                    quat::expRotation(-0.5 * phi * e));
    EXPECT_NEAR(be.bendTwist, 0.5 * s * s * b.kBend * std::pow(std::sin(phi / 2), 2), 1e-12 * b.kBend);
    EXPECT_NEAR(be.shear, 0.0, 1e-20 * kS);  // symmetric bending: q_c = identity
  }
}

// T-G3: bend/twist is homogeneous of degree 2 in each quaternion.
TEST(BdemElements, BendTwistEulerIdentity) {
  std::mt19937 rng(14);
  for (int trial = 0; trial < 5; ++trial) {
    const TwoBody t = bondedPair(rng, randomQuat(rng));
    for (const BondModel& m : kModels) {
      const Vec14 x = deformed(t, rng, 0.0, 0.5);
      Vec14 g = Vec14::Zero();
      const double V = bendTwistEnergy(t.bond, m, x.segment<4>(3), x.segment<4>(10), &g, nullptr);
      ASSERT_GT(V, 0.0);
      EXPECT_NEAR(x.segment<4>(3).dot(g.segment<4>(3)), 2 * V, 1e-12 * V);
      EXPECT_NEAR(x.segment<4>(10).dot(g.segment<4>(10)), 2 * V, 1e-12 * V);
    }
  }
}

// T-G2: along the geodesic gamma(s) = (p + s dp, exp_world(2 s y) (x) q) (= q cos(s|y|) +
// (G^T y / |y|) sin(s|y|)), d/ds V = g_red . xi and d^2/ds^2 V = xi^T H_red xi at s = 0.
TEST(BdemElements, ReducedBondMatchesGeodesicDerivatives) {
  std::mt19937 rng(15);
  std::normal_distribution<double> g(0.0, 1.0);
  double worst1 = 0, worst2 = 0;
  for (int trial = 0; trial < 4; ++trial) {
    const TwoBody t = bondedPair(rng, randomQuat(rng));
    for (const BondModel& m : kModels) {
      const Vec14 x = deformed(t, rng, 0.05, 0.4);
      Vec12 xi;
      for (int k = 0; k < 12; ++k) xi[k] = g(rng) * ((k % 6) < 3 ? t.bond.l0 : 1.0);
      auto along = [&](double s) {
        const Vec3 pi = x.segment<3>(0) + s * xi.segment<3>(0);
        const Vec3 pj = x.segment<3>(7) + s * xi.segment<3>(6);
        const Vec4 qi = quat::multiply(quat::expRotation(2 * s * Vec3(xi.segment<3>(3))), x.segment<4>(3));
        const Vec4 qj = quat::multiply(quat::expRotation(2 * s * Vec3(xi.segment<3>(9))), x.segment<4>(10));
        return bondEnergy(t.bond, m, pi, qi, pj, qj).total();
      };
      Vec12 gr;
      Mat12 Hr;
      const double V0 = bondReduced(t.bond, m, x.segment<3>(0), x.segment<4>(3), x.segment<3>(7), x.segment<4>(10),
                                    &gr, &Hr);
      EXPECT_NEAR(V0, along(0.0), 1e-14 * std::abs(V0));
      // The geodesic's velocity in G_r coordinates is the constant xi (G_r(gamma)^T y = (y, 0) (x) gamma),
      // so the second derivative is the central difference of g_red(gamma(s)) . xi.
      auto slope = [&](double s) {
        Vec12 gs;
        bondReduced(t.bond, m, x.segment<3>(0) + s * xi.segment<3>(0),
                    quat::multiply(quat::expRotation(2 * s * Vec3(xi.segment<3>(3))), x.segment<4>(3)),
                    x.segment<3>(7) + s * xi.segment<3>(6),
                    quat::multiply(quat::expRotation(2 * s * Vec3(xi.segment<3>(9))), x.segment<4>(10)), &gs, nullptr);
        return gs.dot(xi);
      };
      const double h1 = 1e-6;
      const double d1 = (along(h1) - along(-h1)) / (2 * h1);
      const double d2 = (slope(h1) - slope(-h1)) / (2 * h1);
      const double e1 = std::abs(d1 - gr.dot(xi)) / std::abs(gr.dot(xi));
      const double e2 = std::abs(d2 - xi.dot(Hr * xi)) / std::abs(xi.dot(Hr * xi));
      EXPECT_LT(e1, 1e-6);
      EXPECT_LT(e2, 1e-6);
      worst1 = std::max(worst1, e1);
      worst2 = std::max(worst2, e2);
    }
  }
  std::printf("[T-G2] worst relative error: first derivative %.2e, second derivative %.2e\n", worst1, worst2);
}

// T-G5: the 14 x 14 Hessian and the reduced 12 x 12 are symmetric; the reduced element equals the
// framework's RigidManifold reduction.
TEST(BdemElements, BondHessiansAreSymmetric) {
  std::mt19937 rng(16);
  double worst = 0;
  for (int trial = 0; trial < 5; ++trial) {
    const TwoBody t = bondedPair(rng, randomQuat(rng));
    for (const BondModel& m : kModels) {
      const Vec14 x = deformed(t, rng, 0.1, 0.5);
      Vec14 g = Vec14::Zero();
      Mat14 H = Mat14::Zero();
      bondEnergy(t.bond, m, x.segment<3>(0), x.segment<4>(3), x.segment<3>(7), x.segment<4>(10), &g, &H);
      Vec12 gr;
      Mat12 Hr;
      bondReduced(t.bond, m, x.segment<3>(0), x.segment<4>(3), x.segment<3>(7), x.segment<4>(10), &gr, &Hr);
      // bondReduced is the block-wise form of RigidManifold::reduceGradient<2> / reduceHessian<2>.
      const std::array<Vec4, 2> qs = {Vec4(x.segment<4>(3)), Vec4(x.segment<4>(10))};
      const Vec12 gRef = kinema::solvers::RigidManifold::reduceGradient<2>(qs, g);
      const Mat12 HRef = kinema::solvers::RigidManifold::reduceHessian<2>(qs, g, H);
      EXPECT_LE((gr - gRef).cwiseAbs().maxCoeff(), 1e-14 * gRef.cwiseAbs().maxCoeff());
      EXPECT_LE((Hr - HRef).cwiseAbs().maxCoeff(), 1e-14 * HRef.cwiseAbs().maxCoeff());
      const double a = (H - H.transpose()).cwiseAbs().maxCoeff() / H.cwiseAbs().maxCoeff();
      const double b = (Hr - Hr.transpose()).cwiseAbs().maxCoeff() / Hr.cwiseAbs().maxCoeff();
      EXPECT_LE(a, 1e-12);
      EXPECT_LE(b, 1e-12);
      worst = std::max({worst, a, b});
    }
  }
  std::printf("[T-G5] worst relative asymmetry %.2e\n", worst);
}

// T-R2: a rigid motion (p <- R p + b, q <- Q (x) q) of a rest configuration leaves every bond
// energy at zero, and of a deformed one leaves it unchanged.
TEST(BdemElements, BondEnergiesAreRigidMotionInvariant) {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 5; ++trial) {
    const TwoBody t = bondedPair(rng, randomQuat(rng));
    const Bond& b = t.bond;
    const Vec4 Q = randomQuat(rng);
    const Mat3 R = quat::rotation(Q);
    const Vec3 shift = randomUnit(rng);
    const double scale = b.kn * b.l0 * b.l0;
    for (const BondModel& m : kModels) {
      const BondTerms rest = bondEnergy(b, m, R * t.P.p[0] + shift, quat::multiply(Q, t.P.q[0]),
                                        R * t.P.p[1] + shift, quat::multiply(Q, t.P.q[1]));
      // Round-off: the strain measures stay at ulp level (1e-13), the energies at 1e-24 kn l0^2.
      const Vec3 pi = R * t.P.p[0] + shift, pj = R * t.P.p[1] + shift;
      const Vec4 qi = quat::multiply(Q, t.P.q[0]), qj = quat::multiply(Q, t.P.q[1]);
      EXPECT_LE(std::abs((pj - pi).norm() - b.l0), 1e-13 * b.l0);
      EXPECT_LE(shearAngle(b, pi, qi, pj, qj), 1e-13);
      EXPECT_LE(bendTwistMeasure(b, m, qi, qj).norm(), 1e-13);
      EXPECT_LE(rest.stretch, 1e-24 * scale);
      EXPECT_LE(rest.shear, 1e-24 * scale);
      EXPECT_LE(rest.bendTwist, 1e-24 * scale);
      const Vec14 x = deformed(t, rng, 0.05, 0.4);
      const BondTerms a = bondEnergy(b, m, x.segment<3>(0), x.segment<4>(3), x.segment<3>(7), x.segment<4>(10));
      const BondTerms c = bondEnergy(b, m, R * x.segment<3>(0) + shift, quat::multiply(Q, x.segment<4>(3)),
                                     R * x.segment<3>(7) + shift, quat::multiply(Q, x.segment<4>(10)));
      EXPECT_NEAR(c.stretch, a.stretch, 1e-10 * a.stretch);
      EXPECT_NEAR(c.shear, a.shear, 1e-10 * a.shear);
      EXPECT_NEAR(c.bendTwist, a.bendTwist, 1e-10 * a.bendTwist);
    }
  }
}

// T-R3: the six rigid modes (translation dp = e_k, y = 0; rotation dp = e_k x (p - p_c),
// y = 1/2 e_k since G = G_r) lie in the kernel of the assembled reduced bond Hessian of a bonded
// cluster at rest (5 particles, all pairs within reach bonded), in both models.
TEST(BdemElements, RigidModesInKernelOfClusterHessian) {
  std::mt19937 rng(18);
  Particles P;
  const double r = 0.01;
  const std::array<Vec3, 5> pos = {Vec3(0, 0, 0), Vec3(2 * r, 0, 0), Vec3(r, 1.8 * r, 0), Vec3(r, 0.6 * r, 1.7 * r),
                                   Vec3(3 * r, 1.7 * r, 0.3 * r)};
  const Vec4 q0 = randomQuat(rng);
  for (int a = 0; a < 5; ++a) {
    P.add(pos[a] + Vec3(0.3, 0.1, -0.2), r * (1.0 + 0.05 * a), 1e-3, a);
    P.q[a] = q0;
  }
  Material mat;
  std::vector<Bond> bonds;
  for (int a = 0; a < 5; ++a)
    for (int c = a + 1; c < 5; ++c)
      if ((P.p[a] - P.p[c]).norm() < 2.6 * r) bonds.push_back(makeBond(P, a, c, mat));
  ASSERT_GE(bonds.size(), 7u);
  const int n = 6 * 5;
  for (const BondModel& m : kModels) {
    MatX H = MatX::Zero(n, n);
    for (const Bond& b : bonds) {
      Vec12 g;
      Mat12 He;
      bondReduced(b, m, P.p[b.i], P.q[b.i], P.p[b.j], P.q[b.j], &g, &He);
      EXPECT_LE(g.norm(), 1e-12 * b.kn * b.l0);
      const std::array<int, 2> at = {6 * b.i, 6 * b.j};
      for (int x = 0; x < 2; ++x)
        for (int y = 0; y < 2; ++y) H.block<6, 6>(at[x], at[y]) += He.block<6, 6>(6 * x, 6 * y);
    }
    Vec3 pc = Vec3::Zero();
    for (int a = 0; a < 5; ++a) pc += P.p[a] / 5.0;
    const double Hn = H.norm();
    double worstMode = 0;
    for (int k = 0; k < 6; ++k) {
      VecX v = VecX::Zero(n);
      for (int a = 0; a < 5; ++a) {
        if (k < 3) {
          v.segment<3>(6 * a) = Vec3::Unit(k);
        } else {
          v.segment<3>(6 * a) = Vec3::Unit(k - 3).cross(P.p[a] - pc);
          v.segment<3>(6 * a + 3) = 0.5 * Vec3::Unit(k - 3);
        }
      }
      const double rel = (H * v).norm() / (Hn * v.norm());
      EXPECT_LE(rel, 1e-10) << "mode " << k;
      worstMode = std::max(worstMode, rel);
    }
    // And the kernel is exactly six-dimensional (the cluster is rigid): the six smallest
    // eigenvalues are at round-off, the seventh far above them (the paper-literal shear form makes
    // the spectrum wide: kt against kt l0^2).
    Eigen::SelfAdjointEigenSolver<MatX> es(H);
    const Eigen::VectorXd ev = es.eigenvalues();
    const double zero = ev.head<6>().cwiseAbs().maxCoeff();
    EXPECT_LE(zero, 1e-12 * ev[n - 1]);
    EXPECT_GT(ev[6], 1e3 * zero);
    EXPECT_GT(ev[6], 1e-10 * ev[n - 1]);
    std::printf("[T-R3] shear %d rot %d: |H v|/(|H||v|) <= %.1e; eigenvalues: 6 zeros <= %.1e, 7th %.2e, max %.2e\n",
                int(m.shear), int(m.rot), worstMode, zero, ev[6], ev[n - 1]);
  }
}

// T-S1: swapping a bond's endpoints (makeBond(P, j, i)) gives the same energies, the permuted
// gradient and the same fracture stresses.
TEST(BdemElements, EndpointSwapSymmetry) {
  std::mt19937 rng(19);
  for (int trial = 0; trial < 4; ++trial) {
    const TwoBody t = bondedPair(rng, randomQuat(rng));
    const Bond bs = makeBond(t.P, 1, 0, Material{});
    for (const BondModel& m : kModels) {
      const Vec14 x = deformed(t, rng, 0.05, 0.4);
      const Vec3 pi = x.segment<3>(0), pj = x.segment<3>(7);
      const Vec4 qi = x.segment<4>(3), qj = x.segment<4>(10);
      Vec14 g = Vec14::Zero(), gs = Vec14::Zero();
      const BondTerms a = bondEnergy(t.bond, m, pi, qi, pj, qj, &g, nullptr);
      const BondTerms c = bondEnergy(bs, m, pj, qj, pi, qi, &gs, nullptr);
      EXPECT_NEAR(a.stretch, c.stretch, 1e-12 * a.stretch);
      EXPECT_NEAR(a.shear, c.shear, 1e-12 * a.shear);
      EXPECT_NEAR(a.bendTwist, c.bendTwist, 1e-12 * a.bendTwist);
      Vec14 perm;
      perm << gs.segment<7>(7), gs.segment<7>(0);
      EXPECT_LE((perm - g).cwiseAbs().maxCoeff(), 1e-10 * g.cwiseAbs().maxCoeff());
      const BondStress sa = bondStress(t.bond, m, pi, qi, pj, qj);
      const BondStress sc = bondStress(bs, m, pj, qj, pi, qi);
      EXPECT_NEAR(sa.sigma, sc.sigma, 1e-10 * sa.sigma);
      EXPECT_NEAR(sa.tau, sc.tau, 1e-10 * sa.tau);
    }
  }
}

// T-G1 for contacts: gradients against finite differences; the Hessians are the projections of
// README decision 18, so the test checks projected = FD Hessian minus the dropped term (pair: the transverse
// kec (l - r_i - r_j)/l (I - u u^T) blocks; obstacle: kc phi hess g).
TEST(BdemElements, PairContactDerivatives) {
  std::mt19937 rng(20);
  const double kec = 1e5, ri = 0.01, rj = 0.012;
  double worstG = 0, worstH = 0;
  for (int trial = 0; trial < 5; ++trial) {
    const Vec3 pi = randomUnit(rng) * 0.1;
    const Vec3 pj = pi + (ri + rj) * (0.7 + 0.05 * trial) * randomUnit(rng);
    Vec6 x;
    x << pi, pj;
    Vec6 g = Vec6::Zero();
    Mat6 H = Mat6::Zero();
    const double V = pairContactEnergy(kec, ri, rj, pi, pj, &g, &H);
    const double l = (pi - pj).norm();
    EXPECT_NEAR(V, 0.5 * kec * std::pow(l - ri - rj, 2), 1e-14 * V);
    EXPECT_NEAR(pairContactForce(kec, ri, rj, pi, pj), kec * (ri + rj - l), 1e-12 * kec * (ri + rj - l));
    Vec6 gfd;
    Mat6 Hfd;
    const double h = 1e-8;
    for (int k = 0; k < 6; ++k) {
      Vec6 xp = x, xm = x;
      xp[k] += h;
      xm[k] -= h;
      Vec6 gp = Vec6::Zero(), gm = Vec6::Zero();
      const double fp = pairContactEnergy(kec, ri, rj, xp.head<3>(), xp.tail<3>(), &gp);
      const double fm = pairContactEnergy(kec, ri, rj, xm.head<3>(), xm.tail<3>(), &gm);
      gfd[k] = (fp - fm) / (2 * h);
      Hfd.col(k) = (gp - gm) / (2 * h);
    }
    const Vec3 u = (pi - pj) / l;
    const Mat3 T = kec * (l - ri - rj) / l * (Mat3::Identity() - u * u.transpose());
    Mat6 Td;
    Td << T, -T, -T, T;
    const double eg = (gfd - g).cwiseAbs().maxCoeff() / g.cwiseAbs().maxCoeff();
    const double eh = (Hfd - Td - H).cwiseAbs().maxCoeff() / H.cwiseAbs().maxCoeff();
    EXPECT_LT(eg, 1e-6);
    EXPECT_LT(eh, 1e-6);
    worstG = std::max(worstG, eg);
    worstH = std::max(worstH, eh);
    // The projected block is PSD.
    EXPECT_GE(Eigen::SelfAdjointEigenSolver<Mat6>(H).eigenvalues().minCoeff(), -1e-9 * kec);
  }
  // Inactive when separated (no attractive spring).
  Vec6 g = Vec6::Zero();
  EXPECT_EQ(pairContactEnergy(kec, ri, rj, Vec3::Zero(), Vec3(ri + rj + 1e-9, 0, 0), &g), 0.0);
  EXPECT_EQ(g.norm(), 0.0);
  EXPECT_EQ(pairContactForce(kec, ri, rj, Vec3::Zero(), Vec3(ri + rj + 1e-9, 0, 0)), 0.0);
  std::printf("[T-G1 pair contact] worst relative FD error: gradient %.2e, Hessian %.2e\n", worstG, worstH);
}

namespace {

std::vector<Obstacle> someObstacles() {
  std::vector<Obstacle> v;
  Obstacle plane;
  plane.kind = Obstacle::Kind::Plane;
  plane.point = Vec3(0.1, 0.2, -0.3);
  plane.normal = Vec3(0.3, -0.2, 1.0).normalized();
  plane.velocity = Vec3(0.0, 0.0, 0.5);
  v.push_back(plane);
  Obstacle box;
  box.kind = Obstacle::Kind::Box;
  box.point = Vec3(0.1, -0.1, 0.2);
  box.halfExtents = Vec3(0.3, 0.2, 0.1);
  box.velocity = Vec3(0.2, 0.0, 0.0);
  v.push_back(box);
  box.hollow = true;
  v.push_back(box);
  Obstacle cyl;
  cyl.kind = Obstacle::Kind::Cylinder;
  cyl.point = Vec3(-0.1, 0.0, 0.3);
  cyl.axis = Vec3(0.2, 1.0, -0.1).normalized();
  cyl.radius = 0.15;
  cyl.halfLength = 0.25;
  cyl.velocity = Vec3(0.0, -0.3, 0.1);
  v.push_back(cyl);
  return v;
}

// Reference signed distance by brute force on the boundary is costly; instead, closed-form
// distances in the obstacle's frame for the test points below.
struct ObstaclePoint {
  Vec3 p;
  double g;
};

}  // namespace

// Obstacle signed distances: values against closed forms in every region, and gradient (unit,
// against FD) and Hessian (against FD of the gradient) everywhere the distance is smooth.
TEST(BdemElements, ObstacleDistancesAndDerivatives) {
  const std::vector<Obstacle> obs = someObstacles();
  const double t = 0.4;
  // Values in closed form.
  {
    const Obstacle& pl = obs[0];
    const Vec3 c = pl.point + t * pl.velocity;
    EXPECT_NEAR(pl.distance(c + 0.07 * pl.normal + 0.3 * pl.normal.unitOrthogonal(), t), 0.07, 1e-15);
    const Obstacle& bx = obs[1];
    const Vec3 cb = bx.point + t * bx.velocity;
    EXPECT_NEAR(bx.distance(cb + Vec3(0.35, 0.0, 0.0), t), 0.05, 1e-14);                    // face
    EXPECT_NEAR(bx.distance(cb + Vec3(0.33, -0.24, 0.0), t), 0.05, 1e-14);                  // edge (3-4-5)
    EXPECT_NEAR(bx.distance(cb + Vec3(-0.32, 0.22, 0.11), t), std::sqrt(0.0009), 1e-14);    // corner
    EXPECT_NEAR(bx.distance(cb + Vec3(0.0, 0.15, 0.0), t), -0.05, 1e-14);                   // inside
    EXPECT_NEAR(obs[2].distance(cb + Vec3(0.0, 0.15, 0.0), t), 0.05, 1e-14);                // hollow inside
    EXPECT_NEAR(obs[2].distance(cb + Vec3(0.35, 0.0, 0.0), t), -0.05, 1e-14);               // hollow outside
    const Obstacle& cy = obs[3];
    const Vec3 cc = cy.point + t * cy.velocity;
    const Vec3 e = cy.axis.unitOrthogonal();
    EXPECT_NEAR(cy.distance(cc + 0.2 * e + 0.1 * cy.axis, t), 0.05, 1e-14);                // mantle
    EXPECT_NEAR(cy.distance(cc + 0.1 * e - 0.3 * cy.axis, t), 0.05, 1e-14);                // cap
    EXPECT_NEAR(cy.distance(cc + 0.18 * e + 0.29 * cy.axis, t), 0.05, 1e-14);              // rim (3-4-5)
    EXPECT_NEAR(cy.distance(cc + 0.12 * e + 0.1 * cy.axis, t), -0.03, 1e-14);              // inside, near mantle
    EXPECT_NEAR(cy.distance(cc + 0.05 * e + 0.22 * cy.axis, t), -0.03, 1e-14);             // inside, near cap
  }
  // Derivatives at random points (away from the kinks where the closest feature switches).
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> U(-0.5, 0.5);
  double worstG = 0, worstH = 0;
  int checked = 0;
  for (const Obstacle& o : obs) {
    for (int trial = 0; trial < 200; ++trial) {
      const Vec3 p = o.point + t * o.velocity + Vec3(U(rng), U(rng), U(rng));
      Vec3 g;
      Mat3 H;
      o.distance(p, t, &g, &H);
      EXPECT_NEAR(g.norm(), 1.0, 1e-12);
      const double h = 1e-6;
      Vec3 gfd;
      Mat3 Hfd;
      bool smooth = true;
      for (int k = 0; k < 3; ++k) {
        Vec3 pp = p, pm = p;
        pp[k] += h;
        pm[k] -= h;
        Vec3 gp, gm;
        gfd[k] = (o.distance(pp, t, &gp) - o.distance(pm, t, &gm)) / (2 * h);
        Hfd.col(k) = (gp - gm) / (2 * h);
        if ((gp - g).norm() > 1e-2 || (gm - g).norm() > 1e-2) smooth = false;  // a kink within h
      }
      if (!smooth) continue;
      ++checked;
      const double eg = (gfd - g).cwiseAbs().maxCoeff();
      const double eh = (Hfd - H).cwiseAbs().maxCoeff() / std::max(1.0, H.cwiseAbs().maxCoeff());
      EXPECT_LT(eg, 1e-8);
      EXPECT_LT(eh, 1e-5);
      worstG = std::max(worstG, eg);
      worstH = std::max(worstH, eh);
    }
  }
  EXPECT_GT(checked, 700);
  std::printf("[obstacles] %d points: worst FD error gradient %.2e (abs), Hessian %.2e (rel)\n", checked, worstG,
              worstH);
}

TEST(BdemElements, ObstacleContactDerivatives) {
  const std::vector<Obstacle> obs = someObstacles();
  const double t = 0.25, kc = 2e5, r = 0.04;
  std::mt19937 rng(22);
  std::uniform_real_distribution<double> U(-0.45, 0.45);
  double worstG = 0, worstH = 0;
  int active = 0;
  for (const Obstacle& o : obs) {
    for (int trial = 0; trial < 200; ++trial) {
      const Vec3 p = o.point + t * o.velocity + Vec3(U(rng), U(rng), U(rng));
      Vec3 n;
      Mat3 Hg;
      const double phi = o.distance(p, t, &n, &Hg) - r;
      Vec3 g = Vec3::Zero();
      Mat3 H = Mat3::Zero();
      const double V = obstacleContactEnergy(kc, o, t, r, p, &g, &H);
      if (phi >= 0) {
        EXPECT_EQ(V, 0.0);
        EXPECT_EQ(g.norm(), 0.0);
        EXPECT_EQ(obstacleContactForce(kc, o, t, r, p), 0.0);
        continue;
      }
      if (phi > -1e-5) continue;  // too close to activation for central differences
      EXPECT_NEAR(V, 0.5 * kc * phi * phi, 1e-14 * V);
      EXPECT_NEAR(obstacleContactForce(kc, o, t, r, p), -kc * phi, 1e-12 * kc * std::abs(phi));
      const double h = 1e-7;
      Vec3 gfd;
      Mat3 Hfd;
      bool smooth = true;
      for (int k = 0; k < 3; ++k) {
        Vec3 pp = p, pm = p;
        pp[k] += h;
        pm[k] -= h;
        Vec3 gp = Vec3::Zero(), gm = Vec3::Zero();
        gfd[k] = (obstacleContactEnergy(kc, o, t, r, pp, &gp) - obstacleContactEnergy(kc, o, t, r, pm, &gm)) / (2 * h);
        Hfd.col(k) = (gp - gm) / (2 * h);
        Vec3 np, nm;
        o.distance(pp, t, &np);
        o.distance(pm, t, &nm);
        if ((np - n).norm() > 1e-3 || (nm - n).norm() > 1e-3) smooth = false;
      }
      if (!smooth) continue;
      ++active;
      const double eg = (gfd - g).cwiseAbs().maxCoeff() / g.cwiseAbs().maxCoeff();
      // Projected Hessian = FD Hessian - kc phi hess g.
      const double eh = (Hfd - kc * phi * Hg - H).cwiseAbs().maxCoeff() / H.cwiseAbs().maxCoeff();
      EXPECT_LT(eg, 1e-6);
      EXPECT_LT(eh, 1e-6);
      worstG = std::max(worstG, eg);
      worstH = std::max(worstH, eh);
    }
  }
  EXPECT_GT(active, 100);
  std::printf("[T-G1 obstacle contact] %d active points: worst relative FD error gradient %.2e, Hessian %.2e\n",
              active, worstG, worstH);
}

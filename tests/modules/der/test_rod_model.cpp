// The DER strand model (paper §III; acceptance tests A1-A4, README decision 34): kinematic gradients and
// energy gradients against finite differences, zero force at the rest state, frame-flip
// invariance of the 4D model and failure of the 2D averaged-frame model, Hessian properties.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <vector>

#include "framework/core/error.hpp"
#include "modules/der/banded.hpp"
#include "modules/der/rod_energy.hpp"
#include "modules/der/rod_kinematics.hpp"
#include "modules/der/rod_mass.hpp"
#include "modules/der/strand.hpp"

using namespace kinema::der;

namespace {

// A random non-degenerate strand: a wavy 3D curve with edge lengths around `spacing`, random
// edge angles.
std::vector<double> randomStrand(int N, std::mt19937& rng, double spacing = 0.01) {
  std::normal_distribution<double> g(0.0, 1.0);
  StrandGeometry s;
  Vec3 x = Vec3::Zero();
  Vec3 dir(1.0, 0.2, -0.3);
  dir.normalize();
  for (int v = 0; v < N; ++v) {
    s.x.push_back(x);
    Vec3 turn(g(rng), g(rng), g(rng));
    dir = (dir + 0.4 * turn).normalized();
    x += spacing * (1.0 + 0.2 * g(rng)) * dir;
  }
  for (int j = 0; j < N - 1; ++j) s.theta.push_back(0.7 * g(rng));
  return interleave(s);
}

// Moves a strand randomly by `amp` x spacing, so that frames transported from the original shape
// carry a non-zero reference twist.
std::vector<double> perturbed(const std::vector<double>& q, std::mt19937& rng, double amp) {
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<double> p = q;
  for (double& v : p) v += amp * g(rng);
  return p;
}

// A strand with non-zero reference twist and its frames: random shape, frames built there,
// then the shape is moved and the frames time-parallel transported.
struct TwistedStrand {
  std::vector<double> q;
  ReferenceFrames frames;
};
TwistedStrand twistedStrand(int N, unsigned seed) {
  std::mt19937 rng(seed);
  TwistedStrand s;
  const std::vector<double> q0 = randomStrand(N, rng);
  s.frames = initialFrames(q0);
  s.q = perturbed(q0, rng, 0.004);
  transportFrames(s.frames, s.q);
  return s;
}

// Finite-difference step of DOF d: 1e-6 relative to the natural scale (radians for angles, the
// edge length for positions, so that truncation error is O(1e-12) relative).
double fdStep(int d, double spacing = 0.01) { return (d % 4 == 3) ? 1e-6 : 1e-6 * spacing; }

// Central finite difference of a function of q in direction e_d, with frames transported in time
// from `base` (as the forward simulation does).
template <class F>
auto centralDifference(const std::vector<double>& q, const ReferenceFrames& base, int d, double h, F f) {
  std::vector<double> qp = q, qm = q;
  qp[d] += h;
  qm[d] -= h;
  ReferenceFrames fp = base, fm = base;
  transportFrames(fp, qp);
  transportFrames(fm, qm);
  return ((f(qp, fp) - f(qm, fm)) / (2.0 * h)).eval();
}

double maxAbs(const Eigen::MatrixXd& m) { return m.cwiseAbs().maxCoeff(); }

}  // namespace

TEST(DerStrand, InterleaveRoundTrip) {
  std::mt19937 rng(7);
  const std::vector<double> q = randomStrand(6, rng);
  EXPECT_EQ(static_cast<int>(q.size()), dofCount(6));
  const StrandGeometry g = deinterleave(q);
  ASSERT_EQ(g.vertices(), 6);
  EXPECT_EQ(interleave(g), q);
  EXPECT_EQ(g.x[2][1], q[xIndex(2, 1)]);
  EXPECT_EQ(g.theta[3], q[thetaIndex(3)]);
}

TEST(DerKinematics, FramesAreOrthonormalAndSpaceParallel) {
  std::mt19937 rng(3);
  const std::vector<double> q = randomStrand(10, rng);
  const ReferenceFrames f = initialFrames(q);
  const RodKinematics K = computeKinematics(q, f);
  for (int j = 0; j < 9; ++j) {
    EXPECT_NEAR(K.m1[j].norm(), 1.0, 1e-14);
    EXPECT_NEAR(K.m2[j].norm(), 1.0, 1e-14);
    EXPECT_NEAR(K.m1[j].dot(K.tangent[j]), 0.0, 1e-14);
    EXPECT_NEAR(K.m2[j].dot(K.tangent[j]), 0.0, 1e-14);
    EXPECT_NEAR(K.m1[j].cross(K.m2[j]).dot(K.tangent[j]), 1.0, 1e-14);
  }
  // Space-parallel transport has no reference twist.
  for (int i = 1; i < 9; ++i) EXPECT_NEAR(f.refTwist[i], 0.0, 1e-13);
}

// A1 (kinematic part): d kappa / d y and d m / d y against central differences with frames
// transported in time from the base configuration. Non-zero reference twist, random theta.
TEST(DerKinematics, A1_CurvatureAndTwistGradientsMatchFiniteDifferences) {
  double worstK = 0.0, worstM = 0.0;
  for (unsigned seed : {1u, 2u, 3u}) {
    const int N = 7;
    const TwistedStrand s = twistedStrand(N, seed);
    double maxRefTwist = 0.0;
    for (int i = 1; i < N - 1; ++i) maxRefTwist = std::max(maxRefTwist, std::abs(s.frames.refTwist[i]));
    ASSERT_GT(maxRefTwist, 1e-3) << "the test strand must carry reference twist";
    const RodKinematics K = computeKinematics(s.q, s.frames);
    for (int i = 1; i < N - 1; ++i) {
      Mat4x11 fdK;
      Vec11 fdM;
      for (int a = 0; a < 11; ++a) {
        const int d = stencilOffset(i) + a;
        const double h = fdStep(d);
        fdK.col(a) = centralDifference(s.q, s.frames, d, h, [&](const auto& q, const auto& f) {
          return computeKinematics(q, f).kappa[i];
        });
        fdM[a] = centralDifference(s.q, s.frames, d, h, [&](const auto& q, const auto& f) {
          return Eigen::Matrix<double, 1, 1>(computeKinematics(q, f).twist[i]);
        })(0);
      }
      const double errK = maxAbs(fdK - K.gradKappa[i]) / maxAbs(K.gradKappa[i]);
      const double errM = maxAbs(fdM - K.gradTwist[i]) / maxAbs(K.gradTwist[i]);
      EXPECT_LE(errK, 1e-6) << "seed " << seed << " vertex " << i;
      EXPECT_LE(errM, 1e-6) << "seed " << seed << " vertex " << i;
      worstK = std::max(worstK, errK);
      worstM = std::max(worstM, errM);
    }
    // DOFs outside the stencil do not change kappa_i.
    const int i = 3;
    const int d = stencilOffset(i) + 11;
    const Vec4 outside = centralDifference(s.q, s.frames, d, fdStep(d), [&](const auto& q, const auto& f) {
      return computeKinematics(q, f).kappa[i];
    });
    EXPECT_LE(outside.cwiseAbs().maxCoeff(), 1e-8);
  }
  std::printf("  max relative FD error: d kappa / d y %.2e, d m / d y %.2e\n", worstK, worstM);
}

// Reference twist stays continuous (no 2 pi jumps) under a large twisting motion.
TEST(DerKinematics, ReferenceTwistIsContinuousInTime) {
  // Straight strand along x; rotate the last edge about the axis of the strand by small steps:
  // reference twist accumulates past pi without wrapping.
  const int N = 4;
  StrandGeometry g;
  for (int v = 0; v < N; ++v) g.x.push_back(Vec3(0.01 * v, 0.0, 0.0));
  g.theta.assign(N - 1, 0.0);
  std::vector<double> q = interleave(g);
  // Bend the strand so that rotating the tip edge around the x axis makes the tangent sweep a cone.
  ReferenceFrames f = initialFrames(q);
  double previous = 0.0;
  const int steps = 400;
  for (int k = 1; k <= steps; ++k) {
    const double phi = 4.0 * std::numbers::pi * k / steps;  // two turns
    const Vec3 tip = Vec3(0.02, 0.0, 0.0) + 0.01 * Vec3(std::cos(1.2), std::sin(1.2) * std::cos(phi),
                                                         std::sin(1.2) * std::sin(phi));
    for (int c = 0; c < 3; ++c) q[xIndex(3, c)] = tip[c];
    transportFrames(f, q);
    EXPECT_LT(std::abs(f.refTwist[2] - previous), 0.2) << "step " << k;
    previous = f.refTwist[2];
  }
  // Holonomy of a cone sweep: 2 turns give 2 x 2 pi (1 - cos 1.2) accumulated reference twist
  // (up to sign), beyond 2 pi: the value was unwrapped continuously.
  EXPECT_NEAR(std::abs(previous), 2.0 * 2.0 * std::numbers::pi * (1.0 - std::cos(1.2)), 0.05);
}

namespace {

// Energy and force of one strand state, for finite differences.
struct Model {
  RestState rest;
  double radius;
  CurvatureModel model = CurvatureModel::FourD;
  ElasticEnergy energy(const std::vector<double>& q, const ReferenceFrames& f) const {
    return elasticEnergy(computeKinematics(q, f, model), rest, radius);
  }
  Eigen::VectorXd force(const std::vector<double>& q, const ReferenceFrames& f) const {
    Eigen::VectorXd out(q.size());
    elasticForce(computeKinematics(q, f, model), rest, radius, std::span<double>(out.data(), out.size()));
    return out;
  }
};

// Rest state of a different configuration (so that every term is strained), with only the
// selected terms switched on.
RestState strainedRest(const TwistedStrand& s, unsigned seed, bool st, bool be, bool tw) {
  std::mt19937 rng(seed);
  const std::vector<double> q0 = perturbed(s.q, rng, 0.002);
  ReferenceFrames f0 = s.frames;
  transportFrames(f0, q0);
  Material mat;
  RestState r = restStateFrom(q0, f0, mat, /*synchronizeKappa=*/seed % 2 == 0);
  for (double& c : r.cStretch) c = st ? c : 0.0;
  for (double& c : r.cBend) c = be ? c : 0.0;
  for (double& c : r.cTwist) c = tw ? c : 0.0;
  return r;
}

// Dense copy of a banded symmetric matrix.
Eigen::MatrixXd dense(const BandedSymmetric& A) {
  const int n = A.size();
  Eigen::MatrixXd D = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = std::max(0, i - A.bandwidth()); j <= std::min(n - 1, i + A.bandwidth()); ++j) D(i, j) = A.at(i, j);
  return D;
}

}  // namespace

// A1 (energy part): -f = grad E_st, grad E_be (4D), grad E_tw over all 4N - 1 DOFs against
// central differences of the energies, frames transported in time, non-zero reference twist.
TEST(DerEnergy, A1_EnergyGradientsMatchFiniteDifferences) {
  const int N = 8;
  const char* names[4] = {"stretch", "bend", "twist", "bend (2D averaged)"};
  double worst[4] = {0, 0, 0, 0};
  for (unsigned seed : {11u, 12u}) {
    const TwistedStrand s = twistedStrand(N, seed);
    for (int term = 0; term < 4; ++term) {
      Model m{strainedRest(s, seed, term == 0, term % 2 == 1, term == 2), Material{}.radius,
              term == 3 ? CurvatureModel::TwoDAveraged : CurvatureModel::FourD};
      const Eigen::VectorXd f = m.force(s.q, s.frames);
      Eigen::VectorXd fd(f.size());
      for (int d = 0; d < f.size(); ++d)
        fd[d] = centralDifference(s.q, s.frames, d, fdStep(d), [&](const auto& q, const auto& fr) {
          return Eigen::Matrix<double, 1, 1>(m.energy(q, fr).total());
        })(0);
      ASSERT_GT(f.cwiseAbs().maxCoeff(), 0.0);
      const double err = maxAbs(fd + f) / maxAbs(f);
      worst[term] = std::max(worst[term], err);
      EXPECT_LE(err, 1e-6) << names[term] << " seed " << seed;
      // The energy returned with the force is the energy.
      EXPECT_DOUBLE_EQ(m.energy(s.q, s.frames).total(), elasticForce(computeKinematics(s.q, s.frames, m.model), m.rest,
                                                                     m.radius, std::span<double>(fd.data(), fd.size()))
                                                            .total());
    }
  }
  std::printf("  max relative FD error of grad E: stretch %.2e, bend %.2e, twist %.2e, 2D bend %.2e\n", worst[0],
              worst[1], worst[2], worst[3]);
}

// A2: rest state from q, gravity off: the elastic force vanishes.
TEST(DerEnergy, A2_RestStateHasZeroForce) {
  const Material mat;
  // (a) random twisted strand, rest taken as is (no kbar synchronisation): exact rest state.
  // (b) untwisted strand (theta = 0, space-parallel frames) with synchronised kbar: kbar_2 = kbar_0
  //     holds there, so synchronisation keeps it a rest state.
  for (int variant = 0; variant < 2; ++variant) {
    std::vector<double> q;
    ReferenceFrames frames;
    if (variant == 0) {
      const TwistedStrand s = twistedStrand(20, 5);
      q = s.q;
      frames = s.frames;
    } else {
      std::mt19937 rng(9);
      q = randomStrand(20, rng);
      for (int j = 0; j < 19; ++j) q[thetaIndex(j)] = 0.0;
      frames = initialFrames(q);
    }
    const RestState rest = restStateFrom(q, frames, mat, variant == 1);
    std::vector<double> f(q.size());
    const ElasticEnergy E = elasticForce(computeKinematics(q, frames), rest, mat.radius, f);
    // Force scale: the smallest physical one, the bending force of a unit curvature over one edge.
    const double lbar = rest.restLength[1];
    const double scale = mat.cBend * std::numbers::pi * std::pow(mat.radius, 4) / (lbar * lbar);
    double fmax = 0.0;
    for (double v : f) fmax = std::max(fmax, std::abs(v));
    EXPECT_LE(fmax, 1e-12 * scale) << "variant " << variant;
    EXPECT_LE(E.total(), 1e-24 * scale * lbar);
    // And synchronisation on the twisted strand does change the rest state (it is a real choice).
    if (variant == 0) {
      const RestState synced = restStateFrom(q, frames, mat, true);
      elasticForce(computeKinematics(q, frames), synced, mat.radius, f);
      double fs = 0.0;
      for (double v : f) fs = std::max(fs, std::abs(v));
      EXPECT_GT(fs, 1e-6 * scale);
    }
  }
}

// Mass and gravity (README decision 12): vertex masses sum to rho pi r^2 times the rest length, one-sided at
// the ends; twist inertia rho pi r^4 lbar / 2; gravity on vertex DOFs only.
TEST(DerMass, MassMatrixAndGravity) {
  Material mat;
  mat.gravity = Vec3(0.5, -1.0, -9.81);
  const std::vector<double> lbar = {0.01, 0.02, 0.015, 0.005};
  const std::vector<double> M = massDiagonal(lbar, mat);
  ASSERT_EQ(static_cast<int>(M.size()), dofCount(5));
  const double A = std::numbers::pi * mat.radius * mat.radius;
  double total = 0.0;
  for (int v = 0; v < 5; ++v) {
    EXPECT_EQ(M[xIndex(v, 0)], M[xIndex(v, 2)]);
    total += M[xIndex(v, 0)];
  }
  EXPECT_NEAR(total, mat.density * A * 0.05, 1e-15 * total);
  EXPECT_NEAR(M[xIndex(0)], mat.density * A * 0.005, 1e-20);
  EXPECT_NEAR(M[xIndex(4)], mat.density * A * 0.0025, 1e-20);
  EXPECT_NEAR(M[thetaIndex(1)], mat.density * A * mat.radius * mat.radius * 0.02 / 2.0, 1e-30);
  const std::vector<double> f = gravityForce(M, mat.gravity);
  Vec3 sum = Vec3::Zero();
  for (int v = 0; v < 5; ++v) sum += Vec3(f[xIndex(v, 0)], f[xIndex(v, 1)], f[xIndex(v, 2)]);
  EXPECT_LE((sum - total * mat.gravity).norm(), 1e-14 * total * mat.gravity.norm());
  for (int j = 0; j < 4; ++j) EXPECT_EQ(f[thetaIndex(j)], 0.0);
  EXPECT_THROW(massDiagonal({0.01, 0.0, 0.01}, mat), kinema::InputError);
}

namespace {

// A straight horizontal strand of N vertices along x, theta = 0 (§VI-A; S1).
std::vector<double> straightStrand(int N, double spacing = 0.01) {
  StrandGeometry g;
  for (int v = 0; v < N; ++v) g.x.push_back(Vec3(spacing * v, 0.0, 0.0));
  g.theta.assign(N - 1, 0.0);
  return interleave(g);
}

// theta += pi on odd edges.
std::vector<double> flipped(std::vector<double> q) {
  for (int j = 1; thetaIndex(j) < static_cast<int>(q.size()); j += 2) q[thetaIndex(j)] += std::numbers::pi;
  return q;
}

}  // namespace

// A3: frame flip. 4D: energies and forces identical to the unflipped strand for random
// perturbations; 2D averaged frames: the bending force vanishes (paper Fig. 2b).
TEST(DerEnergy, A3_FrameFlipInvariance4DAndFailureOf2DAveraged) {
  const int N = 30;
  const Material mat;
  const std::vector<double> q0 = straightStrand(N);
  const std::vector<double> q0f = flipped(q0);
  const ReferenceFrames frames0 = initialFrames(q0);
  std::mt19937 rng(21);
  double worstE = 0.0, worstF = 0.0, ratio2D = 0.0;
  for (int trial = 0; trial < 5; ++trial) {
    std::normal_distribution<double> g(0.0, 1.0);
    std::vector<double> dq(q0.size());
    for (int d = kFixedDofs; d < static_cast<int>(dq.size()); ++d) dq[d] = (d % 4 == 3 ? 0.05 : 1e-4) * g(rng);
    for (CurvatureModel model : {CurvatureModel::FourD, CurvatureModel::TwoDAveraged}) {
      // 4D: perturb positions and angles. 2D: bend the strand (positions only), as gravity does
      // in Fig. 2b; twisting the flipped frames would give the averaged frames a first-order part.
      std::vector<double> q = q0, qf = q0f;
      for (std::size_t d = 0; d < q.size(); ++d) {
        const double step = (model == CurvatureModel::TwoDAveraged && d % 4 == 3) ? 0.0 : dq[d];
        q[d] += step;
        qf[d] += step;
      }
      ReferenceFrames f = frames0, ff = frames0;
      transportFrames(f, q);
      transportFrames(ff, qf);
      const RestState rest = restStateFrom(q0, frames0, mat);
      const RestState restF = restStateFrom(q0f, frames0, mat);
      // Bending alone, to see the curvature model.
      RestState bendOnly = rest, bendOnlyF = restF;
      for (auto* r : {&bendOnly, &bendOnlyF}) {
        std::fill(r->cStretch.begin(), r->cStretch.end(), 0.0);
        std::fill(r->cTwist.begin(), r->cTwist.end(), 0.0);
      }
      const Model m{rest, mat.radius, model}, mf{restF, mat.radius, model};
      const Model b{bendOnly, mat.radius, model}, bf{bendOnlyF, mat.radius, model};
      const ElasticEnergy E = m.energy(q, f), Ef = mf.energy(qf, ff);
      const Eigen::VectorXd F = m.force(q, f), Ff = mf.force(qf, ff);
      const Eigen::VectorXd B = b.force(q, f), Bf = bf.force(qf, ff);
      ASSERT_GT(E.bend, 0.0);
      if (model == CurvatureModel::FourD) {
        for (auto [a, c] : {std::pair{E.stretch, Ef.stretch}, {E.bend, Ef.bend}, {E.twist, Ef.twist}})
          worstE = std::max(worstE, std::abs(a - c) / E.total());
        worstF = std::max(worstF, maxAbs(F - Ff) / maxAbs(F));
        worstF = std::max(worstF, maxAbs(B - Bf) / maxAbs(B));
      } else {
        // Unflipped, the 2D model bends like the 4D one; flipped, its bending force is gone.
        ratio2D = std::max(ratio2D, maxAbs(Bf) / maxAbs(B));
        EXPECT_LT(Ef.bend, 1e-4 * E.bend);
      }
    }
  }
  EXPECT_LE(worstE, 1e-10);
  EXPECT_LE(worstF, 1e-10);
  EXPECT_LT(ratio2D, 1e-3);
  std::printf("  4D flip: max rel energy diff %.2e, force diff %.2e; 2D flipped/unflipped bending force %.2e\n",
              worstE, worstF, ratio2D);
}

// A4: the forward Hessian of the free DOFs is symmetric PSD with half-bandwidth 10, equals the
// exact Hessian (finite differences of f) at the rest state where Gauss-Newton is exact, and
// M / dt^2 + H is SPD.
TEST(DerEnergy, A4_HessianIsBandedSymmetricPsd) {
  const int N = 7;
  const Material mat;
  const TwistedStrand s = twistedStrand(N, 31);
  const int n = freeDofCount(N);
  // (a) strained: PSD.
  {
    const RestState rest = strainedRest(s, 32, true, true, true);
    BandedSymmetric H(n, kForwardBandwidth);
    addElasticHessian(computeKinematics(s.q, s.frames), rest, mat.radius, H);
    EXPECT_EQ(H.bandwidth(), 10);
    const Eigen::MatrixXd D = dense(H);
    EXPECT_LE(maxAbs(D - D.transpose()), 0.0);
    // The band is used up to its edge: y_i spans 11 contiguous DOFs.
    double edge = 0.0;
    for (int i = 10; i < n; ++i) edge = std::max(edge, std::abs(D(i, i - 10)));
    EXPECT_GT(edge, 0.0);
    const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(D).eigenvalues();
    EXPECT_GE(ev.minCoeff(), -1e-12 * ev.maxCoeff());
    // M / dt^2 + H is SPD.
    const std::vector<double> M = massDiagonal(rest.restLength, mat);
    const double dt = 1.0 / 240.0;
    Eigen::MatrixXd A = D;
    for (int a = 0; a < n; ++a) A(a, a) += M[a + kFixedDofs] / (dt * dt);
    const Eigen::VectorXd evA = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(A).eigenvalues();
    EXPECT_GT(evA.minCoeff(), 0.0);
    std::printf("  H eigenvalues [%.3e, %.3e]; M/dt^2 + H eigenvalues [%.3e, %.3e]\n", ev.minCoeff(), ev.maxCoeff(),
                evA.minCoeff(), evA.maxCoeff());
  }
  // (b) at the rest state (no kbar synchronisation) GN is exact: H = -df/dq on the free DOFs.
  {
    const Model m{restStateFrom(s.q, s.frames, mat, false), mat.radius};
    BandedSymmetric H(n, kForwardBandwidth);
    addElasticHessian(computeKinematics(s.q, s.frames), m.rest, mat.radius, H);
    const Eigen::MatrixXd D = dense(H);
    Eigen::MatrixXd fd(n, n);
    for (int a = 0; a < n; ++a) {
      const int d = a + kFixedDofs;
      const Eigen::VectorXd df = centralDifference(s.q, s.frames, d, fdStep(d), [&](const auto& q, const auto& fr) {
        return m.force(q, fr);
      });
      fd.col(a) = -df.tail(n);
    }
    const double err = maxAbs(fd - D) / maxAbs(D);
    EXPECT_LE(err, 1e-6);
    std::printf("  rest-state Hessian vs FD of the force: rel err %.2e\n", err);
  }
}

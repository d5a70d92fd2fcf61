// Parameter vector, scaling, bounds, force Jacobian and BCQP assembly of the DER optimisation
// (paper §IV; acceptance tests B1-B4, README decision 34).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <vector>

#include "framework/core/error.hpp"
#include "modules/der/force_jacobian.hpp"
#include "modules/der/parameters.hpp"
#include "modules/der/rod_kinematics.hpp"
#include "modules/der/strand.hpp"

namespace kinema::der {
namespace {

// A curved, twisted strand of N vertices (a perturbed helix) with non-zero angles, so that every
// kinematic quantity (kappa, reference twist, m) is generic.
std::vector<double> curvedStrand(int N, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  StrandGeometry g;
  const double h = 0.2 / (N - 1);
  for (int i = 0; i < N; ++i) {
    const double phi = 0.35 * i;
    g.x.push_back(Vec3(0.01 * std::cos(phi) + 0.1 * h * u(rng), 0.01 * std::sin(phi) + 0.1 * h * u(rng),
                       -h * i + 0.1 * h * u(rng)));
  }
  for (int j = 0; j < N - 1; ++j) g.theta.push_back(0.3 * u(rng));
  return interleave(g);
}

// Naive rest state of q (rest = modelled values) with given stiffness.
RestState restOf(const RodKinematics& K, double cst, double cbe, double ctw) {
  const int N = K.N;
  RestState r;
  r.restLength = K.length;
  r.restKappa.assign(N, Vec4::Zero());
  r.restTwist.assign(N, 0.0);
  for (int i = 1; i <= N - 2; ++i) {
    r.restKappa[i] = K.kappa[i];
    r.restTwist[i] = K.twist[i];
  }
  r.cStretch.assign(N - 1, cst);
  r.cBend.assign(N, cbe);
  r.cTwist.assign(N, ctw);
  return r;
}

// A force model with a random positive mass and gravity-like external force.
StrandForceModel makeModel(const RodKinematics& K, const RestState& rest, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  const int n = constraintCount(K.N);
  std::vector<double> mass(n), fext(n, 0.0);
  for (int r = 0; r < n; ++r) {
    const bool isTheta = (r + kFixedDofs) % 4 == 3;
    mass[r] = (isTheta ? 1e-16 : 7e-8) * u(rng);
    if (!isTheta && (r + kFixedDofs) % 4 == 2) fext[r] = -9.81 * mass[r];
  }
  return StrandForceModel(K, 5e-5, rest.restLength[0], stiffnessScale(rest), mass, fext);
}

TEST(DerParameters, B1Sizes) {
  EXPECT_EQ(parameterCount(30), 196);
  EXPECT_EQ(constraintCount(30), 112);
  EXPECT_EQ(parameterCount(100), 686);
  EXPECT_EQ(constraintCount(100), 392);
  for (int N : {30, 100}) {
    const auto q = curvedStrand(N, 1);
    const RodKinematics K = computeKinematics(q, initialFrames(q));
    const RestState rest = restOf(K, 1e9, 1e9, 1e9);
    EXPECT_EQ(static_cast<int>(toParameters(rest, 1e9).size()), parameterCount(N));
    const StrandForceModel model = makeModel(K, rest, 2);
    std::vector<double> f(constraintCount(N));
    model.force(toParameters(rest, 1e9), f);
    ForceJacobianMatrix J(N);
    EXPECT_EQ(J.rows(), constraintCount(N));
    EXPECT_EQ(J.cols(), parameterCount(N));
  }
}

TEST(DerParameters, B4ScalingAndRoundTrip) {
  const int N = 30;
  const auto q = curvedStrand(N, 3);
  const RodKinematics K = computeKinematics(q, initialFrames(q));
  RestState rest = restOf(K, 1e9, 1e9, 1e9);
  const double s = stiffnessScale(rest);
  EXPECT_EQ(s, 1e9);
  const auto p = toParameters(rest, s);
  for (int i = 1; i <= N - 2; ++i) {
    EXPECT_EQ(p[paramIndex(i, kAlpha)], 1.0);
    EXPECT_EQ(p[paramIndex(i, kBeta)], 1.0);
    EXPECT_EQ(p[paramIndex(i, kGamma)], 1.0);
    EXPECT_EQ(p[paramIndex(i, kLbar)], K.length[i]);
    EXPECT_EQ(p[paramIndex(i, kKbar0)], K.kappa[i][0]);
    EXPECT_EQ(p[paramIndex(i, kMbar)], K.twist[i]);
  }
  // Vertical-strand scaling of §IV, §VI-D1: c_st = 1e3, others 1e9.
  RestState soft = restOf(K, 1e3, 1e9, 1e9);
  const double s2 = stiffnessScale(soft);
  EXPECT_NEAR(s2, (1e3 + 2e9) / 3.0, 1e-6);
  const auto p2 = toParameters(soft, s2);
  EXPECT_NEAR(p2[paramIndex(5, kAlpha)], 1.5e-6, 1e-12);
  EXPECT_NEAR(p2[paramIndex(5, kBeta)], 1.5, 1e-6);
  // Output c's are s * parameters, and kbar comes back synchronised bitwise.
  RestState out = soft;
  fromParameters(p2, s2, out);
  for (int i = 1; i <= N - 2; ++i) {
    EXPECT_EQ(out.cStretch[i], s2 * p2[paramIndex(i, kAlpha)]);
    EXPECT_EQ(out.cBend[i], s2 * p2[paramIndex(i, kBeta)]);
    EXPECT_EQ(out.cTwist[i], s2 * p2[paramIndex(i, kGamma)]);
    EXPECT_EQ(out.restKappa[i][2], out.restKappa[i][0]);
    EXPECT_EQ(out.restKappa[i][3], out.restKappa[i][1]);
  }
  EXPECT_EQ(out.restLength[0], soft.restLength[0]);  // lbar_0 is not a parameter
}

TEST(DerParameters, WeightsAndBounds) {
  const int N = 30;
  const auto q = curvedStrand(N, 4);
  const RodKinematics K = computeKinematics(q, initialFrames(q));
  const RestState rest = restOf(K, 1e9, 1e9, 1e9);
  const auto p0 = toParameters(rest, 1e9);
  const auto w = parameterWeights(N);
  BoundsOptions o;
  o.mu = 0.4;
  o.eta = 0.1;
  o.lbarMin = 1e-3;
  const ParameterBox box = parameterBounds(p0, o, Scheme::Alm);
  const ParameterBox frozen = parameterBounds(p0, o, Scheme::RestOnly);
  for (int a = 0; a < parameterCount(N); ++a) {
    const int slot = paramSlot(a);
    EXPECT_EQ(w[a], isStiffnessSlot(slot) ? 1e3 : 1.0);
    switch (slot) {
      case kKbar0:
      case kKbar1:
        EXPECT_EQ(box.lower[a], p0[a] - 0.4);
        EXPECT_EQ(box.upper[a], p0[a] + 0.4);
        break;
      case kMbar:
        EXPECT_EQ(box.lower[a], p0[a] - 0.1);
        EXPECT_EQ(box.upper[a], p0[a] + 0.1);
        break;
      case kLbar:
        EXPECT_EQ(box.lower[a], 1e-3);
        EXPECT_TRUE(std::isinf(box.upper[a]));
        break;
      default:
        EXPECT_EQ(box.lower[a], 1e-10);
        EXPECT_TRUE(std::isinf(box.upper[a]));
        EXPECT_EQ(frozen.lower[a], p0[a]);
        EXPECT_EQ(frozen.upper[a], p0[a]);
    }
    if (!isStiffnessSlot(slot)) {
      EXPECT_EQ(frozen.lower[a], box.lower[a]);
      EXPECT_EQ(frozen.upper[a], box.upper[a]);
    }
  }
  o.lbarMin = 1.0;  // above every rest length: p0 infeasible
  EXPECT_THROW(parameterBounds(p0, o, Scheme::Alm), InputError);
  EXPECT_EQ(schemeFromName("rest_only"), Scheme::RestOnly);
  EXPECT_THROW(schemeFromName("lagrange"), InputError);
}

// A random parameter vector near the naive one, so that l != lbar, kappa != kbar, m != mbar and
// every term of Eq. 24-31 is non-zero.
std::vector<double> perturbed(std::vector<double> p, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int a = 0; a < static_cast<int>(p.size()); ++a) {
    switch (paramSlot(a)) {
      case kLbar: p[a] *= 1.0 + 0.2 * u(rng); break;
      case kKbar0:
      case kKbar1:
      case kMbar: p[a] += 0.3 * u(rng); break;
      default: p[a] *= 1.0 + 0.5 * u(rng); break;
    }
  }
  return p;
}

TEST(DerForceJacobian, B2JacobianMatchesCentralDifferences) {
  // Two stiffness settings: all 1e9, and a negligible stretching stiffness, so that the bending
  // and twisting parts of the lbar columns (Eq. 26, 29) are not hidden behind stretching (Eq. 24).
  for (double cst : {1e9, 1e-3})
    for (int N : {5, 30}) {
      const auto q = curvedStrand(N, 10 + N);
      const RodKinematics K = computeKinematics(q, initialFrames(q));
      const RestState rest = restOf(K, cst, 1e9, 1e9);
      const StrandForceModel model = makeModel(K, rest, 11);
      const auto p = perturbed(toParameters(rest, model.scale()), 12);
      ForceJacobianMatrix J(N);
      model.jacobian(p, J);
      const int m = constraintCount(N);
      std::vector<double> fp(m), fm(m);
      double worst = 0.0;
      int worstColumn = -1;
      for (int a = 0; a < parameterCount(N); ++a) {
        // f is affine in every parameter but lbar, so those differences use a large step (no
        // cancellation against the much larger gravity and stretching forces). The kbar columns:
        // p holds kbar_0/kbar_1 only and the model always uses the synchronised (k0, k1, k0, k1),
        // so the difference includes the synchronisation (Eq. 27's sum).
        const double h = paramSlot(a) == kLbar ? 1e-6 * p[a] : 1e-1 * std::max(std::abs(p[a]), 1.0);
        auto pp = p, pm = p;
        pp[a] += h;
        pm[a] -= h;
        model.force(pp, fp);
        model.force(pm, fm);
        double num = 0.0, den = 0.0;
        for (int r = 0; r < m; ++r) {
          const double fd = (fp[r] - fm[r]) / (2.0 * h);
          num += (fd - J(r, a)) * (fd - J(r, a));
          den += fd * fd;
        }
        ASSERT_GT(den, 0.0) << "column " << a << " is zero";
        if (std::sqrt(num / den) > worst) {
          worst = std::sqrt(num / den);
          worstColumn = a;
        }
      }
      EXPECT_LE(worst, 1e-6) << "N = " << N << ", c_st = " << cst << ", worst column " << worstColumn
                             << " (slot " << paramSlot(worstColumn) << ")";
    }
}

TEST(DerForceJacobian, SignsOfEq24To31) {
  // A straight vertical strand stretched by 10%: lbar shortens => pulls x_{i+1} back towards x_i.
  const int N = 6;
  StrandGeometry g;
  for (int i = 0; i < N; ++i) g.x.push_back(Vec3(0, 0, -0.01 * i));
  g.theta.assign(N - 1, 0.0);
  const auto q = interleave(g);
  const RodKinematics K = computeKinematics(q, initialFrames(q));
  RestState rest = restOf(K, 1e9, 1e9, 1e9);
  for (auto& l : rest.restLength) l /= 1.1;
  const StrandForceModel model = makeModel(K, rest, 5);
  const auto p = toParameters(rest, model.scale());
  ForceJacobianMatrix J(N);
  model.jacobian(p, J);
  const int i = 3;
  const int rz = xIndex(i + 1, 2) - kFixedDofs;  // z of x_{i+1}
  // Eq. 24: d f_{i+1} / d lbar = s alpha pi r^2 l / lbar^2 t, t = -z: negative z entry.
  EXPECT_LT(J(rz, paramIndex(i, kLbar)), 0.0);
  // Eq. 25: d f_{i+1} / d alpha = -s pi r^2 (l/lbar - 1) t: positive z entry (l > lbar).
  EXPECT_GT(J(rz, paramIndex(i, kAlpha)), 0.0);
  const double expected = -model.scale() * std::numbers::pi * 5e-5 * 5e-5 * (0.01 / p[paramIndex(i, kLbar)] - 1.0) * -1.0;
  EXPECT_NEAR(J(rz, paramIndex(i, kAlpha)), expected, 1e-12 * std::abs(expected));
}

TEST(DerForceJacobian, BcqpMatrixAndGradient) {
  const int N = 12;
  const auto q = curvedStrand(N, 21);
  const RodKinematics K = computeKinematics(q, initialFrames(q));
  const RestState rest = restOf(K, 1e9, 1e9, 1e9);
  const StrandForceModel model = makeModel(K, rest, 22);
  const auto p0 = toParameters(rest, model.scale());
  const auto p = perturbed(p0, 23);
  const int n = parameterCount(N), m = constraintCount(N);
  ForceJacobianMatrix J(N);
  model.jacobian(p, J);
  const auto w = parameterWeights(N);
  const double rho = 1e6;
  BandedSymmetric A;
  assembleBcqpMatrix(J, model.inverseMass(), rho, w, A);
  ASSERT_EQ(A.size(), n);
  ASSERT_EQ(A.bandwidth(), kBcqpBandwidth);
  // Dense reference W + rho J^T M^-1 J; entries outside the band must vanish (half-bandwidth 21).
  const auto pattern = structuralPattern(N, SparsityModel::Full);
  double maxA = 0.0;
  for (int a = 0; a < n; ++a) maxA = std::max(maxA, std::abs(A.at(a, a)));
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      double ref = a == b ? w[a] : 0.0;
      for (int r = 0; r < m; ++r) ref += rho * J(r, a) * model.inverseMass()[r] * J(r, b);
      if (std::abs(a - b) <= kBcqpBandwidth) {
        EXPECT_NEAR(A.at(a, b), ref, 1e-12 * maxA) << a << "," << b;
      } else {
        EXPECT_EQ(ref, 0.0) << a << "," << b;
      }
      const bool structural = std::binary_search(pattern[a].begin(), pattern[a].end(), b);
      if (!structural) {
        EXPECT_EQ(ref, 0.0) << "outside the structural pattern: " << a << "," << b;
      }
    }
  // Eq. 22 against central differences of L(p) = R + lambda^T M^-1/2 f + rho/2 |M^-1/2 f|^2.
  std::mt19937 rng(7);
  std::normal_distribution<double> nd;
  std::vector<double> lambda(m), f(m), work(m), grad(n);
  for (auto& l : lambda) l = 1e-2 * nd(rng);
  model.force(p, f);
  almGradient(J,
              {.weights = w, .p = p, .p0 = p0, .invSqrtMass = model.inverseSqrtMass(),
               .invMass = model.inverseMass(), .lambda = lambda, .f = f, .rho = rho},
              work, grad);
  auto L = [&](const std::vector<double>& x) {
    std::vector<double> fx(m);
    model.force(x, fx);
    double v = 0.0;
    for (int a = 0; a < n; ++a) v += 0.5 * w[a] * (x[a] - p0[a]) * (x[a] - p0[a]);
    for (int r = 0; r < m; ++r) {
      const double c = model.inverseSqrtMass()[r] * fx[r];
      v += lambda[r] * c + 0.5 * rho * c * c;
    }
    return v;
  };
  double gmax = 0.0, err = 0.0;
  for (int a = 0; a < n; ++a) {
    const double h = 1e-6 * std::max(std::abs(p[a]), 1e-2);
    auto pp = p, pm = p;
    pp[a] += h;
    pm[a] -= h;
    const double fd = (L(pp) - L(pm)) / (2.0 * h);
    gmax = std::max(gmax, std::abs(grad[a]));
    err = std::max(err, std::abs(fd - grad[a]));
  }
  EXPECT_LE(err, 1e-5 * gmax);
}

TEST(DerForceJacobian, B3SparsityFigures) {
  const SparsityFigures r2 = structuralSparsity(2000, SparsityModel::RestOnly2D);
  const SparsityFigures r4 = structuralSparsity(2000, SparsityModel::RestOnly4D);
  const SparsityFigures full = structuralSparsity(2000, SparsityModel::Full);
  std::printf("N=2000: rest-only 2D %.4f nnz/row (hbw %d, fill %.4f); rest-only 4D %.4f (hbw %d, fill %.4f); "
              "full %.4f (hbw %d, fill %.4f), total nnz %lld / %lld / %lld\n",
              r2.nnzPerRow, r2.halfBandwidth, r2.envelopeFill, r4.nnzPerRow, r4.halfBandwidth, r4.envelopeFill,
              full.nnzPerRow, full.halfBandwidth, full.envelopeFill, r2.nnz, r4.nnz, full.nnz);
  EXPECT_EQ(r2.n, 4 * 2000 - 8);
  EXPECT_EQ(r4.n, 6 * 2000 - 12);
  EXPECT_EQ(full.n, 7 * 2000 - 14);
  EXPECT_NEAR(r2.nnzPerRow, 21.98, 0.01);
  EXPECT_NEAR(r4.nnzPerRow, 31.98, 0.01);
  EXPECT_NEAR(full.nnzPerRow, 34.98, 0.01);
  EXPECT_EQ(full.halfBandwidth, 21);
  EXPECT_EQ(r2.halfBandwidth, 12);
  EXPECT_EQ(r4.halfBandwidth, 18);
  EXPECT_NEAR(full.envelopeFill, 0.972, 0.002);
  EXPECT_EQ(r2.envelopeFill, 1.0);
  EXPECT_EQ(r4.envelopeFill, 1.0);
  EXPECT_EQ(r2.nnz, 175704);
  EXPECT_EQ(r4.nnz, 383364);
  EXPECT_EQ(full.nnz, 489204);
  // Small strands (our structural count with the same stencils as §VI-B).
  EXPECT_NEAR(structuralSparsity(30, SparsityModel::RestOnly2D).nnzPerRow, 20.93, 0.005);
  EXPECT_NEAR(structuralSparsity(100, SparsityModel::Full).nnzPerRow, 34.55, 0.005);
}

TEST(DerForceJacobian, NumericColumnsStayInsideTheirStencils) {
  // J's storage ranges (at most 15 rows) and the assembled A never need more than the band.
  const int N = 30;
  ForceJacobianMatrix J(N);
  int longest = 0;
  for (int a = 0; a < J.cols(); ++a) {
    longest = std::max(longest, J.rowCount(a));
    EXPECT_GE(J.rowBegin(a), 0);
    EXPECT_LE(J.rowBegin(a) + J.rowCount(a), J.rows());
    if (a > 0) {
      EXPECT_GE(J.rowBegin(a), J.rowBegin(a - 1));
    }
  }
  EXPECT_EQ(longest, 15);
}

}  // namespace
}  // namespace kinema::der

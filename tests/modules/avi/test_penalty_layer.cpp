// Penalty-layer formulas (the paper's §5, acceptance test U5 with eta = k = 1; the
// layer step rule of U9's ratio; the dyadic rounding of README decision 57). Oracles are the closed forms
// of the paper's §5: V_l(0) = 4 k eta^2 l, cumulative 2n(n+1), onsets 2 eta / l,
// B(2 eta / N) = k eta^2 (N^2 - 1) / 3, B(d) d^2 / (4/3 k eta^4) -> 1.
#include <gtest/gtest.h>

#include <cmath>

#include "framework/core/error.hpp"
#include "modules/avi/penalty_layer.hpp"

using namespace kinema;
using namespace kinema::avi;

TEST(PenaltyLayer, FullyCompressedEnergyAndCumulative) {
  for (int l = 1; l <= 3; ++l) EXPECT_DOUBLE_EQ(layerEnergy(0.0, 1.0, 1.0, l), 4.0 * l);
  const double expected[] = {4.0, 12.0, 24.0};  // 2 n (n + 1)
  double cum = 0.0;
  for (int n = 1; n <= 3; ++n) {
    cum += layerEnergy(0.0, 1.0, 1.0, n);
    EXPECT_DOUBLE_EQ(cum, expected[n - 1]);
  }
  // General eta, k: V_l(0) = 4 k eta^2 l.
  EXPECT_NEAR(layerEnergy(0.0, 0.3, 7.0, 5), 4.0 * 7.0 * 0.09 * 5, 1e-12);
}

TEST(PenaltyLayer, OnsetsAndGap) {
  EXPECT_DOUBLE_EQ(layerOnset(1.0, 1), 2.0);
  EXPECT_DOUBLE_EQ(layerOnset(1.0, 2), 1.0);
  EXPECT_DOUBLE_EQ(layerOnset(1.0, 3), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(layerGap(0.5, 1.0, 2), -0.5);
  // Each layer switches on exactly at its onset: zero at and above, positive just below.
  for (int l = 1; l <= 5; ++l) {
    const double dl = layerOnset(1.0, l);
    EXPECT_EQ(layerEnergy(dl, 1.0, 1.0, l), 0.0);
    EXPECT_EQ(layerEnergy(dl * 1.01, 1.0, 1.0, l), 0.0);
    EXPECT_GT(layerEnergy(dl * 0.99, 1.0, 1.0, l), 0.0);
    EXPECT_EQ(layerForce(dl * 1.01, 1.0, 1.0, l), 0.0);
    EXPECT_LT(layerForce(dl * 0.99, 1.0, 1.0, l), 0.0);
  }
}

TEST(PenaltyLayer, BarrierAtLayerBoundaries) {
  for (int N = 1; N <= 300; ++N) {
    const double d = 2.0 / N;
    const double expected = (static_cast<double>(N) * N - 1.0) / 3.0;
    EXPECT_NEAR(barrierEnergy(d, 1.0, 1.0), expected, 1e-12 * std::max(1.0, expected)) << "N = " << N;
  }
  EXPECT_NEAR(barrierEnergy(0.1, 1.0, 1.0), 133.0, 1e-10);
  EXPECT_NEAR(barrierEnergy(0.01, 1.0, 1.0), 13333.0, 1e-8);
  // Scaling with eta and k: B(2 eta / N) = k eta^2 (N^2 - 1) / 3.
  EXPECT_NEAR(barrierEnergy(2.0 * 0.25 / 7, 0.25, 3.0), 3.0 * 0.0625 * 48.0 / 3.0, 1e-12);
}

TEST(PenaltyLayer, BarrierInverseSquareAsymptote) {
  const double r1 = barrierEnergy(0.1, 1.0, 1.0) * 0.1 * 0.1 / (4.0 / 3.0);
  const double r2 = barrierEnergy(0.01, 1.0, 1.0) * 0.01 * 0.01 / (4.0 / 3.0);
  EXPECT_NEAR(r1, 0.9975, 1e-12);
  EXPECT_NEAR(r2, 0.999975, 1e-12);
  // Deep: the closed-form branch (more than 1e5 active layers) against the limit (4/3) k eta^4 / d^2.
  const double d = 2.0 / 400001;
  const double expected = (400001.0 * 400001.0 - 1.0) / 3.0;
  EXPECT_NEAR(barrierEnergy(d, 1.0, 1.0), expected, 1e-10 * expected);
  EXPECT_EQ(barrierEnergy(0.0, 1.0, 1.0), INFINITY);
}

TEST(PenaltyLayer, ActiveLayerCount) {
  // At the boundary d = 2 eta / N, layers 1 .. N - 1 are active; just inside, N.
  for (int N = 1; N <= 200; ++N) {
    const double d = 2.0 / N;
    EXPECT_EQ(activeLayerCount(d, 1.0), N - 1) << "N = " << N;
    EXPECT_EQ(activeLayerCount(d * (1 - 1e-9), 1.0), N) << "N = " << N;
    EXPECT_EQ(activeLayerCount(d * (1 + 1e-9), 1.0), N - 1) << "N = " << N;
    // Between boundaries: ceil(2 / d) - 1.
    const double mid = 2.0 / (N + 0.5);
    EXPECT_EQ(activeLayerCount(mid, 1.0), N) << "N = " << N;
  }
  EXPECT_EQ(activeLayerCount(5.0, 1.0), 0);
  EXPECT_EQ(activeLayerCount(0.3, 0.5), 3);  // 1 / 0.3 = 3.33 -> layers 1, 2, 3
  // Consistency with layerEnergy: exactly the counted layers have energy.
  for (double d : {0.013, 0.1, 0.37, 0.999, 1.0, 1.7}) {
    const int n = activeLayerCount(d, 1.0);
    for (int l = 1; l <= n; ++l) EXPECT_GT(layerEnergy(d, 1.0, 1.0, l), 0.0) << d << " " << l;
    EXPECT_EQ(layerEnergy(d, 1.0, 1.0, n + 1), 0.0) << d;
  }
}

TEST(PenaltyLayer, ForceIsDerivativeOfEnergy) {
  const double eta = 0.7, k = 2.5;
  for (int l = 1; l <= 6; ++l) {
    for (double frac : {0.0, 0.1, 0.45, 0.8, 0.97}) {
      const double d = frac * layerOnset(eta, l) + 1e-3;
      if (d >= layerOnset(eta, l) - 1e-3) continue;
      const double h = 1e-6;
      const double fd = (layerEnergy(d + h, eta, k, l) - layerEnergy(d - h, eta, k, l)) / (2 * h);
      const double an = layerForce(d, eta, k, l);
      EXPECT_NEAR(an, fd, 1e-7 * std::max(1.0, std::abs(an))) << "l = " << l << " d = " << d;
      EXPECT_LE(an, 0.0);
      // Effective stiffness 2 l^3 k (second derivative).
      const double fd2 = (layerForce(d + h, eta, k, l) - layerForce(d - h, eta, k, l)) / (2 * h);
      EXPECT_NEAR(fd2, 2.0 * l * l * l * k, 1e-6 * l * l * l * k);
    }
  }
}

TEST(PenaltyLayer, LayerStepRatio) {
  const double c = 0.05, m = 0.3, k = 40.0;
  const double h1 = layerStep(c, m, k, 1);
  EXPECT_NEAR(h1, c * std::sqrt(m / (4 * k)), 1e-15);
  for (int l = 2; l <= 20; ++l) EXPECT_NEAR(layerStep(c, m, k, l) / h1, std::pow(l, -1.5), 1e-14);
  // omega_l h_l < 2 for m_eff >= m / 2: omega_l = sqrt(2 l^3 k / (m / 2)).
  for (int l = 1; l <= 20; ++l) EXPECT_LT(std::sqrt(4.0 * l * l * l * k / m) * layerStep(1.0, m, k, l), 2.0);
  EXPECT_THROW(layerStep(c, m, 0.0, 1), InputError);
  EXPECT_THROW(layerStep(c, m, k, 0), InputError);
}

TEST(PenaltyLayer, DyadicStep) {
  EXPECT_EQ(dyadicStep(1.0, 1.0), 1.0);
  EXPECT_EQ(dyadicStep(5.0, 1.0), 1.0);   // m >= 0: never above the base
  EXPECT_EQ(dyadicStep(0.5, 1.0), 0.5);   // exactly on the lattice
  EXPECT_EQ(dyadicStep(0.4999, 1.0), 0.25);
  EXPECT_EQ(dyadicStep(0.3, 0.1), 0.1);
  EXPECT_EQ(dyadicStep(0.03, 0.1), 0.025);
  // Property: r = base 2^-m with r <= h < 2 r whenever h < base.
  const double base = 0.37;
  for (int i = 0; i < 2000; ++i) {
    const double h = base * std::pow(10.0, -8.0 * (i + 0.5) / 2000.0);
    const double r = dyadicStep(h, base);
    EXPECT_LE(r, h);
    EXPECT_GT(2.0 * r, h);
    int eb = 0, er = 0;
    EXPECT_EQ(std::frexp(base, &eb), std::frexp(r, &er)) << "not base * 2^-m: " << r;
  }
  EXPECT_THROW(dyadicStep(0.0, 1.0), InputError);
  EXPECT_THROW(dyadicStep(1.0, -1.0), InputError);
}

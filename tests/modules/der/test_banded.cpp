// Banded storage, banded LDL^T with clamped pivots and the active-set filtered solve (ASC),
// paper §V-A with README decision 15, and acceptance tests C1, C2, C6 (README decision 34).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "framework/core/error.hpp"
#include "modules/der/banded.hpp"
#include "der_test_util.hpp"

namespace kinema::der {
namespace {

using test::dominantSpd;
using test::gramSpd;
using test::toDense;

std::vector<double> randomVector(int n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = u(rng);
  return v;
}

Eigen::Map<const Eigen::VectorXd> asEigen(const std::vector<double>& v) {
  return {v.data(), static_cast<Eigen::Index>(v.size())};
}

TEST(BandedSymmetric, StorageAndMultiplyMatchDense) {
  std::mt19937 rng(1);
  for (int n : {1, 5, 30}) {
    for (int kd : {0, 1, 3, 10, 40}) {
      BandedSymmetric A = dominantSpd(n, kd, rng);
      EXPECT_EQ(A.at(0, std::min(n - 1, kd)), A.at(std::min(n - 1, kd), 0));
      const Eigen::MatrixXd M = toDense(A);
      const std::vector<double> x = randomVector(n, rng);
      std::vector<double> y(static_cast<std::size_t>(n));
      A.multiply(x, y);
      const Eigen::VectorXd ref = M * asEigen(x);
      EXPECT_LE((asEigen(y) - ref).norm(), 1e-14 * ref.norm()) << "n " << n << " kd " << kd;
    }
  }
  BandedSymmetric A(4, 1);
  A.add(1, 0, 2.0);
  A.add(0, 1, 3.0);
  EXPECT_EQ(A.at(0, 1), 5.0);  // one stored entry for (0,1) and (1,0)
  EXPECT_THROW(A.at(3, 0), Error);
}

TEST(BandedLdlt, SolveMatchesDenseAndCountsFactorizations) {
  std::mt19937 rng(2);
  BandedLdlt ldlt;
  long expected = 0;
  for (int n : {1, 2, 7, 40, 120}) {
    for (int kd : {0, 1, 4, 10, 21}) {
      for (int variant = 0; variant < 2; ++variant) {
        BandedSymmetric A = variant == 0 ? dominantSpd(n, kd, rng, 0.1) : gramSpd(n, kd, rng, 1e-3);
        const LdltStats st = ldlt.factor(A);
        ++expected;
        EXPECT_EQ(ldlt.factorizations(), expected);
        EXPECT_EQ(st.clampedPivots, 0);
        EXPECT_GT(st.minPivot, 0.0);
        const Eigen::MatrixXd M = toDense(A);
        const std::vector<double> r = randomVector(n, rng);
        std::vector<double> z(static_cast<std::size_t>(n));
        ldlt.solve(r, z);
        const Eigen::VectorXd ref = M.ldlt().solve(asEigen(r));
        EXPECT_LE((asEigen(z) - ref).norm(), 1e-12 * ref.norm()) << "n " << n << " kd " << kd << " v " << variant;
        // The factor reproduces A: L D L^T == A.
        Eigen::MatrixXd L(n, n);
        Eigen::VectorXd D(n);
        for (int i = 0; i < n; ++i) {
          D(i) = ldlt.d(i);
          for (int j = 0; j < n; ++j) L(i, j) = ldlt.l(i, j);
        }
        EXPECT_LE((L * D.asDiagonal() * L.transpose() - M).norm(), 1e-12 * M.norm());
        // In-place solve (r and z alias).
        std::vector<double> w = r;
        ldlt.solve(w, w);
        EXPECT_LE((asEigen(w) - asEigen(z)).norm(), 1e-15 * asEigen(z).norm() + 1e-300);
      }
    }
  }
}

// Dense oracle of the ASC operator: z_F = (L_FF D_FF L_FF^T)^{-1} r_F, z_C = 0.
Eigen::VectorXd ascOracle(const BandedLdlt& f, const std::vector<std::uint8_t>& mask, const std::vector<double>& r) {
  const int n = f.size();
  std::vector<int> F;
  for (int i = 0; i < n; ++i)
    if (mask[static_cast<std::size_t>(i)]) F.push_back(i);
  const int m = static_cast<int>(F.size());
  Eigen::MatrixXd L(m, m);
  Eigen::VectorXd D(m), rF(m);
  for (int a = 0; a < m; ++a) {
    D(a) = f.d(F[a]);
    rF(a) = r[static_cast<std::size_t>(F[a])];
    for (int b = 0; b < m; ++b) L(a, b) = f.l(F[a], F[b]);
  }
  const Eigen::MatrixXd P = L * D.asDiagonal() * L.transpose();
  const Eigen::VectorXd zF = P.ldlt().solve(rF);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
  for (int a = 0; a < m; ++a) z(F[a]) = zF(a);
  return z;
}

// The literal printed Eq. 34-35 (no D_jj in the forward sum): the regression oracle of a WRONG
// implementation (README decision 15).
Eigen::VectorXd literalEq34(const BandedLdlt& f, const std::vector<std::uint8_t>& mask, const std::vector<double>& r) {
  const int n = f.size();
  Eigen::VectorXd y = Eigen::VectorXd::Zero(n), z = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < n; ++i) {
    if (!mask[static_cast<std::size_t>(i)]) continue;
    double s = r[static_cast<std::size_t>(i)];
    for (int j = 0; j < i; ++j)
      if (mask[static_cast<std::size_t>(j)]) s -= f.l(i, j) * y(j);
    y(i) = s / f.d(i);
  }
  for (int i = n - 1; i >= 0; --i) {
    if (!mask[static_cast<std::size_t>(i)]) continue;
    double s = y(i);
    for (int j = i + 1; j < n; ++j)
      if (mask[static_cast<std::size_t>(j)]) s -= f.l(j, i) * z(j);
    z(i) = s;
  }
  return z;
}

TEST(BandedLdlt, C2FilteredSolveEqualsFreeSubFactorInverse) {
  std::mt19937 rng(3);
  std::bernoulli_distribution coin(0.6);
  BandedLdlt ldlt;
  double worst = 0.0, maxLiteralErr = 0.0;
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 5 + trial % 40;
    const int kd = 1 + trial % 12;
    BandedSymmetric A = trial % 2 ? dominantSpd(n, kd, rng, 0.5) : gramSpd(n, kd, rng, 1e-2);
    ldlt.factor(A);
    for (int k = 0; k < 5; ++k) {
      std::vector<std::uint8_t> mask(static_cast<std::size_t>(n));
      for (auto& m : mask) m = coin(rng) ? 1 : 0;
      mask[0] = 1;  // at least one free
      const std::vector<double> r = randomVector(n, rng);
      std::vector<double> z(static_cast<std::size_t>(n), 123.0);  // no zero init needed
      ldlt.solveFiltered(r, mask, z);
      const Eigen::VectorXd ref = ascOracle(ldlt, mask, r);
      const double err = (asEigen(z) - ref).norm() / ref.norm();
      worst = std::max(worst, err);
      EXPECT_LE(err, 1e-13) << "trial " << trial;
      for (int i = 0; i < n; ++i) {
        if (!mask[static_cast<std::size_t>(i)]) {
          EXPECT_EQ(z[static_cast<std::size_t>(i)], 0.0);
        }
      }
      // Literal Eq. 34 differs whenever a free pivot != 1 couples to a later free index.
      const Eigen::VectorXd lit = literalEq34(ldlt, mask, r);
      maxLiteralErr = std::max(maxLiteralErr, (lit - ref).norm() / ref.norm());
    }
  }
  EXPECT_GT(maxLiteralErr, 0.1) << "the printed Eq. 34 should be wrong on these inputs";
  std::printf("C2: worst relative error %.3g; literal Eq. 34 relative error up to %.3g\n", worst, maxLiteralErr);
  // A 2x2 case where the literal Eq. 34 is provably wrong: A = [[4, 2], [2, 3]], all free.
  // L_10 = 0.5, D = (4, 2); literal y_1 = (r_1 - L_10 y_0) / D_11 uses y_0 = r_0 / 4 instead of r_0.
  BandedSymmetric A(2, 1);
  A.at(0, 0) = 4.0;
  A.at(1, 0) = 2.0;
  A.at(1, 1) = 3.0;
  ldlt.factor(A);
  const std::vector<double> r{1.0, 1.0};
  const std::vector<std::uint8_t> all{1, 1};
  std::vector<double> z(2);
  ldlt.solveFiltered(r, all, z);
  EXPECT_NEAR(z[0], 0.125, 1e-15);  // A^{-1} (1, 1) = (1, 2) / 8
  EXPECT_NEAR(z[1], 0.25, 1e-15);
  const Eigen::VectorXd lit = literalEq34(ldlt, all, r);
  EXPECT_GT(std::abs(lit(1) - z[1]), 0.1);
}

TEST(BandedLdlt, C1AllFreeFilteredSolveIsExactInverse) {
  std::mt19937 rng(4);
  BandedLdlt ldlt;
  for (int n : {10, 60, 200}) {
    BandedSymmetric A = gramSpd(n, 21, rng, 1e-2);
    ldlt.factor(A);
    const std::vector<double> r = randomVector(n, rng);
    std::vector<std::uint8_t> all(static_cast<std::size_t>(n), 1);
    std::vector<double> z(static_cast<std::size_t>(n));
    ldlt.solveFiltered(r, all, z);
    const Eigen::VectorXd ref = toDense(A).ldlt().solve(asEigen(r));
    EXPECT_LE((asEigen(z) - ref).norm(), 1e-12 * ref.norm());
  }
}

TEST(BandedLdlt, C6NearSingularInputClampsPivotsAndStaysFinite) {
  std::mt19937 rng(5);
  for (int n : {20, 80}) {
    const int kd = 6;
    // Rank-deficient: B^T B with B of rank n/2 (rows of B zero beyond n/2), plus 1e-18 I.
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Eigen::MatrixXd B = Eigen::MatrixXd::Zero(n, n);
    for (int i = 0; i < n; i += 2)
      for (int j = i; j <= std::min(n - 1, i + kd / 2); ++j) B(i, j) = u(rng);
    const Eigen::MatrixXd M = B.transpose() * B;
    BandedSymmetric A(n, kd);
    for (int j = 0; j < n; ++j)
      for (int i = j; i <= std::min(n - 1, j + kd); ++i) A.at(i, j) = M(i, j) + (i == j ? 1e-18 : 0.0);
    BandedLdlt ldlt(1e-12);
    const LdltStats st = ldlt.factor(A);
    EXPECT_GT(st.clampedPivots, 0);
    EXPECT_LT(st.minPivot, 1e-12 * M.diagonal().maxCoeff());
    for (int i = 0; i < n; ++i) {
      EXPECT_TRUE(std::isfinite(ldlt.d(i)));
      // The floor relative to the pivot's own diagonal.
      EXPECT_GE(ldlt.d(i), 1e-12 * A.at(i, i) * (1 - 1e-15));
      for (int j = 0; j < n; ++j) {
        ASSERT_TRUE(std::isfinite(ldlt.l(i, j)));
        // The row-wise growth bound L_ij^2 D_j <= A_ii (GMW clamp).
        if (i > j) {
          EXPECT_LE(ldlt.l(i, j) * ldlt.l(i, j) * ldlt.d(j), A.at(i, i) * (1 + 1e-12) + 1e-300);
        }
      }
    }
    const std::vector<double> r = randomVector(n, rng);
    std::vector<double> z(static_cast<std::size_t>(n));
    ldlt.solve(r, z);
    for (double v : z) EXPECT_TRUE(std::isfinite(v));
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) mask[static_cast<std::size_t>(i)] = i % 3 != 0;
    ldlt.solveFiltered(r, mask, z);
    for (double v : z) EXPECT_TRUE(std::isfinite(v));
  }
  // Indefinite input (negative diagonal) is clamped too, never NaN.
  BandedSymmetric A(3, 1);
  A.at(0, 0) = 1.0;
  A.at(1, 1) = -2.0;
  A.at(2, 2) = 1.0;
  A.at(1, 0) = 0.5;
  BandedLdlt ldlt;
  const LdltStats st = ldlt.factor(A);
  EXPECT_EQ(st.clampedPivots, 1);
  EXPECT_EQ(ldlt.d(1), 1e-12);
}


// The clamp is relative to each row's own diagonal, so factoring S A S (S diagonal, spanning 16
// orders of magnitude, so the diagonal of S A S spans 32) clamps nothing and gives the scaled
// factor of A: the filtered solve of S A S applied to S r is S^-1 times that of A applied to r.
// (A floor relative to max_k A_kk would clamp most pivots of S A S; the unscaled DER BCQP, whose
// diagonal spans 17 orders, was such a case.)
TEST(BandedLdlt, FactorisationCommutesWithDiagonalScaling) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-1.0, 1.0), e(-8.0, 8.0);
  const int n = 60, kd = 5;
  for (double shift : {1.0, 1e-3}) {
    Eigen::MatrixXd B = Eigen::MatrixXd::Zero(n, n);
    for (int i = 0; i < n; ++i)
      for (int j = i; j <= std::min(n - 1, i + kd / 2); ++j) B(i, j) = u(rng);
    const Eigen::MatrixXd M = B.transpose() * B + shift * Eigen::MatrixXd::Identity(n, n);
    std::vector<double> S(static_cast<std::size_t>(n));
    for (auto& v : S) v = std::pow(10.0, e(rng));
    BandedSymmetric A(n, kd), As(n, kd);
    for (int j = 0; j < n; ++j)
      for (int i = j; i <= std::min(n - 1, j + kd); ++i) {
        A.at(i, j) = M(i, j) + (i == j ? 1e-18 : 0.0);
        As.at(i, j) = S[static_cast<std::size_t>(i)] * A.at(i, j) * S[static_cast<std::size_t>(j)];
      }
    BandedLdlt f(1e-12), fs(1e-12);
    const LdltStats st = f.factor(A), sts = fs.factor(As);
    EXPECT_EQ(st.clampedPivots, 0);
    EXPECT_EQ(sts.clampedPivots, 0);
    const std::vector<double> r = randomVector(n, rng);
    std::vector<double> rs(static_cast<std::size_t>(n)), z(static_cast<std::size_t>(n)), zs(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) rs[static_cast<std::size_t>(i)] = S[static_cast<std::size_t>(i)] * r[static_cast<std::size_t>(i)];
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) mask[static_cast<std::size_t>(i)] = (i % 4) != 1;
    f.solveFiltered(r, mask, z);
    fs.solveFiltered(rs, mask, zs);
    double err = 0.0, scale = 0.0;
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      err = std::max(err, std::abs(S[k] * zs[k] - z[k]));
      scale = std::max(scale, std::abs(z[k]));
    }
    EXPECT_LE(err, 1e-8 * scale) << "shift " << shift;
  }
}

}  // namespace
}  // namespace kinema::der

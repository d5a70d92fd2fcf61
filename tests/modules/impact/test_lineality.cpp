// Lineality (implicit-equality) detection and the anti-locking projection (paper §4, §4.1, §7): the
// L* detection cases (modules/impact/README.md, decision 19; Fig. 2 left and centre, redundant,
// corner, channel, jammed box, mini-geyser (a)-(c), hex-19 cluster, mass-mixing L13), approximate
// lineality (F5), random pointed cones, D1 (LP-1 / LP-2 / Support & Shave agree with each other and
// with two oracles that use no LP: non-negative least squares and enumeration of positive
// circuits), and bad input.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

#include "framework/core/error.hpp"
#include "modules/impact/lineality.hpp"

namespace kinema::impact {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

const LinealityMethod kMethods[] = {LinealityMethod::lp1ThenLp2, LinealityMethod::lp2,
                                    LinealityMethod::supportAndShave};

LinealityOptions withMethod(LinealityMethod m, double epsilon = 0.0) {
  LinealityOptions o;
  o.method = m;
  o.epsilon = epsilon;
  return o;
}

// Columns scaled to n_iᵀM⁻¹n_i = 1 (spec (norm)).
MatrixXd normalised(MatrixXd N, const MatrixXd& Minv) {
  for (Eigen::Index j = 0; j < N.cols(); ++j) N.col(j) /= std::sqrt(N.col(j).dot(Minv * N.col(j)));
  return N;
}

double kinetic(const VectorXd& v, const MatrixXd& M) { return 0.5 * v.dot(M * v); }

// ---- ball scenes (2D point particles, DOFs (x_0, y_0, x_1, y_1, ...), unit masses) -------------

struct Scene {
  int balls = 0;
  std::vector<VectorXd> cols;
  void wall(int b, double nx, double ny) {  // static wall pushing ball b along (nx, ny)
    VectorXd n = VectorXd::Zero(2 * balls);
    n(2 * b) = nx;
    n(2 * b + 1) = ny;
    cols.push_back(n);
  }
  void pair(int a, int b, const Eigen::Vector2d& xa, const Eigen::Vector2d& xb) {
    const Eigen::Vector2d nu = (xb - xa).normalized();  // from a to b; n = [−ν on a, +ν on b]
    VectorXd n = VectorXd::Zero(2 * balls);
    n.segment<2>(2 * a) = -nu;
    n.segment<2>(2 * b) = nu;
    cols.push_back(n);
  }
  MatrixXd N() const {
    MatrixXd out(2 * balls, static_cast<Eigen::Index>(cols.size()));
    for (std::size_t j = 0; j < cols.size(); ++j) out.col(static_cast<Eigen::Index>(j)) = cols[j];
    return normalised(out, MatrixXd::Identity(2 * balls, 2 * balls));
  }
};

std::vector<int> range(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
  return v;
}

// Checks that E is an M⁻¹-orthonormal basis of span{n_i : i ∈ I} and that projecting removes
// exactly the constraints of I.
void checkBasis(const LinealityResult& r, const MatrixXd& N, const MatrixXd& Minv, int expectRank) {
  const Eigen::Index d = N.rows();
  ASSERT_EQ(r.E.rows(), d);
  ASSERT_EQ(r.rank(), expectRank);
  if (expectRank > 0) {
    EXPECT_LE((r.E.transpose() * Minv * r.E - MatrixXd::Identity(expectRank, expectRank)).norm(), 1e-12);
  }
  // Every n_i, i ∈ I, lies in span(E): Pᵀn_i = 0; every other constraint survives.
  const LinealityProjector P(r.E, Minv);
  const ProjectedConstraints pc = P.projectConstraints(N, Minv);
  EXPECT_EQ(pc.removed, r.implicitEqualities);
  for (int i : r.implicitEqualities) EXPECT_LE(pc.relNorm[static_cast<std::size_t>(i)], 1e-10) << i;
  EXPECT_LE(r.maxImplicitResidual, 1e-10);
  // Survivors are normalised and M⁻¹n̄ stays in ker Eᵀ (README decision 10, covector form).
  for (Eigen::Index c = 0; c < pc.N.cols(); ++c) {
    EXPECT_NEAR(pc.N.col(c).dot(Minv * pc.N.col(c)), 1.0, 1e-12);
    if (expectRank > 0) {
      EXPECT_LE((r.E.transpose() * Minv * pc.N.col(c)).norm(), 1e-12);
    }
  }
}

// ---- oracles without LPs -----------------------------------------------------------------------

// Lawson–Hanson non-negative least squares: argmin_{x >= 0} ‖A x − b‖.
VectorXd nnls(const MatrixXd& A, const VectorXd& b) {
  const Eigen::Index n = A.cols();
  VectorXd x = VectorXd::Zero(n);
  std::vector<bool> passive(static_cast<std::size_t>(n), false);
  const double tol = 1e-13 * std::max(1.0, A.norm() * b.norm());
  for (int outer = 0; outer < 10 * static_cast<int>(n) + 10; ++outer) {
    const VectorXd w = A.transpose() * (b - A * x);
    Eigen::Index jmax = -1;
    double wmax = tol;
    for (Eigen::Index j = 0; j < n; ++j)
      if (!passive[static_cast<std::size_t>(j)] && w(j) > wmax) {
        wmax = w(j);
        jmax = j;
      }
    if (jmax < 0) break;
    passive[static_cast<std::size_t>(jmax)] = true;
    for (int inner = 0; inner < 10 * static_cast<int>(n) + 10; ++inner) {
      std::vector<Eigen::Index> P;
      for (Eigen::Index j = 0; j < n; ++j)
        if (passive[static_cast<std::size_t>(j)]) P.push_back(j);
      MatrixXd AP(A.rows(), static_cast<Eigen::Index>(P.size()));
      for (std::size_t c = 0; c < P.size(); ++c) AP.col(static_cast<Eigen::Index>(c)) = A.col(P[c]);
      const VectorXd zP = AP.colPivHouseholderQr().solve(b);
      VectorXd z = VectorXd::Zero(n);
      for (std::size_t c = 0; c < P.size(); ++c) z(P[c]) = zP(static_cast<Eigen::Index>(c));
      bool allPos = true;
      for (Eigen::Index j : P) allPos = allPos && z(j) > 0.0;
      if (allPos) {
        x = z;
        break;
      }
      double alpha = 1.0;
      for (Eigen::Index j : P)
        if (z(j) <= 0.0) alpha = std::min(alpha, x(j) / (x(j) - z(j)));
      x += alpha * (z - x);
      for (Eigen::Index j : P)
        if (x(j) <= 1e-15) {
          x(j) = 0.0;
          passive[static_cast<std::size_t>(j)] = false;
        }
    }
  }
  return x;
}

// NNLS oracle (paper §4): i ∈ I iff −n_i ∈ pos(N), i.e. min_{λ>=0} ‖Nλ + n_i‖ = 0.
std::vector<double> nnlsResiduals(const MatrixXd& N) {
  std::vector<double> res;
  for (Eigen::Index i = 0; i < N.cols(); ++i) {
    const VectorXd b = -N.col(i);
    res.push_back((N * nnls(N, b) - b).norm());
  }
  return res;
}

// Circuit oracle: I is the union of the supports of the strictly positive kernel vectors of the
// column subsets with a one-dimensional kernel (conformal decomposition: every λ >= 0 in ker N is a
// sum of non-negative circuits). `ambiguous` is set when a rank or sign decision is within 1e3 of
// its tolerance.
std::vector<int> circuitOracle(const MatrixXd& N, bool& ambiguous) {
  const int m = static_cast<int>(N.cols());
  std::vector<bool> in(static_cast<std::size_t>(m), false);
  for (unsigned mask = 1; mask < (1u << m); ++mask) {
    std::vector<int> S;
    for (int j = 0; j < m; ++j)
      if (mask & (1u << j)) S.push_back(j);
    if (S.size() < 2) continue;
    MatrixXd NS(N.rows(), static_cast<Eigen::Index>(S.size()));
    for (std::size_t c = 0; c < S.size(); ++c) NS.col(static_cast<Eigen::Index>(c)) = N.col(S[c]);
    Eigen::JacobiSVD<MatrixXd> svd(NS, Eigen::ComputeFullV);
    const VectorXd& sv = svd.singularValues();
    int rank = 0;
    for (Eigen::Index k = 0; k < sv.size(); ++k) {
      if (sv(k) > 1e-9) ++rank;
      if (sv(k) > 1e-12 && sv(k) < 1e-6) ambiguous = true;
    }
    if (static_cast<int>(S.size()) - rank != 1) continue;
    const VectorXd v = svd.matrixV().col(static_cast<Eigen::Index>(S.size()) - 1);
    const double scale = v.cwiseAbs().maxCoeff();
    bool pos = true, neg = true;
    for (Eigen::Index k = 0; k < v.size(); ++k) {
      const double a = v(k) / scale;
      if (std::abs(a) < 1e-4 && std::abs(a) > 1e-10) ambiguous = true;
      pos = pos && a > 1e-7;
      neg = neg && a < -1e-7;
    }
    if (pos || neg)
      for (int j : S) in[static_cast<std::size_t>(j)] = true;
  }
  std::vector<int> I;
  for (int j = 0; j < m; ++j)
    if (in[static_cast<std::size_t>(j)]) I.push_back(j);
  return I;
}

int svdRank(const MatrixXd& A, double tol = 1e-9) {
  if (A.cols() == 0) return 0;
  Eigen::JacobiSVD<MatrixXd> svd(A);
  int r = 0;
  for (Eigen::Index k = 0; k < svd.singularValues().size(); ++k) r += svd.singularValues()(k) > tol;
  return r;
}

MatrixXd randomSpd(int d, std::mt19937& rng) {
  std::normal_distribution<double> g;
  MatrixXd A(d, d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) A(i, j) = g(rng);
  MatrixXd S = A * A.transpose() + 0.5 * MatrixXd::Identity(d, d);
  return 0.5 * (S + S.transpose());
}

// Block-diagonal SPD (blocks of 1-3, like per-body mass blocks) with its rows and columns
// permuted, so the blocks are not contiguous.
MatrixXd randomBlockSpd(int d, std::mt19937& rng) {
  MatrixXd B = MatrixXd::Zero(d, d);
  for (int start = 0; start < d;) {
    const int n = std::min(d - start, std::uniform_int_distribution<int>(1, 3)(rng));
    B.block(start, start, n, n) = randomSpd(n, rng);
    start += n;
  }
  std::vector<int> perm = range(d);
  std::shuffle(perm.begin(), perm.end(), rng);
  MatrixXd P(d, d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) P(i, j) = B(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(j)]);
  return P;
}

// ================================================================================================
// L1/L2: Fig. 2 left. One ball between two vertical walls, n_1 = (1,0), n_2 = (−1,0), M = I.
TEST(Lineality, ParallelWallsBothImplicitAndProjectionKillsHorizontalVelocity) {
  MatrixXd N(2, 2);
  N << 1, -1, 0, 0;
  const MatrixXd Minv = MatrixXd::Identity(2, 2);
  for (LinealityMethod m : kMethods) {
    SCOPED_TRACE(toString(m));
    const LinealityResult r = detectLineality(N, Minv, withMethod(m));
    EXPECT_EQ(r.implicitEqualities, (std::vector<int>{0, 1}));
    checkBasis(r, N, Minv, 1);
    EXPECT_NEAR(std::abs(r.E(0, 0)), 1.0, 1e-14);  // E = ±e_x
    EXPECT_NEAR(r.E(1, 0), 0.0, 1e-14);
    if (m == LinealityMethod::lp1ThenLp2) {
      EXPECT_EQ(r.lpSolves, 2);
      EXPECT_NEAR(r.lp1Value, 0.0, 1e-9);
    }
    if (m == LinealityMethod::lp2) {
      EXPECT_EQ(r.lpSolves, 1);
    }
    if (m == LinealityMethod::supportAndShave) {
      EXPECT_LE(r.lpSolves, 2 * 2);
    }
    VectorXd q(2);
    q << 1.0, 0.5;
    const VectorXd p = projectVelocity(r.E, Minv, q);
    EXPECT_NEAR(p(0), 0.0, 1e-15);  // horizontal velocity removed
    EXPECT_EQ(p(1), 0.5);           // vertical untouched (bitwise: E has no y component)
    EXPECT_NEAR(kinetic(q, MatrixXd::Identity(2, 2)), 0.625, 1e-15);
    EXPECT_NEAR(kinetic(p, MatrixXd::Identity(2, 2)), 0.125, 1e-15);
    // Both constraints vanish after projection (Algorithm 2 line 6): nothing left to resolve.
    const ProjectedConstraints pc = LinealityProjector(r.E, Minv).projectConstraints(N, Minv);
    EXPECT_TRUE(pc.kept.empty());
    EXPECT_EQ(pc.N.cols(), 0);
  }
}

// Algorithm 2 lines 2-7 in one call on the mini-geyser (a) with C moving up: the walls and A–B are
// removed, A–C and B–C kept and normalised, q̇_0 = P q̇ and the energy bookkeeping matches ½‖·‖².
TEST(Lineality, ApplyAntiLockingOnGeyser) {
  const Eigen::Vector2d A(1, 0), B(3, 0), C(2, -std::sqrt(3.0));
  Scene s;
  s.balls = 3;
  s.wall(0, 1, 0);
  s.pair(0, 1, A, B);
  s.wall(1, -1, 0);
  s.pair(0, 2, A, C);
  s.pair(1, 2, B, C);
  const MatrixXd N = s.N(), Minv = MatrixXd::Identity(6, 6);
  VectorXd q(6);
  q << 0.3, 0, -0.2, 0, 0, 1;  // some locked horizontal motion of the plug, C moving up
  const AntiLocking al = applyAntiLocking(N, Minv, q);
  EXPECT_EQ(al.lineality.implicitEqualities, (std::vector<int>{0, 1, 2}));
  VectorXd expect(6);
  expect << 0, 0, 0, 0, 0, 1;
  EXPECT_LE((al.qdot0 - expect).norm(), 1e-14);
  EXPECT_NEAR(al.energyRemoved, 0.5 * (0.09 + 0.04), 1e-15);
  EXPECT_NEAR(kinetic(q, Minv) - kinetic(al.qdot0, Minv), al.energyRemoved, 1e-15);
  EXPECT_EQ(al.constraints.kept, (std::vector<int>{3, 4}));
  EXPECT_EQ(al.constraints.removed, (std::vector<int>{0, 1, 2}));
  // The projected A–C loses its A_x component only: n_AC = (−1/2, √3/2, 0, 0, 1/2, −√3/2)/√2
  // becomes (0, √3, 0, 0, 1, −√3)/√7 after renormalisation (line 7).
  VectorXd nbar(6);
  nbar << 0, std::sqrt(3.0), 0, 0, 1, -std::sqrt(3.0);
  EXPECT_LE((al.constraints.N.col(0) - nbar / std::sqrt(7.0)).norm(), 1e-14);
  EXPECT_NEAR(al.constraints.relNorm[3], std::sqrt(7.0 / 8.0), 1e-14);
  // No lineality: identity.
  MatrixXd Nc(2, 2);
  Nc << 0, -1, 1, 0;
  const AntiLocking none = applyAntiLocking(Nc, MatrixXd::Identity(2, 2), VectorXd::Ones(2));
  EXPECT_EQ(none.qdot0, VectorXd::Ones(2));
  EXPECT_EQ(none.constraints.kept, (std::vector<int>{0, 1}));
  EXPECT_EQ(none.energyRemoved, 0.0);
  EXPECT_THROW(applyAntiLocking(Nc, MatrixXd::Identity(2, 2), VectorXd::Ones(3)), InputError);
}

// L3/L4: Fig. 2 centre, q = (x1, y1, x2, y2): wall–ball 1, ball 1–ball 2, ball 2–wall.
TEST(Lineality, Fig2CentreAllThreeImplicitRankTwo) {
  Scene s;
  s.balls = 2;
  s.wall(0, 1, 0);
  s.pair(0, 1, {1, 0}, {3, 0});
  s.wall(1, -1, 0);
  const MatrixXd N = s.N(), Minv = MatrixXd::Identity(4, 4);
  for (LinealityMethod m : kMethods) {
    SCOPED_TRACE(toString(m));
    const LinealityResult r = detectLineality(N, Minv, withMethod(m));
    EXPECT_EQ(r.implicitEqualities, (std::vector<int>{0, 1, 2}));
    checkBasis(r, N, Minv, 2);
    VectorXd q(4);
    q << 1, 0.3, 0, -0.2;
    const VectorXd p = projectVelocity(r.E, Minv, q);
    VectorXd expect(4);
    expect << 0, 0.3, 0, -0.2;
    EXPECT_LE((p - expect).norm(), 1e-14);
    EXPECT_NEAR(kinetic(q, Minv), 0.565, 1e-14);
    EXPECT_NEAR(kinetic(p, Minv), 0.065, 1e-14);
  }
}

// L5: redundant (1,1), (−1,1), (0,1): linearly dependent but no implicit equality; one LP, and
// LP-1's certificate is strictly feasible.
TEST(Lineality, RedundantButPointedNeedsOneLp) {
  MatrixXd N(2, 3);
  N << 1, -1, 0, 1, 1, 1;
  const MatrixXd Minv = MatrixXd::Identity(2, 2);
  const MatrixXd Nn = normalised(N, Minv);
  for (LinealityMethod m : kMethods) {
    SCOPED_TRACE(toString(m));
    const LinealityResult r = detectLineality(Nn, Minv, withMethod(m));
    EXPECT_TRUE(r.implicitEqualities.empty());
    EXPECT_EQ(r.rank(), 0);
    EXPECT_EQ(r.lpSolves, 1);
    if (m != LinealityMethod::lp2) {
      ASSERT_TRUE(r.lp1Solved);
      EXPECT_GT(r.lp1Value, 0.1);
      ASSERT_EQ(r.certificate.size(), 2);
      EXPECT_GT((Nn.transpose() * r.certificate).minCoeff(), 0.1);
      // Box LP value of the unit normals: max_{|u|∞<=1} min(u_x+u_y, −u_x+u_y, √2 u_y)/√2 = 1/√2.
      EXPECT_NEAR(r.lp1Value, 1 / std::sqrt(2.0), 1e-9);
      EXPECT_GT(r.certificateMargin, 0.0);
      EXPECT_LE(r.certificateMargin, r.lp1Value + 1e-12);
    }
  }
  // Corner (0,1), (−1,0): no implicit equality either.
  MatrixXd C(2, 2);
  C << 0, -1, 1, 0;
  for (LinealityMethod m : kMethods) {
    const LinealityResult r = detectLineality(C, Minv, withMethod(m));
    EXPECT_TRUE(r.implicitEqualities.empty()) << toString(m);
    EXPECT_EQ(r.lpSolves, 1);
  }
}

// L10: channel, 3 balls r = 1 at x = 1, 3, 5 between walls x = 0 and 6.
TEST(Lineality, ChannelAllFourImplicitXVelocitiesZeroed) {
  Scene s;
  s.balls = 3;
  s.wall(0, 1, 0);
  s.pair(0, 1, {1, 0}, {3, 0});
  s.pair(1, 2, {3, 0}, {5, 0});
  s.wall(2, -1, 0);
  const MatrixXd N = s.N(), Minv = MatrixXd::Identity(6, 6);
  for (LinealityMethod m : kMethods) {
    SCOPED_TRACE(toString(m));
    const LinealityResult r = detectLineality(N, Minv, withMethod(m));
    EXPECT_EQ(r.implicitEqualities, range(4));
    checkBasis(r, N, Minv, 3);
    VectorXd q(6), expect(6);
    q << .5, .2, -.3, .1, 0, -.4;
    expect << 0, .2, 0, .1, 0, -.4;
    const VectorXd p = projectVelocity(r.E, Minv, q);
    EXPECT_LE((p - expect).norm(), 1e-14);
    EXPECT_NEAR(kinetic(q, Minv), 0.275, 1e-14);
    EXPECT_NEAR(kinetic(p, Minv), 0.105, 1e-14);
  }
}

// An n x n square lattice of unit balls (r = 1, centres (1+2i, 1+2j)) jammed in the box [0, 2n]^2:
// 2n(n−1) pair contacts and 4n wall contacts.
Scene jammedBox(int n) {
  Scene s;
  s.balls = n * n;
  auto id = [n](int i, int j) { return n * j + i; };
  auto pos = [](int i, int j) { return Eigen::Vector2d(1 + 2 * i, 1 + 2 * j); };
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      if (i + 1 < n) s.pair(id(i, j), id(i + 1, j), pos(i, j), pos(i + 1, j));
      if (j + 1 < n) s.pair(id(i, j), id(i, j + 1), pos(i, j), pos(i, j + 1));
    }
  for (int k = 0; k < n; ++k) {
    s.wall(id(0, k), 1, 0);
    s.wall(id(n - 1, k), -1, 0);
    s.wall(id(k, 0), 0, 1);
    s.wall(id(k, n - 1), 0, -1);
  }
  return s;
}

// Hexagonal patch of unit balls (spacing 2) with `rings` rings around a centre ball; contacts at
// distance 2. rings = 2 is the hex-19 cluster of README decision 19 (42 contacts).
Scene hexPatch(int rings) {
  std::vector<Eigen::Vector2d> x;
  for (int k = -rings; k <= rings; ++k) {
    const int count = 2 * rings + 1 - std::abs(k);
    for (int j = 0; j < count; ++j) x.emplace_back(2.0 * j - (count - 1), k * std::sqrt(3.0));
  }
  Scene s;
  s.balls = static_cast<int>(x.size());
  for (int a = 0; a < s.balls; ++a)
    for (int b = a + 1; b < s.balls; ++b)
      if (std::abs((x[static_cast<std::size_t>(a)] - x[static_cast<std::size_t>(b)]).norm() - 2.0) < 1e-9)
        s.pair(a, b, x[static_cast<std::size_t>(a)], x[static_cast<std::size_t>(b)]);
  return s;
}

// L11: jammed 3x3 box, balls r = 1 at (1,3,5)^2 in [0,6]^2: 12 pair + 12 wall contacts, dim E = 18.
TEST(Lineality, JammedBoxRemovesEveryDegreeOfFreedom) {
  const MatrixXd N = jammedBox(3).N(), Minv = MatrixXd::Identity(18, 18);
  ASSERT_EQ(N.cols(), 24);
  std::mt19937 rng(7);
  std::normal_distribution<double> g;
  VectorXd q(18);
  for (int k = 0; k < 18; ++k) q(k) = g(rng);
  for (LinealityMethod m : kMethods) {
    SCOPED_TRACE(toString(m));
    const LinealityResult r = detectLineality(N, Minv, withMethod(m));
    EXPECT_EQ(r.implicitEqualities, range(24));
    checkBasis(r, N, Minv, 18);
    EXPECT_LE(projectVelocity(r.E, Minv, q).norm(), 1e-13 * q.norm());  // F = {0}: all KE removed
    if (m == LinealityMethod::supportAndShave) {
      EXPECT_LE(r.lpSolves, 2 * 24);
    }
  }
}

// Cost of detection: a free hexagonal patch (217 balls, d = 434, 1 LP for every
// formulation) and a jammed 10x10 box (d = 200, m = 220, everything implicit: the worst case).
// Prints LP counts and times side by side.
TEST(Lineality, CostFreePatchAndJammedBox) {
  const MatrixXd Nf = hexPatch(8).N();
  const MatrixXd If = MatrixXd::Identity(Nf.rows(), Nf.rows());
  const MatrixXd Nj = jammedBox(10).N();
  const MatrixXd Ij = MatrixXd::Identity(Nj.rows(), Nj.rows());
  ASSERT_EQ(Nj.cols(), 220);
  for (LinealityMethod m : kMethods) {
    const LinealityResult rf = detectLineality(Nf, If, withMethod(m));
    EXPECT_TRUE(rf.implicitEqualities.empty()) << toString(m);
    EXPECT_EQ(rf.lpSolves, 1) << toString(m);
    const LinealityResult rj = detectLineality(Nj, Ij, withMethod(m));
    EXPECT_EQ(rj.implicitEqualities, range(220)) << toString(m);
    EXPECT_EQ(rj.rank(), 200) << toString(m);
    EXPECT_LE(rj.lpSolves, 2 * 220) << toString(m);
    std::printf("[lineality cost] %-17s free patch d=%ld m=%ld: %d LP, %ld it, %.4f s | "
                "jammed box d=%ld m=%ld: %d LPs, %ld it, %.4f s\n",
                toString(m).c_str(), static_cast<long>(Nf.rows()), static_cast<long>(Nf.cols()),
                rf.lpSolves, rf.lpIterations, rf.seconds, static_cast<long>(Nj.rows()),
                static_cast<long>(Nj.cols()), rj.lpSolves, rj.lpIterations, rj.seconds);
  }
}

// L7/L8/L9: the mini-geyser of README decision 19. Shaft walls x = 0 and 4, A = (1,0), B = (3,0), r = 1;
// DOFs (A_x, A_y, B_x, B_y, C_x, C_y).
TEST(Lineality, MiniGeyserSymmetricOffCentreAndPerturbed) {
  const Eigen::Vector2d A(1, 0), B(3, 0);
  const MatrixXd Minv = MatrixXd::Identity(6, 6);
  // (a) symmetric hit: C touches A and B.
  {
    const Eigen::Vector2d C(2, -std::sqrt(3.0));
    Scene s;
    s.balls = 3;
    s.wall(0, 1, 0);      // wallL–A
    s.pair(0, 1, A, B);   // A–B
    s.wall(1, -1, 0);     // B–wallR
    s.pair(0, 2, A, C);   // A–C
    s.pair(1, 2, B, C);   // B–C
    const MatrixXd N = s.N();
    for (LinealityMethod m : kMethods) {
      SCOPED_TRACE(toString(m));
      const LinealityResult r = detectLineality(N, Minv, withMethod(m));
      EXPECT_EQ(r.implicitEqualities, (std::vector<int>{0, 1, 2}));
      checkBasis(r, N, Minv, 2);
      // E = span{e_Ax, e_Bx}: E Eᵀ (M⁻¹ = I) is the projector onto those two coordinates.
      MatrixXd expectProj = MatrixXd::Zero(6, 6);
      expectProj(0, 0) = expectProj(2, 2) = 1;
      EXPECT_LE((r.E * r.E.transpose() - expectProj).norm(), 1e-12);
      const ProjectedConstraints pc = LinealityProjector(r.E, Minv).projectConstraints(N, Minv);
      EXPECT_EQ(pc.kept, (std::vector<int>{3, 4}));  // A–C and B–C survive
      EXPECT_GT(pc.relNorm[3], 0.5);
      EXPECT_GT(pc.relNorm[4], 0.5);
    }
  }
  // (b) off-centre: C touches A only.
  {
    const double a = 20.0 * M_PI / 180.0;
    const Eigen::Vector2d C(1 - 2 * std::sin(a), -2 * std::cos(a));
    Scene s;
    s.balls = 3;
    s.wall(0, 1, 0);
    s.pair(0, 1, A, B);
    s.wall(1, -1, 0);
    s.pair(0, 2, A, C);
    const MatrixXd N = s.N();
    for (LinealityMethod m : kMethods) {
      const LinealityResult r = detectLineality(N, Minv, withMethod(m));
      EXPECT_EQ(r.implicitEqualities, (std::vector<int>{0, 1, 2})) << toString(m);
      checkBasis(r, N, Minv, 2);
    }
  }
  // (c) right wall moved to x = 4.001: B no longer touches it; no implicit equality, one LP.
  {
    const Eigen::Vector2d C(2, -std::sqrt(3.0));
    Scene s;
    s.balls = 3;
    s.wall(0, 1, 0);
    s.pair(0, 1, A, B);
    s.pair(0, 2, A, C);
    s.pair(1, 2, B, C);
    const MatrixXd N = s.N();
    for (LinealityMethod m : kMethods) {
      const LinealityResult r = detectLineality(N, Minv, withMethod(m));
      EXPECT_TRUE(r.implicitEqualities.empty()) << toString(m);
      EXPECT_EQ(r.lpSolves, 1);
    }
  }
}

// L12: free hexagonal cluster of 19 unit balls (rows 3,4,5,4,3; 42 contacts): never lineal.
TEST(Lineality, HexCluster19IsFreeWithOneLp) {
  const MatrixXd N = hexPatch(2).N(), Minv = MatrixXd::Identity(38, 38);
  ASSERT_EQ(N.cols(), 42);
  for (LinealityMethod m : kMethods) {
    const LinealityResult r = detectLineality(N, Minv, withMethod(m));
    EXPECT_TRUE(r.implicitEqualities.empty()) << toString(m);
    EXPECT_EQ(r.lpSolves, 1) << toString(m);
    if (m != LinealityMethod::lp2) {
      EXPECT_GT((N.transpose() * r.certificate).minCoeff(), 0.0);
    }
  }
}

// L13: mass-mixing lineality. Two bodies on a line, masses 1 and 3, constraints ±(−1, 1) in their
// x-velocities lock the relative velocity. The covector projection keeps total momentum:
// (1, 0) -> (1/4, 1/4); the paper-literal form (project n in ‖·‖_M) would not.
TEST(Lineality, MassMixingCovectorProjectionKeepsMomentum) {
  MatrixXd M(2, 2);
  M << 1, 0, 0, 3;
  const MatrixXd Minv = M.inverse();
  MatrixXd N(2, 2);
  N << -1, 1, 1, -1;
  N = normalised(N, Minv);
  for (LinealityMethod m : kMethods) {
    SCOPED_TRACE(toString(m));
    const LinealityResult r = detectLineality(N, Minv, withMethod(m));
    EXPECT_EQ(r.implicitEqualities, (std::vector<int>{0, 1}));
    checkBasis(r, N, Minv, 1);
    const VectorXd p = projectVelocity(r.E, Minv, VectorXd::Unit(2, 0));
    EXPECT_NEAR(p(0), 0.25, 1e-15);
    EXPECT_NEAR(p(1), 0.25, 1e-15);
    EXPECT_NEAR(p(0) + 3 * p(1), 1.0, 1e-15);       // momentum Σ m v
    EXPECT_LE((r.E.transpose() * p).norm(), 1e-15);  // iterate in ker Eᵀ
  }
  // A third, non-implicit constraint (a wall pushing body 2 in +x): the covector form keeps the
  // impulse direction M⁻¹n̄ in ker Eᵀ (README decision 10); the paper-literal line 5 (M-projection of n onto
  // ker Eᵀ) does not when M mixes masses: flagged, as test L13 asks.
  MatrixXd N3(2, 3);
  N3 << N.col(0), N.col(1), VectorXd::Unit(2, 1) * std::sqrt(3.0);
  const LinealityResult r3 = detectLineality(N3, Minv);
  ASSERT_EQ(r3.implicitEqualities, (std::vector<int>{0, 1}));
  const VectorXd n = N3.col(2);
  const VectorXd covector = projectCovector(r3.E, Minv, n);           // Pᵀn
  const VectorXd literal = projectVelocity(r3.E, Minv, n);            // P n = n − M⁻¹E(Eᵀn)
  EXPECT_LE((r3.E.transpose() * Minv * covector).norm(), 1e-15);
  EXPECT_GT((r3.E.transpose() * Minv * literal).norm(), 0.1);
  const ProjectedConstraints pc = LinealityProjector(r3.E, Minv).projectConstraints(N3, Minv);
  EXPECT_EQ(pc.kept, (std::vector<int>{2}));
  EXPECT_LE((pc.N.col(0) - covector / std::sqrt(covector.dot(Minv * covector))).norm(), 1e-14);
}

// P is the M-orthogonal projector onto ker Eᵀ and Pᵀ its covector twin (README decision 10): P² = P,
// EᵀPq̇ = 0, ⟨Pq̇, q̇ − Pq̇⟩_M = 0, M⁻¹Pᵀn = P M⁻¹ n, and n̄ᵀv = nᵀv for v ∈ ker Eᵀ; for a general SPD M
// and a lineality set detected from random data.
TEST(Lineality, ProjectorIdentitiesWithGeneralMass) {
  std::mt19937 rng(11);
  std::normal_distribution<double> g;
  const int d = 5;
  const MatrixXd Minv = randomSpd(d, rng);
  const MatrixXd M = Minv.inverse();
  MatrixXd N(d, 5);
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < d; ++k) N(k, j) = g(rng);
  N.col(3) = -(N.col(0) + 2 * N.col(1));  // planted: n_0, n_1, n_3 form a zero-sum positive combination
  for (int k = 0; k < d; ++k) N(k, 4) = g(rng);
  N = normalised(N, Minv);
  const LinealityResult r = detectLineality(N, Minv);
  ASSERT_EQ(r.implicitEqualities, (std::vector<int>{0, 1, 3}));
  checkBasis(r, N, Minv, 2);
  const LinealityProjector P(r.E, Minv);
  VectorXd q(d), n(d);
  for (int k = 0; k < d; ++k) {
    q(k) = g(rng);
    n(k) = g(rng);
  }
  VectorXd Pq = q;
  P.projectVelocity(Pq);
  VectorXd PPq = Pq;
  P.projectVelocity(PPq);
  EXPECT_LE((PPq - Pq).norm(), 1e-13 * q.norm());
  EXPECT_LE((r.E.transpose() * Pq).norm(), 1e-13 * q.norm());
  EXPECT_NEAR(Pq.dot(M * (q - Pq)), 0.0, 1e-12 * q.dot(M * q));
  VectorXd Ptn = n;
  P.projectCovector(Ptn);
  VectorXd PMinvn = Minv * n;
  P.projectVelocity(PMinvn);
  EXPECT_LE((Minv * Ptn - PMinvn).norm(), 1e-12 * (Minv * n).norm());
  EXPECT_NEAR(Ptn.dot(Pq), n.dot(Pq), 1e-12 * n.norm() * q.norm());
}

// F5: approximate lineality. Wedge n_1 = (0,1), n_2 = (sin θ, −cos θ) with θ = 1e-3 rad: LP-1's box
// value is t* = tan(θ/2) ≈ 5e-4 and each −n_i is at whitened ℓ1 distance v_i = tan θ ≈ 1e-3 from
// pos(N). Exact detection and ϵ = 1e-4 (< t*): free after one LP. ϵ = 3e-3 (> v_i): both flagged.
// ϵ = 7e-4 (t* < ϵ < v_i): not certified free, but no constraint is ϵ-implicit: narrowCone.
TEST(Lineality, NarrowWedgeIsApproximatelyImplicitOnlyAboveItsWidth) {
  const double th = 1e-3;
  MatrixXd N(2, 2);
  N << 0, std::sin(th), 1, -std::cos(th);
  const MatrixXd Minv = MatrixXd::Identity(2, 2);
  for (LinealityMethod m : {LinealityMethod::lp1ThenLp2, LinealityMethod::supportAndShave}) {
    SCOPED_TRACE(toString(m));
    const LinealityResult exact = detectLineality(N, Minv, withMethod(m, 0.0));
    EXPECT_TRUE(exact.implicitEqualities.empty());
    EXPECT_EQ(exact.lpSolves, 1);
    EXPECT_NEAR(exact.lp1Value, std::tan(th / 2), 1e-12);
    // M-norm margin of the certificate: between t*/√d and t*.
    EXPECT_GE(exact.certificateMargin, exact.lp1Value / std::sqrt(2.0) - 1e-15);
    EXPECT_LE(exact.certificateMargin, exact.lp1Value + 1e-15);
    const LinealityResult loose = detectLineality(N, Minv, withMethod(m, 1e-4));
    EXPECT_TRUE(loose.implicitEqualities.empty());
    EXPECT_EQ(loose.lpSolves, 1);
    const LinealityResult flagged = detectLineality(N, Minv, withMethod(m, 3e-3));
    EXPECT_EQ(flagged.implicitEqualities, (std::vector<int>{0, 1}));
    EXPECT_EQ(flagged.rank(), 2);  // the two normals are independent: the whole plane is locked
    EXPECT_FALSE(flagged.narrowCone);
    const LinealityResult between = detectLineality(N, Minv, withMethod(m, 7e-4));
    EXPECT_TRUE(between.implicitEqualities.empty());
    EXPECT_TRUE(between.narrowCone);
    EXPECT_EQ(between.rank(), 0);
  }
  EXPECT_TRUE(detectLineality(N, Minv, withMethod(LinealityMethod::lp2)).implicitEqualities.empty());
  EXPECT_THROW(detectLineality(N, Minv, withMethod(LinealityMethod::lp2, 1e-3)), InputError);
}

// Floating-point tolerances (paper §7, Appendix A) in exact mode (epsilon = 0): the parallel walls with
// the second wall tilted by δ. δ = 1e-12 (rounding scale, far below lpTolerance) is still one
// implicit equality of rank 1 that removes both constraints; δ = 1e-6 (a real, if narrow, wedge) is
// free after one LP.
TEST(Lineality, RoundingLevelTiltIsStillLinealRealTiltIsNot) {
  const MatrixXd Minv = MatrixXd::Identity(2, 2);
  for (LinealityMethod m : kMethods) {
    SCOPED_TRACE(toString(m));
    for (double delta : {1e-12, 1e-6}) {
      MatrixXd N(2, 2);
      N << 1, -std::cos(delta), 0, std::sin(delta);
      const LinealityResult r = detectLineality(N, Minv, withMethod(m));
      if (delta < 1e-9) {
        EXPECT_EQ(r.implicitEqualities, (std::vector<int>{0, 1}));
        EXPECT_EQ(r.rank(), 1);  // |R_22| ≈ δ is below rankTolerance
        const ProjectedConstraints pc = LinealityProjector(r.E, Minv).projectConstraints(N, Minv);
        EXPECT_EQ(pc.removed, (std::vector<int>{0, 1}));
        EXPECT_LE(pc.relNorm[1], 1e-11);
      } else {
        EXPECT_TRUE(r.implicitEqualities.empty());
        EXPECT_EQ(r.lpSolves, 1);
      }
    }
  }
}

// Random pointed cones (normals in an open half-space), random SPD M: empty set, exactly one LP
// for every formulation, and a strictly feasible certificate.
TEST(Lineality, RandomPointedConesOneLp) {
  std::mt19937 rng(3);
  std::normal_distribution<double> g;
  std::uniform_int_distribution<int> dimD(2, 8), dimM(1, 20);
  for (int trial = 0; trial < 40; ++trial) {
    const int d = dimD(rng), m = dimM(rng);
    VectorXd a(d);
    for (int k = 0; k < d; ++k) a(k) = g(rng);
    a.normalize();
    MatrixXd N(d, m);
    for (int j = 0; j < m; ++j) {
      VectorXd n(d);
      for (int k = 0; k < d; ++k) n(k) = g(rng);
      n -= n.dot(a) * a;
      n += (0.2 + std::abs(g(rng))) * n.norm() * a + 0.05 * a;  // nᵀa > 0
      N.col(j) = n;
    }
    const MatrixXd Minv = randomSpd(d, rng);
    // The half-space is {v : aᵀv > 0} in the Euclidean pairing, i.e. w = a is strictly feasible.
    const MatrixXd Nn = normalised(N, Minv);
    ASSERT_GT((Nn.transpose() * a).minCoeff(), 0.0);
    for (LinealityMethod meth : kMethods) {
      const LinealityResult r = detectLineality(Nn, Minv, withMethod(meth));
      EXPECT_TRUE(r.implicitEqualities.empty()) << toString(meth) << " trial " << trial;
      EXPECT_EQ(r.lpSolves, 1);
      EXPECT_EQ(r.rank(), 0);
      if (meth != LinealityMethod::lp2) {
        EXPECT_GT((Nn.transpose() * r.certificate).minCoeff(), 0.0);
        EXPECT_GT(r.certificateMargin, 0.0);
      }
    }
  }
}

// D1: for random small N (m <= 8, d <= 6), with and without planted implicit equalities (−n_j of
// an existing n_j, or −(a positive combination)), every formulation returns the set of both LP-free
// oracles (NNLS residual and positive-circuit enumeration), and the rank of E is rank(N_I).
// KINEMA_D1_SEED / KINEMA_D1_TRIALS override the seed and the trial count for stress runs.
TEST(Lineality, D1AgreesWithNnlsAndCircuitOracles) {
  const char* seedEnv = std::getenv("KINEMA_D1_SEED");
  const char* trialsEnv = std::getenv("KINEMA_D1_TRIALS");
  const int trials = trialsEnv ? std::atoi(trialsEnv) : 400;
  std::mt19937 rng(seedEnv ? static_cast<unsigned>(std::atoi(seedEnv)) : 2017u);
  std::normal_distribution<double> g;
  std::uniform_int_distribution<int> dimD(1, 6), dimM(1, 8), plantKind(0, 2);
  int checked = 0, skipped = 0, lineal = 0, nfree = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const int d = dimD(rng);
    const int m = dimM(rng);
    MatrixXd N(d, m);
    for (int j = 0; j < m; ++j)
      for (int k = 0; k < d; ++k) N(k, j) = g(rng);
    // Half the trials: make the random part pointed, so only the plant can create lineality.
    if (trial % 2 == 0) {
      for (int j = 0; j < m; ++j) N(0, j) = std::abs(N(0, j)) + 0.3;
    }
    const int kind = plantKind(rng);
    if (kind > 0 && m < 8) {  // plant one extra column
      VectorXd extra;
      if (kind == 1) {
        extra = -N.col(std::uniform_int_distribution<int>(0, m - 1)(rng));
      } else {
        extra = VectorXd::Zero(d);
        for (int j = 0; j < m; ++j)
          if (std::uniform_int_distribution<int>(0, 1)(rng)) extra -= (0.2 + std::abs(g(rng))) * N.col(j);
        if (extra.norm() < 1e-3) extra = -N.col(0);
      }
      N.conservativeResize(d, m + 1);
      N.col(m) = extra;
      // Shuffle so the planted column is not always last.
      std::vector<int> perm = range(m + 1);
      std::shuffle(perm.begin(), perm.end(), rng);
      MatrixXd P(d, m + 1);
      for (int j = 0; j <= m; ++j) P.col(j) = N.col(perm[static_cast<std::size_t>(j)]);
      N = P;
    }
    const int mm = static_cast<int>(N.cols());
    for (int j = 0; j < mm; ++j) N.col(j).normalize();
    // Oracles on the Euclidean-normalised N (I does not depend on M).
    bool ambiguous = false;
    const std::vector<int> Icirc = circuitOracle(N, ambiguous);
    const std::vector<double> res = nnlsResiduals(N);
    std::vector<int> Innls;
    for (int i = 0; i < mm; ++i) {
      const double ri = res[static_cast<std::size_t>(i)];
      if (ri <= 1e-9) Innls.push_back(i);
      else if (ri < 1e-5) ambiguous = true;
    }
    // Random M⁻¹ for the detector (identity, permuted block-diagonal, or full), and (norm).
    const MatrixXd Minv = (trial % 3 == 0)   ? MatrixXd(MatrixXd::Identity(d, d))
                          : (trial % 3 == 1) ? randomBlockSpd(d, rng)
                                             : randomSpd(d, rng);
    const MatrixXd Nn = normalised(N, Minv);
    std::vector<LinealityResult> rs;
    for (LinealityMethod meth : kMethods) rs.push_back(detectLineality(Nn, Minv, withMethod(meth)));
    const double t = rs[0].lp1Value;
    if (t > 1e-9 && t < 1e-5) ambiguous = true;  // a cone width at the tolerance scale
    if (ambiguous) {
      ++skipped;
      continue;
    }
    ++checked;
    ASSERT_EQ(Icirc, Innls) << "oracles disagree, trial " << trial;
    (Icirc.empty() ? nfree : lineal)++;
    MatrixXd NI(d, static_cast<Eigen::Index>(Icirc.size()));
    for (std::size_t c = 0; c < Icirc.size(); ++c) NI.col(static_cast<Eigen::Index>(c)) = N.col(Icirc[c]);
    const int rankI = svdRank(NI);
    for (std::size_t k = 0; k < rs.size(); ++k) {
      const LinealityResult& r = rs[k];
      SCOPED_TRACE(testing::Message() << toString(kMethods[k]) << " trial " << trial << " d=" << d
                                      << " m=" << mm);
      EXPECT_EQ(r.implicitEqualities, Icirc);
      checkBasis(r, Nn, Minv, rankI);
      if (Icirc.empty()) {
        EXPECT_EQ(r.lpSolves, 1);
      }
      if (kMethods[k] == LinealityMethod::supportAndShave) {
        EXPECT_LE(r.lpSolves, 2 * mm);
      }
      if (kMethods[k] == LinealityMethod::lp1ThenLp2) {
        EXPECT_EQ(r.lpSolves, Icirc.empty() ? 1 : 2);
      }
    }
  }
  std::printf("[lineality D1] checked %d (lineal %d, free %d), skipped as ambiguous %d\n", checked,
              lineal, nfree, skipped);
  EXPECT_GE(lineal, trials / 4);
  EXPECT_GE(nfree, trials / 8);
  EXPECT_LE(skipped, trials / 20);
}

// Support & Shave count: with one opposing pair among many pointed constraints, the first
// per-constraint LPs shave most of the rest, so far fewer than the 2m worst case are needed.
TEST(Lineality, SupportAndShaveShavesInBulk) {
  std::mt19937 rng(5);
  std::normal_distribution<double> g;
  const int d = 6, m = 30;
  MatrixXd N(d, m);
  for (int j = 0; j < m; ++j) {
    for (int k = 0; k < d; ++k) N(k, j) = g(rng);
    N(0, j) = std::abs(N(0, j)) + 0.5;  // pointed towards e_0
  }
  // One opposing pair ±e_1, orthogonal to the pointing direction e_0: no other positive
  // combination can involve it (its e_0 component would be positive), so I = {m-2, m-1}.
  N.col(m - 2) = VectorXd::Unit(d, 1);
  N.col(m - 1) = -VectorXd::Unit(d, 1);
  const MatrixXd Minv = MatrixXd::Identity(d, d);
  N = normalised(N, Minv);
  const LinealityResult r = detectLineality(N, Minv, withMethod(LinealityMethod::supportAndShave));
  EXPECT_EQ(r.implicitEqualities, (std::vector<int>{m - 2, m - 1}));
  std::printf("[lineality] Support & Shave on m = %d with one opposing pair: %d LPs\n", m, r.lpSolves);
  EXPECT_LE(r.lpSolves, m / 3);
  const LinealityResult r2 = detectLineality(N, Minv, withMethod(LinealityMethod::lp2));
  EXPECT_EQ(r2.implicitEqualities, r.implicitEqualities);
}

// Degenerate and bad input: clear InputErrors naming the constraint.
TEST(Lineality, BadInputNamesTheConstraint) {
  const MatrixXd Minv = MatrixXd::Identity(2, 2);
  MatrixXd N(2, 3);
  N << 1, -1, 0, 0, 1, 0;  // column 2 is zero
  try {
    detectLineality(N, Minv);
    FAIL() << "zero column accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("constraint 2"), std::string::npos) << e.what();
  }
  N(0, 2) = 1;
  N(1, 1) = std::numeric_limits<double>::quiet_NaN();
  try {
    detectLineality(N, Minv);
    FAIL() << "NaN accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("constraint 1"), std::string::npos) << e.what();
  }
  N(1, 1) = std::numeric_limits<double>::infinity();
  EXPECT_THROW(detectLineality(N, Minv), InputError);
  N(1, 1) = 1;
  EXPECT_THROW(detectLineality(N, MatrixXd::Identity(3, 3)), InputError);  // size mismatch
  MatrixXd bad(2, 2);
  bad << 1, 0, 0, -1;  // indefinite
  EXPECT_THROW(detectLineality(N, bad), InputError);
  bad << 1, 0.5, 0, 1;  // not symmetric
  EXPECT_THROW(detectLineality(N, bad), InputError);
  bad << 1, 0, 0, std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(detectLineality(N, bad), InputError);
  LinealityOptions o;
  o.epsilon = -1e-3;
  EXPECT_THROW(detectLineality(N, Minv, o), InputError);
  EXPECT_THROW(linealityMethodFromString("simplex"), InputError);
  EXPECT_EQ(linealityMethodFromString("support_and_shave"), LinealityMethod::supportAndShave);
  EXPECT_THROW(LinealityProjector(MatrixXd::Zero(3, 1), Minv), InputError);
  // An LP that cannot finish (iteration limit 1, for both simplex variants) is an Error naming
  // the LP, never a silent answer.
  {
    LinealityOptions lim;
    lim.lp.maxIterations = 1;
    const MatrixXd Nj = jammedBox(3).N();
    try {
      detectLineality(Nj, MatrixXd::Identity(18, 18), lim);
      FAIL() << "iteration-limited LP accepted";
    } catch (const InputError& e) {
      FAIL() << "not an input error: " << e.what();
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("LP-1"), std::string::npos) << e.what();
    }
  }
  // No constraints: nothing to detect, no LP.
  const LinealityResult r = detectLineality(MatrixXd(2, 0), Minv);
  EXPECT_TRUE(r.implicitEqualities.empty());
  EXPECT_EQ(r.lpSolves, 0);
  EXPECT_EQ(r.E.rows(), 2);
  EXPECT_EQ(r.E.cols(), 0);
  // Unnormalised columns are accepted: I and E do not depend on the column scale.
  MatrixXd S(2, 2);
  S << 5, -0.01, 0, 0;
  const LinealityResult rs = detectLineality(S, Minv);
  EXPECT_EQ(rs.implicitEqualities, (std::vector<int>{0, 1}));
  EXPECT_NEAR(std::abs(rs.E(0, 0)), 1.0, 1e-14);
}

}  // namespace
}  // namespace kinema::impact

// Newton with line search on manifolds (framework/solvers/newton.hpp): Euclidean problems
// (quadratic, Rosenbrock, extended Rosenbrock) and (R^3 x S^3)^n problems (Rayleigh quotient,
// rigid-rotation alignment) with known minima, on the eigen backend with Comm::self maps.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "framework/solvers/manifold_euclidean.hpp"
#include "framework/solvers/manifold_rigid.hpp"
#include "framework/solvers/newton.hpp"
#include "framework/solvers/newton_params.hpp"
#include "la/la_test_util.hpp"
#include "rigid_test_problems.hpp"

namespace kinema::test {
namespace {

using solvers::EuclideanManifold;
using solvers::NewtonOptions;
using solvers::NewtonProblem;
using solvers::NewtonSolver;
using solvers::NewtonStats;
using solvers::ReducedHessian;
using solvers::RigidManifold;
using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;

Eigen::VectorXd toEigen(const la::Vector& v) {
  la::Vector::ConstView r = v.view();
  Eigen::VectorXd e(v.ownedSize());
  for (LocalIndex i = 0; i < v.ownedSize(); ++i) e[i] = r[i];
  return e;
}
void fromEigen(const Eigen::VectorXd& e, la::Vector& v) {
  la::Vector::View w = v.view();
  for (LocalIndex i = 0; i < v.ownedSize(); ++i) w[i] = e[i];
}

NewtonOptions directOptions() {
  NewtonOptions o;
  o.linear.type = "direct";
  o.gtolAbs = 1e-10;
  return o;
}

// max of g_{k+1} / g_k^2 over the last `last` steps before convergence (the quadratic-convergence
// ratio). Steps that land on the round-off floor are skipped: they are evidence neither way.
double quadraticRatio(const NewtonStats& st, int last, int* counted = nullptr) {
  const std::vector<double>& g = st.gradientNorms;
  const double floor = 1e-13 * std::max(1.0, g.empty() ? 1.0 : g[0]);
  double r = 0.0;
  int n = 0;
  for (std::size_t k = g.size(); k-- > 1 && n < last;) {
    if (g[k] < floor || g[k - 1] == 0.0) continue;
    r = std::max(r, g[k] / (g[k - 1] * g[k - 1]));
    ++n;
  }
  if (counted) *counted = n;
  return r;
}

void printNorms(const char* name, const NewtonStats& st) {
  std::printf("[%s] iterations %d, line-search trials %d, linear its %d, steepest %d, psd clamped %ld, ||g||:",
              name, st.iterations, st.lineSearchTrials, st.linearIterations, st.steepestDescentSteps,
              st.psdClamped);
  for (double g : st.gradientNorms) std::printf(" %.2e", g);
  std::printf("\n");
}

// ---------------------------------------------------------------------------------------------
// Euclidean problems given as dense functions; the Hessian is scattered as one element per
// `elements` entry (block lists), each of size N, PSD-safeguarded.
class Quadratic final : public NewtonProblem {
 public:
  Quadratic(Eigen::MatrixXd A, Eigen::VectorXd b, int bs) : A_(std::move(A)), b_(std::move(b)), bs_(bs) {}
  double energy(const la::Vector& x) override {
    const Eigen::VectorXd e = toEigen(x);
    return 0.5 * e.dot(A_ * e) - b_.dot(e);
  }
  void gradient(const la::Vector& x, la::Vector& g) override { fromEigen(A_ * toEigen(x) - b_, g); }
  void hessian(const la::Vector&, ReducedHessian& H) override {
    const long nb = A_.rows() / bs_;
    for (long I = 0; I < nb; ++I)
      for (long J = 0; J < nb; ++J) {
        Eigen::Matrix2d blk = A_.block(I * bs_, J * bs_, 2, 2);
        if (blk.norm() > 0) H.addBlock(I, J, blk);
      }
  }

 private:
  Eigen::MatrixXd A_;
  Eigen::VectorXd b_;
  int bs_;
};

// Rosenbrock in R^2, two blocks of size 1 (the element couples them):
// f = 100 (y - x^2)^2 + (1 - x)^2.
class Rosenbrock2 final : public NewtonProblem {
 public:
  double energy(const la::Vector& v) override {
    const Eigen::VectorXd e = toEigen(v);
    return 100.0 * std::pow(e[1] - e[0] * e[0], 2) + std::pow(1.0 - e[0], 2);
  }
  void gradient(const la::Vector& v, la::Vector& g) override {
    const Eigen::VectorXd e = toEigen(v);
    const double x = e[0], y = e[1];
    Eigen::VectorXd r(2);
    r << -400.0 * x * (y - x * x) - 2.0 * (1.0 - x), 200.0 * (y - x * x);
    fromEigen(r, g);
  }
  void hessian(const la::Vector& v, ReducedHessian& H) override {
    const Eigen::VectorXd e = toEigen(v);
    const double x = e[0], y = e[1];
    Eigen::Matrix2d h;
    h << 1200.0 * x * x - 400.0 * y + 2.0, -400.0 * x, -400.0 * x, 200.0;
    const std::array<GlobalIndex, 2> blocks{0, 1};
    H.addElement<2>(blocks, h);
  }
};

// Extended Rosenbrock in R^{2m}, m blocks of size 2: f = sum_i 100 (x_{2i+1} - x_{2i}^2)^2 + (1 - x_{2i})^2.
class RosenbrockExtended final : public NewtonProblem {
 public:
  double energy(const la::Vector& v) override {
    const Eigen::VectorXd e = toEigen(v);
    double f = 0;
    for (long i = 0; i + 1 < e.size(); i += 2)
      f += 100.0 * std::pow(e[i + 1] - e[i] * e[i], 2) + std::pow(1.0 - e[i], 2);
    return f;
  }
  void gradient(const la::Vector& v, la::Vector& g) override {
    const Eigen::VectorXd e = toEigen(v);
    Eigen::VectorXd r(e.size());
    for (long i = 0; i + 1 < e.size(); i += 2) {
      const double x = e[i], y = e[i + 1];
      r[i] = -400.0 * x * (y - x * x) - 2.0 * (1.0 - x);
      r[i + 1] = 200.0 * (y - x * x);
    }
    fromEigen(r, g);
  }
  void hessian(const la::Vector& v, ReducedHessian& H) override {
    const Eigen::VectorXd e = toEigen(v);
    for (long i = 0; i + 1 < e.size(); i += 2) {
      const double x = e[i], y = e[i + 1];
      Eigen::Matrix2d h;
      h << 1200.0 * x * x - 400.0 * y + 2.0, -400.0 * x, -400.0 * x, 200.0;
      const std::array<GlobalIndex, 1> blocks{i / 2};
      H.addElement<2>(blocks, h);
    }
  }
};

class NewtonEuclidean : public ::testing::Test {
 protected:
  void SetUp() override { backend = makeBackend("eigen"); }
  la::VectorPtr point(GlobalIndex blocks, int bs, const std::vector<double>& values) {
    auto x = backend->createVector(la::IndexMap::uniform(Comm::self(), blocks, bs));
    la::Vector::View w = x->view();
    for (std::size_t i = 0; i < values.size(); ++i) w[static_cast<LocalIndex>(i)] = values[i];
    return x;
  }
  la::BackendPtr backend;
};

TEST_F(NewtonEuclidean, QuadraticOneStepWithDirectSolve) {
  const int bs = 2, nb = 10, n = bs * nb;
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    A(i, i) = 4.0 + 0.1 * i;
    if (i + 1 < n) A(i, i + 1) = A(i + 1, i) = -1.0;
    if (i + 2 < n) A(i, i + 2) = A(i + 2, i) = 0.3;
  }
  Eigen::VectorXd b(n);
  for (int i = 0; i < n; ++i) b[i] = fA(i);
  Quadratic prob(A, b, bs);
  EuclideanManifold M(bs);
  NewtonSolver newton(*backend, M, directOptions());
  auto x = point(nb, bs, std::vector<double>(n, 0.5));
  NewtonStats st = newton.solve(prob, *x);
  printNorms("quadratic", st);
  EXPECT_TRUE(st.converged) << st.reason;
  EXPECT_EQ(st.iterations, 1);
  EXPECT_EQ(st.lineSearchTrials, 1);
  EXPECT_DOUBLE_EQ(st.stepLengths.at(0), 1.0);
  const Eigen::VectorXd xs = A.ldlt().solve(b);
  EXPECT_LT((toEigen(*x) - xs).norm(), 1e-12 * xs.norm());
  EXPECT_LT(st.finalGradientNorm, 1e-10);
  // A second solve from the solution reuses the work objects and takes no step.
  NewtonStats again = newton.solve(prob, *x);
  EXPECT_TRUE(again.converged);
  EXPECT_EQ(again.iterations, 0);
}

TEST_F(NewtonEuclidean, Rosenbrock2QuadraticConvergence) {
  Rosenbrock2 prob;
  EuclideanManifold M(1);
  NewtonOptions o = directOptions();
  o.gtolAbs = 1e-12;
  o.psdFloor = 1e-8;
  NewtonSolver newton(*backend, M, o);
  auto x = point(2, 1, {-1.2, 1.0});
  NewtonStats st = newton.solve(prob, *x);
  printNorms("rosenbrock2", st);
  ASSERT_TRUE(st.converged) << st.reason;
  EXPECT_LT(st.iterations, 40);
  const Eigen::VectorXd e = toEigen(*x);
  EXPECT_NEAR(e[0], 1.0, 1e-10);
  EXPECT_NEAR(e[1], 1.0, 1e-10);
  int counted = 0;
  const double ratio = quadraticRatio(st, 3, &counted);
  std::printf("[rosenbrock2] max g_{k+1}/g_k^2 over the last %d steps: %.3g\n", counted, ratio);
  EXPECT_EQ(counted, 3);
  EXPECT_LT(ratio, 10.0);
}

TEST_F(NewtonEuclidean, PsdHookIsCalledAndClamps) {
  // At (0, 1) the Hessian [[-398, 0], [0, 200]] is indefinite: the safeguard must clamp.
  Rosenbrock2 prob;
  EuclideanManifold M(1);
  NewtonOptions o = directOptions();
  o.psdFloor = 1e-6;
  NewtonSolver newton(*backend, M, o);
  auto x = point(2, 1, {0.0, 1.0});
  int calls = 0;
  long clampedAtFirst = -1;
  newton.setObserver([&](int k, const la::Vector&, const NewtonStats& s) {
    ++calls;
    if (k == 1) clampedAtFirst = s.psdClamped;
  });
  NewtonStats st = newton.solve(prob, *x);
  printNorms("rosenbrock2 psd", st);
  EXPECT_TRUE(st.converged) << st.reason;
  EXPECT_EQ(calls, st.iterations);
  EXPECT_EQ(st.psdElements, st.iterations);  // one element per Hessian
  EXPECT_GE(clampedAtFirst, 1);
  EXPECT_NEAR(toEigen(*x)[0], 1.0, 1e-9);

  // Off: elements pass through untouched.
  o.psdProjection = false;
  NewtonSolver plain(*backend, M, o);
  auto x2 = point(2, 1, {-1.2, 1.0});
  NewtonStats s2 = plain.solve(prob, *x2);
  EXPECT_EQ(s2.psdElements, 0);
  EXPECT_EQ(s2.psdClamped, 0);
}

TEST_F(NewtonEuclidean, IterationCapAndIndefiniteFallback) {
  Rosenbrock2 prob;
  EuclideanManifold M(1);
  NewtonOptions o = directOptions();
  o.maxIterations = 2;
  NewtonSolver capped(*backend, M, o);
  auto x = point(2, 1, {-1.2, 1.0});
  NewtonStats st = capped.solve(prob, *x);
  EXPECT_FALSE(st.converged);
  EXPECT_EQ(st.reason, SolverOutcome::MaxIterations);
  EXPECT_EQ(st.iterations, 2);
  EXPECT_EQ(st.gradientNorms.size(), 3u);
  // Without the PSD safeguard, at (-1.3, 1.7) the Hessian is indefinite and g^T H^{-1} g < 0: the
  // Newton direction ascends. The solver replaces it (-D^{-1} g or -g) and still converges.
  o.maxIterations = 100;
  o.psdProjection = false;
  NewtonSolver plain(*backend, M, o);
  auto x2 = point(2, 1, {-1.3, 1.7});
  NewtonStats s2 = plain.solve(prob, *x2);
  printNorms("rosenbrock2 no psd from (-1.3,1.7)", s2);
  EXPECT_TRUE(s2.converged) << s2.reason;
  EXPECT_GE(s2.steepestDescentSteps, 1);
  EXPECT_NEAR(toEigen(*x2)[0], 1.0, 1e-9);
}

TEST_F(NewtonEuclidean, ExtendedRosenbrock10InexactCg) {
  RosenbrockExtended prob;
  EuclideanManifold M(2);
  NewtonOptions o;
  o.gtolAbs = 1e-10;
  o.forcing = "eq31";
  o.psdFloor = 1e-8;
  o.linear.type = "cg";
  o.linear.preconditioner = "jacobi";
  NewtonSolver newton(*backend, M, o);
  std::vector<double> x0;
  for (int i = 0; i < 5; ++i) {
    x0.push_back(-1.2);
    x0.push_back(1.0);
  }
  auto x = point(5, 2, x0);
  NewtonStats st = newton.solve(prob, *x);
  printNorms("rosenbrock10 cg eq31", st);
  ASSERT_TRUE(st.converged) << st.reason;
  EXPECT_LT(st.iterations, 50);
  EXPECT_LT((toEigen(*x) - Eigen::VectorXd::Ones(10)).norm(), 1e-9);
  EXPECT_GT(st.linearIterations, 0);
  // Eq. 31: eta_0 = min(0.5, sqrt(||g_0||)).
  ASSERT_FALSE(st.forcingTerms.empty());
  EXPECT_DOUBLE_EQ(st.forcingTerms[0], std::min(0.5, std::sqrt(st.gradientNorms[0])));
  for (std::size_t k = 0; k < st.forcingTerms.size(); ++k)
    EXPECT_DOUBLE_EQ(st.forcingTerms[k], std::max(1e-14, std::min(0.5, std::sqrt(st.gradientNorms[k]))));
}

TEST_F(NewtonEuclidean, ExtendedRosenbrock10Direct) {
  RosenbrockExtended prob;
  EuclideanManifold M(2);
  NewtonOptions o = directOptions();
  o.gtolAbs = 1e-12;
  o.psdFloor = 1e-8;
  NewtonSolver newton(*backend, M, o);
  std::vector<double> x0;
  for (int i = 0; i < 5; ++i) {
    x0.push_back(-1.2);
    x0.push_back(1.0);
  }
  auto x = point(5, 2, x0);
  NewtonStats st = newton.solve(prob, *x);
  printNorms("rosenbrock10 direct", st);
  ASSERT_TRUE(st.converged) << st.reason;
  EXPECT_LT((toEigen(*x) - Eigen::VectorXd::Ones(10)).norm(), 1e-10);
  EXPECT_LT(quadraticRatio(st, 3), 10.0);
}

// f = sum_i (x_i^4 / 4 + x_i^2 / 2 - b_i x_i) + noise(x), |noise| <= 1e-10: an energy whose
// round-off (1e-10 |f|) is far above the Armijo slack (energy_noise = 1e-13 |f|), as an incremental
// potential that is a small difference of large terms. The gradient and Hessian are exact.
class NoisyQuartic final : public NewtonProblem {
 public:
  explicit NoisyQuartic(Eigen::VectorXd b) : b_(std::move(b)) {}
  double energy(const la::Vector& v) override {
    const Eigen::VectorXd e = toEigen(v);
    double f = 0, u = 0;
    for (long i = 0; i < e.size(); ++i) {
      f += 0.25 * std::pow(e[i], 4) + 0.5 * e[i] * e[i] - b_[i] * e[i];
      std::uint64_t z;
      std::memcpy(&z, &e[i], sizeof z);
      z += 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(i + 1);  // splitmix64
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      u += static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
    }
    return f + 1e-10 * (2.0 * (u - std::floor(u)) - 1.0);
  }
  void gradient(const la::Vector& v, la::Vector& g) override {
    const Eigen::VectorXd e = toEigen(v);
    fromEigen((e.array().cube() + e.array() - b_.array()).matrix(), g);
  }
  void hessian(const la::Vector& v, ReducedHessian& H) override {
    const Eigen::VectorXd e = toEigen(v);
    for (long i = 0; i + 1 < e.size(); i += 2) {
      Eigen::Matrix2d h = Eigen::Matrix2d::Zero();
      h(0, 0) = 3.0 * e[i] * e[i] + 1.0;
      h(1, 1) = 3.0 * e[i + 1] * e[i + 1] + 1.0;
      const std::array<GlobalIndex, 1> blocks{i / 2};
      H.addElement<2>(blocks, h);
    }
  }

 private:
  Eigen::VectorXd b_;
};

TEST_F(NewtonEuclidean, FlatEnergyIsJudgedByTheGradient) {
  // Near the minimum the decrease a Newton step asks for (~|g|^2) falls below f's round-off: the
  // Armijo test then accepts or rejects by the sign of noise. With gradientTestWhenFlat the full
  // step is taken when it lowers the measure, and Newton converges quadratically to gtol 1e-13.
  Eigen::VectorXd b(8);
  b << 1.0, -2.0, 0.5, 3.0, -1.5, 0.25, 2.0, -0.75;
  NoisyQuartic prob(b);
  EuclideanManifold M(2);
  NewtonOptions o = directOptions();
  o.gtolAbs = 1e-13;
  o.steepestFallback = false;
  for (bool on : {true, false}) {
    o.gradientTestWhenFlat = on;
    NewtonSolver newton(*backend, M, o);
    auto x = point(4, 2, std::vector<double>(8, 0.0));
    NewtonStats st = newton.solve(prob, *x);
    printNorms(on ? "noisy quartic, gradient test when flat" : "noisy quartic, energy only", st);
    std::printf("[noisy quartic] gradient tests %d, reason %s\n", st.flatGradientTests, name(st.reason));
    if (!on) continue;
    ASSERT_TRUE(st.converged) << st.reason;
    EXPECT_GE(st.flatGradientTests, 1);
    EXPECT_LE(st.iterations, 10);
    EXPECT_DOUBLE_EQ(st.stepLengths.back(), 1.0);
    EXPECT_LT(st.finalGradientNorm, 1e-13);
  }
}

// ---------------------------------------------------------------------------------------------
// Quaternion algebra and the manifold's own identities (spec section 1 and 3.3).

TEST(RigidManifoldAlgebra, Identities) {
  const Vec4 q = unitQuat(0.3, -1.0, 0.5, 2.1);
  const auto G = RigidManifold::G(q);
  EXPECT_LT((G * q).norm(), 1e-15);
  EXPECT_LT((G * G.transpose() - Eigen::Matrix3d::Identity()).norm(), 1e-15);
  EXPECT_LT((G.transpose() * G - (Eigen::Matrix4d::Identity() - q * q.transpose())).norm(), 1e-15);
  // G_r(q)^T y = (y, 0) (x) q
  const Vec3 y(0.2, -0.7, 0.4);
  Vec4 y4;
  y4 << y, 0.0;
  EXPECT_LT((G.transpose() * y - RigidManifold::multiply(y4, q)).norm(), 1e-15);
  // R(q) d = vec(q (x) (d, 0) (x) conj(q)), and R is a rotation
  const Eigen::Matrix3d R = RigidManifold::rotation(q);
  Vec4 qc = q;
  qc.head<3>() *= -1.0;
  const Vec4 rd = RigidManifold::multiply(RigidManifold::multiply(q, y4), qc);
  EXPECT_LT((R * y - rd.head<3>()).norm(), 1e-15);
  EXPECT_LT((R.transpose() * R - Eigen::Matrix3d::Identity()).norm(), 1e-14);
  EXPECT_NEAR(R.determinant(), 1.0, 1e-14);
}

TEST(RigidManifoldAlgebra, RetractionIsTheGeodesicAndTransportKeepsTangency) {
  auto backend = makeBackend("eigen");
  RigidManifold M;
  auto pmap = la::IndexMap::uniform(Comm::self(), 2, 7);
  auto tmap = M.tangentMap(pmap);
  EXPECT_EQ(tmap->blockSize(), 6);
  auto x = backend->createVector(pmap);
  auto y = backend->createVector(tmap);
  const Vec4 q0 = unitQuat(1, 2, 3, 0.7), q1 = unitQuat(-1, 0.5, 0.2, 2.5);
  {
    la::Vector::View w = x->view();
    for (int i = 0; i < 3; ++i) w[i] = i, w[7 + i] = -i;
    for (int i = 0; i < 4; ++i) w[3 + i] = q0[i], w[10 + i] = q1[i];
  }
  fill(*y, fB);
  auto x0 = x->clone();
  const double alpha = 0.3;
  M.retract(*x, *y, alpha);
  la::Vector::ConstView xr = x->constView(), yr = y->constView(), x0r = x0->constView();
  for (int b = 0; b < 2; ++b) {
    const Vec4 q = Eigen::Map<const Vec4>(x0r.data() + 7 * b + 3);
    const Vec3 yy = Eigen::Map<const Vec3>(yr.data() + 6 * b + 3);
    const Vec4 dq = RigidManifold::G(q).transpose() * yy;
    const double phi = alpha * dq.norm();
    const Vec4 geo = q * std::cos(phi) + dq / dq.norm() * std::sin(phi);  // spec Eq. 21
    const Vec4 got = Eigen::Map<const Vec4>(xr.data() + 7 * b + 3);
    EXPECT_LT((got - geo).norm(), 1e-15);
    EXPECT_NEAR(got.norm(), 1.0, 1e-15);
    for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(xr[7 * b + i], x0r[7 * b + i] + alpha * yr[6 * b + i]);
  }
  // The ambient image of reduced coordinates is tangent; reduced(ambient(y)) = y (G G^T = I).
  auto v = backend->createVector(pmap);
  M.fromReduced(*x, *y, *v);
  auto pv = v->clone();
  M.projectTangent(*x, *pv);
  pv->axpy(-1.0, *v);
  EXPECT_LT(pv->normInf(), 1e-15);
  auto y2 = backend->createVector(tmap);
  M.toReduced(*x, *v, *y2);
  y2->axpy(-1.0, *y);
  EXPECT_LT(y2->normInf(), 1e-15);
  // Transport: the ambient vector at the old point, projected onto the new tangent space.
  auto yt = y->clone();
  M.transport(*x0, *x, *yt);
  auto vOld = backend->createVector(pmap), vNew = backend->createVector(pmap);
  M.fromReduced(*x0, *y, *vOld);
  M.projectTangent(*x, *vOld);
  M.fromReduced(*x, *yt, *vNew);
  vNew->axpy(-1.0, *vOld);
  EXPECT_LT(vNew->normInf(), 1e-15);
  // maxStep caps alpha |y_rot| at pi/4.
  double m = 0;
  for (int b = 0; b < 2; ++b) m = std::max(m, Eigen::Map<const Vec3>(yr.data() + 6 * b + 3).norm());
  EXPECT_NEAR(M.maxStep(*y), 0.25 * M_PI / m, 1e-15);
}

TEST(RigidManifoldAlgebra, TwoParticleElementReduction) {
  // reduceHessian<2> = B^T H B - blockdiag(0, (q_a . grad_qa) I3, 0, (q_b . grad_qb) I3), block by block.
  const std::array<Vec4, 2> q{unitQuat(1, 2, 3, 0.4), unitQuat(-2, 0, 1, 1.9)};
  Eigen::Matrix<double, 14, 14> X;
  for (int i = 0; i < 14; ++i)
    for (int j = 0; j < 14; ++j) X(i, j) = std::sin(1.0 + i + 3.0 * j);
  const Eigen::Matrix<double, 14, 14> H = X + X.transpose();
  Eigen::Matrix<double, 14, 1> g;
  for (int i = 0; i < 14; ++i) g[i] = std::cos(0.5 * i);
  const Eigen::Matrix<double, 12, 12> R = RigidManifold::reduceHessian<2>(q, g, H);
  const Eigen::Matrix<double, 12, 1> r = RigidManifold::reduceGradient<2>(q, g);
  for (int a = 0; a < 2; ++a) {
    const auto Ba = RigidManifold::basis(q[a]);
    EXPECT_LT((r.segment<6>(6 * a) - Ba.transpose() * g.segment<7>(7 * a)).norm(), 1e-14);
    for (int b = 0; b < 2; ++b) {
      Eigen::Matrix<double, 6, 6> ref =
          Ba.transpose() * H.block<7, 7>(7 * a, 7 * b) * RigidManifold::basis(q[b]);
      if (a == b) ref.bottomRightCorner<3, 3>().diagonal().array() -= q[a].dot(g.segment<4>(7 * a + 3));
      EXPECT_LT((R.block<6, 6>(6 * a, 6 * b) - ref).norm(), 1e-13) << a << "," << b;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// (R^3 x S^3)^n problems. Each particle a: f_a = q^T A_a q-type rotational energy + k/2 |p - c_a|^2.
// rotationalEnergy/Grad/Hess are per particle, on the Euclidean embedding (any smooth extension).
class NewtonRigid : public ::testing::Test {
 protected:
  void SetUp() override { backend = makeBackend("eigen"); }
  la::VectorPtr point(const std::vector<Vec4>& q) {
    auto x = backend->createVector(la::IndexMap::uniform(Comm::self(), static_cast<GlobalIndex>(q.size()), 7));
    la::Vector::View w = x->view();
    for (std::size_t a = 0; a < q.size(); ++a) {
      for (int i = 0; i < 3; ++i) w[static_cast<LocalIndex>(7 * a + i)] = 1.0 + i;
      for (int i = 0; i < 4; ++i) w[static_cast<LocalIndex>(7 * a + 3 + i)] = q[a][i];
    }
    return x;
  }
  // Observer: the largest | |q| - 1 | over every quaternion after every step.
  void watchUnitNorm(NewtonSolver& s) {
    s.setObserver([this](int, const la::Vector& x, const NewtonStats&) {
      la::Vector::ConstView r = x.view();
      for (LocalIndex a = 0; a < x.map().ownedBlocks(); ++a)
        unitError = std::max(unitError, std::abs(Eigen::Map<const Vec4>(r.data() + 7 * a + 3).norm() - 1.0));
      ++steps;
    });
  }
  la::BackendPtr backend;
  double unitError = 0.0;
  int steps = 0;
};

TEST_F(NewtonRigid, ReducedHessianMatchesSecondDerivativeAlongGeodesics) {
  // For the geodesic (second-order) retraction, d^2/dt^2 f(R_x(t y)) at 0 = y^T H_red y: checks the
  // reduction and the curvature term -(q . grad_q f) I3 (spec section 3.4).
  Alignment prob({unitQuat(1, 1, 0, 1.0)}, {Vec3(1, 0, 0), Vec3(0, 2, 1), Vec3(-1, 0.5, 3)});
  RigidManifold M;
  auto x = point({unitQuat(0.2, -1, 0.4, 2.0)});
  auto tmap = M.tangentMap(x->mapPtr());
  auto asmb = backend->createAssembler(tmap, tmap);
  NewtonOptions o;
  o.psdProjection = false;
  NewtonStats st;
  asmb->begin();
  {
    ReducedHessian H(*asmb, o, st);
    prob.hessian(*x, H);
  }
  la::MatrixPtr A = asmb->end();
  auto y = backend->createVector(tmap);
  fill(*y, fA);
  auto Hy = backend->createVector(tmap);
  A->apply(*y, *Hy);
  const double yHy = y->dot(*Hy);
  const double f0 = prob.energy(*x);
  const double t = 1e-4;
  auto xp = x->clone(), xm = x->clone();
  M.retract(*xp, *y, t);
  M.retract(*xm, *y, -t);
  const double fd = (prob.energy(*xp) - 2.0 * f0 + prob.energy(*xm)) / (t * t);
  std::printf("[geodesic FD] y^T H y = %.10g, FD = %.10g\n", yHy, fd);
  EXPECT_NEAR(fd, yHy, 1e-5 * std::abs(yHy));
  // And the first derivative is g_red . y.
  auto g = backend->createVector(tmap);
  prob.gradient(*x, *g);
  const double fd1 = (prob.energy(*xp) - prob.energy(*xm)) / (2 * t);
  EXPECT_NEAR(fd1, g->dot(*y), 1e-6 * std::abs(fd1));
}

TEST_F(NewtonRigid, RayleighQuotientReachesSmallestEigenvector) {
  Eigen::Matrix4d X;
  X << 1, 2, 0, 1, -1, 3, 1, 0, 2, 0, 1, -1, 0, 1, 1, 2;
  const Eigen::Matrix4d V = Eigen::HouseholderQR<Eigen::Matrix4d>(X).householderQ();
  const Eigen::Vector4d lambda(1.0, 2.0, 4.0, 7.0);
  const Eigen::Matrix4d A = V * lambda.asDiagonal() * V.transpose();
  Rayleigh prob(A);
  RigidManifold M;
  NewtonOptions o = directOptions();
  o.gtolAbs = 1e-12;
  o.psdFloor = 1e-6;
  NewtonSolver newton(*backend, M, o);
  watchUnitNorm(newton);
  auto x = point({unitQuat(1, 1, 1, 2.5)});
  NewtonStats st = newton.solve(prob, *x);
  printNorms("rayleigh", st);
  ASSERT_TRUE(st.converged) << st.reason;
  la::Vector::ConstView r = x->constView();
  const Vec4 q = Eigen::Map<const Vec4>(r.data() + 3);
  EXPECT_NEAR(std::abs(q.dot(V.col(0))), 1.0, 1e-12);
  EXPECT_NEAR(q.dot(A * q), 1.0, 1e-12);
  EXPECT_NEAR((Eigen::Map<const Vec3>(r.data()) - prob.center(0)).norm(), 0.0, 1e-12);
  EXPECT_EQ(steps, st.iterations);
  EXPECT_LE(unitError, 1e-12);
  int counted = 0;
  const double ratio = quadraticRatio(st, 3, &counted);
  std::printf("[rayleigh] max | |q| - 1 | over steps: %.2e; max g_{k+1}/g_k^2 over %d steps: %.3g\n", unitError,
              counted, ratio);
  EXPECT_EQ(counted, 3);
  EXPECT_LT(ratio, 10.0);
  EXPECT_LE(st.iterations, 10);
}

TEST_F(NewtonRigid, RigidRotationAlignmentRecoversRotation) {
  const std::vector<Vec4> qstar{unitQuat(1, 0, 0, 0.5), unitQuat(0.3, 1, -0.2, 2.0), unitQuat(-1, 1, 1, 2.9)};
  const std::vector<Vec4> q0{unitQuat(0, 1, 0, 1.5), unitQuat(1, 1, 1, -0.5), unitQuat(0.5, -1, 0.2, 0.3)};
  Alignment prob(qstar, {Vec3(1, 0, 0), Vec3(0, 1, 0.5), Vec3(0.2, -0.3, 1), Vec3(1, 1, 1)});
  RigidManifold M;
  NewtonOptions o = directOptions();
  o.gtolAbs = 1e-12;
  o.psdFloor = 1e-6;
  NewtonSolver newton(*backend, M, o);
  watchUnitNorm(newton);
  auto x = point(q0);
  NewtonStats st = newton.solve(prob, *x);
  printNorms("alignment", st);
  ASSERT_TRUE(st.converged) << st.reason;
  EXPECT_LT(st.iterations, 30);
  la::Vector::ConstView r = x->constView();
  for (int a = 0; a < 3; ++a) {
    const Vec4 q = Eigen::Map<const Vec4>(r.data() + 7 * a + 3);
    const double err = std::min((q - qstar[a]).norm(), (q + qstar[a]).norm());  // up to sign
    EXPECT_LT(err, 1e-10) << "particle " << a;
  }
  EXPECT_LE(unitError, 1e-12);
  int counted = 0;
  const double ratio = quadraticRatio(st, 3, &counted);
  std::printf("[alignment] max | |q| - 1 |: %.2e; max g_{k+1}/g_k^2 over %d steps: %.3g\n", unitError, counted, ratio);
  EXPECT_EQ(counted, 3);
  EXPECT_LT(ratio, 10.0);
}

TEST_F(NewtonRigid, AlignmentInexactForcingTermsConverge) {
  const std::vector<Vec4> qstar{unitQuat(1, 2, 0, 1.1), unitQuat(0, 1, -1, 2.4)};
  Alignment prob(qstar, {Vec3(1, 0, 0), Vec3(0, 1, 0.5), Vec3(0.2, -0.3, 1)});
  RigidManifold M;
  for (const char* forcing : {"eq31", "quadratic"}) {
    SCOPED_TRACE(forcing);
    NewtonOptions o;
    o.gtolAbs = 1e-10;
    o.forcing = forcing;
    o.psdFloor = 1e-6;
    o.linear.type = "cg";
    o.linear.preconditioner = "jacobi";
    NewtonSolver newton(*backend, M, o);
    unitError = 0;
    steps = 0;
    watchUnitNorm(newton);
    auto x = point({unitQuat(1, 0, 0, 0.2), unitQuat(0, 0, 1, 0.4)});
    NewtonStats st = newton.solve(prob, *x);
    printNorms(forcing, st);
    ASSERT_TRUE(st.converged) << st.reason;
    EXPECT_GT(st.linearIterations, 0);
    EXPECT_LE(unitError, 1e-12);
    la::Vector::ConstView r = x->constView();
    for (int a = 0; a < 2; ++a) {
      const Vec4 q = Eigen::Map<const Vec4>(r.data() + 7 * a + 3);
      EXPECT_LT(std::min((q - qstar[a]).norm(), (q + qstar[a]).norm()), 1e-9);
    }
  }
}

TEST_F(NewtonRigid, ManyParticlesIterationCountDoesNotGrow) {
  // 500 independent alignments, cg + jacobi with the Eq. 31 forcing term: one global system.
  const int n = 500;
  std::vector<Vec4> qs, q0;
  for (int a = 0; a < n; ++a) {
    const double t = 0.37 * a;
    qs.push_back(unitQuat(std::sin(t), std::cos(1.3 * t), 0.5 + std::sin(2.1 * t), 0.3 + std::fmod(0.71 * a, 2.5)));
    const Vec4 dq = unitQuat(std::cos(t), 1.0, std::sin(0.5 * t), 0.9);  // a 0.9 rad perturbation
    q0.push_back(RigidManifold::multiply(dq, qs.back()));
  }
  Alignment prob(qs, {Vec3(1, 0, 0), Vec3(0, 1, 0.5), Vec3(0.2, -0.3, 1)});
  RigidManifold M;
  NewtonOptions o;
  o.gtolAbs = 1e-9;
  o.psdFloor = 1e-6;
  o.linear.type = "cg";
  o.linear.preconditioner = "jacobi";
  NewtonSolver newton(*backend, M, o);
  watchUnitNorm(newton);
  auto x = point(q0);
  NewtonStats st = newton.solve(prob, *x);
  std::printf("[alignment x%d, cg eq31] iterations %d, linear its %d, line-search trials %d, %.3f s, max | |q| - 1 | %.1e\n",
              n, st.iterations, st.linearIterations, st.lineSearchTrials, st.seconds, unitError);
  ASSERT_TRUE(st.converged) << st.reason;
  EXPECT_LE(st.iterations, 15);
  EXPECT_LE(unitError, 1e-12);
  la::Vector::ConstView r = x->constView();
  double err = 0;
  for (int a = 0; a < n; ++a) {
    const Vec4 q = Eigen::Map<const Vec4>(r.data() + 7 * a + 3);
    err = std::max(err, std::min((q - qs[a]).norm(), (q + qs[a]).norm()));
  }
  EXPECT_LT(err, 1e-9);
}

// ---------------------------------------------------------------------------------------------
TEST(NewtonParams, DefaultsAndOverrides) {
  ParamSchema schema;
  NewtonOptions d;
  d.maxIterations = 60;
  solvers::newtonBindings().declare(schema, "bdem.newton", d);
  for (const char* k : {"gtol_abs", "gtol_rel", "max_iterations", "armijo_c1", "shrink", "max_line_search",
                        "energy_noise", "gradient_test_when_flat", "forcing", "forcing_constant", "forcing_max", "forcing_min",
                        "psd_projection", "psd_floor", "steepest_fallback", "linear.type", "linear.rtol"}) {
    const ParamSpec* s = schema.find(std::string("bdem.newton.") + k);
    ASSERT_NE(s, nullptr) << k;
    EXPECT_FALSE(s->help.empty()) << k;
  }
  Config c = Config::fromString("{}");
  c.validate(schema);
  NewtonOptions o = solvers::newtonBindings().read(c, "bdem.newton");
  EXPECT_EQ(o.maxIterations, 60);
  EXPECT_EQ(o.forcing, "eq31");
  EXPECT_DOUBLE_EQ(o.armijoC1, 1e-4);
  EXPECT_EQ(o.linear.type, "cg");
  EXPECT_TRUE(o.gradientTestWhenFlat);

  Config c2 = Config::fromString(
      "bdem:\n  newton:\n    forcing: quadratic\n    shrink: 0.3\n    psd_projection: false\n"
      "    linear:\n      type: direct\n");
  c2.validate(schema);
  NewtonOptions o2 = solvers::newtonBindings().read(c2, "bdem.newton");
  EXPECT_EQ(o2.forcing, "quadratic");
  EXPECT_DOUBLE_EQ(o2.shrink, 0.3);
  EXPECT_FALSE(o2.psdProjection);
  EXPECT_EQ(o2.linear.type, "direct");

  Config bad = Config::fromString("bdem:\n  newton:\n    shrink: 1.5\n");
  EXPECT_NE(messageOf([&] { bad.validate(schema); }), "");
}

// One binding: a module nests newtonBindings() under its own key and gets the same keys, the
// linear solver's among them; a preconditioner no backend offers is a validation error naming it.
TEST(NewtonParams, BindingsNestAndRefuseAPreconditionerTypo) {
  struct Module {
    double dt = 0.1;
    NewtonOptions newton;
  };
  ParamBindings<Module> b;
  b.real("dt", &Module::dt, Range::positive(), "time step");
  b.nested("newton", &Module::newton, solvers::newtonBindings());
  ParamSchema nestedSchema, wrapperSchema;
  b.declare(nestedSchema, "m");
  solvers::newtonBindings().declare(wrapperSchema, "m.newton");
  ASSERT_EQ(nestedSchema.specs().size(), wrapperSchema.specs().size() + 1);
  for (const ParamSpec& s : wrapperSchema.specs()) {
    const ParamSpec* n = nestedSchema.find(s.key);
    ASSERT_NE(n, nullptr) << s.key;
    EXPECT_EQ(n->defaultString(), s.defaultString()) << s.key;
    EXPECT_EQ(n->help, s.help) << s.key;
  }
  Config c = Config::fromString("m: {newton: {max_iterations: 7, linear: {preconditioner: ic0}}}\n");
  c.validate(nestedSchema);
  const Module m = b.read(c, "m");
  EXPECT_EQ(m.newton.maxIterations, 7);
  EXPECT_EQ(m.newton.linear.preconditioner, "ic0");
  EXPECT_EQ(m.newton.linear.prefix, "m_newton_linear_");
  EXPECT_EQ(solvers::newtonBindings().read(c, "m.newton").linear.prefix, "m_newton_linear_");

  Config typo = Config::fromString("m: {newton: {linear: {preconditioner: icc0}}}\n");
  const std::string msg = messageOf([&] { typo.validate(nestedSchema); });
  EXPECT_NE(msg.find("m.newton.linear.preconditioner"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'ic0'"), std::string::npos) << msg;
}

}  // namespace
}  // namespace kinema::test

// ---------------------------------------------------------------------------------------------
// projectPSDTranslationInvariantPair: on a pair element that annihilates the common translation it
// must give the matrix projectPSD<12> gives (the 9x9 relative-coordinate projection is exact, not an
// approximation), with and without a floor; on one that does not, it must fall back to projectPSD.
namespace kinema::test {
namespace {

using Mat12 = Eigen::Matrix<double, 12, 12>;
using Mat9 = Eigen::Matrix<double, 9, 9>;

// A random symmetric, generally indefinite, element over [p_i, y_i, p_j, y_j] that depends on the
// positions only through p_j - p_i: H = T^T A T with T the relative-coordinate map.
Mat12 translationInvariantElement(unsigned seed) {
  std::srand(seed);
  Mat9 A = Mat9::Random();
  A = (A + A.transpose()).eval();
  Eigen::Matrix<double, 9, 12> T = Eigen::Matrix<double, 9, 12>::Zero();
  for (int k = 0; k < 3; ++k) {
    T(k, k) = -1.0;
    T(k, 6 + k) = 1.0;
    T(3 + k, 3 + k) = 1.0;
    T(6 + k, 9 + k) = 1.0;
  }
  return T.transpose() * A * T;
}

TEST(ProjectPSDPair, EqualsTheFullProjectionOnTranslationInvariantElements) {
  int indefinite = 0;
  for (unsigned seed = 1; seed <= 40; ++seed) {
    for (double floor : {0.0, 0.25}) {
      const Mat12 H0 = translationInvariantElement(seed);
      Mat12 full = H0, pair = H0;
      const int cf = solvers::projectPSD<12>(full, floor);
      const int cp = solvers::projectPSDTranslationInvariantPair<6>(pair, floor);
      // The full path may also count the three null eigenvalues when round-off puts them below 0.
      EXPECT_GE(cf, cp) << "seed " << seed << " floor " << floor;
      EXPECT_LE(cf, cp + 3) << "seed " << seed << " floor " << floor;
      EXPECT_LE((full - pair).cwiseAbs().maxCoeff(), 1e-12 * H0.cwiseAbs().maxCoeff())
          << "seed " << seed << " floor " << floor;
      const Eigen::SelfAdjointEigenSolver<Mat12> es(0.5 * (pair + pair.transpose()));
      EXPECT_GE(es.eigenvalues().minCoeff(), floor - 1e-12 * H0.cwiseAbs().maxCoeff());
      if (floor == 0.0 && cf > 0) ++indefinite;
    }
  }
  EXPECT_GT(indefinite, 30);  // random symmetric elements are indefinite: the projection did work
}

TEST(ProjectPSDPair, ResultIsExactlySymmetricAndTranslationInvariant) {
  // Round-off in the projected element must not break the structure Newton relies on: an element
  // that annihilated the common translation (and was symmetric) must do so exactly afterwards, so
  // that the assembled Hessian keeps the rigid translations in the null space of the bond part.
  for (unsigned seed = 1; seed <= 20; ++seed) {
    for (double floor : {0.0, 0.25}) {
      Mat12 H = translationInvariantElement(seed);
      solvers::projectPSDTranslationInvariantPair<6>(H, floor);
      for (int r = 0; r < 12; ++r)
        for (int c = 0; c < 12; ++c) ASSERT_EQ(H(r, c), H(c, r)) << "seed " << seed << " (" << r << ", " << c << ")";
      if (floor == 0.0) {
        for (int k = 0; k < 3; ++k)
          for (int r = 0; r < 12; ++r) ASSERT_EQ(H(r, k) + H(r, 6 + k), 0.0) << "seed " << seed << " row " << r;
      }
    }
  }
}

TEST(ProjectPSDPair, LeavesAPositiveSemidefiniteElementBitForBit) {
  // A PSD element (the common case: a bond near rest) is not rebuilt from an eigen-decomposition,
  // whether its relative-coordinate block is definite (the LDL^T test) or has null vectors of its
  // own, as a bond's rigid rotations are (the eigen-decomposition finds nothing to clamp). Both
  // paths keep it bit for bit.
  for (unsigned seed = 1; seed <= 20; ++seed) {
    for (int nullity : {0, 3}) {
      std::srand(seed);
      Mat9 B = Mat9::Random();
      B.rightCols(nullity).setZero();  // R = B B^T has rank 9 - nullity
      Eigen::Matrix<double, 9, 12> T = Eigen::Matrix<double, 9, 12>::Zero();
      for (int k = 0; k < 3; ++k) {
        T(k, k) = -1.0;
        T(k, 6 + k) = 1.0;
        T(3 + k, 3 + k) = 1.0;
        T(6 + k, 9 + k) = 1.0;
      }
      Mat12 H = T.transpose() * (B * B.transpose()) * T;
      H = (0.5 * (H + H.transpose())).eval();
      const Mat12 psd = H;
      EXPECT_EQ(solvers::projectPSDTranslationInvariantPair<6>(H, 0.0), 0) << "seed " << seed << " nullity " << nullity;
      EXPECT_TRUE(H == psd) << "seed " << seed << " nullity " << nullity;
      Mat12 full = psd;
      EXPECT_EQ(solvers::projectPSD<12>(full, 0.0), 0) << "seed " << seed << " nullity " << nullity;
      EXPECT_TRUE(full == psd) << "seed " << seed << " nullity " << nullity;
    }
  }
}

TEST(ProjectPSDPair, FallsBackWhereTheCommonTranslationIsNotInTheNullSpace) {
  Mat12 H0 = translationInvariantElement(7);
  H0.topRows<6>().setZero();  // a fixed particle i, as the bdem Hessian zeroes it
  H0.leftCols<6>().setZero();
  Mat12 full = H0, pair = H0;
  const int cf = solvers::projectPSD<12>(full, 0.0);
  EXPECT_GT(cf, 0);
  EXPECT_EQ(solvers::projectPSDTranslationInvariantPair<6>(pair, 0.0), cf);
  EXPECT_LE((full - pair).cwiseAbs().maxCoeff(), 1e-12 * H0.cwiseAbs().maxCoeff());
}

}  // namespace
}  // namespace kinema::test

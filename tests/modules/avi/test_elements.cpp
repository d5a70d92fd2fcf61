// Element physics of the avi module (the paper's §4 and §8, acceptance tests U6 and U7):
// analytic gradients against central differences of the energies at random deformed states
// (hinge near flat and near folded, rod straight and curved rest), zero net force and torque of
// gradients and damping forces, rotation / translation invariance of the energies, zero energy
// and gradient at rest, closed-form energies, dissipation of the damping, stableStep against
// closed forms and an energy-Hessian oracle, and InputError on degenerate rest shapes.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <array>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "framework/core/error.hpp"
#include "modules/avi/cst.hpp"
#include "modules/avi/force_element.hpp"
#include "modules/avi/gravity.hpp"
#include "modules/avi/hinge.hpp"
#include "modules/avi/rod_bend.hpp"
#include "modules/avi/spring.hpp"

using namespace kinema;
using namespace kinema::avi;

namespace {

using Pts = std::array<Vec3, 4>;

Eigen::Matrix3d randomRotation(std::mt19937& rng) {
  std::normal_distribution<double> g;
  Eigen::Quaterniond q(g(rng), g(rng), g(rng), g(rng));
  return q.normalized().toRotationMatrix();
}

Vec3 randomVec(std::mt19937& rng, double s = 1.0) {
  std::uniform_real_distribution<double> u(-s, s);
  return Vec3(u(rng), u(rng), u(rng));
}

// Hinge stencil: edge x0 = 0, x1 = L e_x; flap x2 at (s2, h2, 0); flap x3 at foot s3, height h3,
// turned about the edge by phi (phi = 0: flat, the flaps on opposite sides of the edge).
Pts hingeStencil(double L, double s2, double h2, double s3, double h3, double phi) {
  return {Vec3(0, 0, 0), Vec3(L, 0, 0), Vec3(s2, h2, 0), Vec3(s3, -h3 * std::cos(phi), -h3 * std::sin(phi))};
}

Pts rigid(const Pts& x, int n, const Eigen::Matrix3d& R, const Vec3& t) {
  Pts y = x;
  for (int a = 0; a < n; ++a) y[a] = R * x[a] + t;
  return y;
}

Pts grad(const ForceElement& e, const Pts& x) {
  Pts g;
  g.fill(Vec3::Constant(NAN));
  gradient(e, x.data(), g.data());
  return g;
}

double maxNorm(const Pts& g, int n) {
  double m = 0.0;
  for (int a = 0; a < n; ++a) m = std::max(m, g[a].norm());
  return m;
}

// Relative error of the analytic gradient against central differences of energy().
double gradientError(const ForceElement& e, const Pts& x0, double scale) {
  const Pts g = grad(e, x0);
  const double h = 1e-6 * scale;
  double err = 0.0;
  Pts x = x0;
  for (int a = 0; a < e.n; ++a)
    for (int c = 0; c < 3; ++c) {
      x[a][c] = x0[a][c] + h;
      const double ep = energy(e, x.data());
      x[a][c] = x0[a][c] - h;
      const double em = energy(e, x.data());
      x[a][c] = x0[a][c];
      err = std::max(err, std::abs((ep - em) / (2 * h) - g[a][c]));
    }
  return err / maxNorm(g, e.n);
}

// |sum_a f_a| / max|f_a| and |sum_a x_a x f_a| / (max|x_a| max|f_a|).
std::pair<double, double> balance(const Pts& x, const Pts& f, int n) {
  Vec3 sf = Vec3::Zero(), st = Vec3::Zero();
  double xm = 0.0;
  for (int a = 0; a < n; ++a) {
    sf += f[a];
    st += x[a].cross(f[a]);
    xm = std::max(xm, x[a].norm());
  }
  const double fm = maxNorm(f, n);
  return {sf.norm() / fm, st.norm() / (fm * xm)};
}

// Random deformed states of every element kind (built from random rest shapes).
struct Case {
  std::string name;
  ForceElement e;
  Pts rest;
  Pts x;  // a deformed state
};

std::vector<Case> randomCases(std::mt19937& rng, int count) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Case> out;
  for (int i = 0; i < count; ++i) {
    const Eigen::Matrix3d R = randomRotation(rng);
    const Vec3 t = randomVec(rng);
    auto deform = [&](const Pts& r, int n, double amp) {
      Pts y = rigid(r, n, randomRotation(rng), randomVec(rng));
      for (int a = 0; a < n; ++a) y[a] += randomVec(rng, amp);
      return y;
    };
    {
      Pts r = {randomVec(rng), randomVec(rng), Vec3::Zero(), Vec3::Zero()};
      if ((r[1] - r[0]).norm() < 0.3) r[1] += Vec3(0.5, 0, 0);
      Case c{"spring", makeSpring(0, 1, r[0], r[1], 0.5 + 3 * u(rng), 0.2 + u(rng)), r, deform(r, 2, 0.3)};
      out.push_back(c);
    }
    {
      Pts r = rigid({Vec3(0, 0, 0), Vec3(1 + u(rng), 0.2 * u(rng), 0), Vec3(0.3 * u(rng), 0.6 + u(rng), 0), Vec3::Zero()},
                    3, R, t);
      Case c{"cst", makeCst(0, 1, 2, r[0], r[1], r[2], 1 + 5 * u(rng), 0.45 * u(rng), 0.1 + u(rng)), r, deform(r, 3, 0.25)};
      out.push_back(c);
    }
    for (double phiRest : {0.0, 0.7, -1.3}) {
      Pts r = rigid(hingeStencil(1 + u(rng), 0.2 + 0.6 * u(rng), 0.5 + u(rng), 0.2 + 0.6 * u(rng), 0.5 + u(rng), phiRest),
                    4, R, t);
      Case c{"hinge", makeHinge(0, 1, 2, 3, r[0], r[1], r[2], r[3], 0.1 + u(rng), 0.1 + u(rng)), r, deform(r, 4, 0.2)};
      out.push_back(c);
    }
    for (double phiRest : {0.0, 0.9}) {
      const double l0 = 0.5 + u(rng), l1 = 0.5 + u(rng);
      Pts r = rigid({Vec3(-l0, 0, 0), Vec3(0, 0, 0), l1 * Vec3(std::cos(phiRest), std::sin(phiRest), 0), Vec3::Zero()},
                    3, R, t);
      Case c{"rod", makeRodBend(0, 1, 2, r[0], r[1], r[2], 0.2 + u(rng), 0.1 + u(rng)), r, deform(r, 3, 0.2)};
      out.push_back(c);
    }
  }
  return out;
}

// Hessian of energy() by second differences at x (a test-side oracle independent of gradient()).
Eigen::MatrixXd energyHessian(const ForceElement& e, const Pts& x0, double h) {
  const int D = 3 * e.n;
  Eigen::MatrixXd H(D, D);
  auto at = [&](int i, double di, int j, double dj) {
    Pts x = x0;
    x[i / 3][i % 3] += di;
    x[j / 3][j % 3] += dj;
    return energy(e, x.data());
  };
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j)
      H(i, j) = (at(i, h, j, h) - at(i, h, j, -h) - at(i, -h, j, h) + at(i, -h, j, -h)) / (4 * h * h);
  return H;
}

double stepFromHessian(const Eigen::MatrixXd& H, const double* m, int n, double cSafe) {
  Eigen::VectorXd s(3 * n);
  for (int i = 0; i < 3 * n; ++i) s(i) = 1.0 / std::sqrt(m[i / 3]);
  const Eigen::MatrixXd A = s.asDiagonal() * (0.5 * (H + H.transpose())) * s.asDiagonal();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(A);
  return cSafe * 2.0 / std::sqrt(eig.eigenvalues().maxCoeff());
}

}  // namespace

// U6: every element's gradient against central differences at random deformed states.
TEST(AviElements, GradientsMatchFiniteDifferences) {
  std::mt19937 rng(11);
  double worst = 0.0;
  for (const Case& c : randomCases(rng, 20)) {
    const double err = gradientError(c.e, c.x, 1.0);
    EXPECT_LE(err, 1e-6) << c.name;
    worst = std::max(worst, err);
  }
  // Gravity.
  const ForceElement g = makeGravity(0, 2.0, Vec3(0.1, -9.8, 0.3));
  Pts x = {Vec3(0.3, 1.2, -0.4), Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
  EXPECT_LE(gradientError(g, x, 1.0), 1e-6);
  EXPECT_NEAR(energy(g, x.data()), -2.0 * Vec3(0.1, -9.8, 0.3).dot(x[0]), 1e-14);
  std::printf("worst relative gradient error over random states: %.2e\n", worst);
}

TEST(AviElements, HingeGradientNearFlatAndNearFolded) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (double phi : {1e-4, -1e-3, 0.02, 0.95 * M_PI, -0.95 * M_PI, 0.99 * M_PI}) {
    for (int i = 0; i < 5; ++i) {
      Pts x = rigid(hingeStencil(1 + u(rng), 0.2 + 0.6 * u(rng), 0.5 + u(rng), 0.2 + 0.6 * u(rng), 0.5 + u(rng), phi), 4,
                    randomRotation(rng), randomVec(rng));
      // theta recovers the construction angle (|theta| = |phi|), so the atan2 form is right.
      Eigen::Matrix<double, 3, 4> xs;
      for (int a = 0; a < 4; ++a) xs.col(a) = x[a];
      EXPECT_NEAR(std::abs(hingeAngle(xs)), std::abs(phi), 1e-12);
      // Flat-rest hinge (theta_bar = 0) and a rest angle on the other side of the state.
      const Pts flat = hingeStencil(1, 0.5, 1, 0.5, 1, 0.0);
      const Pts other = hingeStencil(1, 0.5, 1, 0.5, 1, -0.5 * phi);
      for (const Pts& r : {flat, other}) {
        const ForceElement e = makeHinge(0, 1, 2, 3, r[0], r[1], r[2], r[3], 0.3, 0.0);
        EXPECT_LE(gradientError(e, x, 1.0), 1e-6) << "phi = " << phi;
      }
    }
  }
}

TEST(AviElements, HingeAngleConventions) {
  // Relabelling the same hinge (edge reversed, flaps swapped) gives the same signed angle;
  // mirroring the stencil flips its sign; flat is 0.
  std::mt19937 rng(9);
  for (double phi : {0.0, 0.4, -1.1, 2.8}) {
    const Pts x = rigid(hingeStencil(1.2, 0.3, 0.8, 0.7, 0.6, phi), 4, randomRotation(rng), randomVec(rng));
    Eigen::Matrix<double, 3, 4> a, b, m;
    a << x[0], x[1], x[2], x[3];
    b << x[1], x[0], x[3], x[2];
    m = -a;  // point reflection (orientation-reversing)
    EXPECT_NEAR(hingeAngle(a), hingeAngle(b), 1e-13);
    if (phi != 0.0) {
      EXPECT_NEAR(std::abs(hingeAngle(a)), std::abs(phi), 1e-12);
    }
    EXPECT_NEAR(hingeAngle(m), -hingeAngle(a), 1e-12);
  }
  const Pts f = hingeStencil(1, 0.4, 0.7, 0.6, 0.9, 0.0);
  Eigen::Matrix<double, 3, 4> fs;
  fs << f[0], f[1], f[2], f[3];
  EXPECT_EQ(hingeAngle(fs), 0.0);
}

TEST(AviElements, RodGradientStraightAndCurved) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (double phiRest : {0.0, 0.5, 2.0}) {
    const Pts r = {Vec3(-1, 0, 0), Vec3(0, 0, 0), 0.8 * Vec3(std::cos(phiRest), std::sin(phiRest), 0), Vec3::Zero()};
    const ForceElement e = makeRodBend(0, 1, 2, r[0], r[1], r[2], 0.7, 0.0);
    // |kb| = 2 tan(phi / 2) at the rest state.
    Eigen::Matrix<double, 3, 3> rs;
    rs << r[0], r[1], r[2];
    EXPECT_NEAR(rodCurvatureBinormal(rs).norm(), 2 * std::tan(phiRest / 2), 1e-12);
    for (double phi : {1e-3, 0.3, 1.0, 2.5}) {
      for (int i = 0; i < 4; ++i) {
        const Pts x = rigid({Vec3(-0.5 - u(rng), 0, 0), Vec3(0, 0, 0),
                             (0.5 + u(rng)) * Vec3(std::cos(phi), std::sin(phi), 0), Vec3::Zero()},
                            3, randomRotation(rng), randomVec(rng));
        // A curved rest shape has a cone point of |kb| at the straight state: the difference step
        // must stay well inside the distance phi to it.
        EXPECT_LE(gradientError(e, x, std::min(1.0, 10 * phi)), 1e-6) << "rest " << phiRest << " phi " << phi;
      }
    }
  }
}

// U7: zero net force and torque of the gradients and the damping forces; invariance of V.
TEST(AviElements, BalanceAndInvariance) {
  std::mt19937 rng(3);
  double worstF = 0.0, worstT = 0.0, worstDF = 0.0, worstDT = 0.0, worstV = 0.0;
  for (const Case& c : randomCases(rng, 30)) {
    const int n = c.e.n;
    const auto [sf, st] = balance(c.x, grad(c.e, c.x), n);
    EXPECT_LE(sf, 1e-13) << c.name;
    EXPECT_LE(st, 1e-13) << c.name;
    worstF = std::max(worstF, sf);
    worstT = std::max(worstT, st);
    Pts v;
    for (int a = 0; a < n; ++a) v[a] = randomVec(rng);
    Pts f;
    dampingForce(c.e, c.x.data(), v.data(), f.data());
    ASSERT_GT(maxNorm(f, n), 0.0) << c.name;
    const auto [df, dt] = balance(c.x, f, n);
    EXPECT_LE(df, 1e-13) << c.name;
    EXPECT_LE(dt, 1e-13) << c.name;
    worstDF = std::max(worstDF, df);
    worstDT = std::max(worstDT, dt);
    // Damping dissipates: power f . v <= 0.
    double power = 0.0;
    for (int a = 0; a < n; ++a) power += f[a].dot(v[a]);
    EXPECT_LE(power, 1e-14) << c.name;
    // Rigid velocities (translation + rotation) are not damped.
    const Vec3 w = randomVec(rng), u = randomVec(rng);
    Pts vr, fr;
    for (int a = 0; a < n; ++a) vr[a] = u + w.cross(c.x[a]);
    dampingForce(c.e, c.x.data(), vr.data(), fr.data());
    EXPECT_LE(maxNorm(fr, n), 1e-12 * maxNorm(f, n) * (1 + w.norm() + u.norm())) << c.name;
    // Energy invariant under rigid motions.
    const double V = energy(c.e, c.x.data());
    const Pts y = rigid(c.x, n, randomRotation(rng), randomVec(rng, 10.0));
    const double rel = std::abs(energy(c.e, y.data()) - V) / V;
    EXPECT_LE(rel, 1e-11) << c.name;
    worstV = std::max(worstV, rel);
  }
  std::printf("worst |sum grad| %.1e, |sum x x grad| %.1e, damping %.1e / %.1e, energy invariance %.1e\n",
              worstF, worstT, worstDF, worstDT, worstV);
}

TEST(AviElements, DampingOffWritesZeros) {
  const Pts r = hingeStencil(1, 0.5, 1, 0.5, 1, 0.3);
  const ForceElement e = makeHinge(0, 1, 2, 3, r[0], r[1], r[2], r[3], 1.0, 0.0);
  Pts v = {Vec3(1, 2, 3), Vec3(-1, 0, 2), Vec3(0, 1, 0), Vec3(3, 0, 1)};
  Pts f;
  f.fill(Vec3::Constant(7.0));
  dampingForce(e, r.data(), v.data(), f.data());
  EXPECT_EQ(maxNorm(f, 4), 0.0);
  const ForceElement g = makeGravity(0, 1.0, Vec3(0, 0, -9.8));
  dampingForce(g, r.data(), v.data(), f.data());
  EXPECT_EQ(f[0].norm(), 0.0);
}

TEST(AviElements, RestStateHasZeroEnergyAndGradient) {
  std::mt19937 rng(17);
  for (const Case& c : randomCases(rng, 10)) {
    EXPECT_LE(std::abs(energy(c.e, c.rest.data())), 1e-26) << c.name;
    EXPECT_LE(maxNorm(grad(c.e, c.rest), c.e.n), 1e-13 * c.e.k * std::max(1.0, c.e.weight)) << c.name;
  }
}

TEST(AviElements, ClosedFormEnergies) {
  // Spring: V = 1/2 k (l - L)^2.
  const ForceElement s = makeSpring(0, 1, Vec3(0, 0, 0), Vec3(0, 2, 0), 3.0, 0.0);
  Pts x = {Vec3(1, 1, 1), Vec3(1, 1, 3.5), Vec3::Zero(), Vec3::Zero()};
  EXPECT_NEAR(energy(s, x.data()), 0.5 * 3.0 * 0.25, 1e-14);
  // CST under isotropic in-plane stretch lambda: E = 1/2 (lambda^2 - 1) I, W = A Y e^2 / (1 - nu).
  const Pts r = {Vec3(0, 0, 0), Vec3(1.3, 0.1, 0), Vec3(0.2, 0.9, 0), Vec3::Zero()};
  const double Y = 4.0, nu = 0.3, lambda = 1.1, area = 0.5 * (1.3 * 0.9 - 0.1 * 0.2);
  const ForceElement c = makeCst(0, 1, 2, r[0], r[1], r[2], Y, nu, 0.0);
  EXPECT_NEAR(c.weight, area, 1e-15);
  std::mt19937 rng(2);
  const Eigen::Matrix3d R = randomRotation(rng);
  Pts y = r;
  for (int a = 0; a < 3; ++a) y[a] = R * (lambda * r[a]) + Vec3(1, 2, 3);
  const double e0 = 0.5 * (lambda * lambda - 1);
  EXPECT_NEAR(energy(c, y.data()), area * Y * e0 * e0 / (1 - nu), 1e-13);
  // Uniaxial stretch by lambda along x: E has eigenvalues (e, 0), W = A Y e^2 / (2 (1 - nu^2)).
  Pts z = r;
  for (int a = 0; a < 3; ++a) z[a].x() *= lambda;
  Eigen::Matrix<double, 3, 3> zs;
  zs << z[0], z[1], z[2];
  const Eigen::Matrix<double, 3, 2> F = cstDeformationGradient(c, zs);
  const Eigen::Matrix2d E = 0.5 * (F.transpose() * F - Eigen::Matrix2d::Identity());
  // F^T F is similar to diag(lambda^2, 1) (a rotation of the rest frame), so tr E = e, tr E^2 = e^2.
  EXPECT_NEAR(E.trace(), e0, 1e-14);
  EXPECT_NEAR(E.squaredNorm(), e0 * e0, 1e-14);
  EXPECT_NEAR(energy(c, z.data()), area * Y / (2 * (1 - nu * nu)) * e0 * e0, 1e-14);
  // Hinge: W = k_b (theta - theta_bar)^2 3 |e|^2 / (A1 + A2).
  const Pts hr = hingeStencil(1.5, 0.4, 0.8, 0.9, 0.6, 0.2);
  const ForceElement h = makeHinge(0, 1, 2, 3, hr[0], hr[1], hr[2], hr[3], 0.7, 0.0);
  EXPECT_NEAR(h.weight, 3 * 1.5 * 1.5 / (0.5 * 1.5 * 0.8 + 0.5 * 1.5 * 0.6), 1e-14);
  const Pts hx = hingeStencil(1.5, 0.4, 0.8, 0.9, 0.6, 0.2 + 0.3);
  EXPECT_NEAR(energy(h, hx.data()), 0.7 * h.weight * 0.09, 1e-14);
  // Rod: W = k_b (|kb| - |kb_bar|)^2 / lbar with |kb| = 2 tan(phi / 2).
  const Pts rr = {Vec3(-1, 0, 0), Vec3(0, 0, 0), 0.6 * Vec3(std::cos(0.4), std::sin(0.4), 0), Vec3::Zero()};
  const ForceElement rb = makeRodBend(0, 1, 2, rr[0], rr[1], rr[2], 0.9, 0.0);
  const Pts rx = {Vec3(-1, 0, 0), Vec3(0, 0, 0), 0.7 * Vec3(std::cos(1.1), 0, std::sin(1.1)), Vec3::Zero()};
  const double dk = 2 * std::tan(0.55) - 2 * std::tan(0.2);
  EXPECT_NEAR(energy(rb, rx.data()), 0.9 * dk * dk / 0.8, 1e-14);
}

TEST(AviElements, SpringStableStep) {
  for (double k : {1.0, 250.0}) {
    for (auto m : {std::array<double, 2>{1.0, 1.0}, std::array<double, 2>{0.1, 3.0}}) {
      const ForceElement e = makeSpring(0, 1, Vec3(0.2, 0.1, 0), Vec3(0.9, -0.3, 0.4), k, 0.0);
      const double expected = 0.3 * 2.0 / std::sqrt(k * (1 / m[0] + 1 / m[1]));
      EXPECT_NEAR(stableStep(e, m.data(), 0.3), expected, 1e-6 * expected);
    }
  }
  const ForceElement g = makeGravity(0, 1.0, Vec3(0, 0, -1));
  const double m1 = 1.0;
  EXPECT_EQ(stableStep(g, &m1, 0.5), INFINITY);
}

// stableStep of CST, hinge and rod bend against the Hessian of energy() at the original rest
// positions (second differences), and the hinge against the rank-one closed form
// omega^2 = 2 k_b w sum_a |grad_a theta|^2 / m_a.
TEST(AviElements, StableStepMatchesRestHessian) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  int checked = 0;
  for (const Case& c : randomCases(rng, 3)) {
    const double m[4] = {u(rng), u(rng), u(rng), u(rng)};
    const double h = stableStep(c.e, m, 0.25);
    const double oracle = stepFromHessian(energyHessian(c.e, c.rest, 1e-4), m, c.e.n, 0.25);
    EXPECT_NEAR(h, oracle, 1e-5 * oracle) << c.name;
    if (c.name == "hinge") {
      Eigen::Matrix<double, 3, 4> xs, gt;
      for (int a = 0; a < 4; ++a) xs.col(a) = c.rest[a];
      hingeAngle(xs, &gt);
      double w2 = 0.0;
      for (int a = 0; a < 4; ++a) w2 += gt.col(a).squaredNorm() / m[a];
      w2 *= 2 * c.e.k * c.e.weight;
      EXPECT_NEAR(h, 0.25 * 2 / std::sqrt(w2), 1e-6 * h);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 3 * 7);
}

TEST(AviElements, DegenerateRestShapesThrow) {
  const Vec3 o(0, 0, 0), ex(1, 0, 0), ey(0, 1, 0), ez(0, 0, 1);
  EXPECT_THROW(makeSpring(3, 4, ex, ex, 1.0, 0.0), InputError);
  EXPECT_THROW(makeSpring(3, 4, o, ex, -1.0, 0.0), InputError);
  EXPECT_THROW(makeCst(0, 1, 2, o, ex, 2.0 * ex, 1.0, 0.3, 0.0), InputError);  // collinear
  EXPECT_THROW(makeCst(0, 1, 2, o, o, ey, 1.0, 0.3, 0.0), InputError);         // repeated vertex
  EXPECT_THROW(makeCst(0, 1, 2, o, ex, ey, 1.0, 1.0, 0.0), InputError);        // nu = 1
  EXPECT_THROW(makeHinge(0, 1, 2, 3, o, o, ey, -ey, 1.0, 0.0), InputError);    // zero edge
  EXPECT_THROW(makeHinge(0, 1, 2, 3, o, ex, 2.0 * ex, -ey, 1.0, 0.0), InputError);  // flat flap
  EXPECT_THROW(makeHinge(0, 1, 2, 3, o, ex, ey, 0.5 * ex, 1.0, 0.0), InputError);
  EXPECT_THROW(makeRodBend(0, 1, 2, o, o, ex, 1.0, 0.0), InputError);
  EXPECT_THROW(makeRodBend(0, 1, 2, o, ex, o, 1.0, 0.0), InputError);  // folded back
  EXPECT_THROW(makeGravity(0, -1.0, -ez), InputError);
  // The message names the element.
  try {
    makeCst(7, 8, 9, o, ex, 2.0 * ex, 1.0, 0.3, 0.0);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("(7, 8, 9)"), std::string::npos) << e.what();
  }
}

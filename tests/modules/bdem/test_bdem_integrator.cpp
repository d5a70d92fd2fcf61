// Implicit BDEM integrator (modules/bdem/implicit_stepper.hpp, incremental_potential.hpp,
// friction.hpp, grips.hpp) against the invariants and closed forms of modules/bdem/README.md decision 43:
// T-R1, T-U1, T-N1, T-D1, T-D2, T-R4, T-F1, T-C1, T-C2, T-C4, plus the rigid-body near-null space
// (T-R3 on the assembled Hessian) and the error paths.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "framework/core/error.hpp"
#include "framework/solvers/manifold_rigid.hpp"
#include "integrator_test_util.hpp"
#include "test_util.hpp"
#include "modules/bdem/contact_energy.hpp"
#include "modules/bdem/explicit_stepper.hpp"
#include "modules/bdem/grips.hpp"

namespace kinema::bdem::test {
namespace {

// A bonded 3 x 2 x 2 block of cubic-lattice spheres (r = 0.01), at rest, no gravity.
void smallBlock(System& s, double E = 1e7) {
  s.materials[0].E = E;
  s.gravity = Vec3::Zero();
  packedBox(s, Vec3(0.06, 0.04, 0.04), 0.01, Lattice::Cubic);
}

// ---------------------------------------------------------------------------------------------
TEST(BdemIntegrator, RestStateIsBitwiseUnchanged) {  // T-R1
  Rig rig;
  smallBlock(rig.s);
  ASSERT_GT(rig.s.bonds.size(), 10u);
  rig.distribute();
  const std::vector<Vec3> p0 = rig.s.P.p;
  const std::vector<Vec4> q0 = rig.s.P.q;
  ImplicitStepper st(rig.s, *rig.domain, *rig.backend, tightOptions(1e-6));
  long broken = 0;
  int iterations = 0;
  for (int n = 0; n < 100; ++n) {
    const StepStats ss = st.step(1e-3);
    iterations += ss.newtonIterations;
    broken += ss.bondsBroken;
    EXPECT_TRUE(ss.converged);
    EXPECT_EQ(ss.energy, 0.0);
  }
  EXPECT_EQ(iterations, 0);  // Newton stops at k = 0
  EXPECT_EQ(broken, 0);
  for (std::size_t a = 0; a < rig.s.P.size(); ++a) {
    EXPECT_TRUE(rig.s.P.p[a] == p0[a]) << a;
    EXPECT_TRUE(rig.s.P.q[a] == q0[a]) << a;
    EXPECT_TRUE(rig.s.P.v[a] == Vec3::Zero()) << a;
  }
}

// Random velocities and spins of a bonded block (deterministic).
void randomMotion(System& s, double vScale, double wScale, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::size_t a = 0; a < s.P.size(); ++a) {
    s.P.v[a] = vScale * Vec3(u(gen), u(gen), u(gen));
    s.P.qdot[a] = quat::qdotFromOmega(s.P.q[a], wScale * Vec3(u(gen), u(gen), u(gen)));
  }
}

TEST(BdemIntegrator, UnitQuaternionsAndMonotoneObjective) {  // T-U1, T-N1
  Rig rig;
  smallBlock(rig.s);
  randomMotion(rig.s, 0.5, 50.0, 7);
  rig.distribute();
  IntegratorOptions o = tightOptions(1e-8);
  o.newton.linear.type = "cg";  // inexact Newton (Eq. 31) as in production
  ImplicitStepper st(rig.s, *rig.domain, *rig.backend, o);
  double maxDrift = 0, maxRise = 0;
  long iterations = 0, cg = 0, steps = 0;
  double fPrev = 0;
  int steepest = 0;
  st.newton().setObserver([&](int k, const la::Vector& x, const solvers::NewtonStats& ns) {
    steepest = std::max(steepest, ns.steepestDescentSteps);  // g^T y < 0 for every Newton direction
    const double f = st.potential().energy(x);
    const double before = k == 1 ? ns.initialEnergy : fPrev;
    maxRise = std::max(maxRise, (f - before) / std::max(1.0, std::abs(before)));
    fPrev = f;
    la::Vector::ConstView r = x.constView();
    for (std::size_t a = 0; a < rig.s.P.size(); ++a)
      maxDrift = std::max(maxDrift, std::abs(Eigen::Map<const Vec4>(r.data() + 7 * a + 3).norm() - 1.0));
  });
  for (int n = 0; n < 10; ++n) {
    const StepStats ss = st.step(2e-3);
    EXPECT_TRUE(ss.converged);
    iterations += ss.newtonIterations;
    cg += ss.linearIterations;
    ++steps;
    for (std::size_t a = 0; a < rig.s.P.size(); ++a)
      maxDrift = std::max(maxDrift, std::abs(rig.s.P.q[a].norm() - 1.0));
  }
  std::printf("[T-U1/T-N1] %ld steps: %ld Newton iterations, %ld CG iterations, max | |q| - 1 | = %.2e, "
              "max relative rise of f = %.2e\n",
              steps, iterations, cg, maxDrift, maxRise);
  EXPECT_GT(iterations, steps);  // the scene is not trivial
  EXPECT_LE(maxDrift, 1e-12);
  EXPECT_LE(maxRise, 1e-13);  // f(x_{k+1}) <= f(x_k) up to round-off
  EXPECT_EQ(steepest, 0);     // PSD projection: every direction was a descent direction
}

// ---------------------------------------------------------------------------------------------
TEST(BdemIntegrator, AxialOscillatorDampingLaw) {  // T-D1: amplitude ratio (1 + w^2 dt^2)^(-1/2)
  Rig rig;
  rig.s.gravity = Vec3::Zero();
  rig.s.materials[0].sigmaC = rig.s.materials[0].tauC = 1e300;
  const double r = 0.01;
  addSphere(rig.s, Vec3(0, 0, 0), r);
  addSphere(rig.s, Vec3(2 * r, 0, 0), r);
  bond(rig.s, 0, 1);
  Bond& b = rig.s.bonds[0];
  b.kt = b.kTwist = b.kBend = 0;  // stretch only
  const double m = rig.s.P.m[0], mu = 0.5 * m, w = std::sqrt(b.kn / mu);
  rig.s.P.p[1].x() += 1e-5;  // small amplitude
  rig.distribute();
  const std::size_t i = rig.local(0), j = rig.local(1);
  for (double wdt : {0.3, 1.0, 3.0}) {
    Rig copy;  // fresh state per dt
    copy.s = rig.s;
    copy.domain = std::make_unique<Domain>(Comm::self());
    copy.distribute();
    const double dt = wdt / w;
    ImplicitStepper st(copy.s, *copy.domain, *copy.backend, tightOptions(1e-8));
    auto amp2 = [&] {
      const double u = (copy.s.P.p[j] - copy.s.P.p[i]).x() - 2 * r;
      const double v = (copy.s.P.v[j] - copy.s.P.v[i]).x();
      return w * w * u * u + v * v;
    };
    double worst = 0;
    const double expected = 1.0 / std::sqrt(1.0 + wdt * wdt);
    for (int n = 0; n < 8; ++n) {
      const double before = amp2();
      st.step(dt);
      const double ratio = std::sqrt(amp2() / before);
      worst = std::max(worst, std::abs(ratio / expected - 1.0));
    }
    std::printf("[T-D1] w dt = %.1f: expected ratio %.6f, max relative deviation %.2e\n", wdt, expected, worst);
    EXPECT_LT(worst, 0.01);
  }
}

TEST(BdemIntegrator, FreeSpinHalfAngleLawAndExactTranslation) {  // T-D2
  Rig rig;
  rig.s.gravity = Vec3::Zero();
  addSphere(rig.s, Vec3(0.1, 0.2, 0.3), 0.01);
  const Vec3 omega(3.0, -5.0, 8.0), v0(0.3, -0.2, 0.7);
  rig.s.P.v[0] = v0;
  rig.s.P.qdot[0] = quat::qdotFromOmega(rig.s.P.q[0], omega);
  rig.distribute();
  const double dt = 0.05;
  ImplicitStepper st(rig.s, *rig.domain, *rig.backend, tightOptions(1e-8));
  auto halfAngle = [](const Vec4& a, const Vec4& b) {  // angle of a relative to b, halved
    const Vec4 d = quat::multiply(a, quat::conjugate(b));
    return std::atan2(d.head<3>().norm(), std::abs(d[3]));
  };
  Vec4 qPrev = rig.s.P.q[0];
  const Vec3 pStart = rig.s.P.p[0];
  double beta = -1, worst = 0;
  for (int n = 1; n <= 20; ++n) {
    st.step(dt);
    const double b = halfAngle(rig.s.P.q[0], qPrev);
    if (n == 1) {
      EXPECT_NEAR(b, std::atan(omega.norm() * dt / 2), 1e-12);  // q_hat = (dt w/2, 1) normalised
    } else {
      worst = std::max(worst, std::abs(b - std::atan(std::sin(beta) / (2 - std::cos(beta)))));
    }
    beta = b;
    qPrev = rig.s.P.q[0];
    EXPECT_LT((rig.s.P.p[0] - (pStart + n * dt * v0)).norm(), 1e-13);  // free translation exact
    EXPECT_LT((rig.s.P.v[0] - v0).norm(), 1e-12);
  }
  std::printf("[T-D2] half-angle law max error %.2e, final half angle %.4f\n", worst, beta);
  EXPECT_LT(worst, 1e-12);
}

TEST(BdemIntegrator, MomentumInFreeFlight) {  // T-R4
  // (a) random velocities and spins: linear momentum to solver tolerance.
  Rig rig;
  smallBlock(rig.s);
  randomMotion(rig.s, 0.3, 20.0, 11);
  rig.distribute();
  ImplicitStepper st(rig.s, *rig.domain, *rig.backend, tightOptions(1e-8));
  const Vec3 P0 = linearMomentum(rig.s);
  double mv = 0;
  for (std::size_t a = 0; a < rig.s.P.size(); ++a) mv += rig.s.P.m[a] * rig.s.P.v[a].norm();
  double worstP = 0;
  const double La = angularMomentum(rig.s).norm();
  for (int n = 0; n < 20; ++n) {
    st.step(2e-3);
    worstP = std::max(worstP, (linearMomentum(rig.s) - P0).norm() / mv);
  }
  std::printf("[T-R4] random motion: linear momentum drift %.2e (relative to sum m|v|), |L| %.6e -> %.6e\n", worstP,
              La, angularMomentum(rig.s).norm());
  EXPECT_LT(worstP, 1e-8);

  // (b) rigid spin of the block about its centre: |L| never grows, it decays (Eq. 6 damping).
  // Note: for Eq. 6 (backward-Euler-like) |L| is not a strict invariant: a compressed bond
  // (repulsive central force) raises it by dt^2 f/(|l| mu) |L| per step, so (a) only reports it.
  Rig spin;
  smallBlock(spin.s);
  Vec3 c = Vec3::Zero();
  for (const Vec3& p : spin.s.P.p) c += p;
  c /= static_cast<double>(spin.s.P.size());
  const Vec3 w(2.0, -3.0, 5.0);
  for (std::size_t a = 0; a < spin.s.P.size(); ++a) {
    spin.s.P.v[a] = Vec3(0.1, 0.2, -0.1) + w.cross(spin.s.P.p[a] - c);
    spin.s.P.qdot[a] = quat::qdotFromOmega(spin.s.P.q[a], w);
  }
  spin.distribute();
  ImplicitStepper st2(spin.s, *spin.domain, *spin.backend, tightOptions(1e-8));
  auto Lc = [&] {  // about the moving centre of mass
    Vec3 L = Vec3::Zero(), cm = Vec3::Zero();
    double M = 0;
    for (std::size_t a = 0; a < spin.s.P.size(); ++a) {
      cm += spin.s.P.m[a] * spin.s.P.p[a];
      M += spin.s.P.m[a];
    }
    cm /= M;
    for (std::size_t a = 0; a < spin.s.P.size(); ++a)
      L += spin.s.P.m[a] * (spin.s.P.p[a] - cm).cross(spin.s.P.v[a]) +
           0.4 * spin.s.P.m[a] * spin.s.P.r[a] * spin.s.P.r[a] * quat::omegaFromQdot(spin.s.P.q[a], spin.s.P.qdot[a]);
    return L.norm();
  };
  const double L0 = Lc();
  double Lprev = L0, worstRise = 0;
  for (int n = 0; n < 20; ++n) {
    st2.step(2e-3);
    const double L = Lc();
    worstRise = std::max(worstRise, (L - Lprev) / L0);
    Lprev = L;
  }
  std::printf("[T-R4] rigid spin: |L| %.8e -> %.8e (ratio %.8f), max rise per step %.2e\n", L0, Lprev, Lprev / L0,
              worstRise);
  EXPECT_LE(worstRise, 1e-10);
  EXPECT_LT(Lprev, L0);
}

// ---------------------------------------------------------------------------------------------
TEST(BdemIntegrator, SingleBondBreaksAtCriticalStrain) {  // T-F1
  Rig rig;
  rig.s.gravity = Vec3::Zero();
  Material& mat = rig.s.materials[0];
  mat.E = 1e7;
  mat.sigmaC = 3e4;
  mat.tauC = 3e4;
  const double r = 0.01;
  addSphere(rig.s, Vec3(0, 0, 0), r);
  addSphere(rig.s, Vec3(2 * r, 0, 0), r);
  bond(rig.s, 0, 1);
  rig.s.P.dof[0] = Dof::Fixed;
  rig.s.P.dof[1] = Dof::Grip;
  rig.s.P.grip[1] = 0;
  Grip g;
  g.name = "pull";
  g.centre = rig.s.P.p[1];
  g.velocity = Vec3(1e-3, 0, 0);
  rig.s.grips.push_back(g);
  rig.distribute();
  const std::size_t i = rig.local(0), j = rig.local(1);
  ImplicitStepper st(rig.s, *rig.domain, *rig.backend, tightOptions());
  const double dt = 1e-3, l0 = 2 * r;
  int expectedStep = -1, brokenAt = -1;
  double epsAtBreak = 0;
  for (int n = 1; n <= 200 && brokenAt < 0; ++n) {
    const StepStats ss = st.step(dt);
    const double eps = ((rig.s.P.p[j] - rig.s.P.p[i]).norm() - l0) / l0;
    if (expectedStep < 0 && mat.E * std::abs(eps) > mat.sigmaC) expectedStep = n;
    if (ss.bondsBroken > 0) {
      EXPECT_EQ(ss.bondsBroken, 1);
      brokenAt = n;
      epsAtBreak = eps;
    }
  }
  std::printf("[T-F1] bond broke at step %d (expected %d), strain %.5e, sigma_c/E = %.5e\n", brokenAt, expectedStep,
              epsAtBreak, mat.sigmaC / mat.E);
  EXPECT_EQ(brokenAt, expectedStep);
  EXPECT_NEAR(epsAtBreak, mat.sigmaC / mat.E, 1e-3 * dt / l0 * 1.01);  // within one step's strain increment
  EXPECT_FALSE(rig.s.bonds[0].alive);
  for (int n = 0; n < 3; ++n) EXPECT_EQ(st.step(dt).bondsBroken, 0);  // never reappears
  EXPECT_FALSE(rig.s.bonds[0].alive);
}

// ---------------------------------------------------------------------------------------------
// One sphere above the plane z = 0 (touching it), gravity, k_c = E r.
void sphereOnPlane(Rig& rig, double muFloor) {
  const double r = 0.01;
  rig.s.materials[0].E = 1e6;
  rig.s.contact.kc = rig.s.materials[0].E * r;
  Obstacle floor;
  floor.name = "floor";
  floor.friction = muFloor;
  rig.s.obstacles.push_back(floor);
  addSphere(rig.s, Vec3(0, 0, r), r);
}

TEST(BdemIntegrator, SphereRestingOnPlanePenetration) {  // T-C1
  Rig rig;
  sphereOnPlane(rig, 0.0);
  rig.distribute();
  const double m = rig.s.P.m[0], kc = rig.s.contact.kc, g = -rig.s.gravity.z();
  const double T = 2 * std::numbers::pi * std::sqrt(m / kc);
  ImplicitStepper st(rig.s, *rig.domain, *rig.backend, tightOptions(1e-8));
  int its = 0;
  for (int n = 0; n < 60; ++n) its += st.step(2 * T).newtonIterations;  // quasi-static (Eq. 6 damps)
  const double penetration = rig.s.P.r[0] - rig.s.P.p[0].z();
  const double expected = m * g / kc;
  std::printf("[T-C1] penetration %.6e, m g / k_c = %.6e, ratio %.6f, %d Newton iterations in 60 steps\n",
              penetration, expected, penetration / expected, its);
  EXPECT_NEAR(penetration / expected, 1.0, 0.01);
}

TEST(BdemIntegrator, TwoSpheresCollideWithoutEnergyGain) {  // T-C2
  Rig rig;
  rig.s.gravity = Vec3::Zero();
  rig.s.materials[0].E = 1e6;
  const double r = 0.01, v0 = 0.5;
  addSphere(rig.s, Vec3(0, 0, 0), r);
  addSphere(rig.s, Vec3(2.2 * r, 0.3 * r, 0), r);  // slightly oblique
  rig.s.P.v[0] = Vec3(v0, 0, 0);
  rig.s.P.v[1] = Vec3(-v0, 0, 0);
  rig.distribute();
  const double m = rig.s.P.m[0], kec = rig.s.materials[0].E * r;
  const double tc = std::numbers::pi * std::sqrt(0.5 * m / kec);  // contact duration
  auto kinetic = [&] {
    double e = 0;
    for (std::size_t a = 0; a < 2; ++a) e += 0.5 * rig.s.P.m[a] * rig.s.P.v[a].squaredNorm();
    return e;
  };
  const double K0 = kinetic();
  ImplicitStepper st(rig.s, *rig.domain, *rig.backend, tightOptions(1e-8));
  const double dt = tc / 20;
  double worstP = 0, maxE = 0;
  long contactSteps = 0;
  for (int n = 0; n < 80; ++n) {
    const StepStats ss = st.step(dt);
    contactSteps += ss.activePairContacts > 0;
    worstP = std::max(worstP, linearMomentum(rig.s).norm() / (m * v0));
    // kinetic + contact potential at x^{n+1}
    const double gap = (rig.s.P.p[1] - rig.s.P.p[0]).norm() - 2 * r;
    maxE = std::max(maxE, kinetic() + (gap < 0 ? 0.5 * kec * gap * gap : 0.0));
  }
  const double gap = (rig.s.P.p[1] - rig.s.P.p[0]).norm() - 2 * r;
  const double separating = (rig.s.P.v[1] - rig.s.P.v[0]).dot(rig.s.P.p[1] - rig.s.P.p[0]);
  std::printf("[T-C2] %ld contact steps, K_end / K_0 = %.4f, max E / K_0 = %.6f, momentum drift %.2e\n", contactSteps,
              kinetic() / K0, maxE / K0, worstP);
  EXPECT_GT(contactSteps, 5);
  EXPECT_GT(gap, 0.0);
  EXPECT_GT(separating, 0.0);
  EXPECT_LE(maxE, K0 * (1 + 1e-12));
  EXPECT_LT(worstP, 1e-8);
}

TEST(BdemIntegrator, FrictionClampStopsSlidingAndSpin) {  // T-C4
  Rig rig;
  sphereOnPlane(rig, 10.0);
  rig.s.contact.muR = 10.0;
  rig.s.P.p[0].z() -= rig.s.P.m[0] * 9.81 / rig.s.contact.kc;  // at equilibrium penetration
  rig.s.P.v[0] = Vec3(1.0, 0.5, 0);
  rig.s.P.qdot[0] = quat::qdotFromOmega(rig.s.P.q[0], Vec3(0, 0, 30.0));
  rig.distribute();
  ImplicitStepper st(rig.s, *rig.domain, *rig.backend, tightOptions(1e-8));
  const double dt = 0.02;  // mu g dt = 1.96 > 1: clamped
  st.step(dt);
  EXPECT_EQ(rig.s.P.v[0].x(), 0.0);
  EXPECT_EQ(rig.s.P.v[0].y(), 0.0);
  EXPECT_EQ(quat::omegaFromQdot(rig.s.P.q[0], rig.s.P.qdot[0]).norm(), 0.0);
  for (int n = 0; n < 5; ++n) {
    st.step(dt);
    EXPECT_EQ(rig.s.P.v[0].x(), 0.0);  // never reversed
    EXPECT_EQ(rig.s.P.v[0].y(), 0.0);
  }

  // Unclamped: the tangential speed drops by mu_s F_n dt / m (Eq. 34).
  Rig rig2;
  sphereOnPlane(rig2, 0.05);
  rig2.s.P.p[0].z() -= rig2.s.P.m[0] * 9.81 / rig2.s.contact.kc;
  rig2.s.P.v[0] = Vec3(1.0, 0, 0);
  rig2.distribute();
  ImplicitStepper st2(rig2.s, *rig2.domain, *rig2.backend, tightOptions(1e-8));
  const double dt2 = 1e-3;
  st2.step(dt2);
  const double Fn = obstacleContactForce(rig2.s.contact.kc, rig2.s.obstacles[0], rig2.s.time, rig2.s.P.r[0],
                                         rig2.s.P.p[0]);
  const double expected = 1.0 - 0.05 * Fn * dt2 / rig2.s.P.m[0];
  std::printf("[T-C4] clamped: v = 0 exactly; unclamped: v_x = %.12f, expected %.12f (F_n / m g = %.6f)\n",
              rig2.s.P.v[0].x(), expected, Fn / (rig2.s.P.m[0] * 9.81));
  EXPECT_NEAR(rig2.s.P.v[0].x(), expected, 1e-9);
  EXPECT_LT(rig2.s.P.v[0].x(), 1.0);
  EXPECT_GT(rig2.s.P.v[0].x(), 0.0);
}

// ---------------------------------------------------------------------------------------------
TEST(BdemIntegrator, GripMotionIsPrescribed) {
  System s;
  s.P.add(Vec3(1, 0, 0), 0.01, 1.0, 0);
  s.P.dof[0] = Dof::Grip;
  s.P.grip[0] = 0;
  Grip g;
  g.centre = Vec3::Zero();
  g.velocity = Vec3(0, 0, 1);
  g.angularVelocity = Vec3(0, 0, std::numbers::pi / 2);  // quarter turn per second
  g.tStop = 1.0;
  s.grips.push_back(g);
  Vec3 p;
  Vec4 q;
  prescribedState(s, 0, 2.0, p, q);  // held after tStop
  EXPECT_LT((p - Vec3(0, 1, 1)).norm(), 1e-14);
  EXPECT_NEAR(std::abs(q[3]), std::cos(std::numbers::pi / 4), 1e-14);
  s.P.grip[0] = 3;
  EXPECT_NE(kinema::test::messageOf<InputError>([&] { prescribedState(s, 0, 0.5, p, q); }).find("grip 3"), std::string::npos);
}

TEST(BdemIntegrator, RigidModesAreInTheKernelAtRest) {  // T-R3 on the assembled H_red
  Rig rig;
  smallBlock(rig.s);
  rig.distribute();
  IntegratorOptions o = tightOptions();
  IncrementalPotential phi(rig.s, Comm::self(), o);
  phi.setInertia(false);
  phi.beginStep(1e-3);
  solvers::RigidManifold M;
  la::VectorPtr x = rig.backend->createVector(rig.domain->pointMap());
  phi.gather(*x);
  const la::IndexMapPtr tmap = M.tangentMap(rig.domain->pointMap());
  auto assembler = rig.backend->createAssembler(tmap, tmap);
  solvers::NewtonStats ns;
  solvers::NewtonOptions no;
  assembler->begin();
  {
    solvers::ReducedHessian H(*assembler, no, ns);
    phi.hessian(*x, H);
  }
  la::MatrixPtr A = assembler->end();
  const auto modes = phi.nearNullSpace(*x, *rig.backend, tmap);
  ASSERT_EQ(modes.size(), 6u);
  la::VectorPtr y = rig.backend->createVector(tmap);
  double hmax = 0;
  for (la::GlobalIndex i = 0; i < tmap->globalSize(); ++i)
    for (la::GlobalIndex j = 0; j < tmap->globalSize(); ++j) hmax = std::max(hmax, std::abs(A->entry(i, j)));
  for (const auto& v : modes) {
    A->apply(*v, *y);
    EXPECT_LE(y->norm2(), 1e-10 * hmax * v->norm2());
  }
}

TEST(BdemIntegrator, ErrorsNameTheProblem) {
  Rig rig;
  smallBlock(rig.s);
  rig.distribute();
  IntegratorOptions o = tightOptions();
  o.solver = "sqp";
  EXPECT_NE(kinema::test::messageOf<InputError>([&] { ImplicitStepper(rig.s, *rig.domain, *rig.backend, o); }).find("sqp"),
            std::string::npos);
  ImplicitStepper st(rig.s, *rig.domain, *rig.backend, tightOptions());
  rig.s.P.v[0].x() = std::nan("");
  const std::string msg = kinema::test::messageOf<Error>([&] { st.step(1e-3); });
  EXPECT_NE(msg.find("step 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("non-finite"), std::string::npos) << msg;
}

}  // namespace
}  // namespace kinema::bdem::test

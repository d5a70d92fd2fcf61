// Contact through nested penalty layers and certificates (the paper's §5-7; tests of
// modules/avi/README.md, decision 58):
// the spring on a plane with aligned and restarted clocks (E1 / E2), certificates against brute
// force (C2), the invariant checker (C3), deactivation (C4), restitution (U10), momentum (M1 /
// M2) and Coulomb friction.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <tuple>

#include "framework/core/error.hpp"
#include "modules/avi/engine.hpp"
#include "modules/avi/force_element.hpp"
#include "modules/avi/penalty_layer.hpp"

namespace kinema::avi {
namespace {

Scene baseScene(int n, int dim = 3) {
  Scene s;
  s.name = "contact";
  s.dim = dim;
  s.vertices.resize(n);
  s.isolated.assign(n, 0);
  s.eta = 0.1;
  s.k = 1000.0;
  return s;
}

// Appendix A: two unit masses at z = 1 and 2 on a unit spring (k_s = 1, rest 1), g = 1, plane
// z = 0, eta = 0.1, k = 1000, h_spring = h_grav = 0.01. E_exact = 3.
Scene springOnPlane(double h = 0.01) {
  Scene s = baseScene(2);
  s.vertices.x[0] = Vec3(0, 0, 1);
  s.vertices.x[1] = Vec3(0, 0, 2);
  ForceElement sp = makeSpring(0, 1, s.vertices.x[0], s.vertices.x[1], 1.0, 0.0);
  sp.h = h;
  s.forces.push_back(sp);
  for (int a = 0; a < 2; ++a) {
    ForceElement g = makeGravity(a, 1.0, Vec3(0, 0, -1));
    g.h = h;
    s.forces.push_back(g);
  }
  s.gravity = Vec3(0, 0, -1);
  s.contactPoints = {0, 1};
  // Deviation from Appendix A (README): the endpoints also collide with each other (isolated
  // points, a point-point pair). After the first bounce the bottom mass moves up at ~1.26 and the
  // top one down at ~1.28, and the unit spring (at most 0.5 of compression energy) cannot stop
  // them: in 3D the spring passes through zero length, where V = 1/2 (|x1 - x0| - 1)^2 has a kink
  // that random-walks the energy of any explicit integrator (measured: window means 2.98 ..
  // 2.71 .. 2.94). A 1D prototype with a signed length has no kink; the contact pair restores that.
  s.isolated = {1, 1};
  s.planes.push_back(Plane{});
  return s;
}

// C_safe giving h_1 = 1e-3 for m_min = 1, k = 1000 (h_1 = C sqrt(m / 4k)).
constexpr double kC1e3 = 1e-3 / 0.015811388300841896;

struct EnergyRun {
  std::vector<double> windowMeans;
  double lo = 1e300, hi = -1e300, zMin = 1e300;
  Counters counters;
};

EnergyRun runSpringOnPlane(const EngineOptions& o, double T, int windows, double dt = 0.01) {
  Engine e(springOnPlane(), o);
  EnergyRun r;
  const auto n = static_cast<std::int64_t>(std::llround(T / dt));
  const std::int64_t perWindow = n / windows;
  double sum = 0.0;
  for (std::int64_t i = 1; i <= n; ++i) {
    const double t = static_cast<double>(i) * dt;
    e.advanceTo(t);
    const Measurement m = e.measure(t);
    const double E = m.total();
    r.lo = std::min(r.lo, E);
    r.hi = std::max(r.hi, E);
    r.zMin = std::min(r.zMin, e.vertices().at(0, t)[2]);
    sum += E;
    if (i % perWindow == 0) {
      r.windowMeans.push_back(sum / static_cast<double>(perWindow));
      sum = 0.0;
    }
  }
  r.counters = e.counters();
  const TimeShares& ts = e.timeShares();
  EXPECT_GT(ts.total, 0.0);
  EXPECT_GT(ts.queue + ts.forces + ts.certificates, 0.0);
  EXPECT_LT(ts.queue + ts.forces + ts.certificates, 3.0 * ts.total);  // sampled estimate
  return r;
}

TEST(AviContact, E1E2SpringOnPlaneAlignedClocksDoNotDriftRestartedClocksDo) {
  // 1000 time units as in test E1, README decision 58 / Appendix A.
  // h_1 = 5e-4 (Appendix A row 1, C = h_1 omega_1 = 0.022). At h_1 = 1e-3 the run is
  // chaotic enough that the aligned window means wander by ~0.02 with the tie order of
  // same-time events (round-off), while the restarted drift is ~0.1: 5e-4 separates them clearly.
  EngineOptions aligned;
  aligned.cSafe = 0.5 * kC1e3;
  aligned.broadPhase = "all";
  const EnergyRun a = runSpringOnPlane(aligned, 1000.0, 10);
  EngineOptions restarted = aligned;
  restarted.restartClocks = true;
  const EnergyRun b = runSpringOnPlane(restarted, 1000.0, 10);
  ASSERT_EQ(a.windowMeans.size(), 10u);
  for (double m : a.windowMeans) EXPECT_NEAR(m, 3.0, 0.01);  // measured: within 0.005
  bool increasing = true, decreasing = true;
  for (std::size_t w = 1; w < a.windowMeans.size(); ++w) {
    increasing = increasing && a.windowMeans[w] > a.windowMeans[w - 1];
    decreasing = decreasing && a.windowMeans[w] < a.windowMeans[w - 1];
  }
  EXPECT_FALSE(increasing || decreasing);  // no monotone trend
  EXPECT_GT(a.lo, 2.85);
  EXPECT_LT(a.hi, 3.15);
  EXPECT_EQ(a.counters.deepestLayer, 1);  // only layer 1 ever (layer 2 needs energy 10 > 3)
  EXPECT_GE(a.zMin, 0.145);
  EXPECT_LT(a.zMin, 0.2);
  EXPECT_GT(a.counters.penaltyKicks, 10000);
  // Restarted clocks: the windowed means grow monotonically; the aligned drift is < 1/4 of it.
  for (std::size_t w = 1; w < b.windowMeans.size(); ++w) EXPECT_GT(b.windowMeans[w], b.windowMeans[w - 1]);
  const double driftA = std::abs(a.windowMeans.back() - a.windowMeans.front());
  const double driftB = b.windowMeans.back() - b.windowMeans.front();
  EXPECT_GT(driftB, 0.0);
  EXPECT_LT(driftA, 0.25 * driftB);
  std::printf("[ E1/E2 ] aligned means %.5f .. %.5f (band [%.4f, %.4f], z_min %.4f); restarted %.5f -> %.5f\n",
              a.windowMeans.front(), a.windowMeans.back(), a.lo, a.hi, a.zMin, b.windowMeans.front(),
              b.windowMeans.back());
}

// Runs a scene in certificate mode (with the invariant checked after every event) and in brute
// force mode; returns the two engines' final positions and kick lists.
struct Pair2 {
  std::vector<KickRecord> cert, brute;
  double maxDiff = 0.0, scale = 0.0;
  Counters cc, bc;
};

Pair2 certVsBrute(const Scene& s, EngineOptions o, double T, int bruteLayers) {
  o.recordKicks = true;
  EngineOptions c = o;
  c.debugInvariant = true;
  EngineOptions b = o;
  b.bruteForce = true;
  b.bruteForceLayers = bruteLayers;
  Engine ec(s, c), eb(s, b);
  Pair2 r;
  const int steps = 50;
  for (int i = 1; i <= steps; ++i) {
    const double t = T * i / steps;
    ec.advanceTo(t);
    eb.advanceTo(t);
    for (int a = 0; a < s.vertices.size(); ++a) {
      r.maxDiff = std::max(r.maxDiff, (ec.vertices().at(a, t) - eb.vertices().at(a, t)).norm());
      r.scale = std::max(r.scale, eb.vertices().at(a, t).norm());
    }
  }
  r.cert = ec.kicks();
  r.brute = eb.kicks();
  r.cc = ec.counters();
  r.bc = eb.counters();
  return r;
}

void expectSameKicks(std::vector<KickRecord> a, std::vector<KickRecord> b, double relTol) {
  auto order = [](const KickRecord& x, const KickRecord& y) {
    return std::tie(x.time, x.key, x.layer) < std::tie(y.time, y.key, y.layer);
  };
  std::sort(a.begin(), a.end(), order);
  std::sort(b.begin(), b.end(), order);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].time, b[i].time) << "kick " << i;
    ASSERT_TRUE(a[i].key == b[i].key) << "kick " << i;
    ASSERT_EQ(a[i].layer, b[i].layer) << "kick " << i;
    ASSERT_NEAR(a[i].impulse, b[i].impulse, relTol * std::abs(b[i].impulse) + 1e-300) << "kick " << i;
  }
}

TEST(AviContact, C2C3SpringOnPlaneCertificatesEqualBruteForce) {
  EngineOptions o;
  o.cSafe = kC1e3;
  const Pair2 r = certVsBrute(springOnPlane(), o, 20.0, 4);
  EXPECT_GT(r.cert.size(), 500u);
  expectSameKicks(r.cert, r.brute, 1e-12);
  EXPECT_LE(r.maxDiff, 1e-12 * r.scale);
  EXPECT_GT(r.cc.invariantChecks, 1000);
  EXPECT_GT(r.cc.deactivations, 0);
  std::printf("[ C2 spring ] %zu kicks, max position difference %.3g\n", r.cert.size(), r.maxDiff);
}

TEST(AviContact, C2C3ParticlesIn2DCertificatesEqualBruteForce) {
  // 20 discs (isolated points, eta = 0.05) in a 2D box of 4 walls, soft k so collisions go
  // several layers deep.
  const int n = 20;
  Scene s = baseScene(n, 2);
  s.eta = 0.05;
  s.k = 20.0;
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (int a = 0; a < n; ++a) {
    s.vertices.x[a] = Vec3(0.25 * (a % 5) - 0.5, 0.25 * (a / 5) - 0.4, 0.0);
    s.vertices.v[a] = Vec3(U(rng), U(rng), 0.0);
    s.contactPoints.push_back(a);
    s.isolated[a] = 1;
  }
  s.planes.push_back(Plane{Vec3(1, 0, 0), -0.8});
  s.planes.push_back(Plane{Vec3(-1, 0, 0), -0.8});
  s.planes.push_back(Plane{Vec3(0, 1, 0), -0.8});
  s.planes.push_back(Plane{Vec3(0, -1, 0), -0.8});
  for (const char* bp : {"all", "hash"}) {
    EngineOptions o;
    o.broadPhase = bp;
    const Pair2 r = certVsBrute(s, o, 1.2, 12);
    EXPECT_GT(r.cert.size(), 1000u) << bp;
    EXPECT_GE(r.cc.deepestLayer, 2) << bp;
    expectSameKicks(r.cert, r.brute, 1e-9);
    EXPECT_LE(r.maxDiff, 1e-9 * r.scale) << bp;
    std::printf("[ C2 2D %s ] %zu kicks, deepest layer %d, max difference %.3g, %lld rebuilds\n", bp,
                r.cert.size(), r.cc.deepestLayer, r.maxDiff, static_cast<long long>(r.cc.broadPhaseRebuilds));
  }
}

// A free triangle (springs on its edges) and a falling stick (a contact edge) tilted above it:
// point-triangle and edge-edge pairs.
Scene stickOnTriangle() {
  Scene s = baseScene(5);
  s.eta = 0.05;
  s.k = 50.0;
  s.vertices.x[0] = Vec3(0, 0, 0);
  s.vertices.x[1] = Vec3(1, 0, 0);
  s.vertices.x[2] = Vec3(0, 1, 0);
  // The stick crosses over the edge (0, 1) at x = 0.3; its end 4 is above the triangle.
  s.vertices.x[3] = Vec3(0.3, -0.4, 0.3);
  s.vertices.x[4] = Vec3(0.35, 0.4, 0.32);
  s.vertices.v[3] = Vec3(0.0, 0.05, -0.6);
  s.vertices.v[4] = Vec3(0.0, 0.0, -0.6);
  const int edges[4][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 4}};
  for (const auto& e : edges) {
    ForceElement f = makeSpring(e[0], e[1], s.vertices.x[e[0]], s.vertices.x[e[1]], 30.0, 0.0);
    f.h = 0.005;
    s.forces.push_back(f);
    s.contactEdges.push_back(Eigen::Vector2i(e[0], e[1]));
  }
  s.contactTriangles.push_back(Eigen::Vector3i(0, 1, 2));
  s.contactPoints = {0, 1, 2, 3, 4};
  return s;
}

TEST(AviContact, C2C3StickOnTriangleCertificatesEqualBruteForce) {
  for (const char* bp : {"all", "hash"}) {
    EngineOptions o;
    o.broadPhase = bp;
    const Pair2 r = certVsBrute(stickOnTriangle(), o, 2.0, 12);
    EXPECT_GT(r.cert.size(), 100u);
    bool pt = false, ee = false;
    for (const KickRecord& k : r.cert) {
      pt = pt || k.key.kind == PairKind::PointTriangle;
      ee = ee || k.key.kind == PairKind::EdgeEdge;
    }
    EXPECT_TRUE(pt);
    EXPECT_TRUE(ee);
    expectSameKicks(r.cert, r.brute, 1e-9);
    EXPECT_LE(r.maxDiff, 1e-9 * r.scale);
    std::printf("[ C2 stick %s ] %zu kicks, deepest layer %d, max difference %.3g\n", bp, r.cert.size(),
                r.cc.deepestLayer, r.maxDiff);
  }
}

// Two free tetrahedral shells (CST membranes, hinges, damping-free) colliding off-centre, no
// gravity: vertex-triangle and edge-edge contacts between deformable bodies.
Scene twoShells(double damping = 0.0) {
  Scene s = baseScene(8);
  s.eta = 0.02;
  s.k = 200.0;
  const Vec3 tet[4] = {Vec3(0, 0, 0), Vec3(0.3, 0, 0), Vec3(0.15, 0.26, 0), Vec3(0.15, 0.087, 0.245)};
  const int faces[4][3] = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {2, 0, 3}};
  const Vec3 offset[2] = {Vec3(-0.35, 0, 0), Vec3(0.1, 0.12, 0.06)};
  const Vec3 vel[2] = {Vec3(1.0, 0, 0), Vec3(-1.0, 0, 0.1)};
  for (int b = 0; b < 2; ++b) {
    const int o = 4 * b;
    for (int i = 0; i < 4; ++i) {
      s.vertices.x[o + i] = tet[i] + offset[b];
      s.vertices.v[o + i] = vel[b];
      s.vertices.mass[o + i] = 0.05;
      s.vertices.minv[o + i] = 20.0;
      s.contactPoints.push_back(o + i);
    }
    for (const auto& f : faces) {
      ForceElement c = makeCst(o + f[0], o + f[1], o + f[2], s.vertices.x[o + f[0]], s.vertices.x[o + f[1]],
                               s.vertices.x[o + f[2]], 40.0, 0.3, damping);
      c.h = 5e-4;
      s.forces.push_back(c);
      s.contactTriangles.push_back(Eigen::Vector3i(o + f[0], o + f[1], o + f[2]));
    }
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) {
        s.contactEdges.push_back(Eigen::Vector2i(o + i, o + j));
        int opp[2], m = 0;
        for (int k = 0; k < 4; ++k)
          if (k != i && k != j) opp[m++] = k;
        ForceElement h = makeHinge(o + i, o + j, o + opp[0], o + opp[1], s.vertices.x[o + i], s.vertices.x[o + j],
                                   s.vertices.x[o + opp[0]], s.vertices.x[o + opp[1]], 0.01, 0.01 * damping);
        h.h = 7e-4;
        s.forces.push_back(h);
      }
  }
  return s;
}

TEST(AviContact, M1FreeShellsConserveMomentumAndC2MatchBruteForce) {
  const Scene s = twoShells();
  EngineOptions o;
  o.debugInvariant = true;
  Engine e(s, o);
  const Measurement m0 = e.measure(0.0);
  double pScale = 0.0, lScale = 0.0, dP = 0.0, dL = 0.0;
  for (int a = 0; a < s.vertices.size(); ++a) {
    pScale += s.vertices.mass[a] * s.vertices.v[a].norm();
    lScale += s.vertices.mass[a] * s.vertices.x[a].norm() * s.vertices.v[a].norm();
  }
  for (int i = 1; i <= 40; ++i) {
    const double t = 0.01 * i;
    e.advanceTo(t);
    const Measurement m = e.measure(t);
    dP = std::max(dP, (m.momentum - m0.momentum).norm());
    dL = std::max(dL, (m.angularMomentum - m0.angularMomentum).norm());
    EXPECT_EQ(m.intersections, 0) << "t = " << t;
    EXPECT_GT(m.minDistance, 0.0);
  }
  EXPECT_GT(e.counters().penaltyKicks, 50);
  EXPECT_LE(dP, 1e-12 * pScale);
  EXPECT_LE(dL, 1e-12 * lScale);
  std::printf("[ M1 shells ] %lld kicks, deepest %d, |dP|/scale %.2g, |dL|/scale %.2g\n",
              static_cast<long long>(e.counters().penaltyKicks), e.counters().deepestLayer, dP / pScale, dL / lScale);
  const Pair2 r = certVsBrute(s, EngineOptions{}, 0.4, 10);
  expectSameKicks(r.cert, r.brute, 1e-9);
  EXPECT_LE(r.maxDiff, 1e-9 * r.scale);
}

TEST(AviContact, C4AfterSeparationNoPenaltyEventsRemain) {
  // Two particles collide off-centre and fly apart.
  Scene s = baseScene(2);
  s.eta = 0.05;
  s.k = 100.0;
  s.vertices.x[0] = Vec3(-0.5, 0.0, 0.0);
  s.vertices.x[1] = Vec3(0.5, 0.03, 0.0);
  s.vertices.v[0] = Vec3(1.0, 0.0, 0.0);
  s.vertices.v[1] = Vec3(-1.0, 0.0, 0.0);
  s.contactPoints = {0, 1};
  s.isolated = {1, 1};
  for (const char* bp : {"all", "hash"}) {
    EngineOptions o;
    o.debugInvariant = true;
    o.broadPhase = bp;
    Engine e(s, o);
    e.advanceTo(0.6);
    const std::int64_t kicks = e.counters().penaltyKicks;
    EXPECT_GT(kicks, 0);
    e.advanceTo(2.0);
    const Vec3 dx = e.vertices().at(1, 2.0) - e.vertices().at(0, 2.0);
    EXPECT_GT(dx.dot(e.vertices().v[1] - e.vertices().v[0]), 0.0);  // separating
    EXPECT_GT(dx.norm(), 1.0);
    EXPECT_TRUE(e.activeLayers().empty());
    EXPECT_EQ(e.measure(2.0).activePairs, 0);
    EXPECT_GT(e.counters().deactivations, 0);
    EXPECT_EQ(e.counters().penaltyKicks, kicks);  // nothing after the separation
    if (std::string(bp) == "all") {
      // Only the certificate could remain, and it never expires when nothing approaches.
      EXPECT_EQ(e.nextEventTime(), std::numeric_limits<double>::infinity());
    } else {
      // The pair left the candidate set; only the broad-phase expiry is queued.
      EXPECT_EQ(e.measure(2.0).candidatePairs, 0);
      EXPECT_GT(e.counters().broadPhaseRebuilds, 10);
    }
  }
}

// A ball (point) bouncing on the plane under gravity, with restitution e.
Scene bouncingPoint() {
  Scene s = baseScene(1);
  s.vertices.x[0] = Vec3(0, 0, 1);
  ForceElement g = makeGravity(0, 1.0, Vec3(0, 0, -1));
  g.h = 0.01;
  s.forces.push_back(g);
  s.gravity = Vec3(0, 0, -1);
  s.contactPoints = {0};
  s.isolated = {1};
  s.planes.push_back(Plane{});
  return s;
}

TEST(AviContact, U10RestitutionSwitch) {
  EngineOptions o;
  o.recordKicks = true;
  o.cSafe = kC1e3;
  auto run = [&](double e, std::vector<KickRecord>* kicks = nullptr) {
    EngineOptions x = o;
    x.restitution = e;
    Engine eng(bouncingPoint(), x);
    eng.advanceTo(4.0);
    if (kicks) *kicks = eng.kicks();
    return eng.measure(4.0).total();
  };
  std::vector<KickRecord> k1, k0;
  const double E1 = run(1.0, &k1), E08 = run(0.8), E05 = run(0.5), E0 = run(0.0, &k0);
  EXPECT_NEAR(E1, 1.0, 0.02);  // e = 1 conserves (E = m g z0 = 1)
  EXPECT_GT(E1, E08);
  EXPECT_GT(E08, E05);
  EXPECT_GT(E05, E0);
  // Within the first contact, s = 1 while compressing: the e = 0 run is bitwise the e = 1 run up
  // to the first separating tick, then its impulses vanish (s = e = 0).
  ASSERT_FALSE(k1.empty());
  ASSERT_FALSE(k0.empty());
  std::size_t i = 0;
  while (i < k0.size() && i < k1.size() && k0[i].impulse == k1[i].impulse && k0[i].time == k1[i].time) ++i;
  EXPECT_GT(i, 5u);  // the compressing ticks
  ASSERT_LT(i, k0.size());
  EXPECT_EQ(k0[i].impulse, 0.0);
  EXPECT_GT(k1[i].impulse, 0.0);
  // e = 1 set explicitly is bitwise the conservative default run.
  Engine a(bouncingPoint(), o);
  EngineOptions x = o;
  x.restitution = 1.0;
  Engine b(bouncingPoint(), x);
  a.advanceTo(10.0);
  b.advanceTo(10.0);
  EXPECT_EQ(a.vertices().x[0], b.vertices().x[0]);
  EXPECT_EQ(a.vertices().v[0], b.vertices().v[0]);
}

Scene freeParticles(int n, std::uint64_t seed) {
  Scene s = baseScene(n);
  s.eta = 0.05;
  s.k = 100.0;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const int side = static_cast<int>(std::ceil(std::cbrt(n)));
  for (int a = 0; a < n; ++a) {
    const int i = a % side, j = (a / side) % side, k = a / (side * side);
    s.vertices.x[a] = 0.25 * Vec3(i, j, k) + 0.05 * Vec3(U(rng), U(rng), U(rng));
    s.vertices.v[a] = Vec3(U(rng), U(rng), U(rng));
    s.vertices.mass[a] = 1.0 + 0.5 * U(rng);
    s.vertices.minv[a] = 1.0 / s.vertices.mass[a];
    s.contactPoints.push_back(a);
    s.isolated[a] = 1;
  }
  return s;
}

TEST(AviContact, M1M2MomentumOfFreeParticles) {
  for (double mu : {0.0, 0.5}) {
    const Scene s = freeParticles(200, 17);
    EngineOptions o;
    o.friction = mu;
    Engine e(s, o);
    const Measurement m0 = e.measure(0.0);
    double pScale = 0.0, lScale = 0.0;
    for (int a = 0; a < s.vertices.size(); ++a) {
      pScale += s.vertices.mass[a] * s.vertices.v[a].norm();
      lScale += s.vertices.mass[a] * s.vertices.x[a].norm() * s.vertices.v[a].norm();
    }
    double dP = 0.0, dL = 0.0;
    for (int i = 1; i <= 20; ++i) {
      const double t = 0.1 * i;
      e.advanceTo(t);
      const Measurement m = e.measure(t);
      dP = std::max(dP, (m.momentum - m0.momentum).norm());
      dL = std::max(dL, (m.angularMomentum - m0.angularMomentum).norm());
      EXPECT_EQ(m.intersections, 0);
    }
    EXPECT_GT(e.counters().penaltyKicks, 100);
    EXPECT_LE(dP, 1e-12 * pScale) << "mu = " << mu;
    if (mu == 0.0) {
      EXPECT_LE(dL, 1e-12 * lScale);
    } else {
      EXPECT_GT(dL, 1e-10 * lScale);  // friction exerts a couple (the paper's §8.2)
    }
    std::printf("[ M1/M2 mu = %.1f ] %lld kicks, |dP|/scale %.2g, |dL|/scale %.2g\n", mu,
                static_cast<long long>(e.counters().penaltyKicks), dP / pScale, dL / lScale);
  }
}

TEST(AviContact, FrictionDeceleratesASlidingPointAtMuG) {
  // Resting depth under g = 1: 2 k (2 eta - d) = m g, start there sliding at v_x = 1.
  Scene s = bouncingPoint();
  s.vertices.x[0] = Vec3(0, 0, 0.2 - 1.0 / 2000.0);
  s.vertices.v[0] = Vec3(1.0, 0, 0);
  EngineOptions o;
  o.friction = 0.2;
  o.cSafe = kC1e3;
  Engine e(s, o);
  const double T = 2.0;
  e.advanceTo(T);
  const double expected = 1.0 - 0.2 * 1.0 * T;
  EXPECT_NEAR(e.vertices().v[0][0], expected, 0.02 * expected);
  EXPECT_GT(e.vertices().at(0, T)[2], 0.15);
  // It stops and never reverses (the cap).
  e.advanceTo(8.0);
  EXPECT_GE(e.vertices().v[0][0], 0.0);
  EXPECT_LT(e.vertices().v[0][0], 1e-3);
}

TEST(AviContact, ErrorsNameTheLayerOrVertexAndTime) {
  // A layer deeper than max_layer: a soft contact (k = 1) goes several layers deep.
  Scene s = bouncingPoint();
  s.k = 1.0;
  s.forces.clear();
  s.vertices.v[0] = Vec3(0, 0, -1);
  EngineOptions o;
  o.maxLayer = 2;
  Engine e(s, o);
  const std::string what = [&]() {
    try {
      e.advanceTo(2.0);
    } catch (const kinema::Error& err) {
      return std::string(err.what());
    }
    return std::string();
  }();
  EXPECT_NE(what.find("layer 3 > max_layer = 2"), std::string::npos) << what;
  EXPECT_NE(what.find("t = "), std::string::npos) << what;
  // A non-finite velocity names the vertex, the time and the event.
  Scene n = bouncingPoint();
  n.vertices.v[0] = Vec3(std::numeric_limits<double>::quiet_NaN(), 0, 0);
  n.planes.clear();
  n.contactPoints.clear();
  Engine en(n, EngineOptions{});
  try {
    en.advanceTo(1.0);
    ADD_FAILURE() << "no error for a NaN velocity";
  } catch (const kinema::Error& err) {
    const std::string m = err.what();
    EXPECT_NE(m.find("vertex 0"), std::string::npos) << m;
    EXPECT_NE(m.find("t = 0.01"), std::string::npos) << m;
    EXPECT_NE(m.find("gravity"), std::string::npos) << m;
  }
}

TEST(AviContact, M2ShellsWithDampingAndFrictionConserveLinearMomentum) {
  for (double mu : {0.0, 0.4}) {
    const Scene s = twoShells(0.2);
    EngineOptions o;
    o.friction = mu;
    Engine e(s, o);
    const Measurement m0 = e.measure(0.0);
    double pScale = 0.0, lScale = 0.0, dP = 0.0, dL = 0.0;
    for (int a = 0; a < s.vertices.size(); ++a) {
      pScale += s.vertices.mass[a] * s.vertices.v[a].norm();
      lScale += s.vertices.mass[a] * s.vertices.x[a].norm() * s.vertices.v[a].norm();
    }
    for (int i = 1; i <= 40; ++i) {
      const double t = 0.01 * i;
      e.advanceTo(t);
      const Measurement m = e.measure(t);
      dP = std::max(dP, (m.momentum - m0.momentum).norm());
      dL = std::max(dL, (m.angularMomentum - m0.angularMomentum).norm());
    }
    EXPECT_GT(e.counters().penaltyKicks, 50);
    EXPECT_LE(dP, 1e-12 * pScale) << "mu = " << mu;
    if (mu == 0.0) {
      EXPECT_LE(dL, 1e-12 * lScale);  // damping alone is rotation-invariant
    }
    EXPECT_LT(e.measure(0.4).total(), m0.total());  // dissipative
  }
}

}  // namespace
}  // namespace kinema::avi

// Clocks of the asynchronous engine (the paper's §4, Algorithm 1, §6 and §8.1; tests
// U1-U4, U9 of modules/avi/README.md, decision 58):
// leapfrog equivalence, exact lattices, lazy drift against the global drift of Algorithm 1,
// tie-order independence, layer steps and the first tick after an activation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "modules/avi/engine.hpp"
#include "modules/avi/force_element.hpp"
#include "modules/avi/penalty_layer.hpp"

namespace kinema::avi {
namespace {

// A scene of n vertices with no contact primitives.
Scene emptyScene(int n) {
  Scene s;
  s.name = "clock";
  s.dim = 3;
  s.vertices.resize(n);
  s.isolated.assign(n, 0);
  s.eta = 0.1;
  s.k = 1000.0;
  return s;
}

EngineOptions allPairs() {
  EngineOptions o;
  o.broadPhase = "all";
  return o;
}

// Algorithm 1 of the paper as printed (the paper's Algorithm 1): global drift of every vertex to each event
// time, kick of the stencil, ties by force index. The reference for U2 / U3.
struct GlobalDriftReference {
  Scene s;
  std::vector<std::int64_t> j;
  double tg = 0.0;
  explicit GlobalDriftReference(const Scene& scene) : s(scene), j(scene.forces.size(), 1) {}
  void advanceTo(double T) {
    Vertices& V = s.vertices;
    for (;;) {
      int best = -1;
      double tb = 0.0;
      for (std::size_t i = 0; i < s.forces.size(); ++i) {
        const double t = static_cast<double>(j[i]) * s.forces[i].h;
        if (best < 0 || t < tb) {
          best = static_cast<int>(i);
          tb = t;
        }
      }
      if (best < 0 || tb > T) break;
      for (int a = 0; a < V.size(); ++a) V.x[a] += (tb - tg) * V.v[a];
      tg = tb;
      const ForceElement& f = s.forces[best];
      Vec3 x[4], g[4];
      for (int k = 0; k < f.n; ++k) x[k] = V.x[f.v[k]];
      gradient(f, x, g);
      for (int k = 0; k < f.n; ++k) V.v[f.v[k]] -= f.h * V.minv[f.v[k]] * g[k];
      ++j[best];
    }
  }
  Vec3 at(int a, double T) const { return s.vertices.x[a] + (T - tg) * s.vertices.v[a]; }
};

TEST(AviClock, U1SinglePotentialIsLeapfrog) {
  // Particle 0 on a spring (k = 4, rest 1) to the fixed vertex 1: x'' = -k (x - 1).
  Scene s = emptyScene(2);
  s.vertices.x[0] = Vec3(1.5, 0, 0);
  s.vertices.x[1] = Vec3::Zero();
  s.vertices.minv[1] = 0.0;
  const double k = 4.0, h = 0.01;
  ForceElement f = makeSpring(0, 1, Vec3(1, 0, 0), Vec3::Zero(), k, 0.0);
  f.h = h;
  s.forces.push_back(f);
  s.vertices.x[0] = Vec3(1.5, 0, 0);
  s.vertices.v[0] = Vec3(0.3, 0, 0);
  Engine e(s, allPairs());
  // Leapfrog of eq. 7: x_{n+1} = x_n + h v_{n+1/2}; v_{n+3/2} = v_{n+1/2} - h k (x_{n+1} - 1),
  // the initial velocity being that of the first segment (no half kick, the paper's Algorithm 1).
  double x = 1.5, v = 0.3, maxErr = 0.0;
  for (int n = 1; n <= 10000; ++n) {
    x += h * v;
    v -= h * k * (x - 1.0);
    e.advanceTo(n * h);
    const Vec3 xe = e.vertices().at(0, n * h);
    maxErr = std::max({maxErr, std::abs(xe[0] - x), std::abs(e.vertices().v[0][0] - v)});
  }
  EXPECT_LT(maxErr, 1e-11);
  EXPECT_EQ(e.counters().forceEvents, 10000);
}

TEST(AviClock, U1UniformStepIsTheSynchronousLeapfrog) {
  // A chain of 4 masses with springs of different own steps: with uniformStep every potential
  // uses that step, i.e. the synchronous variational integrator.
  Scene s = emptyScene(4);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> U(-0.1, 0.1);
  for (int a = 0; a < 4; ++a) {
    s.vertices.x[a] = Vec3(a, 0, 0);
    s.vertices.mass[a] = 1.0 + a;
    s.vertices.minv[a] = 1.0 / (1.0 + a);
  }
  for (int a = 0; a < 3; ++a) {
    ForceElement f = makeSpring(a, a + 1, s.vertices.x[a], s.vertices.x[a + 1], 10.0 + a, 0.0);
    f.h = 0.001 * (a + 1);
    s.forces.push_back(f);
  }
  for (int a = 0; a < 4; ++a) s.vertices.v[a] = Vec3(U(rng), U(rng), U(rng));
  EngineOptions o = allPairs();
  o.uniformStep = 0.004;
  Engine e(s, o);
  Vertices V = s.vertices;
  const double h = o.uniformStep;
  double err = 0.0;
  for (int n = 1; n <= 2000; ++n) {
    for (int a = 0; a < 4; ++a) V.x[a] += h * V.v[a];
    for (const ForceElement& f : s.forces) {
      Vec3 x[2] = {V.x[f.v[0]], V.x[f.v[1]]}, g[2];
      gradient(f, x, g);
      for (int k = 0; k < 2; ++k) V.v[f.v[k]] -= h * V.minv[f.v[k]] * g[k];
    }
    e.advanceTo(n * h);
    for (int a = 0; a < 4; ++a) err = std::max(err, (e.vertices().at(a, n * h) - V.x[a]).norm());
  }
  EXPECT_LT(err, 1e-11);
}

// Three oscillators, each on its own anchored spring with step h, 2h and sqrt(2) h.
Scene threeOscillators(double h) {
  Scene s = emptyScene(4);
  s.vertices.x[3] = Vec3::Zero();
  s.vertices.minv[3] = 0.0;
  const double steps[3] = {h, 2 * h, std::sqrt(2.0) * h};
  for (int i = 0; i < 3; ++i) {
    const Vec3 rest(i == 0, i == 1, i == 2);
    ForceElement f = makeSpring(i, 3, rest, Vec3::Zero(), 3.0 + i, 0.0);
    f.h = steps[i];
    s.forces.push_back(f);
    s.vertices.x[i] = 1.3 * rest;
    s.vertices.v[i] = Vec3(0.1, -0.2, 0.05 * i);
  }
  return s;
}

TEST(AviClock, U2EventTimesAreExactLatticePointsAndTheClockIsMonotone) {
  const double h = 0.003;
  Scene s = threeOscillators(h);
  Engine e(s, allPairs());
  GlobalDriftReference ref(s);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> dT(0.0, 0.02);
  double T = 0.0, err = 0.0;
  std::vector<double> last(3, 0.0);
  for (int step = 0; step < 500; ++step) {
    T += dT(rng);
    e.advanceTo(T);
    ref.advanceTo(T);
    for (int i = 0; i < 3; ++i) {
      // Vertex i is touched only by potential i: its time is the last tick j h_i <= T, exactly.
      const double hi = e.scene().forces[i].h;
      const double ti = e.vertices().t[i];
      const auto j = static_cast<std::int64_t>(std::llround(ti / hi));
      ASSERT_EQ(ti, static_cast<double>(j) * hi) << "potential " << i << " at T = " << T;
      ASSERT_LE(ti, T);
      ASSERT_GT(static_cast<double>(j + 1) * hi, T);
      ASSERT_GE(ti, last[i]);
      last[i] = ti;
      err = std::max(err, (e.vertices().at(i, T) - ref.at(i, T)).norm());
    }
  }
  EXPECT_EQ(e.scene().forces[0].h, h);
  EXPECT_LT(err, 1e-12);  // eq. 9 evaluated by hand (Algorithm 1 with global drift)
}

TEST(AviClock, U3LazyDriftEqualsGlobalDrift) {
  // A random chain of 12 masses, springs with random steps in [h, 3h], 1e4+ events.
  const int n = 12;
  Scene s = emptyScene(n);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  for (int a = 0; a < n; ++a) {
    s.vertices.x[a] = Vec3(a, 0.2 * U(rng), 0.0);
    s.vertices.mass[a] = 0.5 + U(rng);
    s.vertices.minv[a] = 1.0 / s.vertices.mass[a];
  }
  for (int a = 0; a + 1 < n; ++a) {
    ForceElement f = makeSpring(a, a + 1, s.vertices.x[a], s.vertices.x[a + 1], 5.0 + 5.0 * U(rng), 0.0);
    f.h = 0.002 * (1.0 + 2.0 * U(rng));
    s.forces.push_back(f);
    if (a + 2 < n) {
      ForceElement g = makeSpring(a, a + 2, s.vertices.x[a], s.vertices.x[a + 2], 2.0, 0.0);
      g.h = 0.003 * (1.0 + U(rng));
      s.forces.push_back(g);
    }
  }
  for (int a = 0; a < n; ++a) s.vertices.v[a] = Vec3(U(rng) - 0.5, U(rng) - 0.5, U(rng) - 0.5);
  Engine e(s, allPairs());
  GlobalDriftReference ref(s);
  double err = 0.0, scale = 0.0;
  for (int step = 1; step <= 200; ++step) {
    const double T = 0.01 * step;
    e.advanceTo(T);
    ref.advanceTo(T);
    for (int a = 0; a < n; ++a) {
      err = std::max(err, (e.vertices().at(a, T) - ref.at(a, T)).norm());
      scale = std::max(scale, ref.at(a, T).norm());
    }
  }
  EXPECT_GT(e.counters().forceEvents, 10000);
  EXPECT_LT(err, 1e-12 * scale);
}

TEST(AviClock, U4TieOrderDoesNotMatter) {
  // Commensurate steps h, 2h, 4h give many same-time events; permuting the force list changes
  // the pop order of ties (sequence ids) but not the result beyond round-off.
  const int n = 8;
  Scene s = emptyScene(n);
  for (int a = 0; a < n; ++a) s.vertices.x[a] = Vec3(a, 0.1 * (a % 3), 0.0);
  const double h = 1.0 / 512;
  for (int a = 0; a + 1 < n; ++a) {
    ForceElement f = makeSpring(a, a + 1, s.vertices.x[a], s.vertices.x[a + 1], 20.0, 0.0);
    f.h = h * (1 << (a % 3));
    s.forces.push_back(f);
  }
  ForceElement g = makeGravity(3, 1.0, Vec3(0, 0, -1));
  g.h = 2 * h;
  s.forces.push_back(g);
  for (int a = 0; a < n; ++a) s.vertices.v[a] = Vec3(0.1 * a, -0.05 * a, 0.02);
  Scene p = s;
  std::mt19937_64 rng(9);
  std::shuffle(p.forces.begin(), p.forces.end(), rng);
  std::reverse(p.forces.begin(), p.forces.begin() + 3);
  Engine e1(s, allPairs()), e2(p, allPairs());
  e1.advanceTo(4.0);
  e2.advanceTo(4.0);
  double err = 0.0;
  for (int a = 0; a < n; ++a) err = std::max(err, (e1.vertices().at(a, 4.0) - e2.vertices().at(a, 4.0)).norm());
  EXPECT_LT(err, 1e-12);
  EXPECT_EQ(e1.counters().forceEvents, e2.counters().forceEvents);
}

// A point falling onto the plane z = 0 with constant velocity (no gravity): layer 1 activates
// when its certificate expires, deeper layers while the point is pressed in.
Scene pointOnPlane(double k, double z0, double vz) {
  Scene s = emptyScene(1);
  s.vertices.x[0] = Vec3(0.0, 0.0, z0);
  s.vertices.v[0] = Vec3(0.2, 0.0, vz);
  s.contactPoints = {0};
  s.isolated = {1};
  s.planes.push_back(Plane{});
  s.eta = 0.1;
  s.k = k;
  return s;
}

TEST(AviClock, U9LayerStepsAndFirstTickAfterActivation) {
  const double C = 0.05;
  for (double ratio : {2.0, 3.0, 10.0}) {
    EXPECT_NEAR(layerStep(C, 1.0, 7.0, 1) / layerStep(C, 1.0, 7.0, static_cast<int>(ratio)),
                std::pow(ratio, 1.5), 1e-12 * std::pow(ratio, 1.5));
  }
  EXPECT_EQ(layerStep(C, 2.0, 1000.0, 1), C * std::sqrt(2.0 / 4000.0));
  // Soft k: the point goes several layers deep (KE 0.5 vs 0.04 l per fully compressed layer).
  EngineOptions o = allPairs();
  o.cSafe = C;
  o.recordKicks = true;
  Scene s = pointOnPlane(1.0, 1.0, -1.0);
  Engine e(s, o);
  e.advanceTo(3.0);
  ASSERT_GE(e.counters().deepestLayer, 4);
  std::vector<double> firstKick(64, -1.0);
  for (const KickRecord& r : e.kicks()) {
    const double hl = layerStep(C, 1.0, 1.0, r.layer);  // m_min = 1
    const auto j = std::llround(r.time / hl);
    ASSERT_EQ(r.time, static_cast<double>(j) * hl) << "layer " << r.layer << " kick off its lattice";
    if (firstKick[r.layer] < 0) firstKick[r.layer] = r.time;
  }
  // The restarted-clock variant kicks first at t_a + h_1, which reveals the activation time t_a
  // of layer 1; the aligned run kicks first at the lattice point ceil(t_a / h_1) h_1 >= t_a
  // (the point keeps approaching, so every tick after t_a has g < 0).
  EngineOptions r = o;
  r.restartClocks = true;
  Engine er(s, r);
  er.advanceTo(1.0);
  ASSERT_FALSE(er.kicks().empty());
  const double h1 = layerStep(C, 1.0, 1.0, 1);
  const double ta = er.kicks().front().time - h1;
  EXPECT_NEAR(ta, 0.8, 1e-12);  // z = 1 - t reaches 2 eta = 0.2
  auto j = static_cast<std::int64_t>(std::ceil(ta / h1));
  if (static_cast<double>(j) * h1 < ta) ++j;
  EXPECT_EQ(firstKick[1], static_cast<double>(j) * h1);
  EXPECT_GE(firstKick[1], ta);
  EXPECT_NE(er.kicks().front().time, firstKick[1]);
}

TEST(AviClock, DyadicStepsRoundDownOntoTheDyadicLattice) {
  EngineOptions o = allPairs();
  o.dyadicBase = 0.01;
  o.recordKicks = true;
  Scene s = pointOnPlane(1.0, 1.0, -1.0);
  ForceElement g = makeGravity(0, 1.0, Vec3(0, 0, -0.1));
  g.h = 0.003;
  s.forces.push_back(g);
  Engine e(s, o);
  e.advanceTo(2.0);
  EXPECT_EQ(e.scene().forces[0].h, 0.01 / 4);
  ASSERT_FALSE(e.kicks().empty());
  for (const KickRecord& r : e.kicks()) {
    const double hl = dyadicStep(layerStep(o.cSafe, 1.0, 1.0, r.layer), 0.01);
    EXPECT_LE(hl, layerStep(o.cSafe, 1.0, 1.0, r.layer));
    ASSERT_EQ(r.time, static_cast<double>(std::llround(r.time / hl)) * hl);
  }
}

TEST(AviClock, ScriptEventsSetPiecewiseConstantVelocities) {
  // A scripted triangle (infinite mass) moves up at 1, stops; a free point at rest above it is
  // thrown off like a ball hit by a moving wall: final speed 2 (elastic, e = 1).
  Scene s = emptyScene(4);
  s.eta = 0.02;
  s.k = 1000.0;
  s.vertices.x[0] = Vec3(-1, -1, 0);
  s.vertices.x[1] = Vec3(2, -1, 0);
  s.vertices.x[2] = Vec3(-1, 2, 0);
  s.vertices.x[3] = Vec3(0.2, 0.3, 0.5);
  for (int a = 0; a < 3; ++a) s.vertices.minv[a] = 0.0;
  s.contactPoints = {0, 1, 2, 3};
  s.isolated = {0, 0, 0, 1};
  s.contactTriangles.push_back(Eigen::Vector3i(0, 1, 2));
  s.contactEdges = {Eigen::Vector2i(0, 1), Eigen::Vector2i(1, 2), Eigen::Vector2i(2, 0)};
  Script sc;
  sc.name = "lift";
  sc.vertices = {0, 1, 2};
  sc.times = {0.0, 0.9, 1.2};
  sc.velocities = {Vec3(0, 0, 1), Vec3(0.5, 0, 0), Vec3::Zero()};
  s.scripts.push_back(sc);
  EngineOptions o;
  o.debugInvariant = true;
  Engine e(s, o);
  e.advanceTo(2.0);
  // Scripted vertices follow the prescribed velocities exactly (piecewise linear path).
  const Vec3 expected = Vec3(-1, -1, 0) + 0.9 * Vec3(0, 0, 1) + 0.3 * Vec3(0.5, 0, 0);
  EXPECT_LT((e.vertices().at(0, 2.0) - expected).norm(), 1e-14);
  EXPECT_EQ(e.counters().scriptEvents, 2);
  EXPECT_GT(e.counters().penaltyKicks, 10);
  EXPECT_NEAR(e.vertices().v[3][2], 2.0, 0.04);
  EXPECT_NEAR(e.vertices().v[3][0], 0.0, 1e-12);  // frictionless: no tangential velocity
  EXPECT_GT(e.measure(2.0).minDistance, 0.5);
}

}  // namespace
}  // namespace kinema::avi

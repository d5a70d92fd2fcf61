// Checkpoints of the engine (engine_state.cpp): save at T1, load into a new engine built from the
// same scene and options, continue to T2: bitwise equal to the uninterrupted run, including the
// queue order (sequence counter), certificates, active layers and broad-phase state.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

#include "modules/avi/engine.hpp"
#include "framework/core/error.hpp"
#include "modules/avi/force_element.hpp"

namespace kinema::avi {
namespace {

// 30 discs in a 2D box under gravity with friction: many contacts, layers, certificates and
// broad-phase rebuilds in flight at any time.
Scene discs() {
  const int n = 30;
  Scene s;
  s.name = "discs";
  s.dim = 2;
  s.vertices.resize(n);
  s.isolated.assign(n, 1);
  s.eta = 0.05;
  s.k = 50.0;
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (int a = 0; a < n; ++a) {
    s.vertices.x[a] = Vec3(0.22 * (a % 6) - 0.55, 0.22 * (a / 6) - 0.5, 0.0);
    s.vertices.v[a] = Vec3(U(rng), U(rng), 0.0);
    s.contactPoints.push_back(a);
    ForceElement g = makeGravity(a, 1.0, Vec3(0, -1, 0));
    g.h = 0.01;
    s.forces.push_back(g);
  }
  s.planes.push_back(Plane{Vec3(1, 0, 0), -0.8});
  s.planes.push_back(Plane{Vec3(-1, 0, 0), -0.8});
  s.planes.push_back(Plane{Vec3(0, 1, 0), -0.8});
  s.gravity = Vec3(0, -1, 0);
  return s;
}

void expectBitwiseEqual(const Engine& a, const Engine& b) {
  const Vertices& x = a.vertices();
  const Vertices& y = b.vertices();
  ASSERT_EQ(x.size(), y.size());
  for (int i = 0; i < x.size(); ++i) {
    ASSERT_EQ(x.x[i], y.x[i]) << "vertex " << i;
    ASSERT_EQ(x.v[i], y.v[i]) << "vertex " << i;
    ASSERT_EQ(x.t[i], y.t[i]) << "vertex " << i;
  }
  EXPECT_EQ(a.counters().penaltyKicks, b.counters().penaltyKicks);
  EXPECT_EQ(a.counters().certReschedules, b.counters().certReschedules);
  EXPECT_EQ(a.counters().broadPhaseRebuilds, b.counters().broadPhaseRebuilds);
  const auto la = a.activeLayers(), lb = b.activeLayers();
  ASSERT_EQ(la.size(), lb.size());
  for (std::size_t i = 0; i < la.size(); ++i) {
    EXPECT_TRUE(la[i].key == lb[i].key);
    EXPECT_EQ(la[i].deepest, lb[i].deepest);
  }
}

TEST(AviEngineState, SaveLoadContinuesBitwise) {
  for (bool brute : {false, true}) {
    EngineOptions o;
    o.friction = 0.3;
    o.restitution = 0.9;
    o.bruteForce = brute;
    o.bruteForceLayers = 10;
    const Scene s = discs();
    const double T1 = 0.7, T2 = 1.5;
    Engine ref(s, o);
    ref.advanceTo(T2);

    Engine first(s, o);
    first.advanceTo(T1);
    ASSERT_FALSE(!brute && first.activeLayers().empty()) << "the save should happen mid-contact";
    EngineState state;
    first.save(state);
    Engine second(s, o);
    second.load(state);
    EXPECT_EQ(second.time(), T1);
    second.advanceTo(T2);
    expectBitwiseEqual(ref, second);
    // The saved engine itself continues identically too (save does not disturb it).
    first.advanceTo(T2);
    expectBitwiseEqual(ref, first);
    EXPECT_GT(ref.counters().penaltyKicks, 500) << "brute = " << brute;
  }
}

TEST(AviEngineState, RejectsAStateOfAnotherScene) {
  Engine a(discs(), EngineOptions{});
  EngineState state;
  a.save(state);
  Scene other = discs();
  other.vertices.resize(3);
  for (int a = 0; a < 3; ++a) other.vertices.x[a] = Vec3(0.3 * a, 0, 0);
  other.contactPoints = {0, 1, 2};
  other.isolated.assign(3, 1);
  other.forces.clear();
  Engine b(other, EngineOptions{});
  EXPECT_THROW(b.load(state), kinema::Error);
  state.ints[0] = 7;
  EXPECT_THROW(a.load(state), kinema::Error);
}

TEST(AviEnginePartition, OneOwnerEqualsTheSerialEngineBitwise) {
  const Scene s = discs();
  EngineOptions o;
  o.broadPhase = "all";  // the partitioned engine never rebuilds its broad phase
  Partition p;
  p.rank = 0;
  p.owner.assign(s.vertices.size(), 0);
  Engine serial(s, o), part(s, o, EngineStart{}, &p);
  EXPECT_TRUE(part.boundaryVertices().empty());
  EXPECT_TRUE(part.ghostVertices().empty());
  EXPECT_EQ(part.nextSyncTime(), std::numeric_limits<double>::infinity());
  serial.advanceTo(1.0);
  part.processBefore(1.0);
  part.processAt(1.0);
  expectBitwiseEqual(serial, part);
}

TEST(AviEnginePartition, TwoOwnersDrivenByWindowsMatchTheSerialEngine) {
  // The partitioned hooks of engine.hpp driven like the Domain does, with two "ranks" in one
  // process: windows end at the earliest sync event; impulses on ghosts go to their owners;
  // ghosts are refreshed from the owners. Springs couple discs across the split.
  Scene s = discs();
  for (int a = 0; a + 1 < s.vertices.size(); a += 3) {
    ForceElement f = makeSpring(a, a + 1, s.vertices.x[a], s.vertices.x[a + 1], 5.0, 0.0);
    f.h = 0.004;
    s.forces.push_back(f);
  }
  EngineOptions o;
  o.broadPhase = "all";
  const int n = s.vertices.size();
  std::vector<int> owner(n);
  for (int a = 0; a < n; ++a) owner[a] = s.vertices.x[a][0] < -0.1 ? 0 : 1;
  Partition p0{0, owner}, p1{1, owner};
  Engine serial(s, o);
  Engine e0(s, o, EngineStart{}, &p0), e1(s, o, EngineStart{}, &p1);
  Engine* E[2] = {&e0, &e1};
  ASSERT_FALSE(e0.boundaryVertices().empty());
  EXPECT_EQ(e0.boundaryVertices(), e1.boundaryVertices());
  const double T = 1.0;
  std::vector<Vec3> dv;
  int windows = 0;
  for (;;) {
    const double Ts = std::min({e0.nextSyncTime(), e1.nextSyncTime(), T});
    for (Engine* e : E) e->processBefore(Ts);
    for (Engine* e : E) e->processAt(Ts);
    for (Engine* e : E) {
      e->takeGhostImpulses(dv);
      const auto& g = e->ghostVertices();
      for (std::size_t i = 0; i < g.size(); ++i)
        if (dv[i] != Vec3::Zero()) E[owner[g[i]]]->applyImpulse(g[i], dv[i], Ts);
    }
    for (Engine* e : E)
      for (std::int32_t a : e->ghostVertices()) {
        const Vertices& V = E[owner[a]]->vertices();
        e->setGhostState(a, V.x[a], V.v[a], V.t[a]);
      }
    ++windows;
    if (Ts >= T) break;
  }
  serial.advanceTo(T);
  double err = 0.0, scale = 0.0;
  for (int a = 0; a < n; ++a) {
    err = std::max(err, (E[owner[a]]->vertices().at(a, T) - serial.vertices().at(a, T)).norm());
    err = std::max(err, (E[owner[a]]->vertices().v[a] - serial.vertices().v[a]).norm());
    scale = std::max(scale, serial.vertices().at(a, T).norm());
  }
  EXPECT_GT(serial.counters().penaltyKicks, 300);
  EXPECT_EQ(e0.counters().penaltyKicks + e1.counters().penaltyKicks, serial.counters().penaltyKicks);
  EXPECT_LE(err, 1e-10 * scale);
  const Measurement m = serial.measure(T), m0 = e0.measure(T), m1 = e1.measure(T);
  EXPECT_NEAR(m0.total() + m1.total(), m.total(), 1e-9 * std::abs(m.total()));
  EXPECT_EQ(m0.candidatePairs + m1.candidatePairs, m.candidatePairs);
  std::printf("[ partition ] %d windows, %lld + %lld kicks, max difference %.3g\n", windows,
              static_cast<long long>(e0.counters().penaltyKicks), static_cast<long long>(e1.counters().penaltyKicks),
              err);
}

}  // namespace
}  // namespace kinema::avi

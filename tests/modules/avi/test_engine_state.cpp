// Checkpoints of the engine (engine_state.cpp): save at T1, load into a new engine built from the
// same scene and options, continue to T2: bitwise equal to the uninterrupted run, including the
// queue order (sequence counter), certificates, active layers and broad-phase state.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

#include "modules/avi/domain.hpp"
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

// The discs of discs() coupled across x = -0.1 by springs; owner 0 left of it, 1 right.
Scene coupledDiscs(std::vector<int>& owner) {
  Scene s = discs();
  for (int a = 0; a + 1 < s.vertices.size(); a += 3) {
    ForceElement f = makeSpring(a, a + 1, s.vertices.x[a], s.vertices.x[a + 1], 5.0, 0.0);
    f.h = 0.004;
    s.forces.push_back(f);
  }
  owner.assign(static_cast<std::size_t>(s.vertices.size()), 0);
  for (int a = 0; a < s.vertices.size(); ++a) owner[a] = s.vertices.x[a][0] < -0.1 ? 0 : 1;
  return s;
}

// The scene of one owner's engine as the Domain builds it (engineScene, domain.hpp).
Scene ownerScene(Scene s, Partition& p) { return engineScene(s, p); }

struct TwoOwnerRun {
  std::vector<Vec3> x, v;  // at T, each vertex from its owner
  std::int64_t kicks[2] = {0, 0};
  double total = 0.0;
  std::int64_t pairs = 0, forces[2] = {0, 0};
  int windows = 0;
};

// The partitioned hooks of engine.hpp driven like the Domain does, with two "ranks" in one
// process: windows end at the earliest sync event; impulses on ghosts go to their owners; ghosts
// are refreshed from the owners. With `subset` each engine holds only its forces (ownerScene).
TwoOwnerRun driveTwoOwners(const Scene& s, const std::vector<int>& owner, double T, bool subset) {
  EngineOptions o;
  o.broadPhase = "all";
  Partition p0{0, owner, {}, false}, p1{1, owner, {}, false};
  Engine e0(subset ? ownerScene(s, p0) : s, o, EngineStart{}, &p0);
  Engine e1(subset ? ownerScene(s, p1) : s, o, EngineStart{}, &p1);
  Engine* E[2] = {&e0, &e1};
  EXPECT_FALSE(e0.boundaryVertices().empty());
  EXPECT_EQ(e0.boundaryVertices(), e1.boundaryVertices());
  TwoOwnerRun r;
  std::vector<Vec3> dv;
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
    ++r.windows;
    if (Ts >= T) break;
  }
  for (int a = 0; a < s.vertices.size(); ++a) {
    r.x.push_back(E[owner[a]]->vertices().at(a, T));
    r.v.push_back(E[owner[a]]->vertices().v[a]);
  }
  const Measurement m0 = e0.measure(T), m1 = e1.measure(T);
  r.total = m0.total() + m1.total();
  r.pairs = m0.candidatePairs + m1.candidatePairs;
  for (int k = 0; k < 2; ++k) {
    r.kicks[k] = E[k]->counters().penaltyKicks;
    r.forces[k] = static_cast<std::int64_t>(E[k]->scene().forces.size());
  }
  return r;
}

TEST(AviEnginePartition, TwoOwnersDrivenByWindowsMatchTheSerialEngine) {
  std::vector<int> owner;
  const Scene s = coupledDiscs(owner);
  const double T = 1.0;
  const TwoOwnerRun r = driveTwoOwners(s, owner, T, false);
  EngineOptions o;
  o.broadPhase = "all";
  Engine serial(s, o);
  serial.advanceTo(T);
  double err = 0.0, scale = 0.0;
  for (int a = 0; a < s.vertices.size(); ++a) {
    err = std::max(err, (r.x[a] - serial.vertices().at(a, T)).norm());
    err = std::max(err, (r.v[a] - serial.vertices().v[a]).norm());
    scale = std::max(scale, serial.vertices().at(a, T).norm());
  }
  EXPECT_GT(serial.counters().penaltyKicks, 300);
  EXPECT_EQ(r.kicks[0] + r.kicks[1], serial.counters().penaltyKicks);
  EXPECT_LE(err, 1e-10 * scale);
  const Measurement m = serial.measure(T);
  EXPECT_NEAR(r.total, m.total(), 1e-9 * std::abs(m.total()));
  EXPECT_EQ(r.pairs, m.candidatePairs);
  std::printf("[ partition ] %d windows, %lld + %lld kicks, max difference %.3g\n", r.windows,
              static_cast<long long>(r.kicks[0]), static_cast<long long>(r.kicks[1]), err);
}

TEST(AviEnginePartition, EnginesHoldingOnlyTheirForcesMatchEnginesHoldingAll) {
  // The Domain gives each engine only the forces touching an owned vertex (Partition::forceIndex):
  // same events in the same order (the subset keeps the scene order), so bitwise the same run.
  std::vector<int> owner;
  const Scene s = coupledDiscs(owner);
  const TwoOwnerRun all = driveTwoOwners(s, owner, 1.0, false), sub = driveTwoOwners(s, owner, 1.0, true);
  EXPECT_EQ(all.windows, sub.windows);
  for (std::size_t a = 0; a < all.x.size(); ++a) {
    EXPECT_EQ(all.x[a], sub.x[a]) << "vertex " << a;
    EXPECT_EQ(all.v[a], sub.v[a]) << "vertex " << a;
  }
  EXPECT_EQ(all.total, sub.total);
  EXPECT_EQ(all.kicks[0], sub.kicks[0]);
  EXPECT_EQ(all.kicks[1], sub.kicks[1]);
  // Each holds fewer than all forces, and together at least all (the mixed ones on both).
  EXPECT_LT(sub.forces[0], static_cast<std::int64_t>(s.forces.size()));
  EXPECT_LT(sub.forces[1], static_cast<std::int64_t>(s.forces.size()));
  EXPECT_GE(sub.forces[0] + sub.forces[1], static_cast<std::int64_t>(s.forces.size()));
}

TEST(AviEnginePartition, ErrorsNameTheSceneIndexOfASubsetForce) {
  std::vector<int> owner;
  Scene s = coupledDiscs(owner);
  // The last force is owned by the owner of its first vertex; give it a bad step.
  const auto bad = static_cast<std::int32_t>(s.forces.size() - 1);
  s.forces.back().h = 0.0;
  Partition p{owner[static_cast<std::size_t>(s.forces.back().v[0])], owner, {}, false};
  const Scene sub = ownerScene(s, p);
  // Its index in the engine's list is another than in the scene's (earlier forces are left out).
  ASSERT_FALSE(p.forceIndex.empty());
  ASSERT_EQ(p.forceIndex.back(), bad);
  ASSERT_LT(p.forceIndex.size(), s.forces.size());
  EngineOptions o;
  o.broadPhase = "all";
  try {
    Engine e(sub, o, EngineStart{}, &p);
    FAIL() << "a force with h = 0 was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(str("force ", bad, " ")), std::string::npos) << e.what();
  }
}

TEST(AviEnginePartition, AnEngineWithoutForcesStillCountsGravityByElements) {
  // The scene's gravity is in per-vertex elements; vertex 2 has none (so no gravity energy). An
  // owner of vertex 2 alone gets an engine without forces: it must still count gravity by elements
  // (nothing for vertex 2), not by the scene's gravity vector.
  Scene s = discs();
  s.forces.erase(s.forces.begin() + 2);
  std::vector<int> owner(static_cast<std::size_t>(s.vertices.size()), 0);
  owner[2] = 1;
  Partition p0{0, owner, {}, false}, p1{1, owner, {}, false};
  const Scene s0 = ownerScene(s, p0), s1 = ownerScene(s, p1);
  ASSERT_TRUE(s1.forces.empty());
  ASSERT_TRUE(p1.gravityElements);
  EngineOptions o;
  o.broadPhase = "all";
  Engine serial(s, o), e0(s0, o, EngineStart{}, &p0), e1(s1, o, EngineStart{}, &p1);
  ASSERT_NE(s.vertices.x[2].y(), 0.0);
  EXPECT_EQ(e1.measure(0.0).gravity, 0.0);
  EXPECT_NEAR(e0.measure(0.0).gravity + e1.measure(0.0).gravity, serial.measure(0.0).gravity, 1e-14);
}

}  // namespace
}  // namespace kinema::avi

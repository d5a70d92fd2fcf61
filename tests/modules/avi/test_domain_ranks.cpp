// The distributed AVI (option A of modules/avi/README.md, decision 57; modules/avi/domain.hpp) at
// 1, 2 and 3 ranks, on the petsc and trilinos backends:
//  - the ghost exchange alone: ghosts receive their owner's (x, v, t), impulses on ghosts are
//    summed into their owners, a ghost its owner does not publish is an error;
//  - a free scene of eight spring tetrahedra thrown at each other across the rank boundaries, and
//    two free icosphere shells (CST, hinges, vertex-face and edge-edge pairs): positions at
//    several times equal a serial Engine run of the same scene (README decision 57, step 6: up to round-off;
//    the bound is 1e-10 of the scene size), the same material and non-zero penalty ticks (the
//    invariant of README decision 4: exactly the non-zero kicks of the serial run), no intersection and a positive
//    minimum distance, linear and angular momentum conserved to 1e-12 (the paper's §8.2), windows and
//    migrations of contact clusters at more than one rank;
//  - a vertex sped up by a rank-local event inside a window: the epoch is rolled back (without
//    the rollback the contact is missed and the trajectory differs from the serial one);
//  - checkpoints: save / load continues the run (bitwise at one rank), and a state saved by a
//    one-rank domain continues at this rank count;
//  - an engine error on one rank is thrown on every rank (no rank left in a collective);
//  - the eigen backend and non-dyadic steps are refused at more than one rank;
//  - force shares: after any chain of repartitions each rank holds exactly the forces touching its
//    vertices, bitwise, in scene order, and a Domain run holds every force somewhere and no
//    whole list (README decision 48).
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <random>

#include "framework/core/comm.hpp"
#include "framework/core/error.hpp"
#include "framework/la/backend.hpp"
#include "modules/avi/domain.hpp"
#include "modules/avi/force_element.hpp"
#include "modules/avi/force_share.hpp"
#include "modules/avi/ghost_exchange.hpp"
#include "modules/avi/scene_params.hpp"
#include "test_util.hpp"

using namespace kinema;
using namespace kinema::avi;

namespace {

bool haveBackend(const std::string& name) {
  const auto names = la::backends().names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// ---------------------------------------------------------------------------------------------
// Ghost exchange

void checkGhostExchange(const std::string& backendName) {
  const Comm world = Comm::world();
  const int P = world.size(), me = world.rank();
  auto backend = la::createBackend(backendName);
  const int n = 41;
  std::vector<int> owner(n);
  std::mt19937 rng(11);  // the same on every rank
  for (int& r : owner) r = std::uniform_int_distribution<int>(0, P - 1)(rng);
  // Rank r ghosts about a third of the vertices it does not own (known to every rank).
  std::vector<std::vector<std::int32_t>> ghostsOf(static_cast<std::size_t>(P));
  for (int r = 0; r < P; ++r) {
    std::mt19937 g(100 + static_cast<unsigned>(r));
    for (int a = n - 1; a >= 0; --a)  // descending: the exchange must not rely on order
      if (owner[static_cast<std::size_t>(a)] != r && g() % 3 == 0) ghostsOf[static_cast<std::size_t>(r)].push_back(a);
  }
  std::vector<std::uint8_t> ghostedSomewhere(n, 0);
  for (const auto& list : ghostsOf)
    for (std::int32_t a : list) ghostedSomewhere[static_cast<std::size_t>(a)] = 1;
  std::vector<std::int32_t> published;
  for (int a = 0; a < n; ++a)
    if (owner[static_cast<std::size_t>(a)] == me && ghostedSomewhere[static_cast<std::size_t>(a)]) published.push_back(a);
  const auto& mine = ghostsOf[static_cast<std::size_t>(me)];
  GhostExchange ex(world, *backend, owner, mine, published);
  ASSERT_EQ(ex.ghosts(), mine);
  // Owner-contiguous numbering: owned vertices occupy this rank's block range in scene order.
  std::int64_t prev = -1;
  for (int a = 0; a < n; ++a)
    if (owner[static_cast<std::size_t>(a)] == me) {
      EXPECT_TRUE(ex.stateMap().owns(ex.globalIndex()[static_cast<std::size_t>(a)]));
      EXPECT_GT(ex.globalIndex()[static_cast<std::size_t>(a)], prev);
      prev = ex.globalIndex()[static_cast<std::size_t>(a)];
    }
  EXPECT_EQ(ex.stateMap().blockSize(), 7);
  EXPECT_EQ(ex.impulseMap().blockSize(), 3);

  // States: owners hold f(a); every other entry is garbage that must not travel.
  auto fx = [](int a) { return Vec3(a, 0.5 * a, -1.25 * a); };
  auto fv = [](int a) { return Vec3(-a, 2.0 * a + 1, 0.125); };
  auto ft = [](int a) { return 0.0625 * a; };
  Vertices V;
  V.resize(n);
  for (int a = 0; a < n; ++a) {
    const bool own = owner[static_cast<std::size_t>(a)] == me;
    V.x[static_cast<std::size_t>(a)] = own ? fx(a) : Vec3::Constant(-1e9);
    V.v[static_cast<std::size_t>(a)] = own ? fv(a) : Vec3::Constant(-1e9);
    V.t[static_cast<std::size_t>(a)] = own ? ft(a) : -1e9;
  }
  for (int round = 0; round < 2; ++round) {  // the vectors are reused; round 1: owners changed v
    const double scale = round == 0 ? 1.0 : 2.0;
    ex.exchangeStates(V);
    for (std::size_t i = 0; i < mine.size(); ++i) {
      const GhostState& s = ex.ghostState(i);
      EXPECT_EQ(s.x, fx(mine[i])) << "ghost " << mine[i];
      EXPECT_EQ(s.v, scale * fv(mine[i])) << "ghost " << mine[i] << ", round " << round;
      EXPECT_EQ(s.t, ft(mine[i])) << "ghost " << mine[i];
    }
    for (int a = 0; a < n; ++a)
      if (owner[static_cast<std::size_t>(a)] == me) V.v[static_cast<std::size_t>(a)] = 2.0 * fv(a);
  }
  // Impulses: rank r gives (r + 1) (a + 1) (1, 2, 3) / 8 to each of its ghosts a; the owner
  // receives the exact sum (dyadic values: the sum is exact in any order).
  std::vector<Vec3> dv(mine.size());
  for (std::size_t i = 0; i < mine.size(); ++i) dv[i] = (me + 1) * (mine[i] + 1) * Vec3(1, 2, 3) / 8.0;
  std::vector<std::pair<int, Vec3>> got;
  ex.accumulateImpulses(dv, got);
  std::vector<std::pair<int, Vec3>> expected;
  for (int a = 0; a < n; ++a) {
    if (owner[static_cast<std::size_t>(a)] != me) continue;
    Vec3 sum = Vec3::Zero();
    for (int r = 0; r < P; ++r) {
      const auto& l = ghostsOf[static_cast<std::size_t>(r)];
      if (std::find(l.begin(), l.end(), a) != l.end()) sum += (r + 1) * (a + 1) * Vec3(1, 2, 3) / 8.0;
    }
    if (sum != Vec3::Zero()) expected.emplace_back(a, sum);
  }
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k].first, expected[k].first);
    EXPECT_EQ(got[k].second, expected[k].second) << "vertex " << got[k].first;
  }
  // A second accumulation starts from zero (nothing left over from the first).
  ex.accumulateImpulses(std::vector<Vec3>(mine.size(), Vec3::Zero()), got);
  EXPECT_TRUE(got.empty());

  // A ghost whose owner does not publish it is caught (on every rank: the check is collective).
  if (P > 1) {
    std::vector<std::int32_t> lessPublished = published;
    if (!lessPublished.empty()) lessPublished.pop_back();
    const bool anyDropped = world.any(lessPublished.size() != published.size());
    if (anyDropped) {
      EXPECT_THROW(GhostExchange(world, *backend, owner, mine, lessPublished), Error);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The free scene

constexpr double kSize = 4.0;  // scene extent (lengths are compared relative to it)

// Eight tetrahedra of 4 particles (isolated contact points, point-point contact) joined by six
// springs each, at the corners of a cube of side 2, thrown towards the centre with random spins
// and internal vibration. No gravity, planes, scripts, friction or damping: a free system.
Scene tetraGas() {
  Scene s;
  s.name = "tetra_gas";
  s.dim = 3;
  s.eta = 0.1;
  s.k = 10.0;
  const double L = 0.6;
  const std::array<Vec3, 4> corner = {Vec3(1, 1, 1), Vec3(1, -1, -1), Vec3(-1, 1, -1), Vec3(-1, -1, 1)};
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  s.vertices.resize(32);
  Vertices& V = s.vertices;
  int o = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k, ++o) {
        const Vec3 c(2.0 * i - 1.0, 2.0 * j - 1.0, 2.0 * k - 1.0);
        const Vec3 vc = -0.7 * c.normalized() + 0.25 * Vec3(u(rng), u(rng), u(rng));
        const Vec3 spin = 0.8 * Vec3(u(rng), u(rng), u(rng));
        s.objects.push_back(ObjectInfo{str("tetra", o), 4 * o, 4});
        for (int q = 0; q < 4; ++q) {
          const int a = 4 * o + q;
          const Vec3 r = corner[static_cast<std::size_t>(q)] * (L / (2.0 * std::sqrt(2.0)));
          V.x[static_cast<std::size_t>(a)] = c + r;
          V.v[static_cast<std::size_t>(a)] = vc + spin.cross(r) + 0.05 * Vec3(u(rng), u(rng), u(rng));
          V.mass[static_cast<std::size_t>(a)] = 0.75 + 0.5 * (u(rng) + 1.0) / 2.0;
          V.minv[static_cast<std::size_t>(a)] = 1.0 / V.mass[static_cast<std::size_t>(a)];
          V.object[static_cast<std::size_t>(a)] = o;
          s.contactPoints.push_back(a);
        }
        for (int p = 0; p < 4; ++p)
          for (int q = p + 1; q < 4; ++q) {
            const int a = 4 * o + p, b = 4 * o + q;
            ForceElement e = makeSpring(a, b, V.x[static_cast<std::size_t>(a)], V.x[static_cast<std::size_t>(b)], 150.0, 0.0);
            const double m[2] = {V.mass[static_cast<std::size_t>(a)], V.mass[static_cast<std::size_t>(b)]};
            e.h = stableStep(e, m, 0.2);
            s.forces.push_back(e);
          }
      }
  s.isolated.assign(32, 1);
  s.validate();
  return s;
}

EngineOptions gasOptions(const std::string& partition = "bisection") {
  EngineOptions o;
  o.partition = partition;
  o.dyadicBase = 1.0;  // every step on a dyadic lattice 2^-m (README decision 57, step 1)
  o.margin = 0.3;
  return o;
}

const std::vector<double> kTimes = {0.75, 1.5, 2.25, 3.0};

struct Reference {
  std::vector<std::vector<Vec3>> x;
  std::vector<Measurement> m;
  Counters counters;
  Vec3 p0 = Vec3::Zero(), L0 = Vec3::Zero();
  double pScale = 0.0, LScale = 0.0;
};

// The serial Engine on this rank alone.
const Reference& reference() {
  static const Reference ref = [] {
    Reference r;
    const Scene s = tetraGas();
    Engine e(s, gasOptions());
    const Measurement m0 = e.measure(0.0);
    r.p0 = m0.momentum;
    r.L0 = m0.angularMomentum;
    for (int a = 0; a < s.vertices.size(); ++a) {
      r.pScale += s.vertices.mass[static_cast<std::size_t>(a)] * s.vertices.v[static_cast<std::size_t>(a)].norm();
      r.LScale += s.vertices.mass[static_cast<std::size_t>(a)] * s.vertices.x[static_cast<std::size_t>(a)].norm() *
                  s.vertices.v[static_cast<std::size_t>(a)].norm();
    }
    for (double T : kTimes) {
      e.advanceTo(T);
      std::vector<Vec3> x(static_cast<std::size_t>(s.vertices.size()));
      for (int a = 0; a < s.vertices.size(); ++a) x[static_cast<std::size_t>(a)] = e.vertices().at(a, T);
      r.x.push_back(std::move(x));
      r.m.push_back(e.measure(T));
    }
    r.counters = e.counters();
    return r;
  }();
  return ref;
}

double maxDiff(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0.0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) d = std::max(d, (a[i] - b[i]).norm());
  return d;
}

// `partition`: the Domain's placement rule (object_partition.hpp); the serial reference is the same.
// The forces held over the ranks (README decision 48): the Domain's scene keeps no force list
// (at one rank the serial engine holds it), each rank's held indices increase, and every force of the scene is held
// somewhere (a force lost in a migration would fail here and in the tick counts).
void checkHeldForces(const Domain& d, std::size_t sceneForces) {
  const Comm world = Comm::world();
  const std::vector<std::int32_t>& mine = d.heldForces();
  EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));
  EXPECT_TRUE(std::adjacent_find(mine.begin(), mine.end()) == mine.end());
  EXPECT_TRUE(d.scene().forces.empty()) << "a whole force list beside the engines'";
  std::vector<std::int64_t> own(mine.begin(), mine.end());
  std::vector<std::int64_t> all = world.allgatherv(own);
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  ASSERT_EQ(all.size(), sceneForces);
  EXPECT_EQ(all.front(), 0);
  EXPECT_EQ(all.back(), static_cast<std::int64_t>(sceneForces) - 1);
}

void checkGas(const std::string& backendName, const std::string& partition) {
  const Comm world = Comm::world();
  const int P = world.size();
  const Reference& ref = reference();
  // The scene must collide (deep enough to matter) or the comparison says little.
  ASSERT_GT(ref.counters.penaltyKicks, 100);
  ASSERT_GE(ref.counters.deepestLayer, 2) << "kicks " << ref.counters.penaltyKicks;
  auto backend = la::createBackend(backendName);
  Domain d(world, *backend, tetraGas(), gasOptions(partition));
  double worst = 0.0;
  std::vector<Vec3> x;
  for (std::size_t k = 0; k < kTimes.size(); ++k) {
    const double T = kTimes[k];
    d.advanceTo(T);
    EXPECT_EQ(d.time(), T);
    d.gatherPositions(T, x);
    const double diff = maxDiff(x, ref.x[k]);
    worst = std::max(worst, diff);
    EXPECT_LE(diff, 1e-10 * kSize) << backendName << ", " << partition << " at " << P << " ranks, t = " << T;
    const Measurement m = d.measure(T);
    EXPECT_EQ(m.intersections, 0) << "t = " << T;
    EXPECT_GT(m.minDistance, 0.0) << "t = " << T;
    if (std::isfinite(ref.m[k].minDistance)) {
      EXPECT_NEAR(m.minDistance, ref.m[k].minDistance, 1e-10 * kSize) << "t = " << T;
    }
    EXPECT_LE((m.momentum - ref.p0).norm(), 1e-12 * ref.pScale) << "t = " << T;
    EXPECT_LE((m.angularMomentum - ref.L0).norm(), 1e-12 * ref.LScale) << "t = " << T;
    const double e0 = std::abs(ref.m[k].total());
    EXPECT_NEAR(m.kinetic, ref.m[k].kinetic, 1e-9 * e0) << "t = " << T;
    EXPECT_NEAR(m.elastic, ref.m[k].elastic, 1e-9 * e0) << "t = " << T;
    EXPECT_NEAR(m.contact, ref.m[k].contact, 1e-9 * e0) << "t = " << T;
  }
  // Every material tick once, and exactly the serial run's non-zero penalty kicks.
  const Counters c = d.counters();
  EXPECT_EQ(c.forceEvents, ref.counters.forceEvents);
  EXPECT_EQ(c.penaltyKicks, ref.counters.penaltyKicks);
  EXPECT_EQ(c.deepestLayer, ref.counters.deepestLayer);
  checkHeldForces(d, tetraGas().forces.size());
  const DomainStats& st = d.stats();
  if (P > 1) {
    EXPECT_GT(st.windows, 0);
    EXPECT_GT(st.epochs, 1);
    EXPECT_GT(st.migrations, 0) << "no contact cluster straddled a rank boundary";
  } else {
    EXPECT_EQ(st.windows, 0);
  }
  if (world.isRoot())
    std::cout << "[avi domain] " << backendName << ", " << partition << " at " << P << " ranks: max |x - x_serial| = " << worst
              << " (" << worst / kSize << " of the scene size); epochs " << st.epochs << ", windows "
              << st.windows << ", rollbacks " << st.rollbacks << ", migrations " << st.migrations
              << ", sync " << st.syncSeconds << " s; kicks " << c.penaltyKicks << " (serial "
              << ref.counters.penaltyKicks << "), zero ticks " << c.penaltyZeroTicks << " (serial "
              << ref.counters.penaltyZeroTicks << "), deepest layer " << c.deepestLayer << "\n";

  // Checkpoint at 1.5 continued to 3.0: bitwise at one rank, the serial trajectory at any.
  Domain a(world, *backend, tetraGas(), gasOptions(partition));
  a.advanceTo(kTimes[1]);
  EngineState saved;
  a.save(saved);
  Domain b(world, *backend, tetraGas(), gasOptions(partition));
  b.load(saved);
  EXPECT_EQ(b.time(), kTimes[1]);
  b.advanceTo(kTimes[3]);
  std::vector<Vec3> xb;
  b.gatherPositions(kTimes[3], xb);
  EXPECT_LE(maxDiff(xb, ref.x[3]), 1e-10 * kSize) << "restart at " << P << " ranks";
  if (P == 1) {
    a.advanceTo(kTimes[3]);
    std::vector<Vec3> xa;
    a.gatherPositions(kTimes[3], xa);
    ASSERT_EQ(xa.size(), xb.size());
    EXPECT_EQ(std::memcmp(xa.data(), xb.data(), xa.size() * sizeof(Vec3)), 0) << "restart is not bitwise";
  }
  // A state written by a one-rank domain (the serial engine's) continues at this rank count.
  Domain one(Comm::self(), *backend, tetraGas(), gasOptions(partition));
  one.advanceTo(kTimes[1]);
  EngineState serialState;
  one.save(serialState);
  Domain c2(world, *backend, tetraGas(), gasOptions(partition));
  c2.load(serialState);
  c2.advanceTo(kTimes[3]);
  c2.gatherPositions(kTimes[3], xb);
  EXPECT_LE(maxDiff(xb, ref.x[3]), 1e-10 * kSize) << "one-rank checkpoint continued at " << P << " ranks";
}

}  // namespace

TEST(AviGhostExchange, Petsc) {
  ASSERT_TRUE(haveBackend("petsc")) << "petsc backend not built: the test suite needs every backend";
  checkGhostExchange("petsc");
}

TEST(AviGhostExchange, Trilinos) {
  ASSERT_TRUE(haveBackend("trilinos")) << "trilinos backend not built: the test suite needs every backend";
  checkGhostExchange("trilinos");
}

// ---------------------------------------------------------------------------------------------
// Force shares (force_share.hpp): after any chain of repartitions each rank holds bitwise the
// forces touching its vertices, in scene order (what shareForces takes from the whole list).

bool sameForce(const ForceElement& a, const ForceElement& b) {
  return a.kind == b.kind && a.n == b.n && a.v == b.v && a.h == b.h && a.j == b.j && a.k == b.k && a.nu == b.nu &&
         a.damping == b.damping && a.rest == b.rest && a.weight == b.weight && a.restInv == b.restInv &&
         a.g == b.g && a.mass == b.mass && a.restShape == b.restShape;
}

TEST(AviForceShare, MigrationsGiveEachRankTheForcesTouchingItsVertices) {
  const Comm world = Comm::world();
  const int P = world.size();
  std::mt19937 rng(17);  // the same stream on every rank: the same scene and owners
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int N = 300;
  std::vector<ForceElement> all(2000);
  for (ForceElement& f : all) {
    f.kind = static_cast<ForceKind>(rng() % 5);
    f.n = static_cast<std::uint8_t>(1 + rng() % 4);
    for (int k = 0; k < f.n; ++k) f.v[static_cast<std::size_t>(k)] = static_cast<std::int32_t>(rng() % N);
    f.h = std::ldexp(1.0, -static_cast<int>(rng() % 20));
    f.j = static_cast<std::int64_t>(rng()) * 4096 + 1;
    f.k = u(rng);
    f.nu = u(rng);
    f.damping = u(rng);
    f.rest = u(rng);
    f.weight = u(rng);
    f.restInv = Eigen::Matrix2d::Random();
    f.g = Vec3::Random();
    f.mass = u(rng);
    for (double& r : f.restShape) r = u(rng);
  }
  all[5].kind = ForceKind::Gravity;
  std::vector<int> before(N), owner(N);
  for (int& r : before) r = static_cast<int>(rng() % static_cast<unsigned>(P));
  ForceShare share = shareForces(all, before, world.rank());
  EXPECT_TRUE(share.gravityElements);
  std::size_t moved = 0;
  for (int round = 0; round < 6; ++round) {
    // Rounds 0-2 move a few vertices (an epoch's migrations), 3-5 reshuffle every vertex.
    owner = before;
    for (int a = 0; a < N; ++a)
      if (round >= 3 || rng() % 10 == 0) owner[static_cast<std::size_t>(a)] = static_cast<int>(rng() % static_cast<unsigned>(P));
    migrateForces(share, world, before, owner);
    const ForceShare want = shareForces(all, owner, world.rank());
    ASSERT_EQ(share.index, want.index) << "round " << round;
    for (std::size_t i = 0; i < want.forces.size(); ++i)
      ASSERT_TRUE(sameForce(share.forces[i], want.forces[i])) << "round " << round << ", force " << want.index[i];
    EXPECT_TRUE(share.gravityElements);
    for (int a = 0; a < N; ++a) moved += owner[static_cast<std::size_t>(a)] != before[static_cast<std::size_t>(a)];
    before = owner;
  }
  if (P > 1) {
    EXPECT_GT(moved, 0u) << "no vertex changed its rank";
  }
  // Together the ranks hold every force; a rank holds fewer than all when others own vertices.
  EXPECT_EQ(world.sum(static_cast<std::int64_t>(share.forces.size() > 0)), P);
}

TEST(AviForceShare, AForceNamingAMissingVertexIsAnError) {
  std::vector<ForceElement> all(3);
  for (std::size_t i = 0; i < all.size(); ++i) {
    all[i].n = 2;
    all[i].v = {0, static_cast<std::int32_t>(i), -1, -1};
  }
  all[2].v[1] = 7;
  const std::vector<int> owner(4, 0);
  try {
    (void)shareForces(all, owner, 0);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("force 2 names vertex 7"), std::string::npos) << e.what();
  }
}

TEST(AviDomain, FreeSceneMatchesSerialPetsc) {
  ASSERT_TRUE(haveBackend("petsc")) << "petsc backend not built: the test suite needs every backend";
  checkGas("petsc", "bisection");
}

TEST(AviDomain, FreeSceneMatchesSerialTrilinos) {
  ASSERT_TRUE(haveBackend("trilinos")) << "trilinos backend not built: the test suite needs every backend";
  checkGas("trilinos", "scene_order");
}

// A rank-local event speeds a vertex up so much that the broad phase of the epoch expires inside
// a window: a compressed spring (rest length 1, held at 0.5, everything at rest) swings particle 0
// out to x = 0.5, into the layers of particle 2 at x = 0.62, which is not a candidate pair at
// t = 0 (distance > 2 eta + margin; and nothing moves, so the epoch's broad phase never expires
// by itself). Nothing else happens, so the first window runs to the end time. Without the
// rollback of the epoch, the pair would never be formed and the particles would overlap; with
// it, the run is the serial one, where the engine's own broad-phase rebuild forms the pair.
TEST(AviDomain, BroadPhaseExpiryRollsTheEpochBack) {
  ASSERT_TRUE(haveBackend("petsc")) << "petsc backend not built: the test suite needs every backend";
  const Comm world = Comm::world();
  Scene s;
  s.name = "sling";
  s.eta = 0.1;
  s.k = 50.0;
  s.vertices.resize(5);
  Vertices& V = s.vertices;
  V.x = {Vec3(0, 0, 0), Vec3(-0.5, 0, 0), Vec3(0.62, 0, 0), Vec3(0, 5, 0), Vec3(0, -5, 0)};
  V.object = {0, 0, 1, 2, 3};
  s.objects = {ObjectInfo{"sling", 0, 2}, ObjectInfo{"target", 2, 1}, ObjectInfo{"idle1", 3, 1},
               ObjectInfo{"idle2", 4, 1}};
  ForceElement e = makeSpring(0, 1, Vec3(0.5, 0, 0), Vec3(-0.5, 0, 0), 100.0, 0.0);
  const double m[2] = {1.0, 1.0};
  e.h = stableStep(e, m, 0.2);
  s.forces.push_back(e);
  s.contactPoints = {0, 1, 2, 3, 4};
  s.isolated.assign(5, 1);
  s.validate();
  EngineOptions o;
  o.dyadicBase = 1.0;
  o.margin = 0.1;
  // The sling and the target on different ranks, as scene order places them (bisection would
  // split the 5-vertex scene by position and could put them together).
  o.partition = "scene_order";
  const double T = 1.0;
  Engine serial(s, o);
  serial.advanceTo(T);
  ASSERT_GT(serial.counters().penaltyKicks, 0) << "the particles must collide";
  ASSERT_GT(serial.counters().broadPhaseRebuilds, 0);
  auto backend = la::createBackend("petsc");
  Domain d(world, *backend, s, o);
  d.advanceTo(T);
  std::vector<Vec3> x;
  d.gatherPositions(T, x);
  double diff = 0.0;
  for (int a = 0; a < 5; ++a) diff = std::max(diff, (x[static_cast<std::size_t>(a)] - serial.vertices().at(a, T)).norm());
  EXPECT_LE(diff, 1e-10 * 10.0);
  EXPECT_EQ(d.counters().penaltyKicks, serial.counters().penaltyKicks);
  const Measurement mm = d.measure(T);
  EXPECT_EQ(mm.intersections, 0);
  EXPECT_GT(mm.minDistance, 0.0);
  if (world.size() > 1) {
    EXPECT_GT(d.stats().rollbacks, 0);
  }
  if (world.isRoot())
    std::cout << "[avi domain] sling at " << world.size() << " ranks: |x - x_serial| = " << diff << ", epochs "
              << d.stats().epochs << ", rollbacks " << d.stats().rollbacks << ", windows " << d.stats().windows
              << "\n";
}

// Two free icosphere shells (scene generator two_shells: CST membranes, hinges, vertex-face and
// edge-edge pairs) colliding off-centre: the same comparison with the serial engine as the
// particle scene, on triangle meshes. scene_order: one shell per rank at first, the contact
// cluster moves to one rank (migrations); bisection: each shell is larger than N / (2 P), so both
// are cut into pieces by position and membranes, hinges and pairs straddle the ranks.
DomainStats checkTwoShells(const std::string& partition, bool lookahead = true, double tauMinFactor = -1.0) {
  const Comm world = Comm::world();
  ParamSchema schema;
  declareSceneParams(schema, "avi.scene");
  Config c = Config::fromString(
      "avi:\n  scene:\n    generator: two_shells\n    two_shells:\n      frequency: 2\n      gap: 0.1\n      "
      "offset: 0.5\n      speed: 1.0\n",
      "<two_shells>");
  c.validate(schema);
  const Scene s = buildScene(c, "avi.scene");
  EngineOptions o;
  o.dyadicBase = 1.0;
  o.partition = partition;
  o.certLookahead = lookahead;
  if (tauMinFactor >= 0.0) o.tauMinFactor = tauMinFactor;
  const std::vector<double> times = {0.1, 0.2, 0.3};
  Engine serial(s, o);
  const Measurement m0 = serial.measure(0.0);
  auto backend = la::createBackend("trilinos");
  Domain d(world, *backend, s, o);
  double worst = 0.0;
  for (double T : times) {
    serial.advanceTo(T);
    d.advanceTo(T);
    std::vector<Vec3> x;
    d.gatherPositions(T, x);
    EXPECT_EQ(static_cast<int>(x.size()), s.vertices.size());
    if (static_cast<int>(x.size()) != s.vertices.size()) return d.stats();
    for (int a = 0; a < s.vertices.size(); ++a)
      worst = std::max(worst, (x[static_cast<std::size_t>(a)] - serial.vertices().at(a, T)).norm());
    const Measurement m = d.measure(T);
    EXPECT_EQ(m.intersections, 0) << "t = " << T;
    EXPECT_GT(m.minDistance, 0.0) << "t = " << T;
    EXPECT_LE((m.momentum - m0.momentum).norm(), 1e-12 * 84.0) << "t = " << T;
  }
  EXPECT_LE(worst, 1e-10 * 4.0);
  EXPECT_GT(serial.counters().penaltyKicks, 0) << "the shells must touch";
  EXPECT_EQ(d.counters().penaltyKicks, serial.counters().penaltyKicks);
  EXPECT_EQ(d.counters().forceEvents, serial.counters().forceEvents);
  if (world.size() > 1 && partition == "scene_order") {
    EXPECT_GT(d.stats().migrations, 0);
  }
  checkHeldForces(d, s.forces.size());
  if (world.isRoot())
    std::cout << "[avi domain] two shells, " << partition << (lookahead ? "" : ", no lookahead")
              << (tauMinFactor >= 0.0 ? ", tau_min_factor " + std::to_string(tauMinFactor) : std::string())
              << " at " << world.size() << " ranks: max |x - x_serial| = " << worst << ", epochs "
              << d.stats().epochs << ", windows " << d.stats().windows << ", rollbacks " << d.stats().rollbacks
              << " (tick inside a window " << d.stats().tickRollbacks << "), migrations " << d.stats().migrations
              << ", kicks " << serial.counters().penaltyKicks << ", deepest " << serial.counters().deepestLayer << "\n";
  return d.stats();
}

TEST(AviDomain, TwoShellsMatchSerialSceneOrder) {
  ASSERT_TRUE(haveBackend("trilinos")) << "trilinos backend not built: the test suite needs every backend";
  checkTwoShells("scene_order");
}

TEST(AviDomain, TwoShellsCutIntoPiecesMatchSerial) {
  ASSERT_TRUE(haveBackend("trilinos")) << "trilinos backend not built: the test suite needs every backend";
  checkTwoShells("bisection");
}

// The certificate lookahead (README decision 53): boundary certificates run inside windows. Both
// runs match the serial one (checked inside); the lookahead ends fewer windows.
TEST(AviDomain, CertificateLookaheadKeepsTheResultWithFewerWindows) {
  ASSERT_TRUE(haveBackend("trilinos")) << "trilinos backend not built: the test suite needs every backend";
  const DomainStats on = checkTwoShells("bisection", true), off = checkTwoShells("bisection", false);
  if (Comm::world().size() > 1) {
    EXPECT_LT(on.windows, off.windows);
  }
}

// A large tau_min_factor makes ESTABLISH activate several layers at one certificate expiry, so
// boundary certificates queue ticks inside their window: every rank rolls back and the replay
// ends the epoch at that tick. The result still matches the serial run (checked inside).
TEST(AviDomain, LayersActivatedInsideAWindowRollBackAndMatchSerial) {
  ASSERT_TRUE(haveBackend("trilinos")) << "trilinos backend not built: the test suite needs every backend";
  const DomainStats st = checkTwoShells("bisection", true, 256.0);
  if (Comm::world().size() > 1) {
    EXPECT_GT(st.tickRollbacks, 0);
  }
}

// An error raised by one rank's engine (here: interpenetration with absurd steps, README decision 4's
// NaN / depth checks alike) reaches every rank as the same error, instead of leaving the other
// ranks waiting in the next collective.
TEST(AviDomain, AnErrorOnOneRankIsThrownOnEveryRank) {
  ASSERT_TRUE(haveBackend("petsc")) << "petsc backend not built: the test suite needs every backend";
  const Comm world = Comm::world();
  EngineOptions o = gasOptions();
  o.uniformStep = 0.25;
  {  // the serial engine fails too (else the test says nothing)
    Engine serial(tetraGas(), o);
    EXPECT_THROW(serial.advanceTo(kTimes.back()), Error);
  }
  auto backend = la::createBackend("petsc");
  Domain d(world, *backend, tetraGas(), o);
  const std::string msg = test::messageOf<Error>([&] { d.advanceTo(kTimes.back()); });
  EXPECT_NE(msg.find("t = "), std::string::npos) << msg;
  // Every rank saw the same message.
  const std::vector<std::int64_t> lengths = world.allgather(static_cast<std::int64_t>(msg.size()));
  for (std::int64_t n : lengths) EXPECT_EQ(n, static_cast<std::int64_t>(msg.size()));
}

TEST(AviDomain, RefusesEigenAndNonDyadicStepsAtSeveralRanks) {
  const Comm world = Comm::world();
  auto eigen = la::createBackend("eigen");
  if (world.size() == 1) {
    Domain d(world, *eigen, tetraGas(), EngineOptions{});  // one rank: a plain serial engine
    d.advanceTo(0.25);
    EXPECT_EQ(d.time(), 0.25);
    return;
  }
  const std::string msg = test::messageOf<InputError>([&] { Domain d(world, *eigen, tetraGas(), gasOptions()); });
  EXPECT_NE(msg.find("petsc"), std::string::npos) << msg;
  if (!haveBackend("petsc")) return;
  auto petsc = la::createBackend("petsc");
  const std::string dy =
      test::messageOf<InputError>([&] { Domain d(world, *petsc, tetraGas(), EngineOptions{}); });
  EXPECT_NE(dy.find("dyadic_base"), std::string::npos) << dy;
}

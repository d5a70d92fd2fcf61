// Domain (modules/bdem/README.md, decisions 1-5) at 1, 2 and 3 ranks: ownership covers every particle exactly
// once, every bond is held by exactly one rank with gid(i) < gid(j) and a correctly re-oriented
// rest axis, ghosts contain every bond partner and every particle within reach (brute force over
// the whole scene), exchangeState copies the owners' state, the numbering is the same as a
// 1-rank (Comm::self) distribution, and refreshGhosts follows moving particles.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "framework/core/comm.hpp"
#include "framework/core/error.hpp"
#include "framework/solvers/manifold_rigid.hpp"
#include "modules/bdem/domain.hpp"
#include "modules/bdem/fragments.hpp"

using namespace kinema;
using namespace kinema::bdem;

namespace {

// A jittered 12 x 5 x 3 block of particles with random orientations, bonds between neighbours
// closer than 1.2 spacings. Scene ids are a shuffled permutation (the domain must not care).
System makeScene(unsigned seed = 7) {
  System s;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double h = 0.01;
  std::vector<GlobalId> ids(12 * 5 * 3);
  for (std::size_t k = 0; k < ids.size(); ++k) ids[k] = static_cast<GlobalId>(k);
  std::shuffle(ids.begin(), ids.end(), rng);
  std::size_t k = 0;
  for (int x = 0; x < 12; ++x)
    for (int y = 0; y < 5; ++y)
      for (int z = 0; z < 3; ++z) {
        Vec3 p(h * x + 0.05 * h * u(rng), h * y + 0.05 * h * u(rng), h * z + 0.05 * h * u(rng));
        s.P.add(p, 0.5 * h, 1e-3, ids[k++]);
        Vec4 q(u(rng), u(rng), u(rng), u(rng));
        s.P.q.back() = q.normalized();
        s.P.qRef.back() = s.P.q.back();
        s.P.v.back() = Vec3(u(rng), u(rng), u(rng));
      }
  s.P.numOwned = s.P.size();
  for (std::size_t a = 0; a < s.P.size(); ++a)
    for (std::size_t b = a + 1; b < s.P.size(); ++b)
      if ((s.P.p[a] - s.P.p[b]).norm() < 1.2 * h)
        s.bonds.push_back(makeBond(s.P, static_cast<std::int32_t>(a), static_cast<std::int32_t>(b), Material{}));
  return s;
}

std::vector<std::int64_t> gather(const Comm& c, const std::vector<std::int64_t>& x) { return c.allgatherv(x); }

}  // namespace

TEST(BdemDomain, OwnershipBondsGhostsExchange) {
  Comm world = Comm::world();
  const System scene = makeScene();
  const std::size_t N = scene.P.size();
  const double reach = 0.025;

  System s = scene;
  Domain dom(world);
  dom.distribute(s, reach);
  ASSERT_EQ(dom.globalParticles(), static_cast<long>(N));

  // Reference: the same scene distributed on one rank.
  System ref = scene;
  Domain one(Comm::self());
  one.distribute(ref, reach);
  ASSERT_EQ(ref.P.numOwned, N);
  EXPECT_EQ(dom.newIndexOfSceneParticle(), one.newIndexOfSceneParticle());
  EXPECT_EQ(ref.P.size(), N);  // no ghosts at one rank
  EXPECT_EQ(one.pointMap()->ghosts().size(), 0u);

  // Ownership: contiguous range, every global index exactly once, same state as the 1-rank numbering.
  ASSERT_EQ(static_cast<GlobalId>(s.P.numOwned), dom.ownedEnd() - dom.ownedBegin());
  std::vector<std::int64_t> mine;
  for (std::size_t a = 0; a < s.P.numOwned; ++a) {
    mine.push_back(s.P.gid[a]);
    EXPECT_EQ(s.P.gid[a], dom.ownedBegin() + static_cast<GlobalId>(a));
    const std::size_t g = static_cast<std::size_t>(s.P.gid[a]);
    EXPECT_EQ(s.P.p[a], ref.P.p[g]);
    EXPECT_EQ(s.P.q[a], ref.P.q[g]);
    EXPECT_EQ(dom.sceneIds()[a], one.sceneIds()[g]);
  }
  std::vector<std::int64_t> all = gather(world, mine);
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), N);
  for (std::size_t g = 0; g < N; ++g) EXPECT_EQ(all[g], static_cast<std::int64_t>(g));
  // Balanced counts.
  const auto counts = world.allgather(static_cast<std::int64_t>(s.P.numOwned));
  EXPECT_LE(*std::max_element(counts.begin(), counts.end()) - *std::min_element(counts.begin(), counts.end()), 1);
  // Locality of the curve: a rank's owned box is much smaller than the scene (at > 1 rank).
  EXPECT_EQ(dom.pointMap()->blockSize(), 7);
  EXPECT_EQ(dom.pointMap()->ownedBlocks(), static_cast<la::LocalIndex>(s.P.numOwned));

  // Bonds: each on exactly one rank, the owner of the smaller end, correct geometry after the swap.
  std::vector<std::int64_t> pairs;
  for (const Bond& b : s.bonds) {
    ASSERT_GE(b.i, 0);
    ASSERT_GE(b.j, 0);
    EXPECT_LT(b.gi, b.gj);
    EXPECT_TRUE(s.P.owned(static_cast<std::size_t>(b.i)));
    EXPECT_EQ(s.P.gid[b.i], b.gi);
    EXPECT_EQ(s.P.gid[b.j], b.gj);
    pairs.push_back(b.gi * static_cast<std::int64_t>(N) + b.gj);
    // Rest axis in both frames: R(q_c) d0Shear = R(q_j) d0Bend = (p_j - p_i)/l0 (bond.hpp).
    const Vec3 d0 = (s.P.p[b.j] - s.P.p[b.i]) / b.l0;
    Vec4 qc = s.P.q[b.i] + (s.P.q[b.i].dot(s.P.q[b.j]) < 0 ? -s.P.q[b.j] : s.P.q[b.j]);
    qc.normalize();
    EXPECT_LT((solvers::RigidManifold::rotation(qc) * b.d0Shear - d0).norm(), 1e-12);
    EXPECT_LT((solvers::RigidManifold::rotation(s.P.q[b.j]) * b.d0Bend - d0).norm(), 1e-12);
  }
  std::vector<std::int64_t> allPairs = gather(world, pairs);
  std::sort(allPairs.begin(), allPairs.end());
  EXPECT_EQ(std::adjacent_find(allPairs.begin(), allPairs.end()), allPairs.end()) << "a bond on two ranks";
  std::vector<std::int64_t> refPairs;
  for (const Bond& b : ref.bonds) refPairs.push_back(b.gi * static_cast<std::int64_t>(N) + b.gj);
  std::sort(refPairs.begin(), refPairs.end());
  EXPECT_EQ(allPairs, refPairs);
  EXPECT_EQ(allPairs.size(), scene.bonds.size());

  // Ghosts: sorted, not owned, matching the point map; every particle within reach is present.
  auto checkGhosts = [&](const System& sys, const System& whole) {
    std::set<GlobalId> held(sys.P.gid.begin(), sys.P.gid.end());
    EXPECT_EQ(held.size(), sys.P.size());
    const auto& gh = dom.pointMap()->ghosts();
    ASSERT_EQ(gh.size(), sys.P.size() - sys.P.numOwned);
    for (std::size_t k = 0; k < gh.size(); ++k) {
      const std::size_t a = sys.P.numOwned + k;
      EXPECT_EQ(gh[k], sys.P.gid[a]);
      EXPECT_FALSE(gh[k] >= dom.ownedBegin() && gh[k] < dom.ownedEnd());
      if (k > 0) {
        EXPECT_LT(gh[k - 1], gh[k]);
      }
      // A ghost's state is its owner's.
      EXPECT_EQ(sys.P.p[a], whole.P.p[static_cast<std::size_t>(gh[k])]);
      EXPECT_EQ(sys.P.v[a], whole.P.v[static_cast<std::size_t>(gh[k])]);
      EXPECT_EQ(sys.P.r[a], whole.P.r[static_cast<std::size_t>(gh[k])]);
    }
    int missing = 0;
    for (std::size_t a = 0; a < sys.P.numOwned; ++a)
      for (std::size_t g = 0; g < N; ++g)
        if ((whole.P.p[g] - sys.P.p[a]).norm() <= reach && !held.count(static_cast<GlobalId>(g))) ++missing;
    EXPECT_EQ(missing, 0) << "particles within reach missing from the ghost layer";
  };
  checkGhosts(s, ref);
  if (world.size() > 1) {
    EXPECT_GT(s.P.size(), s.P.numOwned);
  }

  // exchangeState: owners write a state derived from the global index; ghosts must receive it.
  auto stamp = [](GlobalId g) { return Vec3(1.0 + g, 2.0 * g, -0.5 * g); };
  for (std::size_t a = 0; a < s.P.numOwned; ++a) {
    s.P.p[a] += 1e-6 * stamp(s.P.gid[a]);
    s.P.v[a] = stamp(s.P.gid[a]);
    s.P.q[a] = Vec4(0, 0, std::sin(0.001 * s.P.gid[a]), std::cos(0.001 * s.P.gid[a]));
    s.P.qdot[a] = Vec4(1, 2, 3, static_cast<double>(s.P.gid[a]));
  }
  const auto ghostsBefore = dom.pointMap()->ghosts();
  dom.exchangeState(s);
  for (std::size_t a = s.P.numOwned; a < s.P.size(); ++a) {
    const GlobalId g = s.P.gid[a];
    EXPECT_EQ(s.P.p[a], ref.P.p[static_cast<std::size_t>(g)] + 1e-6 * stamp(g));
    EXPECT_EQ(s.P.v[a], stamp(g));
    EXPECT_EQ(s.P.q[a], Vec4(0, 0, std::sin(0.001 * g), std::cos(0.001 * g)));
    EXPECT_EQ(s.P.qdot[a], Vec4(1, 2, 3, static_cast<double>(g)));
  }
  // Nothing moved by much: the ghost set is unchanged after a refresh.
  for (std::size_t g = 0; g < N; ++g) {
    ref.P.p[g] += 1e-6 * stamp(static_cast<GlobalId>(g));
    ref.P.v[g] = stamp(static_cast<GlobalId>(g));
  }
  bool changed = dom.refreshGhosts(s, reach);
  EXPECT_FALSE(changed);
  EXPECT_EQ(dom.pointMap()->ghosts(), ghostsBefore);
  checkGhosts(s, ref);

  // Compress the block by 5% in x: displacements (<= 5.5 mm) stay within half the Verlet skin
  // (0.5 reach / 2 = 6.25 mm), so the ghost set is kept; pairs that came within reach must already
  // be there, with their owners' new state.
  for (std::size_t a = 0; a < s.P.numOwned; ++a) s.P.p[a].x() *= 0.95;
  for (std::size_t g = 0; g < N; ++g) ref.P.p[g].x() *= 0.95;
  changed = dom.refreshGhosts(s, reach);
  EXPECT_FALSE(changed);
  checkGhosts(s, ref);

  // Move: fold the block in x (the far half slides back over the near half, shifted in z), so that
  // new contact neighbours appear across ranks; the ghost layer must follow.
  auto fold = [](Vec3& p) {
    if (p.x() > 0.057) p = Vec3(0.114 - p.x(), p.y(), p.z() + 0.035);
  };
  for (std::size_t a = 0; a < s.P.numOwned; ++a) fold(s.P.p[a]);
  for (std::size_t g = 0; g < N; ++g) fold(ref.P.p[g]);
  changed = dom.refreshGhosts(s, reach);
  if (world.size() > 1) {
    EXPECT_TRUE(changed);
  }
  checkGhosts(s, ref);
  for (const Bond& b : s.bonds) {
    EXPECT_EQ(s.P.gid[b.i], b.gi);
    EXPECT_EQ(s.P.gid[b.j], b.gj);
  }
  // The numbering did not change with the motion.
  for (std::size_t a = 0; a < s.P.numOwned; ++a)
    EXPECT_EQ(s.P.gid[a], dom.ownedBegin() + static_cast<GlobalId>(a));
}

TEST(BdemDomain, NumberingIsAMortonOrder) {
  // Two well separated clusters: whatever the rank count, the curve keeps each cluster contiguous,
  // and swapping scene ids changes only the tie-break, never the positions' order.
  System s;
  for (int k = 0; k < 8; ++k) s.P.add(Vec3(0.001 * k, 0, 0), 0.0005, 1e-3, 100 - k);
  for (int k = 0; k < 8; ++k) s.P.add(Vec3(10 + 0.001 * k, 0, 0), 0.0005, 1e-3, k);
  s.P.numOwned = s.P.size();
  Domain d(Comm::world());
  d.distribute(s, 0.0);
  const auto& idx = d.newIndexOfSceneParticle();
  for (int k = 0; k < 8; ++k) {
    EXPECT_LT(idx[k], 8);
    EXPECT_GE(idx[8 + k], 8);
  }
  // Coincident positions are ordered by scene id.
  System t;
  for (int k = 0; k < 4; ++k) t.P.add(Vec3(0, 0, 0), 0.1, 1.0, 10 - k);
  t.P.add(Vec3(1, 1, 1), 0.1, 1.0, 0);
  t.P.numOwned = t.P.size();
  Domain e(Comm::world());
  e.distribute(t, 0.0);
  const auto& jdx = e.newIndexOfSceneParticle();
  EXPECT_EQ(jdx[3], 0);
  EXPECT_EQ(jdx[2], 1);
  EXPECT_EQ(jdx[1], 2);
  EXPECT_EQ(jdx[0], 3);
  EXPECT_EQ(jdx[4], 4);
}

TEST(BdemDomain, BadSceneIsAnInputError) {
  System s;
  s.P.add(Vec3(0, 0, 0), 0.1, 1.0, 0);
  s.P.add(Vec3(0.2, 0, 0), 0.1, 1.0, 1);
  s.P.numOwned = 2;
  Bond b;
  b.i = 0;
  b.j = 5;
  s.bonds.push_back(b);
  Domain d(Comm::world());
  EXPECT_THROW(d.distribute(s, 0.1), InputError);
  // Two particles with the same scene id (far apart: different Morton keys).
  System t;
  t.P.add(Vec3(0, 0, 0), 0.1, 1.0, 3);
  t.P.add(Vec3(5, 0, 0), 0.1, 1.0, 3);
  t.P.numOwned = 2;
  Domain e(Comm::world());
  EXPECT_THROW(e.distribute(t, 0.1), InputError);
}

// Fragments (fragments.hpp) on a distributed chain of 20 particles along x: one component; cutting
// the middle bond gives two of 10 (the largest holds one end only: split); cutting the first bond
// gives 19 + 1 with both ends still in the largest (particle 1 is within 0.1 L of the low end).
TEST(BdemDomain, FragmentsAndFractureSplit) {
  auto chain = [] {
    System s;
    for (int k = 0; k < 20; ++k) s.P.add(Vec3(0.01 * k, 0.001 * (k % 3), 0), 0.005, 1e-3 * (1 + k), k);
    s.P.numOwned = s.P.size();
    for (int k = 0; k + 1 < 20; ++k) s.bonds.push_back(makeBond(s.P, k, k + 1, Material{}));
    return s;
  };
  Comm world = Comm::world();
  for (int cut : {-1, 9, 0}) {
    System s = chain();
    Domain d(world);
    d.distribute(s, 0.012);
    if (cut >= 0) {
      const auto& idx = d.newIndexOfSceneParticle();
      const GlobalId a = std::min(idx[cut], idx[cut + 1]), b = std::max(idx[cut], idx[cut + 1]);
      for (Bond& bd : s.bonds)
        if (bd.gi == a && bd.gj == b) bd.alive = false;
    }
    std::vector<GlobalId> labels;
    const FragmentStats fs = computeFragments(s, world, d.globalParticles(), &labels);
    ASSERT_EQ(labels.size(), s.P.numOwned);
    double mass = 0;
    for (int k = 0; k < 20; ++k) mass += 1e-3 * (1 + k);
    EXPECT_NEAR(fs.totalMass, mass, 1e-15);
    const bool split = fractureSplit(s, world, fs, labels);
    if (cut < 0) {
      EXPECT_EQ(fs.count, 1);
      EXPECT_EQ(fs.largest, 20);
      EXPECT_FALSE(split);
    } else if (cut == 9) {
      EXPECT_EQ(fs.count, 2);
      EXPECT_EQ(fs.sizes, (std::vector<long>{10, 10}));
      EXPECT_TRUE(split);
      // Masses: particles 0-9 weigh 1e-3 (1 + ... + 10), 10-19 1e-3 (11 + ... + 20).
      EXPECT_NEAR(fs.masses[0], 1e-3 * 155, 1e-15);
      EXPECT_NEAR(fs.masses[1], 1e-3 * 55, 1e-15);
      EXPECT_EQ(fs.countWithMassFraction(0.3), 1);
    } else {
      EXPECT_EQ(fs.count, 2);
      EXPECT_EQ(fs.sizes, (std::vector<long>{19, 1}));
      EXPECT_FALSE(split);
    }
    // Labels: a component's label is its smallest global index; both ends of a cut differ.
    for (std::size_t a = 0; a < s.P.numOwned; ++a) EXPECT_LE(labels[a], s.P.gid[a]);
    std::vector<std::int64_t> mine(labels.begin(), labels.end()), ids(s.P.gid.begin(), s.P.gid.begin() + s.P.numOwned);
    const auto allLabels = world.allgatherv(mine), allIds = world.allgatherv(ids);
    std::vector<GlobalId> bySceneLabel(20);
    for (std::size_t k = 0; k < allIds.size(); ++k) {
      // global index -> scene id
      for (int sc = 0; sc < 20; ++sc)
        if (d.newIndexOfSceneParticle()[sc] == allIds[k]) bySceneLabel[sc] = allLabels[k];
    }
    for (int k = 0; k + 1 < 20; ++k) {
      if (k == cut) {
        EXPECT_NE(bySceneLabel[k], bySceneLabel[k + 1]);
      } else {
        EXPECT_EQ(bySceneLabel[k], bySceneLabel[k + 1]);
      }
    }
  }
}

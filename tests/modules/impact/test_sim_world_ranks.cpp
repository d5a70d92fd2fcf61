// The impact simulator's distributed world (sim_stepper.hpp, "Distributed world";
// docs/modules/impact.md): bodies owned by RCB subdomains, ghosts, islands found across ranks and
// resolved by their root. What must hold at 1, 2 and 3 ranks: every body's trajectory bitwise the
// one-rank trajectory (3D pile with restitution and friction, rigid boxes with a seeded random
// operator, a 2D pile with GR), the same per-step island figures, no rank holding the whole scene,
// a restart through the block split continuing bitwise, and bad input named on every rank.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "modules/impact/sim_decomposition.hpp"
#include "modules/impact/sim_generators.hpp"
#include "modules/impact/sim_stepper.hpp"

using namespace kinema;
using namespace kinema::impact;

namespace {

bool same(const Eigen::Vector3d& a, const Eigen::Vector3d& b) { return std::memcmp(a.data(), b.data(), 3 * sizeof(double)) == 0; }
bool same(const Eigen::Quaterniond& a, const Eigen::Quaterniond& b) {
  return std::memcmp(a.coeffs().data(), b.coeffs().data(), 4 * sizeof(double)) == 0;
}

// Number of bodies whose position, velocity, angular velocity or orientation differs in any bit.
int differences(const SimWorld& a, const SimWorld& b) {
  if (a.bodies.size() != b.bodies.size()) return -1;
  int d = 0;
  for (std::size_t k = 0; k < a.bodies.size(); ++k) {
    const SimBody &x = a.bodies[k], &y = b.bodies[k];
    if (x.id != y.id || !same(x.x, y.x) || !same(x.v, y.v) || !same(x.omega, y.omega) || !same(x.q, y.q)) ++d;
  }
  return d;
}

struct Figures {
  std::int64_t islands = 0, resolved = 0, iterations = 0, caps = 0, cycles = 0, constraints = 0, crossRank = 0,
               migrated = 0;
};

// Runs `steps` steps of the world split by id blocks over `comm` (each rank passes only its block:
// WorldInput::Distributed) and compares each step's island figures with a one-rank run.
void expectBitwiseTheOneRankRun(const SimWorld& whole, const SimOptions& o, long steps, Figures& dist) {
  const Comm world = Comm::world();
  const std::int64_t n = whole.numBodies();
  SimWorld part = whole;
  part.bodies.clear();
  for (std::int64_t k = n * world.rank() / world.size(); k < n * (world.rank() + 1) / world.size(); ++k)
    part.bodies.push_back(whole.bodies[static_cast<std::size_t>(k)]);
  SimStepper serial(whole, o, Comm::self());
  SimStepper sim(part, o, world, WorldInput::Distributed);
  for (long s = 0; s < steps; ++s) {
    const SimStepStats a = serial.step();
    const SimStepStats& b = sim.step();
    ASSERT_EQ(a.islands, b.islands) << "step " << s;
    ASSERT_EQ(a.resolvedIslands, b.resolvedIslands) << "step " << s;
    ASSERT_EQ(a.largestIsland, b.largestIsland) << "step " << s;
    ASSERT_EQ(a.iterationsTotal, b.iterationsTotal) << "step " << s;
    ASSERT_EQ(a.constraints, b.constraints) << "step " << s;
    ASSERT_EQ(a.candidates, b.candidates) << "step " << s;
    ASSERT_EQ(a.unresolvedClosures, b.unresolvedClosures) << "step " << s;
    dist.islands += b.islands;
    dist.resolved += b.resolvedIslands;
    dist.iterations += b.iterationsTotal;
    dist.caps += b.caps;
    dist.cycles += b.cycles;
    dist.constraints += b.constraints;
    dist.crossRank += b.crossRankIslands;
    dist.migrated += b.migrated;
  }
  EXPECT_EQ(differences(sim.gathered(), serial.world()), 0) << "bodies differ at " << world.size() << " ranks";
  // No rank holds the whole scene (beyond one rank), and every body is owned once.
  EXPECT_EQ(world.sum(static_cast<std::int64_t>(sim.world().numBodies())), n);
  if (world.size() > 1) {
    EXPECT_LT(sim.world().numBodies(), n);
  }
}

SimOptions pileOptions() {
  SimOptions o;
  o.dt = 0.004;
  o.contactTolerance = 1e-6 * 0.05;
  o.impact.op = "gs-lexicographic";
  o.impact.restitution = 0.2;
  o.impact.operatorOptions.qpTolerance = 1e-10;
  o.impact.friction.mu = 0.3;
  return o;
}

}  // namespace

TEST(SimDecomposition, OwnersCoverSpaceAndBalanceTheWeight) {
  const Comm world = Comm::world();
  std::mt19937_64 rng(11 + static_cast<std::uint64_t>(world.rank()));
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Eigen::Vector3d> x(2000);
  std::vector<std::int64_t> w(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) {
    x[k] = Eigen::Vector3d(4.0 * u(rng), u(rng), 0.5 * u(rng));
    w[k] = 1 + (k % 3);  // uneven weights
  }
  SimDecomposition d;
  d.build(x, w, 3, world);
  std::vector<double> load(static_cast<std::size_t>(world.size()), 0.0);
  std::vector<int> near;
  for (std::size_t k = 0; k < x.size(); ++k) {
    const int o = d.ownerOf(x[k]);
    ASSERT_GE(o, 0);
    ASSERT_LT(o, world.size());
    load[static_cast<std::size_t>(o)] += static_cast<double>(w[k]);
    d.ranksNear(x[k], 0.0, near);
    EXPECT_NE(std::find(near.begin(), near.end(), o), near.end());
    d.ranksNear(x[k], 10.0, near);  // farther than the whole box: every rank
    EXPECT_EQ(static_cast<int>(near.size()), world.size());
  }
  // Every rank builds the same tree: the owners of shared probe points agree.
  for (double px : {-1.0, 0.3, 1.7, 2.2, 3.9, 7.0}) {
    const int o = d.ownerOf(Eigen::Vector3d(px, 0.5, 0.25));
    EXPECT_EQ(world.min(static_cast<std::int64_t>(o)), world.max(static_cast<std::int64_t>(o)));
  }
  double total = 0.0, most = 0.0;
  for (double& l : load) {
    l = world.sum(l);
    total += l;
    most = std::max(most, l);
  }
  EXPECT_LE(most / (total / world.size()), 1.05) << "RCB load imbalance";
}

TEST(SimWorldRanks, PileWithRestitutionAndFrictionIsBitwiseTheOneRankRun) {
  SimWorld w = generators::pile({.n = 300, .radius = 0.05, .mass = 1.0, .width = 0.8, .spacing = 0.05,
      .jitter = 0.1, .seed = 5, .dimension = 3});
  w.gravity = Eigen::Vector3d(0, 0, -9.81);
  Figures f;
  expectBitwiseTheOneRankRun(w, pileOptions(), 90, f);
  EXPECT_GT(f.constraints, 500);
  EXPECT_EQ(f.caps, 0);
  if (Comm::world().size() > 1) {
    EXPECT_GT(f.crossRank, 0) << "no island crossed ranks: the gather path was not exercised";
    EXPECT_GT(f.migrated, 0) << "no body changed owner";
  }
}

TEST(SimWorldRanks, RigidBoxesWithASeededRandomOperatorAreBitwiseTheOneRankRun) {
  SimWorld w = generators::boxDrop(12, Eigen::Vector3d(0.5, 0.3, 0.2), 1.0, 3);
  SimOptions o;
  o.dt = 0.01;
  o.contactTolerance = 1e-6 * 0.2;
  o.impact.op = "gs-random";
  o.impact.restitution = 0.5;
  o.impact.operatorOptions.qpTolerance = 1e-10;
  Figures f;
  expectBitwiseTheOneRankRun(w, o, 160, f);
  EXPECT_GT(f.constraints, 100);
}

TEST(SimWorldRanks, TwoDimensionalPileWithGRIsBitwiseTheOneRankRun) {
  SimWorld w = generators::pile({.n = 240, .radius = 0.05, .mass = 1.0, .width = 1.6, .spacing = 0.05,
      .jitter = 0.1, .seed = 9, .dimension = 2});
  w.gravity = Eigen::Vector3d(0, -9.81, 0);
  SimOptions o;
  o.dt = 0.004;
  o.contactTolerance = 1e-6 * 0.05;
  o.impact.op = "gr";
  Figures f;
  expectBitwiseTheOneRankRun(w, o, 80, f);
  EXPECT_GT(f.constraints, 200);
}

TEST(SimWorldRanks, RestartThroughTheBlockSplitContinuesBitwise) {
  const Comm world = Comm::world();
  SimWorld w = generators::pile({.n = 200, .radius = 0.05, .mass = 1.0, .width = 0.6, .spacing = 0.05,
      .jitter = 0.1, .seed = 2, .dimension = 3});
  w.gravity = Eigen::Vector3d(0, 0, -9.81);
  SimStepper straight(w, pileOptions(), world), resumed(w, pileOptions(), world);
  for (int s = 0; s < 60; ++s) straight.step();
  for (int s = 0; s < 30; ++s) resumed.step();
  // What a checkpoint restart does: the bodies to their block of ids (state overwritten there), then
  // the next step rebuilds the subdomains and migrates.
  const std::int64_t first = resumed.toBlocks();
  EXPECT_EQ(first, 200 * world.rank() / world.size());
  ASSERT_EQ(resumed.world().numBodies(), 200 * (world.rank() + 1) / world.size() - first);
  for (std::size_t k = 0; k < resumed.world().bodies.size(); ++k)
    EXPECT_EQ(resumed.world().bodies[k].id, first + static_cast<std::int64_t>(k));
  for (int s = 0; s < 30; ++s) resumed.step();
  EXPECT_EQ(differences(resumed.gathered(), straight.gathered()), 0);
}

TEST(SimWorldRanks, BadBodyOnOneRankIsNamedOnEveryRank) {
  const Comm world = Comm::world();
  SimWorld w = generators::pile({.n = 30, .radius = 0.05, .mass = 1.0, .width = 0.6, .spacing = 0.05,
      .jitter = 0.1, .seed = 2, .dimension = 3});
  SimWorld part = w;
  part.bodies.clear();
  for (std::int64_t k = 30 * world.rank() / world.size(); k < 30 * (world.rank() + 1) / world.size(); ++k)
    part.bodies.push_back(w.bodies[static_cast<std::size_t>(k)]);
  SimWorld bad = part;
  if (world.rank() == world.size() - 1) bad.bodies.back().x[1] = std::numeric_limits<double>::quiet_NaN();
  try {
    SimStepper sim(bad, pileOptions(), world, WorldInput::Distributed);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("body 29"), std::string::npos) << e.what();
  }
  SimWorld twice = part;
  if (world.rank() == 0) twice.bodies[0].id = 1;  // id 1 twice (or, at one rank, id 0 missing)
  EXPECT_THROW(SimStepper(twice, pileOptions(), world, WorldInput::Distributed), InputError);
}

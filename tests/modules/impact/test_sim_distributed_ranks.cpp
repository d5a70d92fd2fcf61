// The simulator hands an island above impact.sim.distributed_island_contacts to all ranks, which
// resolve it together with GR on a distributed Delassus operator (petsc, trilinos): the step's
// velocities equal those of the one-rank simulator to the QP tolerance, at 1, 2 and 3 ranks.
#include <gtest/gtest.h>

#include <random>

#include "framework/la/backend.hpp"
#include "modules/impact/sim_stepper.hpp"

using namespace kinema;
using namespace kinema::impact;

namespace {

// 12 x 12 touching discs (radius 0.5 on a unit hexagonal lattice) with seeded random velocities:
// one island of about 400 contacts, most of them approaching.
SimWorld packedDiscs() {
  SimWorld w;
  w.dimension = 2;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int row = 0; row < 12; ++row)
    for (int col = 0; col < 12; ++col) {
      const Eigen::Vector3d x(col + 0.5 * (row % 2), row * std::sqrt(3.0) / 2.0, 0.0);
      w.addBall(x, 0.5, 1.0 + 0.5 * (u(rng) + 1.0), Eigen::Vector3d(u(rng), u(rng), 0.0));
    }
  return w;
}

SimOptions grOptions() {
  SimOptions o;
  o.dt = 1e-3;
  o.contactTolerance = 1e-6;
  o.impact.op = "gr";
  o.impact.resolver.antiLocking = AntiLockingMode::Off;
  return o;
}

}  // namespace

TEST(SimDistributed, LargeIslandOnAllRanksMatchesTheOneRankStep) {
  const Comm world = Comm::world();
  SimStepper serial(packedDiscs(), grOptions(), Comm::self());
  const SimStepStats& s1 = serial.step();
  ASSERT_GT(s1.largestIsland, 300);
  double vmax = 0.0;
  for (const auto& b : serial.world().bodies) vmax = std::max(vmax, b.v.norm());
  for (const std::string& name : la::backends().names()) {
    auto backend = la::createBackend(name);
    if (!backend->distributed()) continue;
    SimOptions o = grOptions();
    o.distributedIslandContacts = 100;
    o.backend = backend.get();
    SimStepper dist(packedDiscs(), o, world);
    const SimStepStats& s = dist.step();
    EXPECT_EQ(s.distributedIslands, world.size() > 1 ? s.resolvedIslands : 0) << name;
    EXPECT_EQ(s.notConverged, 0) << name;
    double diff = 0.0;
    const SimWorld all = dist.gathered();  // the bodies are distributed: the whole scene, in id order
    ASSERT_EQ(all.bodies.size(), serial.world().bodies.size());
    for (std::size_t k = 0; k < all.bodies.size(); ++k)
      diff = std::max(diff, (all.bodies[k].v - serial.world().bodies[k].v).norm());
    // Both solve every GR QP to a KKT residual of ~1e-12 relative; the velocity is unique.
    EXPECT_LE(diff, 1e-8 * vmax) << name << " at " << world.size() << " ranks";
  }
}

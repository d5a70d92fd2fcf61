// Distributed Generalized Reflections for one big island (distributed_delassus.hpp,
// distributed_gr.hpp), on every distributed backend at whatever rank count the suite runs with
// (1, 2 and 3 ranks: `mpiexec -n P test_distributed_gr`):
//  * the distributed Delassus apply, Nᵀ, M⁻¹N and ⟨·,·⟩_M equal the dense/replicated ones to 1e-12,
//    for the default (slab) body partition and a ghost-heavy round-robin one;
//  * distributed GR on a 20×20 hex patch (1121 contacts) and on a random 3D ball pile equals the
//    one-rank GR (GeneralizedReflections + Resolver, the module's reference path) in velocity to
//    ‖q̇_dist − q̇_1‖_M/‖q̇_0‖_M ≤ 1e-8, with the same iteration count, (KIN) per step, and
//    ϵ-feasibility at exit;
//  * the eigen backend at several ranks is refused with a message naming the backends that can.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "framework/core/error.hpp"
#include "la/la_test_util.hpp"
#include "modules/impact/distributed_delassus.hpp"
#include "modules/impact/distributed_gr.hpp"
#include "modules/impact/generalized_reflections.hpp"
#include "modules/impact/resolver.hpp"
#include "modules/impact/scenes.hpp"

namespace kinema::impact {
namespace {

// A random 3D pile of balls: a jittered FCC packing (nearest distance ≈ 2, unit radius) of
// nx × ny × nz cells, random masses, contacts between balls closer than 2.1 (normals from the
// jittered centres, so no two are parallel), floor contacts for the bottom layer, and random
// velocities with a downward mean. Strictly feasible directions exist (expand the pile upwards),
// so there is no implicit equality and GR terminates.
scenes::Scene ballPile3D(int nx, int ny, int nz, unsigned seed) {
  scenes::Scene s;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> jitter(-0.03, 0.03), mass(0.5, 2.0);
  std::normal_distribution<double> gauss;
  const double h = std::sqrt(2.0);
  std::vector<Eigen::Vector3d> pos;
  for (int k = 0; k < 2 * nz; ++k)
    for (int j = 0; j < 2 * ny; ++j)
      for (int i = 0; i < 2 * nx; ++i)
        if ((i + j + k) % 2 == 0)
          pos.emplace_back(h * i + jitter(rng), h * j + jitter(rng), 1.0 + h * k + 0.5 * std::abs(jitter(rng)));
  for (const auto& p : pos) s.system.addBall3D(mass(rng), p);
  const int n = static_cast<int>(pos.size());
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b)
      if ((pos[a] - pos[b]).norm() < 2.1) s.system.addBallBall(a, b);
  for (int a = 0; a < n; ++a)
    if (pos[a].z() < 1.5) s.system.addWall(a, Eigen::Vector3d(0.0, 0.0, 1.0));
  s.qdot.resize(s.system.dofs());
  for (int i = 0; i < s.qdot.size(); ++i) s.qdot[i] = gauss(rng) - (i % 3 == 2 ? 1.0 : 0.0);
  return s;
}

double relInf(const Eigen::VectorXd& a, const Eigen::VectorXd& ref) {
  return (a - ref).lpNorm<Eigen::Infinity>() / std::max(1.0, ref.lpNorm<Eigen::Infinity>());
}

class DistributedGRTest : public test::BackendTest {};

void checkOperators(const ImpactSystem& sys, const la::Backend& backend, const Comm& comm,
                    std::vector<int> bodyRank, const char* what) {
  SCOPED_TRACE(what);
  DistributedDelassus D(sys, backend, comm, std::move(bodyRank));
  const int m = sys.numConstraints(), d = sys.dofs();
  EXPECT_EQ(comm.sum(static_cast<std::int64_t>(D.ownedConstraints().size())), m);
  EXPECT_EQ(D.constraintMap()->globalSize(), m);
  EXPECT_EQ(D.velocityMap()->globalSize(), d);
  if (comm.size() > 1) {
    EXPECT_TRUE(comm.any(D.ghostBodies() > 0)) << "the partition should cut contacts";
  }

  Eigen::VectorXd xf(m), qf(d);
  for (int i = 0; i < m; ++i) xf[i] = std::sin(0.37 * i + 0.1) + 0.2;
  for (int i = 0; i < d; ++i) qf[i] = std::cos(1.3 * i) - 0.1;
  const Eigen::MatrixXd N = sys.denseN(), Minv = sys.denseMinv(), M = sys.denseM();
  const Eigen::VectorXd yRef = N.transpose() * (Minv * (N * xf));

  la::VectorPtr x = D.createConstraintVector(), y = D.createConstraintVector(), s = D.createConstraintVector();
  la::VectorPtr q = D.createVelocityVector();
  D.scatterConstraints(xf, *x);
  D.scatterVelocity(qf, *q);
  // Round trips through the distributed layout.
  EXPECT_EQ(relInf(D.gatherConstraints(*x), xf), 0.0);
  EXPECT_EQ(relInf(D.gatherVelocity(*q), qf), 0.0);

  D.delassus()->apply(*x, *y);  // the FunctionOperator the QP solver sees
  const double eA = relInf(D.gatherConstraints(*y), yRef);
  EXPECT_LE(eA, 1e-12);
  D.NT(*q, *s);
  const double eNT = relInf(D.gatherConstraints(*s), N.transpose() * qf);
  EXPECT_LE(eNT, 1e-12);
  la::VectorPtr w = D.createVelocityVector();
  D.scatterVelocity(qf, *w);
  D.addMinvN(*x, *w);
  const double eMN = relInf(D.gatherVelocity(*w), qf + Minv * (N * xf));
  EXPECT_LE(eMN, 1e-12);
  const double dm = D.dotM(*q, *w), dmRef = qf.dot(M * (qf + Minv * (N * xf)));
  EXPECT_LE(std::abs(dm - dmRef), 1e-12 * std::max(1.0, std::abs(dmRef)));
  if (comm.isRoot())
    std::printf("[%s, %d ranks] %s: m=%d d=%d, ghost bodies on rank 0: %d; rel. errors A %.1e, N^T %.1e, "
                "M^-1N %.1e\n",
                backend.name().c_str(), comm.size(), what, m, d, D.ghostBodies(), eA, eNT, eMN);
}

TEST_P(DistributedGRTest, DelassusApplyEqualsDense) {
  const Comm c = comm();
  std::vector<int> roundRobin;
  {
    const scenes::Scene hex = scenes::hexPatch(7, 6, 3);
    checkOperators(hex.system, *backend, c, {}, "hex 7x6, slab partition");
    for (int b = 0; b < hex.system.numBodies(); ++b) roundRobin.push_back(b % c.size());
    checkOperators(hex.system, *backend, c, roundRobin, "hex 7x6, round-robin partition");
  }
  const scenes::Scene pile = ballPile3D(2, 2, 2, 11);
  checkOperators(pile.system, *backend, c, {}, "3D ball pile");
  // 6-DOF rigid bodies with rotational coupling and a static ground (M⁻¹ blocks are full 6x6).
  const scenes::Scene rigid = scenes::randomRigid(30, 90, 5, true);
  checkOperators(rigid.system, *backend, c, {}, "random 3D rigid bodies");
}

struct Compared {
  ResolveResult ref;
  DistributedGRResult dist;
};

// Tolerance of the comparison. Both runs solve each GR-QP to a relative KKT residual (one rank:
// MPRGP to 1e-10 plus the dense active-set polish to 1e-13; distributed: MPRGP to 1e-12, no
// polish). The velocity v* = q̇ + M⁻¹N_Vλ/2 of a QP is unique even where λ is not (A singular), and
// its error is bounded by the projected gradient times ‖λ‖-scale quantities, so each GR step
// agrees to ~1e-11..1e-10 relative; the iterations compound this over a few tens of steps.
// 1e-8 leaves two orders of margin over what is measured (printed) while still failing on any
// real mistake (a wrong sign, a missed ghost contribution or a different V gives O(1e-2..1)).
constexpr double kVelocityTol = 1e-8;

Compared runBoth(const scenes::Scene& sc, const la::Backend& backend, const Comm& comm, const char* what,
                 std::vector<int> bodyRank = {}) {
  Compared c;
  ResolverOptions ro;  // defaults: relaxed, epsilon 1e-10, renormalised
  GeneralizedReflections gr;
  c.ref = Resolver(ro).resolve(sc.system, gr, sc.qdot);
  DistributedGROptions o;
  o.epsilon = ro.epsilon;
  o.bodyRank = std::move(bodyRank);
  c.dist = resolveDistributedGR(sc.system, sc.qdot, backend, comm, o);
  const DistributedGRStats& st = c.dist.stats;
  const double n0 = sc.system.normM(sc.qdot);
  const double diff = sc.system.normM(c.dist.qdot - c.ref.qdot) / n0;
  if (comm.isRoot())
    std::printf("[%s, %d ranks] %s: m=%d d=%d | one-rank GR: %ld iterations, %.2f s | distributed: %ld iterations, "
                "%ld MPRGP iterations (max %d per QP), max KKT %.1e, max step energy change %.1e, energy drift "
                "%.1e, min feasibility %.2e, %.2f s | |qdot_dist - qdot_1|_M/|qdot_0|_M = %.2e, impulse rel. "
                "diff %.1e\n",
                backend.name().c_str(), comm.size(), what, sc.system.numConstraints(), sc.system.dofs(),
                c.ref.stats.iterations, c.ref.stats.seconds, st.iterations, st.qpIterations, st.maxQpIterations,
                st.maxKktResidual, st.maxStepEnergyChange, st.relativeEnergyDrift, st.minRelativeFeasibility,
                st.seconds, diff, relInf(c.dist.impulse, c.ref.impulse));
  EXPECT_TRUE(c.ref.stats.converged) << c.ref.stats.report;
  EXPECT_TRUE(st.converged) << st.report;
  EXPECT_TRUE(st.allQpConverged) << st.report;
  EXPECT_EQ(st.ranks, comm.size());
  EXPECT_EQ(st.iterations, c.ref.stats.iterations) << "the outer loops must take the same violated sets";
  EXPECT_EQ(comm.max(std::int64_t{st.iterations}), comm.min(std::int64_t{st.iterations}));
  if (sc.system.numConstraints() > 10) {
    EXPECT_GT(st.iterations, 1);
  }
  EXPECT_LE(diff, kVelocityTol);
  // (KIN): each GR step conserves ‖q̇‖_M up to the QP's KKT residual, before renormalisation.
  EXPECT_LE(st.maxStepEnergyChange, 1e-10);
  EXPECT_LE(std::abs(st.relativeEnergyDrift), 1e-12);  // renormalised (Algorithm 4)
  EXPECT_NEAR(sc.system.kineticEnergy(c.dist.qdot), c.ref.stats.energyBefore, 1e-12 * c.ref.stats.energyBefore);
  // ϵ-feasibility at exit, recomputed from the gathered velocity on the replicated system.
  EXPECT_GE(st.minRelativeFeasibility, -ro.epsilon * (1.0 + 1e-6));
  EXPECT_GE(minRelativeFeasibility(sc.system, c.dist.qdot), -ro.epsilon * (1.0 + 1e-6));
  // (ONE): accumulated impulses are non-negative.
  EXPECT_GE(c.dist.impulse.minCoeff(), 0.0);
  // Every rank holds the same gathered result.
  const double checksum = c.dist.qdot.dot(Eigen::VectorXd::LinSpaced(c.dist.qdot.size(), 1.0, 2.0));
  EXPECT_EQ(comm.max(checksum), comm.min(checksum));
  return c;
}

TEST_P(DistributedGRTest, HexPatch20x20MatchesOneRankGR) {
  const scenes::Scene sc = scenes::hexPatch(20, 20, 7);
  ASSERT_EQ(sc.system.numConstraints(), 1121);
  runBoth(sc, *backend, comm(), "hex patch 20x20");
  // A ghost-heavy partition (bodies dealt round-robin: most contacts cross ranks) gives the same.
  std::vector<int> rr;
  for (int b = 0; b < sc.system.numBodies(); ++b) rr.push_back(b % comm().size());
  runBoth(sc, *backend, comm(), "hex patch 20x20, round-robin bodies", rr);
}

// Fewer bodies than ranks: some ranks own no body and no constraint (empty owned ranges).
TEST_P(DistributedGRTest, TinyIslandWithIdleRanks) {
  runBoth(scenes::chain({1.0, -1.0}), *backend, comm(), "2-ball chain");
  runBoth(scenes::hexCluster19(4), *backend, comm(), "hex cluster 19");
}

TEST_P(DistributedGRTest, BallPile3DMatchesOneRankGR) {
  const scenes::Scene sc = ballPile3D(5, 5, 3, 5);
  ASSERT_GT(sc.system.numConstraints(), 1000);
  runBoth(sc, *backend, comm(), "3D ball pile");
}

INSTANTIATE_TEST_SUITE_P(Backends, DistributedGRTest, ::testing::ValuesIn(test::backendNames(true)),
                         test::paramName);

// The eigen backend holds objects in one process: at one rank distributed GR runs on it (and
// agrees with the reference); at several ranks it is refused, naming the backends that can.
TEST(DistributedGR, EigenOnlyAtOneRank) {
  auto eigen = la::createBackend("eigen");
  const Comm world = Comm::world();
  const scenes::Scene sc = scenes::hexCluster19(3);
  if (world.size() == 1) {
    GeneralizedReflections gr;
    const ResolveResult ref = Resolver().resolve(sc.system, gr, sc.qdot);
    const DistributedGRResult r = resolveDistributedGR(sc.system, sc.qdot, *eigen, world);
    EXPECT_TRUE(r.stats.converged) << r.stats.report;
    EXPECT_EQ(r.stats.iterations, ref.stats.iterations);
    EXPECT_LE(sc.system.normM(r.qdot - ref.qdot) / sc.system.normM(sc.qdot), kVelocityTol);
    return;
  }
  std::string msg;
  try {
    resolveDistributedGR(sc.system, sc.qdot, *eigen, world);
  } catch (const InputError& e) {
    msg = e.what();
  }
  ASSERT_FALSE(msg.empty()) << "eigen at " << world.size() << " ranks must be refused";
  EXPECT_NE(msg.find("eigen"), std::string::npos) << msg;
  EXPECT_NE(msg.find("distributed impact"), std::string::npos) << msg;
  for (const std::string& name : test::backendNames(true)) EXPECT_NE(msg.find(name), std::string::npos) << msg;
  // Also from the operator layer directly, and a clear error for a bad body partition.
  EXPECT_THROW(DistributedDelassus(sc.system, *eigen, world), InputError);
  if (world.isRoot()) std::printf("eigen at %d ranks: %s\n", world.size(), msg.c_str());
}

TEST(DistributedGR, BadBodyPartitionIsRefused) {
  auto eigen = la::createBackend("eigen");
  const scenes::Scene sc = scenes::hexCluster19(3);
  DistributedGROptions o;
  o.bodyRank.assign(static_cast<std::size_t>(sc.system.numBodies()), 0);
  o.bodyRank[3] = 5;  // no such rank on Comm::self
  const std::string msg = test::messageOf([&] { resolveDistributedGR(sc.system, sc.qdot, *eigen, Comm::self(), o); });
  EXPECT_NE(msg.find("body rank 5"), std::string::npos) << msg;
  o.bodyRank.resize(4);
  const std::string msg2 = test::messageOf([&] { resolveDistributedGR(sc.system, sc.qdot, *eigen, Comm::self(), o); });
  EXPECT_NE(msg2.find("bodies"), std::string::npos) << msg2;
}

}  // namespace
}  // namespace kinema::impact

// Work storage shared by the strands of a rank (docs/modules/der.md, "Memory"): optimisers and
// forward simulators that share one workspace, stepped round-robin as the der module steps them,
// give bitwise the per-strand results of a strand alone with a workspace of its own: the same
// parameters, multipliers, residuals and iteration counts, the same trajectories. Strands of
// different sizes make the workspace resize as well as rebuild.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "framework/la/backend.hpp"
#include "modules/der/alm_optimizer.hpp"
#include "modules/der/forward_sim.hpp"
#include "modules/der/rod_kinematics.hpp"
#include "modules/der/rod_mass.hpp"
#include "modules/der/strand_generators.hpp"

namespace kinema::der {
namespace {

bool bitwiseEqual(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

bool bitwiseEqual(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Wisps of two sizes (the workspace is resized between them) and a helix.
std::vector<StrandGeometry> strands() {
  WispParams w;
  w.length = 0.1;
  std::vector<StrandGeometry> s = wisps(3, 14, w, 5);
  for (auto& g : wisps(2, 9, w, 6)) s.push_back(g);
  s.push_back(helix(12, 0.01, 0.005, 2.0));
  return s;
}

Material material() {
  Material m;
  m.radius = 1e-4;
  m.cStretch = m.cBend = m.cTwist = 1e8;
  return m;
}

OptimizerOptions options() {
  OptimizerOptions o;
  o.bounds.mu = 0.5;
  o.epsP = 1e-12;
  o.kMax = 40;
  return o;
}

}  // namespace

TEST(DerWorkspace, SharedOptimiserWorkspaceGivesTheSeparateResultsBitwise) {
  auto backend = la::createBackend("eigen");
  const auto geometry = strands();
  const Material m = material();
  const OptimizerOptions o = options();

  // Reference: each strand alone, its own workspace, the history kept.
  std::vector<std::unique_ptr<AlmOptimizer>> alone;
  for (std::size_t i = 0; i < geometry.size(); ++i) {
    const auto q = interleave(geometry[i]);
    alone.push_back(std::make_unique<AlmOptimizer>(q, initialFrames(q), m, o, *backend, static_cast<int>(i)));
    alone.back()->run();
  }

  // As the der module runs them: one workspace, frames recomputed, no history, one iteration of
  // every strand per round.
  OptimizerOptions lean = o;
  lean.recordHistory = false;
  auto workspace = std::make_shared<AlmWorkspace>(lean, *backend);
  std::vector<std::unique_ptr<AlmOptimizer>> shared;
  for (std::size_t i = 0; i < geometry.size(); ++i)
    shared.push_back(std::make_unique<AlmOptimizer>(interleave(geometry[i]), m, lean, *backend, static_cast<int>(i),
                                                    workspace));
  for (bool running = true; running;) {
    running = false;
    for (auto& opt : shared)
      if (!opt->done()) running = !opt->iterate() || running;
  }

  long newton = 0;
  for (std::size_t i = 0; i < geometry.size(); ++i) {
    const AlmOptimizer& a = *alone[i];
    const AlmOptimizer& b = *shared[i];
    EXPECT_TRUE(bitwiseEqual(a.parameters(), b.parameters())) << "strand " << i;
    EXPECT_TRUE(bitwiseEqual(a.multipliers(), b.multipliers())) << "strand " << i;
    EXPECT_TRUE(bitwiseEqual(a.stats().residual, b.stats().residual)) << "strand " << i;
    EXPECT_TRUE(bitwiseEqual(a.stats().initialResidual, b.stats().initialResidual)) << "strand " << i;
    EXPECT_EQ(a.stats().newtonIterations, b.stats().newtonIterations) << "strand " << i;
    EXPECT_EQ(a.stats().mprgpIterations, b.stats().mprgpIterations) << "strand " << i;
    EXPECT_EQ(a.stats().factorizations, b.stats().factorizations) << "strand " << i;
    EXPECT_EQ(a.stats().stopReason, b.stats().stopReason) << "strand " << i;
    EXPECT_EQ(a.stats().history.size(), static_cast<std::size_t>(a.stats().newtonIterations));
    EXPECT_TRUE(b.stats().history.empty());
    // stats().residual is the recomputed relative residual (the module reports the former).
    EXPECT_TRUE(bitwiseEqual(b.relativeResidual(), b.stats().residual)) << "strand " << i;
    EXPECT_TRUE(bitwiseEqual(a.initialParameters(), b.initialParameters())) << "strand " << i;
    const RestState ra = a.restState(), rb = b.restState();
    EXPECT_TRUE(bitwiseEqual(ra.cBend, rb.cBend)) << "strand " << i;
    EXPECT_TRUE(bitwiseEqual(ra.restLength, rb.restLength)) << "strand " << i;
    // The strands were really optimised (several steps, the residual reduced).
    EXPECT_GT(a.stats().newtonIterations, 2) << "strand " << i;
    EXPECT_LT(a.stats().residual, 0.5 * a.stats().initialResidual) << "strand " << i;
    newton += a.stats().newtonIterations;
  }
  // The workspace really changed hands: rebuilt at least once per iteration of every strand.
  EXPECT_GE(workspace->rebuilds(), newton);
  EXPECT_EQ(alone[0]->workspace().rebuilds(), 1);
}

TEST(DerWorkspace, SharedOptimiserWorkspaceRestartsBitwise) {
  // A checkpointed state restored into an optimiser on a shared workspace continues exactly.
  auto backend = la::createBackend("eigen");
  const auto geometry = strands();
  const Material m = material();
  const OptimizerOptions o = options();
  auto workspace = std::make_shared<AlmWorkspace>(o, *backend);
  AlmOptimizer ref(interleave(geometry[0]), m, o, *backend, 0, workspace);
  AlmOptimizer other(interleave(geometry[3]), m, o, *backend, 3, workspace);
  for (int k = 0; k < 3; ++k) ref.iterate();
  const AlmState saved = ref.state();
  ref.run();
  AlmOptimizer again(interleave(geometry[0]), m, o, *backend, 0, workspace);
  again.restore(saved);
  other.iterate();  // the workspace now holds another strand
  again.run();
  EXPECT_TRUE(bitwiseEqual(ref.parameters(), again.parameters()));
  EXPECT_EQ(ref.stats().newtonIterations, again.stats().newtonIterations);
}

TEST(DerWorkspace, SharedForwardWorkspaceGivesTheSeparateTrajectoriesBitwise) {
  const auto geometry = strands();
  const Material m = material();
  // Fixed roots (the path that reuses the kinematics evaluated at the end of a step) and a shaken
  // root, two Newton iterations with line search so every buffer is used.
  ForwardSimOptions o;
  o.maxNewtonIterations = 2;
  o.lineSearch = true;
  const RootMotion shake{[](double t) {
    Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
    T.translation() = Vec3(0.01 * std::sin(12.0 * t), 0.0, 0.0);
    return T;
  }};
  for (const RootMotion* root : {static_cast<const RootMotion*>(nullptr), &shake}) {
    const RootMotion r = root ? *root : RootMotion::fixed();
    std::vector<std::unique_ptr<StrandSimulator>> alone, shared;
    auto workspace = std::make_shared<ForwardWorkspace>();
    for (const auto& g : geometry) {
      const auto q = interleave(g);
      const RestState rest = restStateFrom(q, initialFrames(q), m);
      alone.push_back(std::make_unique<StrandSimulator>(q, rest, m, o));
      shared.push_back(std::make_unique<StrandSimulator>(q, rest, m, o, workspace));
    }
    const double dt = 1.0 / 240.0;
    for (auto& sim : alone)
      for (int k = 0; k < 12; ++k) sim->step(dt, r);
    for (int k = 0; k < 12; ++k)
      for (auto& sim : shared) sim->step(dt, r);
    for (std::size_t i = 0; i < geometry.size(); ++i) {
      EXPECT_TRUE(bitwiseEqual(alone[i]->q(), shared[i]->q())) << "strand " << i << (root ? " shaken" : " fixed");
      EXPECT_TRUE(bitwiseEqual(alone[i]->qdot(), shared[i]->qdot())) << "strand " << i;
      EXPECT_TRUE(bitwiseEqual(alone[i]->lastStats().residualNorm, shared[i]->lastStats().residualNorm));
      EXPECT_TRUE(bitwiseEqual(alone[i]->lastStats().energy(), shared[i]->lastStats().energy()));
      EXPECT_EQ(alone[i]->lastStats().newtonIterations, shared[i]->lastStats().newtonIterations);
    }
    EXPECT_GE(workspace->rebuilds(), 12 * static_cast<long>(geometry.size()));
    // Something moved (the test is not comparing states at rest).
    double moved = 0.0;
    const auto q0 = interleave(geometry[0]);
    for (std::size_t d = 0; d < q0.size(); ++d) moved = std::max(moved, std::abs(shared[0]->q()[d] - q0[d]));
    EXPECT_GT(moved, 0.0);
  }
}

TEST(DerWorkspace, InPlaceFramesAndRestStateAreBitwiseTheFreshOnes) {
  // The workspace rebuilds frames and rest state into storage that last held another strand
  // (here a larger one): bitwise initialFrames(q) and restStateFrom(q, frames).
  const auto geometry = strands();
  const Material m = material();
  ReferenceFrames frames;
  RestState rest;
  RodKinematics K;
  for (std::size_t i : {std::size_t{0}, std::size_t{4}, std::size_t{5}, std::size_t{3}}) {
    const auto q = interleave(geometry[i]);
    initialFrames(q, frames);
    const ReferenceFrames fresh = initialFrames(q);
    ASSERT_EQ(frames.a1.size(), fresh.a1.size());
    EXPECT_EQ(std::memcmp(frames.a1.data(), fresh.a1.data(), fresh.a1.size() * sizeof(Vec3)), 0) << "strand " << i;
    EXPECT_EQ(std::memcmp(frames.tangent.data(), fresh.tangent.data(), fresh.tangent.size() * sizeof(Vec3)), 0);
    EXPECT_TRUE(bitwiseEqual(frames.refTwist, fresh.refTwist)) << "strand " << i;
    computeKinematics(q, frames, K);
    restStateFrom(K, m, true, rest);
    const RestState ref = restStateFrom(q, fresh, m, true);
    EXPECT_TRUE(bitwiseEqual(rest.restLength, ref.restLength)) << "strand " << i;
    EXPECT_TRUE(bitwiseEqual(rest.restTwist, ref.restTwist)) << "strand " << i;
    ASSERT_EQ(rest.restKappa.size(), ref.restKappa.size());
    EXPECT_EQ(std::memcmp(rest.restKappa.data(), ref.restKappa.data(), ref.restKappa.size() * sizeof(Vec4)), 0);
    EXPECT_TRUE(bitwiseEqual(rest.cStretch, ref.cStretch) && bitwiseEqual(rest.cBend, ref.cBend) &&
                bitwiseEqual(rest.cTwist, ref.cTwist))
        << "strand " << i;
  }
}

}  // namespace kinema::der

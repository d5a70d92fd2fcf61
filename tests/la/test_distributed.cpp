// Rank-count behaviour: a one-process backend refuses objects spanning ranks, naming the backends
// that can hold them, and keeps working on Comm::self(); distributed backends assemble across
// ranks and exchange ghosts on the world communicator.
#include <gtest/gtest.h>

#include "framework/la/distributed_backends.hpp"
#include "la_test_util.hpp"

namespace kinema::test {
namespace {

class RankTest : public BackendTest {};

// The names modules print when a run on several ranks needs a distributed backend come from the
// registry: each distributed backend, joined by "or"; a module's check names itself and the backend.
TEST_P(RankTest, DistributedBackendNamesComeFromTheRegistry) {
  const std::vector<std::string> capable = backendNames(true);
  const std::string names = la::distributedBackendNames();
  for (const std::string& n : capable) EXPECT_NE(names.find(n), std::string::npos) << names;
  if (capable.size() == 2) {
    EXPECT_EQ(names, capable[0] + " or " + capable[1]);
  }
  EXPECT_NO_THROW(la::requireDistributedBackend(*backend, 1, "demo"));
  if (backend->distributed()) {
    EXPECT_NO_THROW(la::requireDistributedBackend(*backend, 3, "demo"));
    return;
  }
  try {
    la::requireDistributedBackend(*backend, 3, "demo");
    ADD_FAILURE() << "a one-process backend accepted 3 ranks";
  } catch (const InputError& e) {
    EXPECT_EQ(e.message(), "demo: a run on 3 ranks needs a distributed backend (" + names +
                                         "); the scene uses " + backend->name());
  }
}

TEST_P(RankTest, OneProcessBackendRefusesDistributedMaps) {
  Comm world = Comm::world();
  auto worldMap = la::IndexMap::uniform(world, 10);
  if (backend->distributed() || world.size() == 1) {
    EXPECT_NO_THROW(backend->requireUsable(*worldMap));
    EXPECT_NO_THROW((void)backend->createVector(worldMap));
    return;
  }
  const std::vector<std::string> capable = backendNames(true);
  auto checkMessage = [&](const std::string& m) {
    EXPECT_NE(m.find(backend->name()), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(world.size()) + " ranks"), std::string::npos) << m;
    if (capable.empty()) {
      EXPECT_NE(m.find("no distributed backend is registered yet"), std::string::npos) << m;
    } else {
      for (const std::string& n : capable) EXPECT_NE(m.find(n), std::string::npos) << m;
    }
  };
  try {
    backend->requireUsable(*worldMap);
    ADD_FAILURE() << "requireUsable accepted a map over " << world.size() << " ranks";
  } catch (const InputError& e) {
    checkMessage(e.what());
  }
  try {
    (void)backend->createVector(worldMap);
    ADD_FAILURE() << "createVector accepted a map over " << world.size() << " ranks";
  } catch (const InputError& e) {
    checkMessage(e.what());
  }
  EXPECT_THROW((void)backend->createAssembler(worldMap, worldMap), InputError);

  // Rank-local objects still work at any rank count.
  auto selfMap = la::IndexMap::uniform(Comm::self(), 10);
  auto v = backend->createVector(selfMap);
  v->set(2.0);
  EXPECT_EQ(v->sum(), 20.0);
  auto asmb = backend->createAssembler(selfMap, selfMap);
  asmb->begin();
  for (GlobalIndex i = 0; i < 10; ++i) asmb->addScalar(i, i, 4.0);
  la::MatrixPtr A = asmb->end();
  auto solver = backend->createLinearSolver({});
  solver->setOperator(A);
  auto x = A->createDomainVector();
  EXPECT_TRUE(solver->solve(*v, *x).converged);
  EXPECT_NEAR(x->sum(), 5.0, 1e-10);
}

INSTANTIATE_TEST_SUITE_P(Backends, RankTest, ::testing::ValuesIn(backendNames()), paramName);

// Only backends with distributed() == true; none may be registered yet.
class DistributedTest : public BackendTest {};

TEST_P(DistributedTest, ObjectsSpanTheWorld) {
  ASSERT_TRUE(backend->distributed());
  Comm world = Comm::world();
  auto map = la::IndexMap::uniform(world, 12, 2);
  auto v = backend->createVector(map);
  EXPECT_EQ(v->map().comm().size(), world.size());
  v->set(1.0);
  EXPECT_EQ(v->sum(), 24.0);
}

TEST_P(DistributedTest, OffRankAssemblyIsSentToOwners) {
  Comm world = Comm::world();
  const Problem p = laplace(8, 2);
  auto map = la::IndexMap::uniform(world, p.blocks, p.bs);
  auto asmb = backend->createAssembler(map, map);
  // Every block added on rank 0 only: every other rank's rows arrive from rank 0.
  asmb->begin();
  long sent = 0;
  if (world.rank() == 0)
    for (const Block& b : p.list) {
      if (!map->owns(b.I)) ++sent;
      asmb->add(b.I, b.J, b.v.data());
    }
  la::MatrixPtr A = asmb->end();
  EXPECT_EQ(asmb->stats().offRankBlocks, sent);
  if (world.size() > 1 && world.rank() == 0) {
    EXPECT_GT(sent, 0);
  }
  const std::vector<double> D = p.dense();
  for (GlobalIndex i = map->ownedBegin() * 2; i < map->ownedEnd() * 2; ++i)
    for (GlobalIndex j = 0; j < p.n(); ++j)
      EXPECT_NEAR(A->entry(i, j), D[static_cast<std::size_t>(i * p.n() + j)], 1e-14);
  EXPECT_EQ(A->globalNonzeros(), p.patternNonzeros());
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DistributedTest);
INSTANTIATE_TEST_SUITE_P(Backends, DistributedTest, ::testing::ValuesIn(backendNames(true)), paramName);

}  // namespace
}  // namespace kinema::test

// MPRGP on a distributed box QP (n = 100002: a chain of 3x3 blocks whose couplings span rank
// boundaries; mixed finite and infinite, one- and two-sided bounds). At every rank count the
// distributed solution is compared with the same problem solved on one rank (Comm::self, same
// backend), so running the suite at 1, 2 and 3 ranks checks that all three agree; plus exact
// feasibility, the KKT signs from a fresh gradient, and the statistics.
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>

#include "framework/solvers/mprgp.hpp"
#include "la/la_test_util.hpp"

namespace kinema::test {
namespace {

using solvers::Mprgp;
using solvers::MprgpOptions;
using solvers::MprgpStats;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr GlobalIndex kBlocks = 33334;
constexpr int kBs = 3;

double lowerOf(GlobalIndex g) {
  switch (g % 5) {
    case 0: return -kInf;
    case 1: return -0.3 - 0.1 * static_cast<double>(g % 3);
    case 2: return -0.05;
    case 3: return -kInf;
    default: return 0.1 * std::sin(0.01 * static_cast<double>(g)) - 0.02;
  }
}
double upperOf(GlobalIndex g) {
  switch (g % 5) {
    case 0: return kInf;
    case 1: return kInf;
    case 2: return 0.05;
    case 3: return 0.2 + 0.1 * static_cast<double>(g % 2);
    default: return 0.1 * std::sin(0.01 * static_cast<double>(g)) + 0.02;
  }
}
double rhsOf(GlobalIndex g) {
  return 0.8 * std::sin(0.013 * static_cast<double>(g)) + 0.3 * std::cos(1.7 * static_cast<double>(g));
}

struct Result {
  MprgpStats stats;
  std::vector<double> xOwned;  // owned entries of this rank
  GlobalIndex begin = 0;       // global scalar index of the first owned entry
  bool feasible = true;
  double kktViolation = 0.0;   // max over indices of the violated KKT sign / |g|, fresh gradient
  long active = 0;
};

Result solveOn(const la::Backend& backend, const Comm& comm, const Problem& prob, const std::string& pc) {
  auto map = la::IndexMap::uniform(comm, kBlocks, kBs);
  auto asmb = backend.createAssembler(map, map);
  la::MatrixPtr A = assemble(*asmb, prob, comm);
  la::VectorPtr b = backend.createVector(map), l = backend.createVector(map), u = backend.createVector(map),
                x = backend.createVector(map), g = backend.createVector(map);
  fill(*b, rhsOf);
  fill(*l, lowerOf);
  fill(*u, upperOf);
  x->set(0.0);
  MprgpOptions o;
  o.rtol = 1e-10;
  Mprgp solver(o);
  solver.setOperator(A);
  if (pc != "none") solver.setPreconditioner(std::shared_ptr<la::Preconditioner>(backend.createPreconditioner(pc)));
  Result r;
  solver.setObserver([&](const la::Vector& xi, double) {
    la::Vector::ConstView xv = xi.view(), lv = l->constView(), uv = u->constView();
    for (la::LocalIndex i = 0; i < xi.ownedSize(); ++i)
      if (!(lv[i] <= xv[i] && xv[i] <= uv[i])) r.feasible = false;
  });
  r.stats = solver.solve(*b, *l, *u, *x);
  r.feasible = comm.all(r.feasible);
  A->apply(*x, *g);
  g->axpy(-1.0, *b);
  {
    la::Vector::ConstView xv = x->constView(), lv = l->constView(), uv = u->constView(), gv = g->constView();
    for (la::LocalIndex i = 0; i < x->ownedSize(); ++i) {
      double v = 0.0;
      if (lv[i] == uv[i]) v = 0.0;
      else if (xv[i] == lv[i]) v = std::max(-gv[i], 0.0), ++r.active;
      else if (xv[i] == uv[i]) v = std::max(gv[i], 0.0), ++r.active;
      else v = std::abs(gv[i]);
      r.kktViolation = std::max(r.kktViolation, v);
      r.xOwned.push_back(xv[i]);
    }
  }
  r.kktViolation = comm.max(r.kktViolation);
  r.active = static_cast<long>(comm.sum(static_cast<std::int64_t>(r.active)));
  r.begin = map->ownedBegin() * kBs;
  return r;
}

class MprgpDistributedTest : public BackendTest {};

TEST_P(MprgpDistributedTest, SameSolutionAtEveryRankCount) {
  const Problem prob = laplace(kBlocks, kBs, 0.05);
  Comm world = Comm::world();
  for (const std::string pc : {"none", "jacobi"}) {
    const Result dist = solveOn(*backend, world, prob, pc);
    const Result serial = solveOn(*backend, Comm::self(), prob, pc);
    EXPECT_TRUE(dist.stats.converged) << pc << ": " << dist.stats.reason;
    EXPECT_TRUE(serial.stats.converged) << pc << ": " << serial.stats.reason;
    EXPECT_TRUE(dist.feasible);
    EXPECT_TRUE(serial.feasible);
    EXPECT_EQ(dist.stats.iterations,
              dist.stats.cgSteps + dist.stats.expansionSteps + dist.stats.proportioningSteps);
    // KKT signs from a fresh gradient, relative to ||b||_inf ~ 1.
    EXPECT_LE(dist.kktViolation, 1e-7) << pc;
    EXPECT_GT(dist.active, 1000);
    // The distributed solution equals the one-rank solution on this rank's owned range.
    double diff = 0.0, norm = 0.0;
    for (std::size_t i = 0; i < dist.xOwned.size(); ++i) {
      const double s = serial.xOwned[static_cast<std::size_t>(dist.begin) + i];
      diff = std::max(diff, std::abs(dist.xOwned[i] - s));
      norm = std::max(norm, std::abs(s));
    }
    diff = world.max(diff);
    norm = world.max(norm);
    EXPECT_LE(diff, 1e-8 * norm) << pc;
    if (world.isRoot())
      std::printf("[%s, %d ranks, pc %s] n=%lld: iterations %d (CG %d, expansion %d, proportioning %d), "
                  "active-set changes %d, matvecs %d, pc applications %d, active %ld, ||A|| est %.4f; "
                  "one-rank iterations %d; max |x - x_1rank| %.2e (max |x| %.3f); KKT violation %.2e; %.2f s\n",
                  GetParam().c_str(), world.size(), pc.c_str(), static_cast<long long>(kBlocks * kBs),
                  dist.stats.iterations, dist.stats.cgSteps, dist.stats.expansionSteps,
                  dist.stats.proportioningSteps, dist.stats.activeSetChanges, dist.stats.matvecs,
                  dist.stats.preconditionerApplications, dist.active, dist.stats.normEstimate,
                  serial.stats.iterations, diff, norm, dist.kktViolation, dist.stats.seconds);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, MprgpDistributedTest, ::testing::ValuesIn(backendNames(true)), paramName);

}  // namespace
}  // namespace kinema::test

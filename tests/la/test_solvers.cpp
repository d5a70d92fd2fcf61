// Preconditioner and linear solver conformance: every preconditioner and solver type the backend
// lists, on systems with a known solution, judged by the true residual.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "framework/la/krylov.hpp"
#include "framework/la/solve_support.hpp"
#include "la_test_util.hpp"

namespace kinema::test {
namespace {

constexpr GlobalIndex kN = 40;

class SolverTest : public BackendTest {
 protected:
  struct System {
    la::MatrixPtr A;
    la::VectorPtr b, xstar;
  };
  // Assembles p; b = A x* with x* = fA computed from the dense reference.
  System system(const Problem& p) {
    auto map = uniform(p.blocks, p.bs);
    asmb_.push_back(backend->createAssembler(map, map));
    System s;
    s.A = assemble(*asmb_.back(), p, comm());
    const std::vector<double> b = p.matvec(globalValues(p.n(), fA));
    s.b = s.A->createRangeVector();
    fill(*s.b, [&](GlobalIndex g) { return b[static_cast<std::size_t>(g)]; });
    s.xstar = s.A->createDomainVector();
    fill(*s.xstar, fA);
    return s;
  }
  double trueResidual(const la::Operator& A, const la::Vector& b, const la::Vector& x) {
    auto r = A.createRangeVector();
    A.apply(x, *r);
    r->axpby(1.0, b, -1.0);
    return r->norm2();
  }
  std::vector<std::string> preconditioners() const {
    std::vector<std::string> n = backend->nativePreconditioners();
    if (std::find(n.begin(), n.end(), "none") == n.end()) n.insert(n.begin(), "none");
    return n;
  }
  bool hasType(const std::string& t) const {
    auto v = backend->solverTypes();
    return std::find(v.begin(), v.end(), t) != v.end();
  }
  // Solves from x0 = 0.5 and checks the stats against an independent residual.
  void solveAndCheck(const System& s, la::LinearSolverOptions o, double solutionTol) {
    SCOPED_TRACE(o.type + " + " + o.preconditioner);
    auto solver = backend->createLinearSolver(o);
    solver->setOperator(s.A);
    auto x = s.A->createDomainVector();
    x->set(0.5);
    const double r0 = trueResidual(*s.A, *s.b, *x);
    la::SolverStats st = solver->solve(*s.b, *x);
    const double r = trueResidual(*s.A, *s.b, *x);
    const double bn = s.b->norm2();
    const double tol = std::max(o.rtol * bn, o.atol);
    EXPECT_TRUE(st.converged) << st.reason << " after " << st.iterations << " iterations, residual "
                              << st.finalResidual;
    EXPECT_LE(r, tol * (1.0 + 1e-8));
    EXPECT_TRUE(st.reason == SolverOutcome::Rtol || st.reason == SolverOutcome::Atol ||
                st.reason == SolverOutcome::Direct)
        << st.reason;
    EXPECT_NEAR(st.rhsNorm, bn, 1e-12 * bn);
    EXPECT_NEAR(st.initialResidual, r0, 1e-10 * r0);
    EXPECT_NEAR(st.finalResidual, r, 1e-8 * bn);
    EXPECT_LE(st.iterations, o.maxIterations);
    EXPECT_GE(st.seconds, 0.0);
    EXPECT_FALSE(solver->description().empty());
    auto e = x->clone();
    e->axpy(-1.0, *s.xstar);
    EXPECT_LT(e->normInf(), solutionTol);
  }
  std::vector<std::unique_ptr<la::MatrixAssembler>> asmb_;
};

la::LinearSolverOptions options(const std::string& type, const std::string& pc, double rtol = 1e-10) {
  la::LinearSolverOptions o;
  o.type = type;
  o.preconditioner = pc;
  o.rtol = rtol;
  o.maxIterations = 500;
  o.restart = 15;
  return o;
}

// ---- preconditioners ----

TEST_P(SolverTest, EveryPreconditionerIsLinearSymmetricPositive) {
  const Problem p = laplace(kN, 1);
  System s = system(p);
  for (const std::string& name : preconditioners()) {
    SCOPED_TRACE(name);
    auto M = backend->createPreconditioner(name);
    EXPECT_EQ(M->name(), name);
    M->setup(s.A);
    auto u = s.A->createDomainVector(), v = s.A->createDomainVector();
    fill(*u, fA);
    fill(*v, fB);
    auto Mu = u->zerosLike(), Mv = u->zerosLike(), Mw = u->zerosLike(), w = u->clone();
    M->apply(*u, *Mu);
    M->apply(*v, *Mv);
    w->axpy(2.0, *v);
    M->apply(*w, *Mw);
    Mw->axpy(-1.0, *Mu);
    Mw->axpy(-2.0, *Mv);
    EXPECT_LT(Mw->normInf(), 1e-10 * (Mu->normInf() + Mv->normInf()));  // linear
    EXPECT_GT(u->dot(*Mu), 0.0);                                        // positive
    EXPECT_NEAR(Mu->dot(*v), u->dot(*Mv), 1e-10 * Mu->norm2() * v->norm2());  // symmetric
  }
}

// `kinema list` reads the registry entry's lists without creating a backend: they must be the object's.
TEST_P(SolverTest, RegistryListsAreTheBackendsOwn) {
  const la::BackendEntry& e = la::backends().get(GetParam());
  EXPECT_EQ(e.solverTypes, backend->solverTypes());
  EXPECT_EQ(e.nativePreconditioners, backend->nativePreconditioners());
  EXPECT_FALSE(e.solverTypes.empty());
}

TEST_P(SolverTest, NamedPreconditionersMatchReferences) {
  const Problem p = laplace(kN, 1);  // tridiagonal SPD
  System s = system(p);
  const std::vector<double> D = p.dense();
  for (const std::string& name : preconditioners()) {
    SCOPED_TRACE(name);
    auto M = backend->createPreconditioner(name);
    M->setup(s.A);
    auto z = s.A->createDomainVector();
    if (name == "none") {
      M->apply(*s.b, *z);
      EXPECT_EQ(maxError(*z, [&](GlobalIndex g) { return p.matvec(globalValues(kN, fA))[static_cast<std::size_t>(g)]; }), 0.0);
    } else if (name == "jacobi") {
      M->apply(*s.xstar, *z);
      EXPECT_LT(maxError(*z, [&](GlobalIndex g) { return fA(g) / D[static_cast<std::size_t>(g * kN + g)]; }), 1e-14);
    } else if (name == "direct" || (name == "ic0" && s.A->rangeMap()->comm().size() == 1)) {
      // direct: M = A. ic0: IC(0) is exact on a tridiagonal pattern (no fill), so M = A too, on one
      // rank; over several ranks IC(0) factors each rank's diagonal block (block Jacobi), not A.
      M->apply(*s.b, *z);
      EXPECT_LT(maxError(*z, fA), 1e-10);
    }
  }
}

TEST_P(SolverTest, UnknownAndMissingPreconditioners) {
  try {
    (void)backend->createPreconditioner("jacobbi");
    ADD_FAILURE() << "unknown preconditioner accepted";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("jacobbi"), std::string::npos) << m;
    for (const std::string& n : backend->nativePreconditioners()) EXPECT_NE(m.find(n), std::string::npos) << m;
  }
  auto native = backend->nativePreconditioners();
  if (std::find(native.begin(), native.end(), "amg") == native.end()) {
    try {
      (void)backend->createPreconditioner("amg");
      ADD_FAILURE() << "amg accepted by a backend that does not list it";
    } catch (const InputError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("petsc"), std::string::npos) << m;
      EXPECT_NE(m.find("trilinos"), std::string::npos) << m;
    }
  }
  la::LinearSolverOptions o;
  o.type = "bicgstab-nonexistent";
  EXPECT_THROW((void)backend->createLinearSolver(o), InputError);
}

TEST_P(SolverTest, JacobiNeedsANonZeroDiagonal) {
  Problem p = laplace(6, 1);
  p.list.push_back({3, 3, {-2.1}});  // row 3's diagonal becomes exactly 0
  System s = system(p);
  auto M = backend->createPreconditioner("jacobi");
  EXPECT_THROW(M->setup(s.A), Error);
}

// A framework-written preconditioner, found by every backend through customPreconditioners().
class HalfPreconditioner : public la::Preconditioner {
 public:
  void setup(la::OperatorPtr) override {}
  void apply(const la::Vector& r, la::Vector& z) const override {
    z.copy(r);
    z.scale(0.5);
  }
  std::string name() const override { return "test_half"; }
};

TEST_P(SolverTest, CustomPreconditioner) {
  if (!la::customPreconditioners().has("test_half"))
    la::customPreconditioners().add(
        {"test_half", "z = r / 2 (test)", "", [](const la::Backend&) { return std::make_unique<HalfPreconditioner>(); }});
  System s = system(laplace(kN, 1));
  auto M = backend->createPreconditioner("test_half");
  EXPECT_EQ(M->name(), "test_half");
  if (hasType("cg")) {
    solveAndCheck(s, options("cg", "test_half"), 1e-6);
    // And swapped in through setPreconditioner.
    auto solver = backend->createLinearSolver(options("cg", "none"));
    solver->setOperator(s.A);
    solver->setPreconditioner(std::move(M));
    auto x = s.A->createDomainVector();
    EXPECT_TRUE(solver->solve(*s.b, *x).converged);
  }
}

// ---- solvers ----

TEST_P(SolverTest, SpdEveryTypeEveryPreconditioner) {
  for (int bs : {1, 3}) {
    SCOPED_TRACE("block size " + std::to_string(bs));
    System s = system(laplace(kN / bs + 1, bs));
    for (const std::string& type : backend->solverTypes())
      for (const std::string& pc : preconditioners()) {
        solveAndCheck(s, options(type, pc), 1e-6);
        if (type == "direct") break;  // ignores the preconditioner
      }
  }
}

TEST_P(SolverTest, NonsymmetricGmresAndDirect) {
  System s = system(convection(kN));
  for (std::string type : {"gmres", "direct"}) {
    if (!hasType(type)) continue;
    for (const std::string& pc : preconditioners()) {
      if (pc == "ic0") continue;  // IC(0) assumes symmetry
      solveAndCheck(s, options(type, pc), 1e-6);
      if (std::string(type) == "direct") break;
    }
  }
}

TEST_P(SolverTest, SymmetricIndefinite) {
  System s = system(indefinite(kN));
  for (std::string type : {"minres", "gmres", "direct"})
    if (hasType(type)) solveAndCheck(s, options(type, "none"), 1e-6);
}

TEST_P(SolverTest, AbsoluteToleranceWins) {
  System s = system(laplace(kN, 1));
  for (const std::string& type : backend->solverTypes()) {
    if (type == "direct") continue;
    la::LinearSolverOptions o = options(type, "none", 1e-12);
    o.atol = 1e-3 * s.b->norm2();
    auto solver = backend->createLinearSolver(o);
    solver->setOperator(s.A);
    auto x = s.A->createDomainVector();
    la::SolverStats st = solver->solve(*s.b, *x);
    EXPECT_TRUE(st.converged) << type;
    EXPECT_EQ(st.reason, SolverOutcome::Atol) << type;
    EXPECT_LE(trueResidual(*s.A, *s.b, *x), o.atol * (1 + 1e-8)) << type;
  }
}

TEST_P(SolverTest, ZeroRightHandSide) {
  System s = system(laplace(kN, 1));
  auto b = s.A->createRangeVector();
  for (const std::string& type : backend->solverTypes()) {
    SCOPED_TRACE(type);
    auto solver = backend->createLinearSolver(options(type, "jacobi"));
    solver->setOperator(s.A);
    auto x = s.A->createDomainVector();
    x->set(3.0);
    la::SolverStats st = solver->solve(*b, *x);
    EXPECT_TRUE(st.converged);
    EXPECT_EQ(st.iterations, 0);
    EXPECT_EQ(st.rhsNorm, 0.0);
    EXPECT_EQ(st.finalResidual, 0.0);
    EXPECT_EQ(st.reason, SolverOutcome::ZeroRhs);
    EXPECT_EQ(x->normInf(), 0.0);
  }
}

// A right-hand side with a NaN is reported, never thrown: an iterative solver stops before its
// first iteration with a breakdown and leaves x as it was; no solver claims convergence.
TEST_P(SolverTest, NonFiniteRightHandSideIsABreakdown) {
  System s = system(laplace(kN, 1));
  auto b = s.A->createRangeVector();
  b->set(1.0);
  {
    auto v = b->view();
    if (!v.owned().empty()) v[0] = std::numeric_limits<double>::quiet_NaN();
  }
  for (const std::string& type : backend->solverTypes()) {
    SCOPED_TRACE(type);
    auto solver = backend->createLinearSolver(options(type, "jacobi"));
    solver->setOperator(s.A);
    auto x = s.A->createDomainVector();
    x->set(3.0);
    la::SolverStats st = solver->solve(*b, *x);
    EXPECT_FALSE(st.converged);
    if (type != "direct") {
      EXPECT_EQ(st.reason, SolverOutcome::Breakdown);
      EXPECT_EQ(st.iterations, 0);
      EXPECT_EQ(x->normInf(), 3.0);
    }
  }
}

// reuse_preconditioner full keeps the set-up for a refill of the same pattern while it works, and
// sets it up again after a solve that took more than PreconditionerReuse::kRefreshFactor times the
// iterations of the first solve after the set-up. A diagonal matrix with Jacobi converges in one
// iteration; refilled with another diagonal, the kept Jacobi needs many; the next refill is set up
// again and takes one iteration again.
TEST_P(SolverTest, FullReuseSetsUpAgainWhenTheSolvesSlowDown) {
  auto map = uniform(kN, 1);
  auto asmb = backend->createAssembler(map, map);
  auto fillA = [&](bool reversed) {
    asmb->begin();
    for (GlobalIndex g = map->ownedBegin(); g < map->ownedEnd(); ++g) {
      const double d = reversed ? 1.0 + 10.0 * static_cast<double>(kN - g) : 1.0 + 10.0 * static_cast<double>(g);
      asmb->addScalar(g, g, d);
      if (g > 0) asmb->addScalar(g, g - 1, 0.0);  // the pattern is tridiagonal, the values diagonal
      if (g + 1 < kN) asmb->addScalar(g, g + 1, 0.0);
    }
    return asmb->end();
  };
  la::LinearSolverOptions o = options("cg", "jacobi", 1e-10);
  o.reusePreconditioner = "full";
  auto solver = backend->createLinearSolver(o);
  auto solveWith = [&](const la::MatrixPtr& A) {
    solver->setOperator(A);
    auto b = A->createRangeVector();
    fill(*b, [](GlobalIndex g) { return 1.0 + static_cast<double>(g % 7); });
    auto x = A->createDomainVector();
    const la::SolverStats st = solver->solve(*b, *x);
    EXPECT_TRUE(st.converged);
    return st.iterations;
  };
  la::MatrixPtr A = fillA(false);
  const std::uint64_t pattern = A->patternVersion();
  const int fresh = solveWith(A);            // set up on A: Jacobi is (nearly) exact
  EXPECT_LE(fresh, 2);
  A = fillA(true);
  ASSERT_EQ(A->patternVersion(), pattern);   // a refill: the set-up is kept...
  const int stale = solveWith(A);
  EXPECT_GT(stale, 2 * fresh) << "the kept Jacobi no longer fits the values";
  A = fillA(true);
  EXPECT_EQ(solveWith(A), fresh) << "after a solve of " << stale << " iterations the set-up is made again";
  A = fillA(true);
  EXPECT_EQ(solveWith(A), fresh);            // and kept again while it works
}

// The rule itself: the first solve after a set-up sets the baseline (solves of no iteration do
// not count); a later one above twice it refuses the next keep; a set-up starts over.
TEST(PreconditionerReuse, RefreshesAfterASolveOfMoreThanTwiceTheBaseline) {
  auto backend = la::createBackend("eigen");
  auto map = la::IndexMap::uniform(Comm::self(), 2, 1);
  auto asmb = backend->createAssembler(map, map);
  asmb->begin();
  asmb->addScalar(0, 0, 1.0);
  asmb->addScalar(1, 1, 1.0);
  la::MatrixPtr A = asmb->end();
  la::PreconditionerReuse r("full");
  r.record(A);
  r.solved(0);
  r.solved(10);
  EXPECT_TRUE(r.keep(A));
  r.solved(20);
  EXPECT_TRUE(r.keep(A)) << "twice the baseline is still kept";
  r.solved(21);
  EXPECT_FALSE(r.keep(A));
  EXPECT_EQ(r.refreshes(), 1);
  r.record(A);
  EXPECT_TRUE(r.keep(A));
  r.solved(40);
  r.solved(79);
  EXPECT_TRUE(r.keep(A)) << "the baseline is the first solve after the set-up";
  la::PreconditionerReuse none("none");
  none.record(A);
  none.solved(1);
  EXPECT_FALSE(none.keep(A));
}

TEST_P(SolverTest, MaxIterationsIsReportedNotThrown) {
  System s = system(laplace(kN, 1));
  for (const std::string& type : backend->solverTypes()) {
    if (type == "direct") continue;
    SCOPED_TRACE(type);
    la::LinearSolverOptions o = options(type, "none", 1e-14);
    o.maxIterations = 3;
    o.restart = 2;
    auto solver = backend->createLinearSolver(o);
    solver->setOperator(s.A);
    auto x = s.A->createDomainVector();
    la::SolverStats st = solver->solve(*s.b, *x);
    EXPECT_FALSE(st.converged);
    EXPECT_EQ(st.reason, SolverOutcome::MaxIterations);
    EXPECT_EQ(st.iterations, 3);
    EXPECT_NEAR(st.finalResidual, trueResidual(*s.A, *s.b, *x), 1e-10 * s.b->norm2());
    EXPECT_LT(st.finalResidual, st.initialResidual);
  }
}

TEST_P(SolverTest, CgReportsNegativeCurvature) {
  if (!hasType("cg")) GTEST_SKIP();
  System s = system(scaled(laplace(kN, 1), -1.0));
  auto solver = backend->createLinearSolver(options("cg", "none"));
  solver->setOperator(s.A);
  auto x = s.A->createDomainVector();
  la::SolverStats st = solver->solve(*s.b, *x);
  EXPECT_FALSE(st.converged);
  EXPECT_EQ(st.reason, SolverOutcome::Indefinite);
}

TEST_P(SolverTest, MatrixFreeOperator) {
  // The SPD tridiagonal matrix applied through a FunctionOperator wrapping the assembled one.
  System s = system(laplace(kN, 1));
  la::MatrixPtr A = s.A;
  auto op = std::make_shared<la::FunctionOperator>(
      *backend, A->domainMap(), A->rangeMap(), [A](const la::Vector& x, la::Vector& y) { A->apply(x, y); },
      "wrapped laplacian", [A](la::Vector& d) { A->diagonal(d); });
  for (std::string type : {"cg", "minres", "gmres"}) {
    if (!hasType(type)) continue;
    for (std::string pc : {"none", "jacobi"}) {
      SCOPED_TRACE(std::string(type) + " + " + pc);
      auto solver = backend->createLinearSolver(options(type, pc));
      solver->setOperator(op);
      auto x = op->createDomainVector();
      la::SolverStats st = solver->solve(*s.b, *x);
      EXPECT_TRUE(st.converged) << st.reason;
      EXPECT_LE(trueResidual(*op, *s.b, *x), 1e-10 * s.b->norm2() * (1 + 1e-8));
    }
  }
}

// The framework's Krylov methods called directly (the cross-check distributed backends use).
TEST_P(SolverTest, FrameworkKrylovDirect) {
  System s = system(laplace(kN, 1));
  la::JacobiPreconditioner M;
  M.setup(s.A);
  const la::LinearSolverOptions o = options("cg", "jacobi");
  using Fn = la::SolverStats (*)(const la::Operator&, const la::Preconditioner&, const la::Vector&,
                                 la::Vector&, const la::LinearSolverOptions&);
  for (Fn f : {Fn(&la::conjugateGradient), Fn(&la::minres), Fn(&la::gmres)}) {
    auto x = s.A->createDomainVector();
    la::SolverStats st = f(*s.A, M, *s.b, *x, o);
    EXPECT_TRUE(st.converged) << st.reason;
    EXPECT_LE(trueResidual(*s.A, *s.b, *x), 1e-10 * s.b->norm2() * (1 + 1e-8));
    EXPECT_GT(st.iterations, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, SolverTest, ::testing::ValuesIn(backendNames()), paramName);

}  // namespace
}  // namespace kinema::test

namespace kinema::test {
namespace {

// setTolerances changes the stopping test of an existing solver in place (Newton forcing terms).
class SetTolerancesTest : public BackendTest {};

TEST_P(SetTolerancesTest, LooserToleranceStopsEarlierAndTighterAgainLater) {
  const GlobalIndex n = 200;
  auto map = uniform(n);
  auto asmb = backend->createAssembler(map, map);
  asmb->begin();
  for (GlobalIndex i = map->ownedBegin(); i < map->ownedEnd(); ++i) {
    asmb->addScalar(i, i, 2.0 + 1e-3 * static_cast<double>(i));
    if (i > 0) asmb->addScalar(i, i - 1, -1.0);
    if (i + 1 < n) asmb->addScalar(i, i + 1, -1.0);
  }
  la::MatrixPtr A = asmb->end();
  auto b = backend->createVector(map);
  {
    auto v = b->view();
    for (LocalIndex i = 0; i < b->ownedSize(); ++i) v[i] = fA(map->ownedBegin() + i);
  }
  la::LinearSolverOptions o;
  o.type = "cg";
  o.preconditioner = "none";
  o.rtol = 1e-10;
  o.maxIterations = 1000;
  auto solver = backend->createLinearSolver(o);
  solver->setOperator(A);
  auto solve = [&] {
    auto x = backend->createVector(map);
    return solver->solve(*b, *x);
  };
  const la::SolverStats tight = solve();
  solver->setTolerances(1e-3, 0.0);
  const la::SolverStats loose = solve();
  solver->setTolerances(1e-10, 0.0);
  const la::SolverStats again = solve();
  ASSERT_TRUE(tight.converged && loose.converged && again.converged) << GetParam();
  EXPECT_LT(loose.iterations, tight.iterations) << GetParam();
  EXPECT_LE(loose.finalResidual, 1e-3 * loose.rhsNorm) << GetParam();
  EXPECT_GT(loose.finalResidual, 1e-10 * loose.rhsNorm) << GetParam();  // it really stopped early
  EXPECT_EQ(again.iterations, tight.iterations) << GetParam();
  EXPECT_LE(again.finalResidual, 1e-10 * again.rhsNorm) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, SetTolerancesTest, ::testing::ValuesIn(backendNames()), paramName);

}  // namespace
}  // namespace kinema::test

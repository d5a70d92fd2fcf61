// PETSc-backend specifics the generic suite cannot state for every backend: options pass-through
// (backend-wide and per solver, kept apart by prefix), option and index-range errors, MATSHELL and
// PCSHELL wrapping of framework objects, the near-null space reaching GAMG, AMG against Jacobi,
// preconditioner re-setup after a refill, allocation-free refills, and errors crossing PETSc.
// Every test runs on the world communicator (1, 2 and 3 ranks in ctest).
#ifdef KINEMA_HAVE_PETSC_BACKEND

#include <gtest/gtest.h>

#include <climits>

#include "backends/petsc/petsc_inspect.hpp"
#include "framework/la/operator.hpp"
#include "la_test_util.hpp"

namespace kinema::test {
namespace {

namespace inspect = la::petsc::inspect;

la::BackendPtr makePetsc(const std::string& options = "") {
  ParamSchema schema;
  la::declareBackendParams(schema);
  Config c = Config::fromString("backend:\n  name: petsc\n  petsc:\n    options: \"" + options + "\"\n", "<test>");
  c.validate(schema);
  return la::createBackend(c);
}


la::LinearSolverOptions solverOptions(const std::string& type, const std::string& pc, const std::string& prefix = "",
                                      const std::string& native = "") {
  la::LinearSolverOptions o;
  o.type = type;
  o.preconditioner = pc;
  o.rtol = 1e-10;
  o.maxIterations = 2000;
  o.prefix = prefix;
  if (!native.empty()) o.native["petsc"] = "\"" + native + "\"";
  return o;
}

// 7-point Laplacian (Dirichlet, diagonal 6) on an n^3 grid, rows split over the ranks; each rank
// adds its own rows.
la::MatrixPtr laplacian3d(la::Backend& backend, int n, std::unique_ptr<la::MatrixAssembler>& asmb) {
  const GlobalIndex N = static_cast<GlobalIndex>(n) * n * n;
  auto map = la::IndexMap::uniform(Comm::world(), N);
  asmb = backend.createAssembler(map, map);
  asmb->begin();
  for (GlobalIndex r = map->ownedBegin(); r < map->ownedEnd(); ++r) {
    const GlobalIndex i = r % n, j = (r / n) % n, k = r / (static_cast<GlobalIndex>(n) * n);
    asmb->addScalar(r, r, 6.0);
    const GlobalIndex nb[6][2] = {{i > 0, r - 1}, {i + 1 < n, r + 1}, {j > 0, r - n}, {j + 1 < n, r + n},
                                  {k > 0, r - static_cast<GlobalIndex>(n) * n},
                                  {k + 1 < n, r + static_cast<GlobalIndex>(n) * n}};
    for (const auto& e : nb)
      if (e[0]) asmb->addScalar(r, e[1], -1.0);
  }
  return asmb->end();
}

class PetscBackendTest : public ::testing::Test {
 protected:
  void SetUp() override { backend = makePetsc(); }
  la::MatrixPtr assembleWorld(const Problem& p) {
    auto map = la::IndexMap::uniform(Comm::world(), p.blocks, p.bs);
    asmb = backend->createAssembler(map, map);
    return assemble(*asmb, p, Comm::world());
  }
  // b = A x*, x* = fA.
  la::VectorPtr rhs(const la::Matrix& A) {
    auto x = A.createDomainVector(), b = A.createRangeVector();
    fill(*x, fA);
    A.apply(*x, *b);
    return b;
  }
  la::BackendPtr backend;
  std::unique_ptr<la::MatrixAssembler> asmb;
};

TEST_F(PetscBackendTest, MatrixIsBlockAijAndRefillsKeepStorage) {
  const Problem p = laplace(20, 3);
  la::MatrixPtr A = assembleWorld(p);
  EXPECT_EQ(inspect::matType(*A), Comm::world().size() > 1 ? "mpiaij" : "seqaij");
  EXPECT_EQ(inspect::matBlockSize(*A), 3);
  const double allocated = inspect::allocatedNonzeros(*A);
  for (int k = 0; k < 3; ++k) assemble(*asmb, scaled(p, 1.0 + k), Comm::world());
  EXPECT_EQ(inspect::allocatedNonzeros(*A), allocated);
  EXPECT_EQ(asmb->stats().patternBuilds, 1);
  EXPECT_EQ(asmb->stats().refills, 3);
}

TEST_F(PetscBackendTest, NativeOptionsReachTheKsp) {
  la::MatrixPtr A = assembleWorld(laplace(40, 1));
  auto b = rhs(*A);
  {
    auto s = backend->createLinearSolver(solverOptions("cg", "jacobi", "", "-ksp_type bcgs"));
    s->setOperator(A);
    EXPECT_EQ(inspect::kspType(*s), "bcgs");
    auto x = A->createDomainVector();
    la::SolverStats st = s->solve(*b, *x);
    EXPECT_TRUE(st.converged) << st.reason;
    EXPECT_NE(s->description().find("bcgs"), std::string::npos) << s->description();
  }
  {
    la::LinearSolverOptions o = solverOptions("cg", "none", "capped_", "-ksp_max_it 3");
    o.rtol = 1e-14;
    auto s = backend->createLinearSolver(o);
    s->setOperator(A);
    EXPECT_EQ(inspect::maxIterations(*s), 3);
    EXPECT_EQ(inspect::optionsPrefix(*s), "capped_");
    auto x = A->createDomainVector();
    la::SolverStats st = s->solve(*b, *x);
    EXPECT_FALSE(st.converged);
    EXPECT_EQ(st.iterations, 3);
    EXPECT_EQ(st.reason, SolverOutcome::MaxIterations);
  }
}

TEST_F(PetscBackendTest, PrefixesKeepSolversApart) {
  // Backend-wide options reach every solver under its own prefix; native ones only their solver,
  // even when two solvers share a prefix.
  backend = makePetsc("-ksp_max_it 77 -pc_type jacobi");
  la::MatrixPtr A = assembleWorld(laplace(40, 1));
  auto a = backend->createLinearSolver(solverOptions("cg", "none", "first_", "-ksp_max_it 5"));
  auto b = backend->createLinearSolver(solverOptions("cg", "none", "second_"));
  auto c = backend->createLinearSolver(solverOptions("cg", "none", "first_"));
  auto d = backend->createLinearSolver(solverOptions("gmres", "none", "", "-ksp_type fgmres"));
  auto e = backend->createLinearSolver(solverOptions("gmres", "none"));
  for (auto* s : {a.get(), b.get(), c.get(), d.get(), e.get()}) s->setOperator(A);
  EXPECT_EQ(inspect::maxIterations(*a), 5);
  EXPECT_EQ(inspect::maxIterations(*b), 77);
  EXPECT_EQ(inspect::maxIterations(*c), 77);
  EXPECT_EQ(inspect::optionsPrefix(*a), "first_");
  EXPECT_EQ(inspect::optionsPrefix(*b), "second_");
  for (auto* s : {a.get(), b.get(), c.get()}) EXPECT_EQ(inspect::pcType(*s), "jacobi");
  EXPECT_EQ(inspect::kspType(*d), "fgmres");
  EXPECT_EQ(inspect::kspType(*e), "gmres");
}

TEST_F(PetscBackendTest, MalformedOptionsAreInputErrors) {
  for (const char* bad : {"ksp_type cg", "-ksp_type cg gmres", "-ksp_type \\\"cg", "--ksp_type cg"}) {
    SCOPED_TRACE(bad);
    try {
      (void)makePetsc(bad);
      ADD_FAILURE() << "malformed backend.petsc.options accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("backend.petsc.options"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)backend->createLinearSolver(solverOptions("cg", "jacobi", "s_", bad)), InputError);
  }
  // Well-formed but rejected by PETSc: an InputError carrying PETSc's own message.
  la::MatrixPtr A = assembleWorld(laplace(10, 1));
  auto s = backend->createLinearSolver(solverOptions("cg", "jacobi", "", "-ksp_type nosuchksp"));
  const std::string m = messageOf([&] { s->setOperator(A); });
  EXPECT_NE(m.find("nosuchksp"), std::string::npos) << m;
  EXPECT_THROW(s->setOperator(A), InputError);
}

TEST_F(PetscBackendTest, GlobalIndicesBeyond32BitsAreRefused) {
  const Comm world = Comm::world();
  // Only offsets are stored: no memory is needed for the 2^31 + ranks entries.
  const GlobalIndex perRank = (GlobalIndex{INT_MAX} + 1) / world.size() + 1;
  auto huge = std::make_shared<const la::IndexMap>(world, perRank);
  ASSERT_GT(huge->globalSize(), GlobalIndex{INT_MAX});
  try {
    (void)backend->createVector(huge);
    ADD_FAILURE() << "createVector accepted " << huge->globalSize() << " entries";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("32-bit"), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(huge->globalSize())), std::string::npos) << m;
    EXPECT_NE(m.find("trilinos"), std::string::npos) << m;
  }
  EXPECT_THROW((void)backend->createAssembler(huge, huge), InputError);
}

TEST_F(PetscBackendTest, VectorsOfAnotherBackendAreRefused) {
  auto eigen = makeBackend("eigen");
  auto map = la::IndexMap::uniform(Comm::self(), 6);
  auto p = backend->createVector(map);
  auto q = eigen->createVector(map);
  const std::string m = messageOf([&] { p->axpy(1.0, *q); });
  EXPECT_NE(m.find("petsc"), std::string::npos) << m;
  EXPECT_NE(m.find("eigen"), std::string::npos) << m;
  EXPECT_THROW((void)p->dot(*q), Error);
}

TEST_F(PetscBackendTest, MatShellSolvesAMatrixFreeOperator) {
  // The SPD tridiagonal laplace(kN, 1) applied without a matrix: ghosts of the neighbours' end
  // entries through a ghosted work vector.
  const Problem p = laplace(60, 1);
  la::MatrixPtr A = assembleWorld(p);
  const Comm world = Comm::world();
  auto owned = A->domainMap();
  std::vector<GlobalIndex> ghosts;
  if (owned->ownedBlocks() > 0) {
    if (owned->ownedBegin() > 0) ghosts.push_back(owned->ownedBegin() - 1);
    if (owned->ownedEnd() < p.blocks) ghosts.push_back(owned->ownedEnd());
  }
  auto ghosted = std::make_shared<const la::IndexMap>(world, owned->ownedBlocks(), ghosts);
  std::shared_ptr<la::Vector> work = backend->createVector(ghosted);
  const std::vector<double> D = p.dense();
  auto applyFn = [=](const la::Vector& x, la::Vector& y) {
    work->copy(x);
    work->updateGhosts();
    la::Vector::ConstView w = std::as_const(*work).view();
    la::Vector::View yv = y.view();
    for (LocalIndex i = 0; i < y.ownedSize(); ++i) {
      const GlobalIndex g = ghosted->ownedBegin() + i;
      double s = D[static_cast<std::size_t>(g * p.blocks + g)] * w[i];
      for (GlobalIndex nb : {g - 1, g + 1})
        if (nb >= 0 && nb < p.blocks) s -= w[ghosted->globalToLocal(nb)];
      yv[i] = s;
    }
  };
  auto op = std::make_shared<la::FunctionOperator>(*backend, owned, owned, applyFn, "matrix-free laplacian",
                                                   [A](la::Vector& d) { A->diagonal(d); });
  auto b = rhs(*A);
  auto y = A->createRangeVector(), Ax = A->createRangeVector(), x0 = A->createDomainVector();
  fill(*x0, fB);
  op->apply(*x0, *y);
  A->apply(*x0, *Ax);
  y->axpy(-1.0, *Ax);
  EXPECT_LT(y->normInf(), 1e-13);

  for (const char* pc : {"none", "jacobi"}) {
    SCOPED_TRACE(pc);
    auto s = backend->createLinearSolver(solverOptions("cg", pc));
    s->setOperator(op);
    auto x = op->createDomainVector();
    la::SolverStats st = s->solve(*b, *x);
    EXPECT_TRUE(st.converged) << st.reason;
    EXPECT_LT(maxError(*x, fA), 1e-6);
    // Same iterations as on the assembled matrix.
    auto s2 = backend->createLinearSolver(solverOptions("cg", pc));
    s2->setOperator(A);
    auto x2 = A->createDomainVector();
    EXPECT_EQ(s2->solve(*b, *x2).iterations, st.iterations);
  }
  // Matrix-based preconditioners need the assembled matrix.
  auto ic = backend->createLinearSolver(solverOptions("cg", "ic0"));
  EXPECT_THROW(ic->setOperator(op), InputError);
  auto direct = backend->createLinearSolver(solverOptions("direct", "none"));
  EXPECT_THROW(direct->setOperator(op), InputError);
}

TEST_F(PetscBackendTest, PcShellJacobiMatchesNativeJacobi) {
  std::unique_ptr<la::MatrixAssembler> a3;
  la::MatrixPtr A = laplacian3d(*backend, 12, a3);
  auto b = rhs(*A);
  auto native = backend->createLinearSolver(solverOptions("cg", "jacobi"));
  native->setOperator(A);
  auto x1 = A->createDomainVector();
  la::SolverStats s1 = native->solve(*b, *x1);
  EXPECT_EQ(inspect::pcType(*native), "jacobi");

  auto shell = backend->createLinearSolver(solverOptions("cg", "none"));
  shell->setPreconditioner(std::make_shared<la::JacobiPreconditioner>());
  shell->setOperator(A);
  EXPECT_EQ(inspect::pcType(*shell), "shell");
  auto x2 = A->createDomainVector();
  la::SolverStats s2 = shell->solve(*b, *x2);
  EXPECT_TRUE(s1.converged);
  EXPECT_TRUE(s2.converged);
  EXPECT_GT(s1.iterations, 5);
  EXPECT_EQ(s1.iterations, s2.iterations);
  x2->axpy(-1.0, *x1);
  EXPECT_LT(x2->normInf(), 1e-12);
}

// A framework preconditioner that fails: the exception crosses PETSc's C frames as an error code
// and comes back out of solve() as itself.
class FailingPreconditioner : public la::Preconditioner {
 public:
  void setup(la::OperatorPtr) override {}
  void apply(const la::Vector&, la::Vector&) const override { throw Error("the test preconditioner failed"); }
  std::string name() const override { return "failing"; }
};

TEST_F(PetscBackendTest, ExceptionsInCallbacksComeBackOut) {
  la::MatrixPtr A = assembleWorld(laplace(30, 1));
  auto b = rhs(*A);
  auto s = backend->createLinearSolver(solverOptions("gmres", "none"));
  s->setPreconditioner(std::make_shared<FailingPreconditioner>());
  s->setOperator(A);
  auto x = A->createDomainVector();
  const std::string m = messageOf([&] { (void)s->solve(*b, *x); });
  EXPECT_NE(m.find("the test preconditioner failed"), std::string::npos) << m;
  // The solver still works with another preconditioner.
  s->setPreconditioner(backend->createPreconditioner("jacobi"));
  x->set(0.0);
  EXPECT_TRUE(s->solve(*b, *x).converged);
}

TEST_F(PetscBackendTest, NearNullSpaceReachesGamg) {
  std::unique_ptr<la::MatrixAssembler> a3;
  la::MatrixPtr A = laplacian3d(*backend, 8, a3);
  std::shared_ptr<la::Vector> ones = A->createDomainVector();
  ones->set(2.0);  // not normalised: the backend orthonormalises
  A->setNearNullSpace({ones});
  auto s = backend->createLinearSolver(solverOptions("cg", "amg"));
  s->setOperator(A);
  EXPECT_EQ(inspect::pcType(*s), "gamg");
  EXPECT_EQ(inspect::nearNullSpaceSize(*A), 1);
  auto b = rhs(*A);
  auto x = A->createDomainVector();
  EXPECT_TRUE(s->solve(*b, *x).converged);
  // The stand-alone amg preconditioner attaches it too.
  A->setNearNullSpace({ones, A->createDomainVector()});  // a zero mode: refused with a message
  auto M = backend->createPreconditioner("amg");
  const std::string m = messageOf([&] { M->setup(A); });
  EXPECT_NE(m.find("near-null space"), std::string::npos) << m;
}

TEST_F(PetscBackendTest, AmgNeedsFarFewerIterationsThanJacobi) {
  std::unique_ptr<la::MatrixAssembler> a3;
  la::MatrixPtr A = laplacian3d(*backend, 20, a3);
  auto b = rhs(*A);
  int its[2] = {0, 0};
  int k = 0;
  for (const char* pc : {"jacobi", "amg"}) {
    auto s = backend->createLinearSolver(solverOptions("cg", pc));
    s->setOperator(A);
    auto x = A->createDomainVector();
    la::SolverStats st = s->solve(*b, *x);
    EXPECT_TRUE(st.converged) << pc << ": " << st.reason;
    EXPECT_LT(maxError(*x, fA), 1e-6) << pc;
    its[k++] = st.iterations;
  }
  EXPECT_LT(3 * its[1], its[0]) << "jacobi " << its[0] << ", amg " << its[1];
}

TEST_F(PetscBackendTest, RefillResetsThePreconditioner) {
  // A direct preconditioner is exact for the values it was set up on: one CG iteration. After a
  // refill with different (not proportional) values, setOperator must factor again.
  Problem p = laplace(40, 1);
  la::MatrixPtr A = assembleWorld(p);
  auto s = backend->createLinearSolver(solverOptions("cg", "direct"));
  s->setOperator(A);
  auto x = A->createDomainVector();
  EXPECT_LE(s->solve(*rhs(*A), *x).iterations, 2);
  Problem q = laplace(40, 1, 3.0);  // a different shift: same pattern, other values
  assemble(*asmb, q, Comm::world());
  EXPECT_EQ(asmb->stats().refills, 1);
  s->setOperator(A);
  x->set(0.0);
  la::SolverStats st = s->solve(*rhs(*A), *x);
  EXPECT_TRUE(st.converged);
  EXPECT_LE(st.iterations, 2);
}

TEST_F(PetscBackendTest, MinresAndGmresUseTheTrueResidual) {
  la::MatrixPtr A = assembleWorld(indefinite(50));
  auto b = rhs(*A);
  for (const char* type : {"minres", "gmres"}) {
    SCOPED_TRACE(type);
    la::LinearSolverOptions o = solverOptions(type, "none");  // M must be SPD for MINRES
    o.rtol = 1e-9;
    auto s = backend->createLinearSolver(o);
    s->setOperator(A);
    auto x = A->createDomainVector();
    la::SolverStats st = s->solve(*b, *x);
    EXPECT_TRUE(st.converged) << st.reason;
    auto r = A->createRangeVector();
    A->apply(*x, *r);
    r->axpby(1.0, *b, -1.0);
    EXPECT_LE(r->norm2(), o.rtol * b->norm2() * (1 + 1e-8));
    EXPECT_NEAR(st.finalResidual, r->norm2(), 1e-12 * b->norm2());
  }
}

}  // namespace
}  // namespace kinema::test

#endif  // KINEMA_HAVE_PETSC_BACKEND

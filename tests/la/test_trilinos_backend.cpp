// Trilinos-backend specifics the generic suite cannot state for every backend: the YAML ->
// Teuchos::ParameterList conversion, Belos / MueLu options passed through (backend-wide and per
// solver) and rejected with an InputError naming where they came from, matrix-free operators and
// framework preconditioners wrapped as Tpetra operators, MueLu with a near-null space, Amesos2.
#include <gtest/gtest.h>

#include "backends/trilinos/trilinos_testing.hpp"
#include "la_test_util.hpp"

namespace kinema::test {
namespace {

la::BackendPtr makeTrilinos(const std::string& trilinosYaml) {
  ParamSchema schema;
  la::declareBackendParams(schema);
  Config c = Config::fromString("backend:\n  name: trilinos\n  trilinos: " + trilinosYaml + "\n", "<test>");
  c.validate(schema);
  return la::createBackend(c);
}


struct System {
  std::unique_ptr<la::MatrixAssembler> asmb;
  la::MatrixPtr A;
  la::VectorPtr b;
};

System system(const la::Backend& backend, const Problem& p) {
  auto map = la::IndexMap::uniform(Comm::world(), p.blocks, p.bs);
  System s;
  s.asmb = backend.createAssembler(map, map);
  s.A = assemble(*s.asmb, p, Comm::world());
  s.b = s.A->createRangeVector();
  fill(*s.b, fB);
  return s;
}

// 7-point Laplacian on an m^3 grid (Dirichlet boundary eliminated), each rank adding its rows.
System laplace3d(const la::Backend& backend, int m) {
  const GlobalIndex n = static_cast<GlobalIndex>(m) * m * m;
  auto map = la::IndexMap::uniform(Comm::world(), n, 1);
  System s;
  s.asmb = backend.createAssembler(map, map);
  s.asmb->begin();
  for (GlobalIndex k = map->ownedBegin(); k < map->ownedEnd(); ++k) {
    const GlobalIndex i = k % m, j = (k / m) % m, l = k / (static_cast<GlobalIndex>(m) * m);
    s.asmb->addScalar(k, k, 6.0);
    const GlobalIndex stride[3] = {1, m, static_cast<GlobalIndex>(m) * m};
    const GlobalIndex coord[3] = {i, j, l};
    for (int d = 0; d < 3; ++d) {
      if (coord[d] > 0) s.asmb->addScalar(k, k - stride[d], -1.0);
      if (coord[d] + 1 < m) s.asmb->addScalar(k, k + stride[d], -1.0);
    }
  }
  s.A = s.asmb->end();
  s.b = s.A->createRangeVector();
  s.b->set(1.0);
  return s;
}

la::LinearSolverOptions cg(const std::string& pc, double rtol = 1e-8) {
  la::LinearSolverOptions o;
  o.type = "cg";
  o.preconditioner = pc;
  o.rtol = rtol;
  o.maxIterations = 2000;
  return o;
}

la::SolverStats solveFromZero(la::LinearSolver& s, const System& sys) {
  auto x = sys.A->createDomainVector();
  return s.solve(*sys.b, *x);
}

TEST(TrilinosBackend, YamlToParameterListConversion) {
  YAML::Node y = YAML::Load(
      "{Num Blocks: 40, Convergence Tolerance: 1.0e-9, tiny: .5, Verbose: true, Off: false,"
      " Orthogonalization: ICGS, quoted: '12', big: 12345678901,"
      " level 1: {smoother: {sweeps: 3}}, ints: [1, 2], reals: [1, 2.5], words: [a, 3]}");
  const std::vector<std::string> got = la::trilinos::describeConvertedParameters(y, "test");
  const std::vector<std::string> want = {
      "Num Blocks (int) = 40",
      "Convergence Tolerance (double) = 1e-09",
      "tiny (double) = 0.5",
      "Verbose (bool) = 1",
      "Off (bool) = 0",
      "Orthogonalization (string) = ICGS",
      "quoted (string) = 12",
      "big (long long) = 12345678901",
      "level 1/smoother/sweeps (int) = 3",
      "ints (Array(int)) = {1, 2}",
      "reals (Array(double)) = {1.00000000000000000e+00, 2.50000000000000000e+00}",
      "words (Array(string)) = {a, 3}",
  };
  EXPECT_EQ(got, want);
  EXPECT_THROW((void)la::trilinos::describeConvertedParameters(YAML::Load("[1, 2]"), "t"), InputError);
  EXPECT_THROW((void)la::trilinos::describeConvertedParameters(YAML::Load("{a: [{b: 1}]}"), "t"), InputError);
}

TEST(TrilinosBackend, BelosParametersReachTheSolver) {
  // Backend-wide "Maximum Iterations" caps every solver; a solver's own native list wins.
  auto backend = makeTrilinos("{belos: {Maximum Iterations: 5}}");
  System s = system(*backend, laplace(200, 1, 0.01));
  auto capped = backend->createLinearSolver(cg("none"));
  capped->setOperator(s.A);
  la::SolverStats st = solveFromZero(*capped, s);
  EXPECT_FALSE(st.converged);
  EXPECT_EQ(st.iterations, 5);
  EXPECT_EQ(st.reason, SolverOutcome::MaxIterations);

  la::LinearSolverOptions o = cg("none");
  o.native["trilinos"] = "{belos: {Maximum Iterations: 7}}";
  auto own = backend->createLinearSolver(o);
  own->setOperator(s.A);
  st = solveFromZero(*own, s);
  EXPECT_EQ(st.iterations, 7);
  EXPECT_EQ(st.reason, SolverOutcome::MaxIterations);

  // GMRES: "Num Blocks" comes from restart, the description names the Belos solver.
  la::LinearSolverOptions g = cg("jacobi");
  g.type = "gmres";
  g.restart = 12;
  g.native["trilinos"] = "{belos: {Maximum Iterations: 400}}";
  auto gm = backend->createLinearSolver(g);
  EXPECT_NE(gm->description().find("PSEUDOBLOCK GMRES"), std::string::npos) << gm->description();
  gm->setOperator(s.A);
  st = solveFromZero(*gm, s);
  EXPECT_TRUE(st.converged) << st.reason;
}

TEST(TrilinosBackend, RejectedParametersAreInputErrors) {
  auto backend = makeTrilinos("{}");
  la::LinearSolverOptions o = cg("jacobi");
  o.native["trilinos"] = "{belos: {Maximum Iteratons: 7}}";
  std::string m = messageOf([&] { (void)backend->createLinearSolver(o); });
  EXPECT_NE(m.find("native.trilinos.belos"), std::string::npos) << m;
  EXPECT_NE(m.find("'Maximum Iteratons'"), std::string::npos) << m;
  EXPECT_NE(m.find("did you mean 'Maximum Iterations'"), std::string::npos) << m;
  EXPECT_THROW((void)backend->createLinearSolver(o), InputError);

  auto wide = makeTrilinos("{belos: {Convergance Tolerance: 1.0e-3}}");
  m = messageOf([&] { (void)wide->createLinearSolver(cg("none")); });
  EXPECT_NE(m.find("backend.trilinos.belos"), std::string::npos) << m;
  EXPECT_NE(m.find("Convergance Tolerance"), std::string::npos) << m;

  o.native["trilinos"] = "{belsos: {}}";
  EXPECT_THROW((void)backend->createLinearSolver(o), InputError);

  // MueLu validates when the preconditioner is set up on a matrix.
  auto mu = makeTrilinos("{muelu: {'smoother: typo': 3}}");
  System s = system(*mu, laplace(30, 1));
  auto solver = mu->createLinearSolver(cg("amg"));
  try {
    solver->setOperator(s.A);
    ADD_FAILURE() << "MueLu accepted an unknown parameter";
  } catch (const InputError& e) {
    m = e.what();
    EXPECT_NE(m.find("backend.trilinos.muelu"), std::string::npos) << m;
    EXPECT_NE(m.find("smoother: typo"), std::string::npos) << m;
  }
}

TEST(TrilinosBackend, MatrixFreeOperatorSolvedByBelosCg) {
  auto backend = makeTrilinos("{}");
  System s = system(*backend, laplace(120, 1, 0.05));
  la::MatrixPtr A = s.A;
  long applies = 0;
  auto op = std::make_shared<la::FunctionOperator>(
      *backend, A->domainMap(), A->rangeMap(),
      [A, &applies](const la::Vector& x, la::Vector& y) {
        ++applies;
        A->apply(x, y);
      },
      "matrix-free laplacian");
  auto mf = backend->createLinearSolver(cg("none", 1e-10));
  EXPECT_NE(mf->description().find("PSEUDOBLOCK CG"), std::string::npos) << mf->description();
  mf->setOperator(op);
  auto x = op->createDomainVector();
  la::SolverStats st = mf->solve(*s.b, *x);
  EXPECT_TRUE(st.converged) << st.reason;
  EXPECT_GT(applies, st.iterations);  // Belos applied the framework operator (plus true residuals)

  auto asm_ = backend->createLinearSolver(cg("none", 1e-10));
  asm_->setOperator(A);
  la::SolverStats ref = solveFromZero(*asm_, s);
  EXPECT_NEAR(st.iterations, ref.iterations, 1);
  auto e = x->clone();
  auto xr = A->createDomainVector();
  asm_->solve(*s.b, *xr);
  e->axpy(-1.0, *xr);
  EXPECT_LT(e->normInf(), 1e-8 * xr->normInf());
}

TEST(TrilinosBackend, FrameworkPreconditionerMatchesNativeJacobi) {
  auto backend = makeTrilinos("{}");
  Problem p = laplace(150, 1, 0.02);
  for (std::size_t k = 0; k < p.list.size(); ++k)  // a varying diagonal, so jacobi matters
    if (p.list[k].I == p.list[k].J) p.list[k].v[0] *= 1.0 + 0.5 * static_cast<double>(p.list[k].I % 5);
  System s = system(*backend, p);
  auto native = backend->createLinearSolver(cg("jacobi"));
  native->setOperator(s.A);
  const la::SolverStats a = solveFromZero(*native, s);
  auto wrapped = backend->createLinearSolver(cg("none"));
  wrapped->setOperator(s.A);
  wrapped->setPreconditioner(std::make_shared<la::JacobiPreconditioner>());
  const la::SolverStats b = solveFromZero(*wrapped, s);
  EXPECT_TRUE(a.converged && b.converged);
  EXPECT_EQ(a.iterations, b.iterations);
  auto none = backend->createLinearSolver(cg("none"));
  none->setOperator(s.A);
  EXPECT_GT(solveFromZero(*none, s).iterations, a.iterations);
}

TEST(TrilinosBackend, MueLuAmgWithNearNullSpace) {
  auto backend = makeTrilinos("{muelu: {'coarse: max size': 200}}");
  System s = laplace3d(*backend, 20);  // 8000 unknowns: several levels
  auto ones = s.A->createDomainVector();
  ones->set(1.0);
  s.A->setNearNullSpace({std::shared_ptr<const la::Vector>(std::move(ones))});
  auto amg = backend->createLinearSolver(cg("amg"));
  amg->setOperator(s.A);
  const la::SolverStats a = solveFromZero(*amg, s);
  auto jac = backend->createLinearSolver(cg("jacobi"));
  jac->setOperator(s.A);
  const la::SolverStats j = solveFromZero(*jac, s);
  EXPECT_TRUE(a.converged && j.converged);
  EXPECT_LT(3 * a.iterations, j.iterations) << "amg " << a.iterations << ", jacobi " << j.iterations;
  RecordProperty("amg_iterations", a.iterations);
  RecordProperty("jacobi_iterations", j.iterations);

  // A refill re-sets the hierarchy up on the new values (same pattern): twice the matrix, half x.
  auto x1 = s.A->createDomainVector();
  amg->solve(*s.b, *x1);
  s.asmb->begin();
  const la::IndexMap& map = *s.A->rangeMap();
  System t = laplace3d(*backend, 20);  // the reference values, assembled again below doubled
  for (GlobalIndex k = map.ownedBegin(); k < map.ownedEnd(); ++k)
    for (GlobalIndex c : {k - 400, k - 20, k - 1, k, k + 1, k + 20, k + 400})
      if (c >= 0 && c < map.globalSize()) {
        const double v = t.A->entry(k, c);
        if (v != 0.0) s.asmb->addScalar(k, c, 2.0 * v);
      }
  s.asmb->end();
  EXPECT_EQ(s.asmb->stats().refills, 1);
  amg->setOperator(s.A);
  auto x2 = s.A->createDomainVector();
  EXPECT_TRUE(amg->solve(*s.b, *x2).converged);
  x2->scale(2.0);
  x2->axpy(-1.0, *x1);
  EXPECT_LT(x2->normInf(), 1e-6 * x1->normInf());
}

TEST(TrilinosBackend, DirectThroughAmesos2) {
  auto backend = makeTrilinos("{}");
  const Problem p = convection(60);  // nonsymmetric
  System s = system(*backend, p);
  la::LinearSolverOptions o;
  o.type = "direct";
  auto d = backend->createLinearSolver(o);
  EXPECT_NE(d->description().find("Amesos2 KLU2"), std::string::npos) << d->description();
  d->setOperator(s.A);
  auto xs = s.A->createDomainVector(), b = s.A->createRangeVector(), x = s.A->createDomainVector();
  fill(*xs, fA);
  s.A->apply(*xs, *b);
  la::SolverStats st = d->solve(*b, *x);
  EXPECT_TRUE(st.converged);
  EXPECT_EQ(st.reason, SolverOutcome::Direct);
  EXPECT_EQ(st.iterations, 1);
  EXPECT_LT(maxError(*x, fA), 1e-11);

  // Refill with doubled values, same pattern: refactorised on setOperator.
  assemble(*s.asmb, scaled(p, 2.0), Comm::world());
  d->setOperator(s.A);
  b->scale(2.0);
  EXPECT_TRUE(d->solve(*b, *x).converged);
  EXPECT_LT(maxError(*x, fA), 1e-11);

  // Matrix-free operators have no rows to factorise.
  auto op = std::make_shared<la::FunctionOperator>(
      *backend, s.A->domainMap(), s.A->rangeMap(), [](const la::Vector& u, la::Vector& v) { v.copy(u); },
      "identity op");
  EXPECT_THROW(backend->createLinearSolver(o)->setOperator(op), InputError);
}

TEST(TrilinosBackend, ForeignVectorsNameBothBackends) {
  if (Comm::world().size() > 1 || !la::backends().has("eigen")) GTEST_SKIP();
  auto tri = makeTrilinos("{}");
  auto eig = makeBackend("eigen");
  auto map = la::IndexMap::uniform(Comm::self(), 6);
  auto t = tri->createVector(map);
  auto e = eig->createVector(map);
  const std::string m = messageOf([&] { t->axpy(1.0, *e); });
  EXPECT_NE(m.find("trilinos"), std::string::npos) << m;
  EXPECT_NE(m.find("eigen"), std::string::npos) << m;
  EXPECT_THROW(t->axpy(1.0, *e), Error);
}

}  // namespace
}  // namespace kinema::test

// Eigen-backend specifics the generic suite cannot state for every backend: its error messages,
// IC(0) breakdown, SSOR against a dense reference sweep, and allocation-free refills.
#include <gtest/gtest.h>

#include "backends/eigen/eigen_matrix.hpp"
#include "la_test_util.hpp"

namespace kinema::test {
namespace {

class EigenBackendTest : public ::testing::Test {
 protected:
  void SetUp() override { backend = makeBackend("eigen"); }
  la::MatrixPtr assembleSelf(const Problem& p) {
    auto map = la::IndexMap::uniform(Comm::self(), p.blocks, p.bs);
    asmb = backend->createAssembler(map, map);
    return assemble(*asmb, p, Comm::self());
  }
  la::BackendPtr backend;
  std::unique_ptr<la::MatrixAssembler> asmb;
};


TEST_F(EigenBackendTest, RowNotOwnedNamesBlockAndRange) {
  auto map = la::IndexMap::uniform(Comm::self(), 5);
  auto a = backend->createAssembler(map, map);
  a->begin();
  const std::string m = messageOf([&] { a->addScalar(7, 0, 1.0); });
  EXPECT_NE(m.find("block row 7"), std::string::npos) << m;
  EXPECT_NE(m.find("[0, 5)"), std::string::npos) << m;
}

TEST_F(EigenBackendTest, RefillsKeepStorage) {
  const Problem p = laplace(20, 3);
  la::MatrixPtr A = assembleSelf(p);
  auto& csr = dynamic_cast<la::eigen::EigenMatrix&>(*A).csr();
  const double* values = csr.valuePtr();
  const int* cols = csr.innerIndexPtr();
  for (int k = 0; k < 3; ++k) assemble(*asmb, scaled(p, 1.0 + k), Comm::self());
  EXPECT_EQ(csr.valuePtr(), values);
  EXPECT_EQ(csr.innerIndexPtr(), cols);
  EXPECT_EQ(asmb->stats().refills, 3);
  EXPECT_EQ(asmb->stats().patternBuilds, 1);
}

TEST_F(EigenBackendTest, Ic0BreakdownSuggestsAlternatives) {
  la::MatrixPtr A = assembleSelf(indefinite(10));
  auto M = backend->createPreconditioner("ic0");
  const std::string m = messageOf([&] { M->setup(A); });
  EXPECT_NE(m.find("non-positive pivot"), std::string::npos) << m;
  EXPECT_NE(m.find("ssor"), std::string::npos) << m;
  EXPECT_NE(m.find("jacobi"), std::string::npos) << m;
}

TEST_F(EigenBackendTest, MatrixPreconditionersRefuseMatrixFreeOperators) {
  auto map = la::IndexMap::uniform(Comm::self(), 4);
  auto op = std::make_shared<la::FunctionOperator>(
      *backend, map, map, [](const la::Vector& x, la::Vector& y) { y.copy(x); }, "identity op");
  for (const char* name : {"ic0", "ssor", "direct"}) {
    auto M = backend->createPreconditioner(name);
    EXPECT_THROW(M->setup(op), InputError) << name;
  }
  la::LinearSolverOptions o;
  o.type = "direct";
  EXPECT_THROW(backend->createLinearSolver(o)->setOperator(op), InputError);
}

TEST_F(EigenBackendTest, AmgNamesTheBackendsThatHaveIt) {
  const std::string m = messageOf([&] { (void)backend->createPreconditioner("amg"); });
  EXPECT_NE(m.find("eigen"), std::string::npos) << m;
  EXPECT_NE(m.find("petsc"), std::string::npos) << m;
  EXPECT_NE(m.find("trilinos"), std::string::npos) << m;
  la::LinearSolverOptions o;
  o.preconditioner = "amg";
  EXPECT_THROW((void)backend->createLinearSolver(o), InputError);
}

TEST_F(EigenBackendTest, SsorMatchesDenseSweeps) {
  const Problem p = convection(12);  // nonsymmetric: the two sweeps differ
  la::MatrixPtr A = assembleSelf(p);
  auto M = backend->createPreconditioner("ssor");
  M->setup(A);
  auto r = A->createDomainVector(), z = A->createDomainVector();
  fill(*r, fA);
  M->apply(*r, *z);
  // Reference, omega = 1: (D + L) y = r, then (D + U) z = D y.
  const std::vector<double> D = p.dense();
  const std::size_t n = 12;
  std::vector<double> y(n), zz(n);
  for (std::size_t i = 0; i < n; ++i) {
    double s = fA(static_cast<GlobalIndex>(i));
    for (std::size_t j = 0; j < i; ++j) s -= D[i * n + j] * y[j];
    y[i] = s / D[i * n + i];
  }
  for (std::size_t i = n; i-- > 0;) {
    double s = D[i * n + i] * y[i];
    for (std::size_t j = i + 1; j < n; ++j) s -= D[i * n + j] * zz[j];
    zz[i] = s / D[i * n + i];
  }
  EXPECT_LT(maxError(*z, [&](GlobalIndex g) { return zz[static_cast<std::size_t>(g)]; }), 1e-13);
}

TEST_F(EigenBackendTest, DirectPreconditionerOnNonsymmetricMatrix) {
  const Problem p = convection(15);
  la::MatrixPtr A = assembleSelf(p);
  auto M = backend->createPreconditioner("direct");
  M->setup(A);
  auto x = A->createDomainVector(), Ax = A->createRangeVector(), z = A->createDomainVector();
  fill(*x, fA);
  A->apply(*x, *Ax);
  M->apply(*Ax, *z);
  EXPECT_LT(maxError(*z, fA), 1e-12);
}

TEST_F(EigenBackendTest, DirectSolverStats) {
  la::MatrixPtr A = assembleSelf(indefinite(30));
  la::LinearSolverOptions o;
  o.type = "direct";
  auto s = backend->createLinearSolver(o);
  s->setOperator(A);
  auto x = A->createDomainVector(), b = A->createRangeVector();
  fill(*x, fA);
  A->apply(*x, *b);
  x->set(0.0);
  la::SolverStats st = s->solve(*b, *x);
  EXPECT_TRUE(st.converged);
  EXPECT_EQ(st.reason, SolverOutcome::Direct);
  EXPECT_LE(st.iterations, 1);
  EXPECT_LT(maxError(*x, fA), 1e-12);
  EXPECT_NE(s->description().find("direct"), std::string::npos);
}


// IC(0) on a 5-point Laplacian (where it is not exact) against a dense right-looking IC(0)
// restricted to the pattern of A.
TEST_F(EigenBackendTest, Ic0MatchesDenseReferenceWithDroppedFill) {
  const int m = 5;
  const std::size_t n = m * m;
  Problem p{static_cast<GlobalIndex>(n), 1, {}};
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) {
      const GlobalIndex k = i * m + j;
      p.list.push_back({k, k, {4.2}});
      if (i > 0) p.list.push_back({k, k - m, {-1.0}});
      if (i + 1 < m) p.list.push_back({k, k + m, {-1.0}});
      if (j > 0) p.list.push_back({k, k - 1, {-1.0}});
      if (j + 1 < m) p.list.push_back({k, k + 1, {-1.0}});
    }
  la::MatrixPtr A = assembleSelf(p);
  auto M = backend->createPreconditioner("ic0");
  M->setup(A);
  auto r = A->createDomainVector(), z = A->createDomainVector();
  fill(*r, fB);
  M->apply(*r, *z);

  std::vector<double> L = p.dense();  // lower triangle becomes the factor
  auto at = [&](std::size_t i, std::size_t j) -> double& { return L[i * n + j]; };
  const std::vector<double> D = p.dense();
  for (std::size_t k = 0; k < n; ++k) {
    at(k, k) = std::sqrt(at(k, k));
    for (std::size_t i = k + 1; i < n; ++i)
      if (D[i * n + k] != 0.0) at(i, k) /= at(k, k);
    for (std::size_t j = k + 1; j < n; ++j)
      for (std::size_t i = j; i < n; ++i)
        if (D[i * n + j] != 0.0 && D[i * n + k] != 0.0 && D[j * n + k] != 0.0) at(i, j) -= at(i, k) * at(j, k);
  }
  std::vector<double> y(n);
  for (std::size_t i = 0; i < n; ++i) {
    double s = fB(static_cast<GlobalIndex>(i));
    for (std::size_t j = 0; j < i; ++j)
      if (D[i * n + j] != 0.0) s -= at(i, j) * y[j];
    y[i] = s / at(i, i);
  }
  for (std::size_t i = n; i-- > 0;) {
    double s = y[i];
    for (std::size_t j = i + 1; j < n; ++j)
      if (D[j * n + i] != 0.0) s -= at(j, i) * y[j];
    y[i] = s / at(i, i);
  }
  EXPECT_LT(maxError(*z, [&](GlobalIndex g) { return y[static_cast<std::size_t>(g)]; }), 1e-13);
  // Not exact here: M^{-1} A x differs from x.
  auto x = A->createDomainVector(), Ax = A->createRangeVector();
  fill(*x, fA);
  A->apply(*x, *Ax);
  M->apply(*Ax, *z);
  EXPECT_GT(maxError(*z, fA), 1e-6);
}

}  // namespace
}  // namespace kinema::test

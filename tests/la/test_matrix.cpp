// Assembler, Matrix and FunctionOperator conformance against a dense reference.
#include <gtest/gtest.h>

#include <Eigen/Core>

#include "framework/la/operator.hpp"
#include "la_test_util.hpp"

namespace kinema::test {
namespace {

class MatrixTest : public BackendTest {
 protected:
  // Every owned entry of A (all columns) against the dense reference.
  void expectEntries(const la::Matrix& A, const Problem& p, double scale = 1.0) {
    const std::vector<double> D = p.dense();
    const GlobalIndex N = p.n();
    const auto& rows = *A.rangeMap();
    for (GlobalIndex i = rows.ownedBegin() * p.bs; i < rows.ownedEnd() * p.bs; ++i)
      for (GlobalIndex j = 0; j < N; ++j)
        ASSERT_NEAR(A.entry(i, j), scale * D[static_cast<std::size_t>(i * N + j)], 1e-14)
            << "entry (" << i << ", " << j << ")";
  }
};

constexpr GlobalIndex kBlocks = 9;

TEST_P(MatrixTest, AssembleEntriesApplyDiagonal) {
  for (int bs : {1, 3}) {
    SCOPED_TRACE("block size " + std::to_string(bs));
    const Problem p = laplace(kBlocks, bs);
    auto map = uniform(kBlocks, bs);
    auto asmb = backend->createAssembler(map, map);
    EXPECT_EQ(asmb->blockSize(), bs);
    long offRank = 0;
    la::MatrixPtr A = assemble(*asmb, p, comm(), &offRank, map.get());
    ASSERT_NE(A, nullptr);
    EXPECT_EQ(A->blockSize(), bs);
    EXPECT_TRUE(A->hasDiagonal());
    EXPECT_TRUE(A->domainMap()->compatible(*map));
    EXPECT_TRUE(A->rangeMap()->compatible(*map));
    EXPECT_EQ(asmb->stats().patternBuilds, 1);
    EXPECT_EQ(asmb->stats().refills, 0);
    EXPECT_EQ(asmb->stats().offRankBlocks, offRank);
    expectEntries(*A, p);
    EXPECT_EQ(A->globalNonzeros(), p.patternNonzeros());

    // Apply against the dense matvec.
    const std::vector<double> ref = p.matvec(globalValues(p.n(), fA));
    auto x = A->createDomainVector(), y = A->createRangeVector();
    EXPECT_EQ(x->norm2(), 0.0);
    EXPECT_EQ(y->norm2(), 0.0);
    fill(*x, fA);
    A->apply(*x, *y);
    EXPECT_LT(maxError(*y, [&](GlobalIndex g) { return ref[static_cast<std::size_t>(g)]; }), 1e-12);

    auto d = A->createDomainVector();
    A->diagonal(*d);
    const std::vector<double> D = p.dense();
    EXPECT_EQ(maxError(*d, [&](GlobalIndex g) { return D[static_cast<std::size_t>(g * p.n() + g)]; }), 0.0);
  }
}

TEST_P(MatrixTest, PatternReuseAndRebuild) {
  for (int bs : {1, 3}) {
    SCOPED_TRACE("block size " + std::to_string(bs));
    const Problem p = laplace(kBlocks, bs);
    auto map = uniform(kBlocks, bs);
    auto asmb = backend->createAssembler(map, map);
    la::MatrixPtr A = assemble(*asmb, p, comm());
    const std::uint64_t v0 = A->valuesVersion();

    // Refill with doubled values: same object, same pattern, new version.
    la::MatrixPtr A2 = assemble(*asmb, scaled(p, 2.0), comm());
    EXPECT_EQ(A2.get(), A.get());
    EXPECT_EQ(asmb->stats().patternBuilds, 1);
    EXPECT_EQ(asmb->stats().refills, 1);
    EXPECT_GT(A->valuesVersion(), v0);
    expectEntries(*A, p, 2.0);
    EXPECT_EQ(A->globalNonzeros(), p.patternNonzeros());

    // A block outside the pattern: rebuild, the object stays the same.
    Problem q = p;
    std::vector<double> corner(static_cast<std::size_t>(bs * bs), 0.5);
    q.list.push_back({0, kBlocks - 1, corner});
    q.list.push_back({kBlocks - 1, 0, corner});
    const std::uint64_t v1 = A->valuesVersion();
    la::MatrixPtr A3 = assemble(*asmb, q, comm());
    EXPECT_EQ(A3.get(), A.get());
    EXPECT_EQ(asmb->stats().patternBuilds, 2);
    EXPECT_EQ(asmb->stats().refills, 1);
    EXPECT_GT(A->valuesVersion(), v1);
    expectEntries(*A, q);
    EXPECT_EQ(A->globalNonzeros(), q.patternNonzeros());

    // The original blocks fit in the grown pattern: a refill.
    assemble(*asmb, p, comm());
    EXPECT_EQ(asmb->stats().patternBuilds, 2);
    EXPECT_EQ(asmb->stats().refills, 2);
    expectEntries(*A, p);

    // resetPattern forgets it: the next assembly builds the original pattern again.
    asmb->resetPattern();
    la::MatrixPtr A4 = assemble(*asmb, p, comm());
    EXPECT_EQ(A4.get(), A.get());
    EXPECT_EQ(asmb->stats().patternBuilds, 3);
    EXPECT_EQ(A->globalNonzeros(), p.patternNonzeros());
    expectEntries(*A, p);
  }
}

TEST_P(MatrixTest, FixedSizeBlocksAndChecks) {
  auto map = uniform(4, 3);
  auto asmb = backend->createAssembler(map, map);
  asmb->begin();
  if (comm().rank() == 0) {
    Eigen::Matrix3d b = Eigen::Matrix3d::Identity() * 2.0;
    b(0, 1) = 1.0;  // row-major order must survive: entry (0, 1), not (1, 0)
    asmb->addBlock(1, 1, b);
    EXPECT_THROW(asmb->addBlock(1, 1, Eigen::Matrix2d::Identity()), Error);
    EXPECT_THROW(asmb->addScalar(0, 0, 1.0), Error);
    EXPECT_THROW(asmb->addBlock(4, 0, b), Error);   // no such block row anywhere
    EXPECT_THROW(asmb->addBlock(0, 4, b), Error);   // no such block column
  }
  la::MatrixPtr A = asmb->end();
  if (map->owns(1)) {
    EXPECT_EQ(A->entry(3, 4), 1.0);
    EXPECT_EQ(A->entry(4, 3), 0.0);
    EXPECT_EQ(A->entry(5, 5), 2.0);
  }
  EXPECT_EQ(A->globalNonzeros(), 9);

  auto s = uniform(4, 1);
  auto a1 = backend->createAssembler(s, s);
  a1->begin();
  if (comm().rank() == 0) a1->addScalar(2, 3, 7.0);
  la::MatrixPtr B = a1->end();
  if (s->owns(2)) {
    EXPECT_EQ(B->entry(2, 3), 7.0);
  }
  EXPECT_EQ(B->globalNonzeros(), 1);
}

TEST_P(MatrixTest, FunctionOperator) {
  auto map = uniform(15, 2);
  auto diag = [](GlobalIndex g) { return 1.0 + static_cast<double>(g); };
  auto applyFn = [&](const la::Vector& x, la::Vector& y) {
    la::Vector::ConstView xv = x.view();
    la::Vector::View yv = y.view();
    for (LocalIndex i = 0; i < x.ownedSize(); ++i) yv[i] = diag(globalOf(x, i)) * xv[i];
  };
  la::FunctionOperator withDiag(*backend, map, map, applyFn, "scaled identity",
                                [&](la::Vector& d) { fill(d, diag); });
  la::FunctionOperator noDiag(*backend, map, map, applyFn, "delassus-like");
  EXPECT_EQ(withDiag.description(), "scaled identity");
  EXPECT_TRUE(withDiag.hasDiagonal());
  EXPECT_FALSE(noDiag.hasDiagonal());

  auto x = withDiag.createDomainVector(), y = withDiag.createRangeVector();
  EXPECT_TRUE(x->map().compatible(*map));
  EXPECT_EQ(x->norm2(), 0.0);
  fill(*x, fA);
  withDiag.apply(*x, *y);
  EXPECT_LT(maxError(*y, [&](GlobalIndex g) { return diag(g) * fA(g); }), 1e-14);
  auto d = withDiag.createDomainVector();
  withDiag.diagonal(*d);
  EXPECT_EQ(maxError(*d, diag), 0.0);
  try {
    noDiag.diagonal(*d);
    ADD_FAILURE() << "diagonal() of an operator without one did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("delassus-like"), std::string::npos) << e.what();
  }
}

// Operator::apply checks its arguments once for every implementation (the backends' matrices and
// a FunctionOperator alike), counts and times each product, and never calls the implementation on
// a bad argument.
TEST_P(MatrixTest, ApplyChecksInTheBaseClass) {
  const Problem p = laplace(kBlocks, 1);
  auto map = uniform(kBlocks, 1);
  auto other = uniform(kBlocks + 2, 1);
  auto asmb = backend->createAssembler(map, map);
  la::MatrixPtr A = assemble(*asmb, p, comm());
  long calls = 0;
  la::FunctionOperator F(*backend, map, map,
                         [&](const la::Vector& x, la::Vector& y) {
                           ++calls;
                           y.copy(x);
                         },
                         "counted identity");
  const std::vector<const la::Operator*> ops = {A.get(), &F};
  for (const la::Operator* op : ops) {
    SCOPED_TRACE(op->description());
    auto x = op->createDomainVector(), y = op->createRangeVector();
    auto wrong = backend->createVector(other);
    fill(*x, fA);
    EXPECT_EQ(op->applyStats().count, 0u);
    op->apply(*x, *y);
    op->apply(*x, *y);
    EXPECT_EQ(op->applyStats().count, 2u);
    EXPECT_GE(op->applyStats().seconds, 0.0);
    auto expectError = [&](const la::Vector& in, la::Vector& out, const std::string& what) {
      try {
        op->apply(in, out);
        ADD_FAILURE() << "apply did not refuse: " << what;
      } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find(op->description()), std::string::npos) << m;
        EXPECT_NE(m.find(what), std::string::npos) << m;
      }
    };
    expectError(*wrong, *y, "x is not on the domain map");
    expectError(*x, *wrong, "y is not on the range map");
    expectError(*x, *x, "distinct x and y");
    EXPECT_EQ(op->applyStats().count, 2u) << "a refused apply was counted";
  }
  EXPECT_EQ(calls, 2) << "the implementation ran on a refused apply";
}

INSTANTIATE_TEST_SUITE_P(Backends, MatrixTest, ::testing::ValuesIn(backendNames()), paramName);

}  // namespace
}  // namespace kinema::test

// Vector conformance: every operation against references computed from the global formulas.
#include <gtest/gtest.h>

#include <limits>

#include "la_test_util.hpp"

namespace kinema::test {
namespace {

class VectorTest : public BackendTest {};

constexpr GlobalIndex kBlocks = 23;
constexpr int kBs = 2;
constexpr double kTol = 1e-12;

// Reference reduction over all global indices.
double refSum(GlobalIndex n, const std::function<double(GlobalIndex)>& f) {
  double s = 0.0;
  for (GlobalIndex g = 0; g < n; ++g) s += f(g);
  return s;
}

TEST_P(VectorTest, CreateAndViews) {
  auto map = uniform(kBlocks, kBs);
  auto v = backend->createVector(map);
  EXPECT_EQ(v->ownedSize(), map->ownedSize());
  EXPECT_EQ(v->localSize(), map->localSize());
  EXPECT_TRUE(v->map().compatible(*map));
  EXPECT_EQ(v->norm2(), 0.0);  // created zero
  {
    la::Vector::View w = v->view();
    EXPECT_EQ(static_cast<LocalIndex>(w.all().size()), v->localSize());
    EXPECT_EQ(static_cast<LocalIndex>(w.owned().size()), v->ownedSize());
    EXPECT_EQ(static_cast<LocalIndex>(w.ghosts().size()), v->localSize() - v->ownedSize());
  }
  fill(*v, fA);
  {
    la::Vector::ConstView r = std::as_const(*v).view();
    for (LocalIndex i = 0; i < v->ownedSize(); ++i) EXPECT_EQ(r[i], fA(globalOf(*v, i)));
    EXPECT_EQ(r.data(), v->constView().data());
  }
  auto c = v->clone();
  EXPECT_EQ(maxError(*c, fA), 0.0);
  auto z = v->zerosLike();
  EXPECT_TRUE(z->map().compatible(*map));
  EXPECT_EQ(z->normInf(), 0.0);
  EXPECT_EQ(maxError(*v, fA), 0.0);  // the source is untouched
}

TEST_P(VectorTest, Blas1) {
  auto map = uniform(kBlocks, kBs);
  const GlobalIndex n = map->globalSize();
  auto x = backend->createVector(map), y = backend->createVector(map);
  fill(*x, fA);
  fill(*y, fB);

  EXPECT_NEAR(x->dot(*y), refSum(n, [](GlobalIndex g) { return fA(g) * fB(g); }), kTol);
  EXPECT_NEAR(x->norm2(), std::sqrt(refSum(n, [](GlobalIndex g) { return fA(g) * fA(g); })), kTol);
  EXPECT_NEAR(x->norm1(), refSum(n, [](GlobalIndex g) { return std::abs(fA(g)); }), kTol);
  EXPECT_NEAR(x->sum(), refSum(n, fA), kTol);
  double mn = 1e300, mx = -1e300, ninf = 0;
  for (GlobalIndex g = 0; g < n; ++g) mn = std::min(mn, fA(g)), mx = std::max(mx, fA(g)), ninf = std::max(ninf, std::abs(fA(g)));
  EXPECT_EQ(x->min(), mn);
  EXPECT_EQ(x->max(), mx);
  EXPECT_EQ(x->normInf(), ninf);

  auto v = x->clone();
  v->set(1.5);
  EXPECT_EQ(maxError(*v, [](GlobalIndex) { return 1.5; }), 0.0);
  v->copy(*y);
  EXPECT_EQ(maxError(*v, fB), 0.0);
  v->scale(-2.0);
  EXPECT_LT(maxError(*v, [](GlobalIndex g) { return -2.0 * fB(g); }), kTol);
  v->copy(*y);
  v->axpy(0.5, *x);
  EXPECT_LT(maxError(*v, [](GlobalIndex g) { return fB(g) + 0.5 * fA(g); }), kTol);
  v->copy(*y);
  v->axpby(3.0, *x, -1.0);
  EXPECT_LT(maxError(*v, [](GlobalIndex g) { return 3.0 * fA(g) - fB(g); }), kTol);
  // beta = 0 overwrites, even a NaN.
  v->set(std::numeric_limits<double>::quiet_NaN());
  v->axpby(2.0, *x, 0.0);
  EXPECT_LT(maxError(*v, [](GlobalIndex g) { return 2.0 * fA(g); }), kTol);
  // Aliased arguments.
  v->copy(*x);
  v->axpy(1.0, *v);
  EXPECT_LT(maxError(*v, [](GlobalIndex g) { return 2.0 * fA(g); }), kTol);
  EXPECT_NEAR(x->dot(*x), x->norm2() * x->norm2(), kTol);
}

TEST_P(VectorTest, EmptyVectorReductions) {
  auto v = backend->createVector(uniform(0, 1));
  EXPECT_EQ(v->min(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(v->max(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(v->sum(), 0.0);
  EXPECT_EQ(v->norm2(), 0.0);
  EXPECT_FALSE(v->hasNonFinite());
}

TEST_P(VectorTest, Pointwise) {
  auto map = uniform(kBlocks, kBs);
  auto x = backend->createVector(map), y = backend->createVector(map), v = backend->createVector(map);
  fill(*x, fA);
  fill(*y, fPos);
  v->pointwiseMultiply(*x, *y);
  EXPECT_LT(maxError(*v, [](GlobalIndex g) { return fA(g) * fPos(g); }), kTol);
  v->pointwiseDivide(*x, *y);
  EXPECT_LT(maxError(*v, [](GlobalIndex g) { return fA(g) / fPos(g); }), kTol);
  fill(*v, fB);
  v->pointwiseMin(*x);
  EXPECT_EQ(maxError(*v, [](GlobalIndex g) { return std::min(fA(g), fB(g)); }), 0.0);
  fill(*v, fB);
  v->pointwiseMax(*x);
  EXPECT_EQ(maxError(*v, [](GlobalIndex g) { return std::max(fA(g), fB(g)); }), 0.0);
  v->pointwiseMultiply(*v, *v);  // aliased
  EXPECT_LT(maxError(*v, [](GlobalIndex g) { double m = std::max(fA(g), fB(g)); return m * m; }), kTol);

  auto lo = backend->createVector(map), hi = backend->createVector(map);
  fill(*lo, [](GlobalIndex g) { return -0.3 - 0.01 * static_cast<double>(g); });
  fill(*hi, [](GlobalIndex g) { return 0.4 + 0.02 * static_cast<double>(g % 3); });
  v->copy(*x);
  v->clamp(*lo, *hi);
  EXPECT_EQ(maxError(*v, [](GlobalIndex g) {
              return std::min(std::max(fA(g), -0.3 - 0.01 * static_cast<double>(g)),
                              0.4 + 0.02 * static_cast<double>(g % 3));
            }),
            0.0);

  auto mask = backend->createVector(map);
  fill(*mask, [](GlobalIndex g) { return g % 3 == 0 ? 1.0 : 0.0; });
  v->copy(*y);
  v->maskedCopy(*x, *mask);
  EXPECT_EQ(maxError(*v, [](GlobalIndex g) { return g % 3 == 0 ? fA(g) : fPos(g); }), 0.0);
}

TEST_P(VectorTest, MinRatio) {
  auto map = uniform(kBlocks, kBs);
  const GlobalIndex n = map->globalSize();
  auto x = backend->createVector(map), den = backend->createVector(map);
  fill(*x, fA);
  auto d = [](GlobalIndex g) { return g % 4 == 1 ? fPos(g) : -fPos(g) * static_cast<double>(g % 2); };
  fill(*den, d);
  double ref = std::numeric_limits<double>::infinity();
  for (GlobalIndex g = 0; g < n; ++g)
    if (d(g) > 0) ref = std::min(ref, fA(g) / d(g));
  EXPECT_DOUBLE_EQ(x->minRatio(*den), ref);
  den->set(0.0);
  EXPECT_EQ(x->minRatio(*den), std::numeric_limits<double>::infinity());
  den->set(-1.0);
  EXPECT_EQ(x->minRatio(*den), std::numeric_limits<double>::infinity());
}

TEST_P(VectorTest, HasNonFinite) {
  auto map = uniform(kBlocks, kBs);
  auto x = backend->createVector(map);
  fill(*x, fA);
  EXPECT_FALSE(x->hasNonFinite());
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity()}) {
    fill(*x, fA);
    const GlobalIndex where = map->globalSize() - 1;  // owned by the last rank only
    {
      la::Vector::View w = x->view();
      for (LocalIndex i = 0; i < x->ownedSize(); ++i)
        if (globalOf(*x, i) == where) w[i] = bad;
    }
    EXPECT_TRUE(x->hasNonFinite());  // on every rank
  }
}

TEST_P(VectorTest, IncompatibleVectorsThrow) {
  auto x = backend->createVector(uniform(kBlocks, kBs));
  auto y = backend->createVector(uniform(kBlocks + 1, kBs));
  auto z = backend->createVector(uniform(kBlocks, 1));
  EXPECT_THROW(x->axpy(1.0, *y), Error);
  EXPECT_THROW(x->copy(*z), Error);
  EXPECT_THROW((void)x->dot(*y), Error);
}

// Ghosts: on a distributed map each rank ghosts the first block of the next rank and the last of
// the previous one; on a one-rank map there are none and the exchanges must leave owned values.
la::IndexMapPtr ghostedMap(const Comm& comm, int bs) {
  const int p = comm.size(), r = comm.rank();
  const GlobalIndex per = 4;
  std::vector<GlobalIndex> ghosts;
  if (p > 1) {
    ghosts.push_back(per * ((r + 1) % p));
    const GlobalIndex prevLast = per * ((r + p - 1) % p) + per - 1;
    ghosts.push_back(prevLast);
  }
  return std::make_shared<const la::IndexMap>(comm, per, ghosts, bs);
}

TEST_P(VectorTest, GhostUpdate) {
  auto map = ghostedMap(comm(), kBs);
  auto v = backend->createVector(map);
  fill(*v, fA);
  {
    la::Vector::View w = v->view();
    for (double& g : w.ghosts()) g = -99.0;
  }
  v->updateGhosts();
  la::Vector::ConstView r = std::as_const(*v).view();
  for (std::size_t k = 0; k < map->ghosts().size(); ++k)
    for (int c = 0; c < kBs; ++c)
      EXPECT_EQ(r.ghosts()[k * kBs + static_cast<std::size_t>(c)], fA(map->ghosts()[k] * kBs + c));
  for (LocalIndex i = 0; i < v->ownedSize(); ++i) EXPECT_EQ(r[i], fA(globalOf(*v, i)));
}

TEST_P(VectorTest, GhostAccumulate) {
  auto map = ghostedMap(comm(), kBs);
  auto v = backend->createVector(map);
  fill(*v, [](GlobalIndex) { return 0.5; });
  {
    la::Vector::View w = v->view();
    for (double& g : w.ghosts()) g = 1.0;
  }
  v->accumulateGhosts();
  // Reference: owned value 0.5 plus one for every rank that ghosts the block.
  const int p = comm().size();
  const GlobalIndex per = 4;
  auto ghostedBy = [&](GlobalIndex blk) {
    int count = 0;
    if (p > 1)
      for (int q = 0; q < p; ++q)
        if (blk == per * ((q + 1) % p) || blk == per * ((q + p - 1) % p) + per - 1) ++count;
    return count;
  };
  EXPECT_EQ(maxError(*v, [&](GlobalIndex g) { return 0.5 + ghostedBy(g / kBs); }), 0.0);
  la::Vector::ConstView r = std::as_const(*v).view();
  for (double g : r.ghosts()) EXPECT_EQ(g, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Backends, VectorTest, ::testing::ValuesIn(backendNames()), paramName);

}  // namespace
}  // namespace kinema::test

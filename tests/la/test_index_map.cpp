// IndexMap: the framework's distribution, checked on the world communicator and on Comm::self().
#include <gtest/gtest.h>

#include "framework/la/index_map.hpp"
#include "la_test_util.hpp"

namespace kinema::test {
namespace {

void checkUniform(const Comm& comm, GlobalIndex n, int bs) {
  auto m = la::IndexMap::uniform(comm, n, bs);
  const GlobalIndex p = comm.size();
  // Reference split: n / p each, the first n % p ranks one more.
  std::vector<GlobalIndex> off(static_cast<std::size_t>(p) + 1, 0);
  for (GlobalIndex r = 0; r < p; ++r) off[static_cast<std::size_t>(r) + 1] = off[static_cast<std::size_t>(r)] + n / p + (r < n % p ? 1 : 0);
  EXPECT_EQ(m->rankOffsets(), off);
  EXPECT_EQ(m->globalBlocks(), n);
  EXPECT_EQ(m->globalSize(), n * bs);
  EXPECT_EQ(m->blockSize(), bs);
  EXPECT_EQ(m->ownedBegin(), off[static_cast<std::size_t>(comm.rank())]);
  EXPECT_EQ(m->ownedEnd(), off[static_cast<std::size_t>(comm.rank()) + 1]);
  EXPECT_EQ(m->ownedSize(), m->ownedBlocks() * bs);
  EXPECT_EQ(m->localSize(), m->ownedSize());
  for (GlobalIndex g = 0; g < n; ++g) {
    int owner = 0;
    while (!(g >= off[static_cast<std::size_t>(owner)] && g < off[static_cast<std::size_t>(owner) + 1])) ++owner;
    EXPECT_EQ(m->owner(g), owner) << "block " << g;
    EXPECT_EQ(m->owns(g), owner == comm.rank());
    EXPECT_EQ(m->globalToLocal(g), owner == comm.rank() ? g - m->ownedBegin() : -1);
  }
  for (LocalIndex l = 0; l < m->localBlocks(); ++l) EXPECT_EQ(m->localToGlobal(l), m->ownedBegin() + l);
  EXPECT_TRUE(m->compatible(*la::IndexMap::uniform(comm, n, bs)));
  EXPECT_FALSE(m->compatible(*la::IndexMap::uniform(comm, n + 1, bs)));
  EXPECT_FALSE(m->compatible(*la::IndexMap::uniform(comm, n, bs + 1)));
}

TEST(IndexMap, UniformSplitOnWorld) {
  for (GlobalIndex n : {0, 1, 7, 10, 33})
    for (int bs : {1, 3}) checkUniform(Comm::world(), n, bs);
}

TEST(IndexMap, UniformSplitOnSelf) {
  for (GlobalIndex n : {0, 5, 12}) checkUniform(Comm::self(), n, 2);
}

TEST(IndexMap, ExplicitCountsAndGhosts) {
  Comm w = Comm::world();
  const int p = w.size(), r = w.rank();
  // Rank r owns r + 2 blocks; it ghosts the first block of the next rank and the last of the
  // previous one (when those are other ranks).
  std::vector<GlobalIndex> off(static_cast<std::size_t>(p) + 1, 0);
  for (int q = 0; q < p; ++q) off[static_cast<std::size_t>(q) + 1] = off[static_cast<std::size_t>(q)] + q + 2;
  std::vector<GlobalIndex> ghosts;
  if (p > 1) {
    ghosts.push_back(off[static_cast<std::size_t>((r + 1) % p)]);
    GlobalIndex prevLast = off[static_cast<std::size_t>((r + p - 1) % p) + 1] - 1;
    if (prevLast != ghosts.front()) ghosts.push_back(prevLast);
  }
  la::IndexMap m(w, r + 2, ghosts, 2);
  EXPECT_EQ(m.rankOffsets(), off);
  EXPECT_EQ(m.ownedBlocks(), r + 2);
  EXPECT_EQ(m.ghosts(), ghosts);
  EXPECT_EQ(m.localBlocks(), r + 2 + static_cast<LocalIndex>(ghosts.size()));
  EXPECT_EQ(m.localSize(), 2 * m.localBlocks());
  for (std::size_t k = 0; k < ghosts.size(); ++k) {
    const LocalIndex l = m.ownedBlocks() + static_cast<LocalIndex>(k);
    EXPECT_EQ(m.globalToLocal(ghosts[k]), l);
    EXPECT_EQ(m.localToGlobal(l), ghosts[k]);
    EXPECT_FALSE(m.owns(ghosts[k]));
    EXPECT_NE(m.owner(ghosts[k]), r);
  }
  // Ghosts do not affect compatibility, only the distribution does.
  la::IndexMap plain(w, r + 2, {}, 2);
  EXPECT_TRUE(m.compatible(plain));
}

TEST(IndexMap, RejectsBadGhosts) {
  Comm self = Comm::self();
  EXPECT_THROW(la::IndexMap(self, 4, {2}), Error);   // owned by this rank
  EXPECT_THROW(la::IndexMap(self, 4, {9}), Error);   // outside the global range
  EXPECT_THROW(la::IndexMap(self, 4, {}, 0), Error);  // block size
  auto m = la::IndexMap::uniform(self, 4);
  EXPECT_THROW(m->owner(4), Error);
  EXPECT_THROW(m->localToGlobal(4), Error);
  EXPECT_EQ(m->globalToLocal(7), -1);
}

}  // namespace
}  // namespace kinema::test

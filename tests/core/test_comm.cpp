// Comm collectives and the timers' cross-rank summary, at 1 and 2 ranks.
#include <gtest/gtest.h>

#include "framework/core/comm.hpp"
#include "framework/core/progress.hpp"
#include "framework/core/timer.hpp"

using namespace kinema;

TEST(Comm, Reductions) {
  Comm c = Comm::world();
  const int p = c.size(), r = c.rank();
  EXPECT_DOUBLE_EQ(c.sum(1.0 + r), p * (p + 1) / 2.0);
  EXPECT_DOUBLE_EQ(c.min(static_cast<double>(r)), 0.0);
  EXPECT_DOUBLE_EQ(c.max(static_cast<double>(r)), p - 1.0);
  EXPECT_EQ(c.sum(std::int64_t{2}), 2 * p);
  EXPECT_EQ(c.exscan(std::int64_t{3}), 3 * r);
  EXPECT_TRUE(c.any(r == p - 1));
  EXPECT_FALSE(c.all(r == 0 && p > 1));
  auto g = c.allgather(std::int64_t{r * 10});
  ASSERT_EQ(static_cast<int>(g.size()), p);
  for (int i = 0; i < p; ++i) EXPECT_EQ(g[i], 10 * i);
  EXPECT_EQ(c.broadcast(r == 0 ? std::string("from root") : std::string("x")), "from root");
}

TEST(Comm, VariableCollectives) {
  Comm c = Comm::world();
  const int p = c.size(), r = c.rank();
  // Rank r contributes r + 1 values r + 0.5.
  std::vector<double> mine(static_cast<std::size_t>(r + 1), r + 0.5);
  std::vector<double> all = c.allgatherv(mine);
  ASSERT_EQ(static_cast<int>(all.size()), p * (p + 1) / 2);
  std::size_t k = 0;
  for (int s = 0; s < p; ++s)
    for (int i = 0; i <= s; ++i) EXPECT_EQ(all[k++], s + 0.5);
  std::vector<std::int64_t> ids = c.allgatherv(std::vector<std::int64_t>{r});
  ASSERT_EQ(static_cast<int>(ids.size()), p);
  for (int s = 0; s < p; ++s) EXPECT_EQ(ids[s], s);
  // Rank r sends to rank s the s + 1 values 100 r + s (as int64 and as double).
  std::vector<std::vector<std::int64_t>> si(static_cast<std::size_t>(p));
  std::vector<std::vector<double>> sd(static_cast<std::size_t>(p));
  for (int s = 0; s < p; ++s) {
    si[s].assign(static_cast<std::size_t>(s + 1), 100 * r + s);
    sd[s].assign(static_cast<std::size_t>(s + 1), 100.0 * r + s + 0.25);
  }
  auto ri = c.alltoallv(si);
  auto rd = c.alltoallv(sd);
  auto rk = c.alltoallv(sd, std::vector<std::size_t>(static_cast<std::size_t>(p), static_cast<std::size_t>(r + 1)));
  EXPECT_EQ(rk, rd);
  ASSERT_EQ(static_cast<int>(ri.size()), p);
  for (int s = 0; s < p; ++s) {
    ASSERT_EQ(static_cast<int>(ri[s].size()), r + 1);
    ASSERT_EQ(static_cast<int>(rd[s].size()), r + 1);
    for (int i = 0; i <= r; ++i) {
      EXPECT_EQ(ri[s][i], 100 * s + r);
      EXPECT_EQ(rd[s][i], 100.0 * s + r + 0.25);
    }
  }
}

TEST(Timers, AccumulateAndSummarise) {
  timers::reset();
  { ScopedTimer t("unit.a"); }
  { ScopedTimer t("unit.a"); }
  EXPECT_EQ(timers::count("unit.a"), 2);
  EXPECT_GE(timers::total("unit.a"), 0.0);
  std::string s = timers::summary(Comm::world());
  EXPECT_NE(s.find("unit.a"), std::string::npos);
  EXPECT_NE(s.find("calls"), std::string::npos);
}

TEST(Progress, DurationFormat) {
  EXPECT_EQ(Progress::formatDuration(3661), "1:01:01");
  EXPECT_EQ(Progress::formatDuration(-1), "?");
}

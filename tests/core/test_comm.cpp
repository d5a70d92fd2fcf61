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

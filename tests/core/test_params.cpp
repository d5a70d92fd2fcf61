// ParamSchema: declarations are checked, ranges print, suggestions are close.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "framework/core/error.hpp"
#include "framework/core/params.hpp"
#include "framework/core/registry.hpp"

using namespace kinema;

TEST(Params, RangeContainsAndDescribes) {
  EXPECT_TRUE(Range::closed(0, 1).contains(0));
  EXPECT_FALSE(Range::leftOpen(0, 1).contains(0));
  EXPECT_TRUE(Range::leftOpen(0, 1).contains(1));
  EXPECT_FALSE(Range::positive().contains(0));
  EXPECT_FALSE(Range::any().contains(std::nan("")));
  EXPECT_EQ(Range::closed(2, 8).describe(), "[2, 8]");
  EXPECT_EQ(Range::positive().describe(), "> 0");
  EXPECT_EQ(Range::atLeast(1).describe(), ">= 1");
  EXPECT_EQ(Range::any().describe(), "");
}

TEST(Params, DeclarationsAreChecked) {
  ParamSchema s;
  s.addInt("a.n", 3, Range::closed(1, 5), "n");
  EXPECT_THROW(s.addInt("a.n", 3, Range::closed(1, 5), "again"), Error);       // twice
  EXPECT_THROW(s.addInt("a.m", 9, Range::closed(1, 5), "out of range"), Error);  // bad default
  EXPECT_THROW(s.addReal("a.r", 1.0, Range::any(), ""), Error);                // no help
  EXPECT_THROW(s.addChoice("a.c", "z", {"x", "y"}, "choice"), Error);          // bad default
}

TEST(Params, ClosestAndDescribe) {
  ParamSchema s;
  s.addInt("poisson.n", 16, Range::closed(2, 4096), "cells per direction");
  s.addInt("poisson.levels", 1, Range::closed(1, 8), "levels");
  EXPECT_EQ(s.closest("poisson.level"), "poisson.levels");
  EXPECT_EQ(s.closest("poison"), "poisson");
  EXPECT_EQ(s.closest("completely.different"), "");
  std::string d = s.describe("poisson");
  EXPECT_NE(d.find("poisson.n  (integer, default 16, range [2, 4096])"), std::string::npos) << d;
  EXPECT_NE(d.find("cells per direction"), std::string::npos);
  EXPECT_TRUE(s.isGroup("poisson"));
  EXPECT_FALSE(s.isGroup("poisson.n"));
}

TEST(Params, EditDistance) {
  EXPECT_EQ(editDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(editDistance("", "abc"), 3u);
  EXPECT_EQ(editDistance("same", "same"), 0u);
  // Bounded: the distance when it is within the limit, else limit + 1.
  EXPECT_EQ(editDistanceAtMost("kitten", "sitting", 3), 3u);
  EXPECT_EQ(editDistanceAtMost("kitten", "sitting", 2), 3u);
  EXPECT_EQ(editDistanceAtMost("kitten", "sitting", 0), 1u);
  EXPECT_EQ(editDistanceAtMost("abc", "abcdefgh", 4), 5u);  // by the lengths alone
  EXPECT_EQ(editDistanceAtMost("same", "same", 0), 0u);
  EXPECT_EQ(editDistanceAtMost("", "", 0), 0u);
}

// closest() measures each candidate only up to the best distance so far: it must return what the
// plain search (every key and group, full edit distance, the first at the smallest distance within
// max(2, |last component| / 3)) returns, on a schema of many keys and on queries near and far.
TEST(Params, ClosestAgreesWithThePlainSearch) {
  ParamSchema s;
  const std::vector<std::string> keys{"bdem.scene.generator", "bdem.scene.beam_drape.length", "bdem.scene.beam_drape.radius",
                                      "bdem.newton.linear.rtol", "bdem.newton.linear.preconditioner", "bdem.dt",
                                      "bdem.steps", "run.max_wall", "run.max_memory", "output.directory",
                                      "output.frame_every", "der.optimize.k_max", "der.optimize.mu", "avi.scene.eta"};
  for (const auto& k : keys) s.addReal(k, 1.0, Range::any(), "a value");
  auto plain = [&](const std::string& key) {
    std::vector<std::string> candidates;
    for (const auto& k : keys) {
      candidates.push_back(k);
      for (std::size_t p = k.find('.'); p != std::string::npos; p = k.find('.', p + 1)) candidates.push_back(k.substr(0, p));
    }
    std::string best;
    std::size_t bestD = std::string::npos;
    for (const auto& c : candidates)
      if (editDistance(key, c) < bestD) bestD = editDistance(key, c), best = c;
    const std::string last = key.substr(key.rfind('.') == std::string::npos ? 0 : key.rfind('.') + 1);
    return bestD <= std::max<std::size_t>(2, last.size() / 3) ? best : std::string{};
  };
  const std::vector<std::string> queries{"bdem.stepz", "bdem.scene.beam_drape.lenght", "bdem.newton.linear.rtl",
                                         "bdm", "run.max_wal", "output.frame_evry", "der.optimize.kmax",
                                         "avi.scene.etaa", "bdem", "run", "ouput", "bdem.newton.linear.preconditoner",
                                         "x", "completely.unrelated.key", "bdem.scene.generatr", "der.optimise"};
  int suggested = 0;
  for (const auto& q : queries) {
    EXPECT_EQ(s.closest(q), plain(q)) << q;
    suggested += !plain(q).empty();
  }
  EXPECT_GE(suggested, 10);  // the queries exercise suggestions, not only refusals
}

TEST(Registry, SuggestsAndListsOnUnknownName) {
  struct E {
    std::string name, help;
  };
  NamedRegistry<E> r("backend");
  r.add({"eigen", "one rank"});
  r.add({"petsc", "MPI"});
  EXPECT_THROW(r.add({"eigen", "again"}), Error);
  try {
    r.get("petcs");
    FAIL();
  } catch (const InputError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("unknown backend 'petcs'; did you mean 'petsc'?"), std::string::npos) << m;
    EXPECT_NE(m.find("registered: eigen, petsc"), std::string::npos) << m;
  }
}

TEST(Error, ContextLinesFollowTheMessage) {
  Error e("solve failed");
  e.addContext("while solving level 2");
  e.addContext("in scene demo.yaml");
  EXPECT_EQ(std::string(e.what()), "solve failed\n  while solving level 2\n  in scene demo.yaml");
  EXPECT_EQ(e.message(), "solve failed");
}

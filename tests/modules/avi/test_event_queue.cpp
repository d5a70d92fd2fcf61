// The indexed event queue of the AVI (modules/avi/event_queue.hpp): (time, seq) order, handles,
// update / remove, and random operations against a reference (a sorted set of keys). This
// executable also replaces the global operator new with a counting one to check "no heap
// allocation per event" (DESIGN.md) for the queue and for the engine's hot loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "allocation_counter.hpp"
#include "modules/avi/engine.hpp"
#include "modules/avi/event_queue.hpp"
#include "modules/avi/force_element.hpp"

using kinema::test::g_allocations;

namespace kinema::avi {
namespace {

TEST(AviEventQueue, PopsByTimeThenBySequence) {
  EventQueue q;
  // Equal times pop in push order (seq tie-break); distinct times in time order.
  q.push(2.0, Event{EventKind::Force, 0, 0});
  q.push(1.0, Event{EventKind::Force, 1, 0});
  q.push(2.0, Event{EventKind::Force, 2, 0});
  q.push(1.0, Event{EventKind::Penalty, 3, 7});
  q.push(0.5, Event{EventKind::Cert, 4, 0});
  const int expected[] = {4, 1, 3, 0, 2};
  for (int id : expected) {
    double t;
    const Event e = q.pop(t);
    EXPECT_EQ(e.id, id);
    if (id == 3) {
      EXPECT_EQ(e.kind, EventKind::Penalty);
      EXPECT_EQ(e.aux, 7);
    }
    EXPECT_TRUE(q.valid());
  }
  EXPECT_TRUE(q.empty());
}

TEST(AviEventQueue, MinBoundEqualsTheBruteForceMinimum) {
  // minBound (the certificate lookahead's walk, README decision 53) against the minimum over all
  // queued events, for a bound t + delay(event) >= t, on random queues with updates and removals,
  // with and without a limit below the answer.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  std::vector<std::int32_t> stack;
  int pruned = 0;
  for (int trial = 0; trial < 200; ++trial) {
    EventQueue q;
    std::vector<double> delay;
    std::vector<EventQueue::Handle> handles;
    const int n = 1 + static_cast<int>(rng() % 300);
    for (int i = 0; i < n; ++i) {
      delay.push_back(U(rng) < 0.3 ? 0.0 : 0.5 * U(rng));
      handles.push_back(q.push(U(rng), Event{EventKind::Cert, i, 0}));
    }
    for (int i = 0; i < n / 4; ++i) q.update(handles[rng() % handles.size()], U(rng));
    std::set<int> removed;
    for (int i = 0; i < n / 8; ++i) {
      const int k = static_cast<int>(rng() % handles.size());
      if (removed.insert(k).second) q.remove(handles[static_cast<std::size_t>(k)]);
    }
    int visited = 0;
    const auto bound = [&](double t, const Event& e) {
      ++visited;
      return t + delay[static_cast<std::size_t>(e.id)];
    };
    double brute = std::numeric_limits<double>::infinity();
    for (int k = 0; k < n; ++k)
      if (!removed.count(k)) brute = std::min(brute, q.time(handles[static_cast<std::size_t>(k)]) + delay[static_cast<std::size_t>(k)]);
    EXPECT_EQ(q.minBound(bound, std::numeric_limits<double>::infinity(), stack), brute) << "trial " << trial;
    if (visited < static_cast<int>(q.size())) ++pruned;
    const double limit = 0.5 * brute;
    EXPECT_EQ(q.minBound(bound, limit, stack), limit) << "trial " << trial;
  }
  EXPECT_GT(pruned, 100) << "the walk should skip subtrees past the best bound";
}

TEST(AviEventQueue, UpdateGivesAFreshSequenceAndRemoveDrops) {
  EventQueue q;
  const auto a = q.push(1.0, Event{EventKind::Cert, 0, 0});
  const auto b = q.push(1.0, Event{EventKind::Cert, 1, 0});
  const auto c = q.push(3.0, Event{EventKind::Cert, 2, 0});
  q.update(a, 1.0);  // same time, new seq: now after b
  EXPECT_EQ(q.top().id, 1);
  q.update(c, 0.25);  // earlier
  EXPECT_EQ(q.top().id, 2);
  q.remove(b);
  EXPECT_FALSE(q.contains(b));
  EXPECT_TRUE(q.valid());
  double t;
  EXPECT_EQ(q.pop(t).id, 2);
  EXPECT_EQ(t, 0.25);
  EXPECT_EQ(q.pop(t).id, 0);
  EXPECT_TRUE(q.empty());
  // Freed handles are reused, not grown.
  const auto d = q.push(5.0, Event{});
  EXPECT_TRUE(d == a || d == b || d == c);
}

TEST(AviEventQueue, RandomOperationsMatchASortedReference) {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> time(0.0, 10.0);
  std::uniform_int_distribution<int> op(0, 9);
  EventQueue q;
  // Reference: key (time, seq) -> id, plus handle -> id and id -> handle.
  std::set<std::tuple<double, std::uint64_t, int>> ref;
  std::map<int, EventQueue::Handle> handleOf;
  std::map<int, std::pair<double, std::uint64_t>> keyOf;
  int nextId = 0;
  // Times are drawn from a small set half of the time to force ties.
  auto draw = [&]() { return op(rng) < 5 ? std::floor(time(rng)) : time(rng); };
  for (int step = 0; step < 20000; ++step) {
    const int o = op(rng);
    if (o <= 3 || ref.empty()) {
      const double t = draw();
      const int id = nextId++;
      const std::uint64_t s = q.nextSeq();
      const auto h = q.push(t, Event{EventKind::Force, id, 0});
      ref.insert({t, s, id});
      handleOf[id] = h;
      keyOf[id] = {t, s};
    } else if (o <= 5) {
      double t;
      const Event e = q.pop(t);
      ASSERT_EQ(e.id, std::get<2>(*ref.begin()));
      ASSERT_EQ(t, std::get<0>(*ref.begin()));
      ref.erase(ref.begin());
      handleOf.erase(e.id);
      keyOf.erase(e.id);
    } else {
      // update or remove a random live event
      auto it = handleOf.begin();
      std::advance(it, std::uniform_int_distribution<std::size_t>(0, handleOf.size() - 1)(rng));
      const int id = it->first;
      const auto h = it->second;
      ASSERT_EQ(q.event(h).id, id);
      ref.erase({keyOf[id].first, keyOf[id].second, id});
      if (o <= 7) {
        const double t = draw();
        const std::uint64_t s = q.nextSeq();
        q.update(h, t);
        ref.insert({t, s, id});
        keyOf[id] = {t, s};
      } else {
        q.remove(h);
        handleOf.erase(id);
        keyOf.erase(id);
      }
    }
    ASSERT_EQ(q.size(), ref.size());
    if (!ref.empty()) {
      ASSERT_EQ(q.top().id, std::get<2>(*ref.begin()));
    }
    if (step % 997 == 0) {
      ASSERT_TRUE(q.valid());
    }
  }
}

TEST(AviEventQueue, SaveLoadContinuesInTheSameOrder) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> time(0.0, 4.0);
  EventQueue q;
  for (int i = 0; i < 200; ++i) q.push(std::floor(4 * time(rng)) / 4, Event{EventKind::Penalty, i, i % 5});
  for (int i = 0; i < 50; ++i) {
    double t;
    q.pop(t);
  }
  std::vector<double> R;
  std::vector<std::int64_t> I;
  q.save(R, I);
  EventQueue r;
  std::size_t ri = 0, ii = 0;
  r.load(R, ri, I, ii);
  EXPECT_EQ(ri, R.size());
  EXPECT_EQ(ii, I.size());
  ASSERT_EQ(r.size(), q.size());
  EXPECT_EQ(r.nextSeq(), q.nextSeq());
  while (!q.empty()) {
    double t1, t2;
    const Event a = q.pop(t1), b = r.pop(t2);
    ASSERT_EQ(a.id, b.id);
    ASSERT_EQ(t1, t2);
  }
}

TEST(AviEventQueue, NoAllocationAfterWarmUp) {
  EventQueue q;
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  std::vector<EventQueue::Handle> live;
  live.reserve(1000);
  auto churn = [&]() {
    for (int i = 0; i < 1000; ++i) live.push_back(q.push(U(rng), Event{}));
    for (int i = 0; i < 500; ++i) q.update(live[i], U(rng) + 1.0);
    for (int i = 500; i < 700; ++i) q.remove(live[i]);
    double t;
    while (!q.empty()) q.pop(t);
    live.clear();
  };
  churn();
  const long before = g_allocations.load();
  churn();
  EXPECT_EQ(g_allocations.load() - before, 0);
}

TEST(AviEngineHotLoop, NoAllocationPerEventAfterWarmUp) {
  // Spring on a plane (Appendix A): material, gravity, penalty and certificate events. After
  // the first bounces (warm-up: layer clocks, queue slots) the loop must not allocate.
  Scene s;
  s.dim = 3;
  s.vertices.resize(2);
  s.isolated.assign(2, 1);
  s.eta = 0.1;
  s.k = 1000.0;
  s.vertices.x[0] = Vec3(0, 0, 1);
  s.vertices.x[1] = Vec3(0, 0, 2);
  ForceElement sp = makeSpring(0, 1, s.vertices.x[0], s.vertices.x[1], 1.0, 0.0);
  sp.h = 0.01;
  s.forces.push_back(sp);
  for (int a = 0; a < 2; ++a) {
    ForceElement g = makeGravity(a, 1.0, Vec3(0, 0, -1));
    g.h = 0.01;
    s.forces.push_back(g);
  }
  s.contactPoints = {0, 1};
  s.planes.push_back(Plane{});
  EngineOptions o;
  o.broadPhase = "all";
  Engine e(s, o);
  e.advanceTo(20.0);
  const Counters c0 = e.counters();
  const long before = g_allocations.load();
  e.advanceTo(60.0);
  const long allocated = g_allocations.load() - before;
  EXPECT_GT(e.counters().penaltyKicks - c0.penaltyKicks, 1000);
  EXPECT_GT(e.counters().certReschedules - c0.certReschedules, 1000);
  EXPECT_EQ(allocated, 0);
}

}  // namespace
}  // namespace kinema::avi

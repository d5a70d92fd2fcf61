// Contact islands (union-find, static bodies never merge) and the greedy contact colouring.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <queue>
#include <random>
#include <set>

#include "framework/core/error.hpp"
#include "framework/geometry/contact_graph.hpp"

using namespace kinema;
using namespace kinema::geometry;

namespace {

std::vector<std::int32_t> vec(std::span<const std::int32_t> s) { return {s.begin(), s.end()}; }

// No two contacts of one colour share a dynamic body; every non static-static contact is coloured;
// at most Delta + 1 colours, Delta the conflict-graph degree. Returns the number of colours.
int checkColouring(const ContactGraph& g, std::span<const BodyPair> contacts,
                   std::span<const std::uint8_t> isStatic) {
  auto dynamic = [&](std::int32_t b) { return isStatic.empty() || isStatic[b] == 0; };
  const auto colour = g.colourOfContact();
  std::vector<std::vector<std::int32_t>> incident(g.numBodies());
  for (std::size_t c = 0; c < contacts.size(); ++c) {
    const bool any = dynamic(contacts[c].i) || dynamic(contacts[c].j);
    EXPECT_EQ(colour[c] >= 0, any) << "contact " << c;
    if (dynamic(contacts[c].i)) incident[contacts[c].i].push_back(static_cast<std::int32_t>(c));
    if (dynamic(contacts[c].j)) incident[contacts[c].j].push_back(static_cast<std::int32_t>(c));
  }
  for (const auto& list : incident)
    for (std::size_t x = 0; x < list.size(); ++x)
      for (std::size_t y = x + 1; y < list.size(); ++y)
        EXPECT_NE(colour[list[x]], colour[list[y]]) << "contacts " << list[x] << ", " << list[y];
  int delta = 0;
  for (std::size_t c = 0; c < contacts.size(); ++c) {
    std::set<std::int32_t> conflicts;
    for (std::int32_t b : {contacts[c].i, contacts[c].j})
      if (dynamic(b))
        for (std::int32_t e : incident[b])
          if (e != static_cast<std::int32_t>(c)) conflicts.insert(e);
    delta = std::max(delta, static_cast<int>(conflicts.size()));
  }
  EXPECT_LE(g.numColours(), delta + 1);
  // contactsOfColour lists exactly the contacts of each colour, ascending.
  std::size_t listed = 0;
  for (std::int32_t k = 0; k < g.numColours(); ++k) {
    const auto list = g.contactsOfColour(k);
    EXPECT_FALSE(list.empty());
    EXPECT_TRUE(std::is_sorted(list.begin(), list.end()));
    for (std::int32_t c : list) EXPECT_EQ(colour[c], k);
    listed += list.size();
  }
  EXPECT_EQ(listed, static_cast<std::size_t>(std::count_if(colour.begin(), colour.end(), [](auto x) { return x >= 0; })));
  return g.numColours();
}

}  // namespace

TEST(ContactGraph, Chain) {
  std::vector<BodyPair> contacts = {{0, 1}, {1, 2}, {3, 2}, {3, 4}};
  ContactGraph g;
  g.build(5, {}, contacts);
  EXPECT_EQ(g.numIslands(), 1);
  EXPECT_EQ(vec(g.islandBodies(0)), (std::vector<std::int32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(vec(g.islandContacts(0)), (std::vector<std::int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(checkColouring(g, contacts, {}), 2);  // a path is 2-colourable and greedy finds it
}

TEST(ContactGraph, Rings) {
  for (int n : {5, 6}) {
    std::vector<BodyPair> contacts;
    for (int k = 0; k < n; ++k) contacts.push_back({k, (k + 1) % n});
    ContactGraph g;
    g.build(n, {}, contacts);
    EXPECT_EQ(g.numIslands(), 1);
    EXPECT_EQ(checkColouring(g, contacts, {}), n % 2 ? 3 : 2) << "ring of " << n;
  }
}

TEST(ContactGraph, SeveralComponentsSortedBySmallestBody) {
  // Components {2, 5, 7}, {0, 3}, {1}, {4, 6} given in scrambled order.
  std::vector<BodyPair> contacts = {{7, 5}, {6, 4}, {3, 0}, {2, 7}};
  ContactGraph g;
  g.build(8, {}, contacts);
  ASSERT_EQ(g.numIslands(), 4);
  EXPECT_EQ(vec(g.islandBodies(0)), (std::vector<std::int32_t>{0, 3}));
  EXPECT_EQ(vec(g.islandBodies(1)), (std::vector<std::int32_t>{1}));
  EXPECT_EQ(vec(g.islandBodies(2)), (std::vector<std::int32_t>{2, 5, 7}));
  EXPECT_EQ(vec(g.islandBodies(3)), (std::vector<std::int32_t>{4, 6}));
  EXPECT_TRUE(g.islandContacts(1).empty());  // an isolated body is an island without contacts
  EXPECT_EQ(vec(g.islandContacts(2)), (std::vector<std::int32_t>{0, 3}));
  EXPECT_EQ(vec(g.islandOfContact()), (std::vector<std::int32_t>{2, 3, 0, 2}));
  checkColouring(g, contacts, {});
}

TEST(ContactGraph, StaticBodiesSplitComponents) {
  // Three balls on the floor (body 3, static): three islands, one colour.
  std::vector<BodyPair> contacts = {{0, 3}, {3, 1}, {2, 3}};
  std::vector<std::uint8_t> isStatic = {0, 0, 0, 1};
  ContactGraph g;
  g.build(4, isStatic, contacts);
  EXPECT_EQ(g.numIslands(), 3);
  EXPECT_EQ(vec(g.islandOfBody()), (std::vector<std::int32_t>{0, 1, 2, -1}));
  EXPECT_EQ(vec(g.islandOfContact()), (std::vector<std::int32_t>{0, 1, 2}));
  EXPECT_EQ(checkColouring(g, contacts, isStatic), 1);

  // A chain broken by a static wall: 0-1-W-2-3, plus a wall-floor contact (static-static).
  contacts = {{0, 1}, {1, 4}, {4, 2}, {2, 3}, {4, 5}};
  isStatic = {0, 0, 0, 0, 1, 1};
  g.build(6, isStatic, contacts);
  ASSERT_EQ(g.numIslands(), 2);
  EXPECT_EQ(vec(g.islandBodies(0)), (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(vec(g.islandBodies(1)), (std::vector<std::int32_t>{2, 3}));
  EXPECT_EQ(vec(g.islandContacts(0)), (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(vec(g.islandContacts(1)), (std::vector<std::int32_t>{2, 3}));
  EXPECT_EQ(g.islandOfContact()[4], -1);
  EXPECT_EQ(g.colourOfContact()[4], -1);
  checkColouring(g, contacts, isStatic);
}

TEST(ContactGraph, RandomGraphMatchesBfsAndIsDeterministic) {
  const int n = 3000;
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> body(0, n - 1);
  std::vector<std::uint8_t> isStatic(n, 0);
  for (int k = 0; k < 40; ++k) isStatic[body(rng)] = 1;
  std::vector<BodyPair> contacts;
  while (contacts.size() < 2500) {
    const int a = body(rng), b = body(rng);
    if (a != b) contacts.push_back({a, b});
  }
  for (int k = 0; k < 200; ++k) contacts.push_back(contacts[body(rng) % 2500]);  // multi-contacts
  ContactGraph g;
  g.build(n, isStatic, contacts);

  // Reference components by BFS over dynamic-dynamic edges.
  std::vector<std::vector<int>> adj(n);
  for (const auto& c : contacts)
    if (!isStatic[c.i] && !isStatic[c.j]) adj[c.i].push_back(c.j), adj[c.j].push_back(c.i);
  std::vector<int> comp(n, -1);
  int numComp = 0;
  for (int s = 0; s < n; ++s) {
    if (isStatic[s] || comp[s] >= 0) continue;
    std::queue<int> q;
    q.push(s);
    comp[s] = numComp;
    while (!q.empty()) {
      const int v = q.front();
      q.pop();
      for (int w : adj[v])
        if (comp[w] < 0) comp[w] = numComp, q.push(w);
    }
    ++numComp;  // scanning s ascending numbers components by smallest body, as documented
  }
  EXPECT_EQ(g.numIslands(), numComp);
  for (int b = 0; b < n; ++b) EXPECT_EQ(g.islandOfBody()[b], comp[b]) << "body " << b;
  for (std::size_t c = 0; c < contacts.size(); ++c) {
    const auto& p = contacts[c];
    const int expect = !isStatic[p.i] ? comp[p.i] : !isStatic[p.j] ? comp[p.j] : -1;
    EXPECT_EQ(g.islandOfContact()[c], expect);
  }
  std::size_t bodies = 0;
  for (std::int32_t i = 0; i < g.numIslands(); ++i) {
    auto list = g.islandBodies(i);
    EXPECT_TRUE(std::is_sorted(list.begin(), list.end()));
    EXPECT_EQ(list.front(), *std::min_element(list.begin(), list.end()));
    if (i > 0) {
      EXPECT_GT(list.front(), g.islandBodies(i - 1).front());
    }
    bodies += list.size();
  }
  EXPECT_EQ(bodies, static_cast<std::size_t>(n - std::count(isStatic.begin(), isStatic.end(), 1)));
  const int colours = checkColouring(g, contacts, isStatic);
  EXPECT_GE(colours, 3);

  // Rebuilding (buffers reused) gives identical output.
  const auto islands = vec(g.islandOfContact()), colourOf = vec(g.colourOfContact());
  g.build(n, isStatic, contacts);
  EXPECT_EQ(vec(g.islandOfContact()), islands);
  EXPECT_EQ(vec(g.colourOfContact()), colourOf);
}

TEST(ContactGraph, StarUsesDegreeColours) {
  // One dynamic body touching 50 others: every contact conflicts with all the others.
  std::vector<BodyPair> contacts;
  for (int k = 1; k <= 50; ++k) contacts.push_back({0, k});
  ContactGraph g;
  g.build(51, {}, contacts);
  EXPECT_EQ(checkColouring(g, contacts, {}), 50);
}

TEST(ContactGraph, InvalidContactsNameTheIndex) {
  ContactGraph g;
  std::vector<BodyPair> bad = {{0, 1}, {1, 9}};
  try {
    g.build(3, {}, bad);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("contact 1"), std::string::npos) << e.what();
  }
  bad = {{2, 2}};
  EXPECT_THROW(g.build(3, {}, bad), InputError);
  std::vector<std::uint8_t> flags(2, 0);
  EXPECT_THROW(g.build(3, flags, std::vector<BodyPair>{}), InputError);
}

#include "framework/geometry/contact_graph.hpp"

#include <algorithm>

#include "framework/core/error.hpp"

namespace kinema::geometry {

namespace {

// Counting-sort style CSR: start[k] .. start[k + 1] lists the items with key k, in item order.
void buildCsr(std::span<const std::int32_t> keyOfItem, std::int32_t numKeys,
              std::vector<std::int32_t>& start, std::vector<std::int32_t>& items) {
  start.assign(static_cast<std::size_t>(numKeys) + 1, 0);
  std::int32_t total = 0;
  for (std::int32_t key : keyOfItem)
    if (key >= 0) ++start[key + 1], ++total;
  for (std::int32_t k = 0; k < numKeys; ++k) start[k + 1] += start[k];
  items.resize(static_cast<std::size_t>(total));
  for (std::size_t i = 0; i < keyOfItem.size(); ++i)
    if (keyOfItem[i] >= 0) items[start[keyOfItem[i]]++] = static_cast<std::int32_t>(i);
  for (std::int32_t k = numKeys; k > 0; --k) start[k] = start[k - 1];
  start[0] = 0;
}

}  // namespace

std::int32_t ContactGraph::find(std::int32_t b) {
  while (parent_[b] != b) {
    parent_[b] = parent_[parent_[b]];  // path halving
    b = parent_[b];
  }
  return b;
}

void ContactGraph::build(std::int32_t numBodies, std::span<const std::uint8_t> isStatic,
                         std::span<const BodyPair> contacts) {
  if (numBodies < 0) throw InputError(str("contact graph: negative body count ", numBodies));
  if (!isStatic.empty() && isStatic.size() != static_cast<std::size_t>(numBodies))
    throw InputError(str("contact graph: ", isStatic.size(), " static flags for ", numBodies,
                         " bodies"));
  const auto numContacts = static_cast<std::int32_t>(contacts.size());
  for (std::int32_t c = 0; c < numContacts; ++c) {
    const BodyPair& p = contacts[c];
    if (p.i < 0 || p.i >= numBodies || p.j < 0 || p.j >= numBodies)
      throw InputError(str("contact graph: contact ", c, " joins bodies ", p.i, " and ", p.j,
                           ", outside [0, ", numBodies, ")"));
    if (p.i == p.j)
      throw InputError(str("contact graph: contact ", c, " joins body ", p.i, " to itself"));
  }
  numBodies_ = numBodies;
  auto dynamic = [&](std::int32_t b) { return isStatic.empty() || isStatic[b] == 0; };

  // Union-find; the root of a set is its smallest body (link the larger root below the smaller).
  parent_.resize(static_cast<std::size_t>(numBodies));
  for (std::int32_t b = 0; b < numBodies; ++b) parent_[b] = b;
  for (const BodyPair& p : contacts) {
    if (!dynamic(p.i) || !dynamic(p.j)) continue;  // static bodies never merge components
    const std::int32_t ra = find(p.i), rb = find(p.j);
    if (ra != rb) parent_[std::max(ra, rb)] = std::min(ra, rb);
  }

  // Island ids in order of first (= smallest) body; a root is met before the rest of its set.
  islandOfBody_.assign(static_cast<std::size_t>(numBodies), -1);
  std::int32_t numIslands = 0;
  for (std::int32_t b = 0; b < numBodies; ++b) {
    if (!dynamic(b)) continue;
    const std::int32_t r = find(b);
    islandOfBody_[b] = r == b ? numIslands++ : islandOfBody_[r];
  }
  islandOfContact_.resize(static_cast<std::size_t>(numContacts));
  for (std::int32_t c = 0; c < numContacts; ++c) {
    const BodyPair& p = contacts[c];
    islandOfContact_[c] = dynamic(p.i) ? islandOfBody_[p.i] : dynamic(p.j) ? islandOfBody_[p.j] : -1;
  }
  buildCsr(islandOfBody_, numIslands, islandBodyStart_, islandBodies_);
  buildCsr(islandOfContact_, numIslands, islandContactStart_, islandContacts_);

  colour(contacts, isStatic);
}

void ContactGraph::colour(std::span<const BodyPair> contacts,
                          std::span<const std::uint8_t> isStatic) {
  const auto numContacts = static_cast<std::int32_t>(contacts.size());
  auto dynamic = [&](std::int32_t b) { return isStatic.empty() || isStatic[b] == 0; };

  // Dynamic body -> incident contacts, ascending.
  adjStart_.assign(static_cast<std::size_t>(numBodies_) + 1, 0);
  for (const BodyPair& p : contacts) {
    if (dynamic(p.i)) ++adjStart_[p.i + 1];
    if (dynamic(p.j)) ++adjStart_[p.j + 1];
  }
  for (std::int32_t b = 0; b < numBodies_; ++b) adjStart_[b + 1] += adjStart_[b];
  adj_.resize(static_cast<std::size_t>(adjStart_[numBodies_]));
  for (std::int32_t c = 0; c < numContacts; ++c) {
    const BodyPair& p = contacts[c];
    if (dynamic(p.i)) adj_[adjStart_[p.i]++] = c;
    if (dynamic(p.j)) adj_[adjStart_[p.j]++] = c;
  }
  for (std::int32_t b = numBodies_; b > 0; --b) adjStart_[b] = adjStart_[b - 1];
  adjStart_[0] = 0;

  // Greedy: the smallest colour not used by an earlier contact on either dynamic body. mark_ holds
  // the last contact that forbade each colour (a stamp, so it is never cleared).
  colourOfContact_.assign(static_cast<std::size_t>(numContacts), -1);
  mark_.assign(static_cast<std::size_t>(numContacts) + 1, -1);
  std::int32_t numColours = 0;
  for (std::int32_t c = 0; c < numContacts; ++c) {
    const std::int32_t ends[2] = {contacts[c].i, contacts[c].j};
    bool any = false;
    for (std::int32_t b : ends) {
      if (!dynamic(b)) continue;
      any = true;
      for (std::int32_t e = adjStart_[b]; e < adjStart_[b + 1] && adj_[e] < c; ++e)
        mark_[colourOfContact_[adj_[e]]] = c;
    }
    if (!any) continue;  // static-static: no unknowns, no colour
    std::int32_t k = 0;
    while (mark_[k] == c) ++k;
    colourOfContact_[c] = k;
    numColours = std::max(numColours, k + 1);
  }
  buildCsr(colourOfContact_, numColours, colourStart_, colourContacts_);
}

}  // namespace kinema::geometry

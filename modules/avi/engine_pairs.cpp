// avi::Engine's candidate pairs (broad phase): the owned pairs merged with a new broad-phase
// list (kept pairs keep their clocks, new ones are established), the vertex -> pair adjacency.
#include <algorithm>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"
#include "modules/avi/engine_impl.hpp"
#include "modules/avi/force_element.hpp"
#include "modules/avi/penalty_layer.hpp"

namespace kinema::avi {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

void Engine::Impl::dropPairEvents(ContactPair& p) {
  for (LayerClock& c : p.layers)
    if (c.handle >= 0) {
      remove(c.handle);
      c.handle = -1;
    }
  if (p.cert.handle >= 0) {
    remove(p.cert.handle);
    p.cert.handle = -1;
  }
}

void Engine::Impl::renumberPair(int pi) {
  // Kept pairs are renumbered monotonically (sorted merge), so their keys keep their relative
  // order and the heaps stay valid without reordering.
  ContactPair& p = pairs[pi];
  for (LayerClock& c : p.layers)
    if (c.handle >= 0) {
      payload(c.handle).id = pi;
      qOf(c.handle).setKeyInPlace(c.handle >> 2, keyOf(payload(c.handle)));
    }
  if (p.cert.handle >= 0) {
    payload(p.cert.handle).id = pi;
    qOf(p.cert.handle).setKeyInPlace(p.cert.handle >> 2, keyOf(payload(p.cert.handle)));
  }
}

void Engine::Impl::buildAdjacency() {
  const int n = scene.vertices.size();
  adjStart.assign(n + 1, 0);
  for (const ContactPair& p : pairs) {
    for (int i = 0; i < p.na; ++i) ++adjStart[p.a[i] + 1];
    for (int i = 0; i < p.nb; ++i) ++adjStart[p.b[i] + 1];
  }
  for (int a = 0; a < n; ++a) adjStart[a + 1] += adjStart[a];
  adjList.resize(adjStart[n]);
  cursor.assign(adjStart.begin(), adjStart.end() - 1);  // next free slot per vertex
  for (std::size_t pi = 0; pi < pairs.size(); ++pi) {
    const ContactPair& p = pairs[pi];
    for (int i = 0; i < p.na; ++i) adjList[cursor[p.a[i]]++] = static_cast<std::int32_t>(pi);
    for (int i = 0; i < p.nb; ++i) adjList[cursor[p.b[i]]++] = static_cast<std::int32_t>(pi);
  }
  stamp.assign(pairs.size(), 0);
}

void Engine::Impl::rebuildPairs(double t, bool initial, const EngineStart* start) {
  flushDirty();  // pair indices change below
  Section timer(*this, shares.broadPhase);
  if (!initial) broad.find(scene, scene.vertices, t, allKeys);
  mergePairs();
  startNewPairs(t, initial, start);
  resetBroadPhase(t);
  if (!initial) ++counters.broadPhaseRebuilds;
}

// The owned keys of allKeys become the pairs (isNew marks the new ones).
void Engine::Impl::mergePairs() {
  const Vertices& V = scene.vertices;
  keys.clear();
  for (const PairKey& key : allKeys)
    if (ownsPair(key)) keys.push_back(key);
  // Merge the sorted old and new lists: kept pairs keep their clocks and certificates; dropped
  // pairs are more than 2 eta + delta apart (the broad phase certifies every layer inactive), so
  // their events go; new pairs are established at t.
  newPairs.clear();
  isNew.clear();
  std::size_t o = 0;
  for (const PairKey& key : keys) {
    while (o < pairs.size() && pairs[o].key < key) dropPairEvents(pairs[o++]);
    if (o < pairs.size() && pairs[o].key == key) {
      newPairs.push_back(std::move(pairs[o++]));
      isNew.push_back(0);
    } else {
      newPairs.push_back(makePair(key, V));
      isNew.push_back(1);
    }
  }
  while (o < pairs.size()) dropPairEvents(pairs[o++]);
  pairs.swap(newPairs);
  newPairs.clear();
  for (std::size_t pi = 0; pi < pairs.size(); ++pi) {
    ContactPair& p = pairs[pi];
    if (partitioned) {
      p.sync = false;
      for (int i = 0; i < p.na; ++i) p.sync = p.sync || isBoundary[p.a[i]];
      for (int i = 0; i < p.nb; ++i) p.sync = p.sync || isBoundary[p.b[i]];
    }
    if (!isNew[pi]) renumberPair(static_cast<int>(pi));
  }
  buildAdjacency();
}

// Start of the layers of the new pairs.
void Engine::Impl::startNewPairs(double t, bool initial, const EngineStart* start) {
  for (std::size_t pi = 0; pi < pairs.size(); ++pi) {
    if (!isNew[pi]) continue;
    ContactPair& p = pairs[pi];
    const auto id = static_cast<std::int32_t>(pi);
    if (opt.bruteForce) {
      // Brute force (tests C1 / C2, README decision 58): layers 1..B always queued, on their lattices.
      p.layers.assign(opt.bruteForceLayers, LayerClock{});
      for (int l = 1; l <= opt.bruteForceLayers; ++l) {
        const double h = layerH(p, l);
        LayerClock& c = p.layers[l - 1];
        c.j = initial ? firstTickAfter(t, h) : firstTickAtOrAfter(t, h);
        c.handle = push(static_cast<double>(c.j) * h, Event{EventKind::Penalty, id, l}, p.sync);
      }
      continue;
    }
    if (initial && start) {
      // Restart: the layers active at t0 continue on their lattices (first tick after t0).
      auto it = std::lower_bound(start->layers.begin(), start->layers.end(), p.key,
                                 [](const ActiveLayers& x, const PairKey& k) { return x.key < k; });
      if (it != start->layers.end() && it->key == p.key) {
        for (int l = 1; l <= it->deepest; ++l) activate(id, l, t, true);
        p.deepest = it->deepest;
      }
    }
    establish(id, t);
  }
}

// The broad phase's certificate restarted at t, with its expiry event (serial mode).
void Engine::Impl::resetBroadPhase(double t) {
  const Vertices& V = scene.vertices;
  if (!partitioned && !broad.allPairs()) {
    broad.reset(V, t, nullptr);
    const double e = broad.expiry();
    if (bpHandle >= 0) {
      if (e < kInf)
        update(bpHandle, e);
      else {
        remove(bpHandle);
        bpHandle = -1;
      }
    } else if (e < kInf) {
      bpHandle = push(e, Event{EventKind::BroadPhase, 0, 0}, false);
    }
  } else {
    broad.reset(V, t, partitioned ? &ownedVertex : nullptr);
  }
}

}  // namespace kinema::avi

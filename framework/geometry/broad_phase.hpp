#pragma once
// What every broad phase in this folder returns, and helpers they share.
//
// Output contract (SpatialHash, SweepAndPrune, bruteForcePairs): every pair (i, j) of boxes that
// overlap as closed boxes (Aabb::overlaps), with i < j, each pair exactly once, sorted by (i, j).
// The sorted order makes the output independent of the algorithm, of hash-table layout and of the
// previous frame, so a module that iterates contacts in pair order is deterministic.
#include <cstdint>
#include <span>
#include <vector>

#include "framework/geometry/aabb.hpp"

namespace kinema::geometry {

struct BodyPair {
  std::int32_t i = 0;  // i < j
  std::int32_t j = 0;
  friend bool operator==(const BodyPair&, const BodyPair&) = default;
  friend bool operator<(const BodyPair& a, const BodyPair& b) {
    return a.i != b.i ? a.i < b.i : a.j < b.j;
  }
};

// Throws kinema::InputError naming the first box (by index) with a NaN or infinite coordinate or
// lo > hi on some axis. Also rejects more than 2^31 - 1 boxes (indices are 32-bit).
template <int D>
void validateBoxes(std::span<const Aabb<D>> boxes);

// The O(N^2) reference: all overlapping pairs, sorted. For tests and for tiny N.
template <int D>
void bruteForcePairs(std::span<const Aabb<D>> boxes, std::vector<BodyPair>& pairs);

// Sorts pairs by (i, j) in O(N + P) plus a small sort per i (counting sort on i). `count` and
// `scratch` are caller-owned buffers reused across calls.
void sortPairs(std::vector<BodyPair>& pairs, std::int32_t numBoxes,
               std::vector<std::int32_t>& count, std::vector<BodyPair>& scratch);

}  // namespace kinema::geometry

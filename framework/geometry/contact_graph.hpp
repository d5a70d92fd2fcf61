#pragma once
// The contact graph: bodies are vertices, contacts are edges. Two products:
//
// Islands (modules/impact/README.md, decision 17): connected components, found by union-find, where
// static bodies (infinite mass: ground, walls) never join components: a ball on the floor and
// another ball on the floor are two islands, each an independent impact problem. Every dynamic body
// is in exactly one island (a body without contacts is an island of its own, with no contacts);
// static bodies are in none (island -1) and appear in an island only through its contacts. Islands
// are numbered by their smallest body index, and each island's bodies and contacts are listed in
// ascending index, so the decomposition is a function of the input order alone.
//
// Colouring: a greedy colouring of the contacts, in contact-index order, with the smallest colour
// not used by an earlier contact that shares a dynamic body. Contacts of one colour touch
// disjoint sets of dynamic bodies, so a coloured Gauss-Seidel / Jacobi sweep may process a colour
// in parallel. Greedy uses at most Delta + 1 colours, Delta = the largest number of other contacts
// one contact shares a dynamic body with (the degree of the conflict graph).
//
// Contacts between two static bodies carry no unknowns: island -1, colour -1. A body pair with
// several contacts (a box's four corners on another box) is several edges; that is fine.
//
// Buffers are members, reused across build() calls.
#include <cstdint>
#include <span>
#include <vector>

#include "framework/geometry/broad_phase.hpp"

namespace kinema::geometry {

class ContactGraph {
 public:
  // `isStatic` has one flag per body (nonzero = static) or is empty (all dynamic). `contacts`
  // holds body index pairs in any order. Throws kinema::InputError naming the contact for an
  // index out of range or a body in contact with itself.
  void build(std::int32_t numBodies, std::span<const std::uint8_t> isStatic,
             std::span<const BodyPair> contacts);

  std::int32_t numBodies() const { return numBodies_; }
  std::int32_t numContacts() const { return static_cast<std::int32_t>(islandOfContact_.size()); }

  // Islands.
  std::int32_t numIslands() const { return static_cast<std::int32_t>(islandBodyStart_.size()) - 1; }
  std::span<const std::int32_t> islandOfBody() const { return islandOfBody_; }
  std::span<const std::int32_t> islandOfContact() const { return islandOfContact_; }
  std::span<const std::int32_t> islandBodies(std::int32_t island) const {
    return slice(islandBodies_, islandBodyStart_, island);
  }
  std::span<const std::int32_t> islandContacts(std::int32_t island) const {
    return slice(islandContacts_, islandContactStart_, island);
  }

  // Colouring of the contacts (computed by build()).
  std::int32_t numColours() const { return static_cast<std::int32_t>(colourStart_.size()) - 1; }
  std::span<const std::int32_t> colourOfContact() const { return colourOfContact_; }
  std::span<const std::int32_t> contactsOfColour(std::int32_t colour) const {
    return slice(colourContacts_, colourStart_, colour);
  }

 private:
  static std::span<const std::int32_t> slice(const std::vector<std::int32_t>& items,
                                             const std::vector<std::int32_t>& start,
                                             std::int32_t k) {
    return std::span<const std::int32_t>(items).subspan(
        static_cast<std::size_t>(start[k]), static_cast<std::size_t>(start[k + 1] - start[k]));
  }
  std::int32_t find(std::int32_t b);
  void colour(std::span<const BodyPair> contacts, std::span<const std::uint8_t> isStatic);

  std::int32_t numBodies_ = 0;
  std::vector<std::int32_t> parent_;
  std::vector<std::int32_t> islandOfBody_, islandOfContact_;
  std::vector<std::int32_t> islandBodyStart_, islandBodies_;
  std::vector<std::int32_t> islandContactStart_, islandContacts_;
  std::vector<std::int32_t> adjStart_, adj_;  // dynamic body -> its contacts, ascending
  std::vector<std::int32_t> colourOfContact_, mark_, colourStart_, colourContacts_;
};

}  // namespace kinema::geometry

#pragma once
// Bond creation (paper §3.4; README decision 23): a bond between every pair of particles with
//   |p_i - p_j| <= (1 + delta)(r_i + r_j),
// delta a small tolerance (default 5e-3) that absorbs round-off of the lattice.
// Pairs come from the framework's spatial hash (sorted by (i, j), each once), so the bond list is
// deterministic and sorted by (i, j) with i < j; bonds are built by makeBond (bond.hpp) with the
// material of particle i (decision: bonds between different materials take the one of the lower
// index; every generator here uses a single material).
#include <utility>
#include <vector>

#include "modules/bdem/system.hpp"

namespace kinema::bdem {

constexpr double kDefaultBondDelta = 5e-3;

// The pairs (i, j), i < j (local indices), within (1 + delta)(r_i + r_j), sorted.
std::vector<std::pair<std::int32_t, std::int32_t>> findBondPairs(const Particles& P, double delta);

// Appends a bond for every pair of findBondPairs(S.P, delta) not already bonded; returns the
// number added. Existing bonds are kept; the whole list is then sorted by (gi, gj).
std::size_t buildBonds(System& S, double delta = kDefaultBondDelta);

// Sorts S.bonds by (gi, gj) and throws Error on a duplicate pair.
void sortBonds(System& S);

}  // namespace kinema::bdem

#pragma once
// Assignment of whole strands to ranks, balanced by estimated cost (README decision 29:
// strands are never split; balance sum n kd^2 per rank by greedy longest-processing-time).
//
// LPT: strands in decreasing cost (ties: lower global index first) each go to the rank with the
// least load so far (ties: lower rank). Its makespan is at most (4/3 - 1/(3R)) times the optimum
// (Graham 1969), and the optimum is at least max(mean load, largest strand cost). The result is
// a pure function of the costs and R: every rank computes the same partition without talking.
#include <cstdint>
#include <span>
#include <vector>

#include "modules/der/strand.hpp"

namespace kinema::der {

// Estimated cost of optimising a strand of N vertices: n kd^2 with n = 7N - 14 unknowns and
// half-bandwidth kd = 21 (the banded factorisation dominates, §VI-B).
double strandCost(int vertices);
std::vector<double> strandCosts(std::span<const StrandGeometry> strands);

struct StrandPartition {
  int ranks = 1;
  std::vector<int> owner;    // owner rank per strand (global strand index)
  std::vector<double> load;  // summed cost per rank

  // The strands of `rank`, in increasing global index.
  std::vector<std::int64_t> strandsOf(int rank) const;
  // max load / mean load (1 = perfect; 1 also when there is no work).
  double imbalance() const;
};

// Partitions strands with the given costs (each >= 0 and finite) over `ranks` >= 1 ranks.
StrandPartition partitionStrands(std::span<const double> costs, int ranks);

// Contiguous cost-balanced split: rank r owns the strands whose cost midpoint (prefix sum before
// the strand plus half its cost) lies in [r T / R, (r + 1) T / R), T = total cost. Every rank's
// strands are one range [first, first + count), so the module writes its HDF5 output as one slab
// per rank and the file's strand order never depends on the rank count. Load is within
// max strand cost of the mean; LPT (above) balances better for very uneven costs but scatters
// the strands. A pure function of the costs and R.
struct StrandRange {
  std::int64_t first = 0, count = 0;
};
std::vector<StrandRange> partitionStrandsContiguous(std::span<const double> costs, int ranks);

}  // namespace kinema::der

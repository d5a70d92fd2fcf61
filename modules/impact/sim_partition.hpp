#pragma once
// Cost-balanced, deterministic assignment of independent impact islands to ranks
// (modules/impact/README.md, decision 17): longest-processing-time greedy. Islands are taken by
// decreasing cost (ties: lower index first) and each goes to the least-loaded rank (ties: lower
// rank). A pure function of the costs and the rank count, so every rank computes the same
// assignment without communication.
#include <span>
#include <vector>

namespace kinema::impact {

// rankOf[k] receives the rank of island k. `order` and `load` are caller-owned scratch buffers.
// Returns the load imbalance max_r load_r / mean_r load_r (1 for no work).
double assignIslands(std::span<const double> cost, int ranks, std::vector<int>& rankOf, std::vector<int>& order,
                     std::vector<double>& load);

}  // namespace kinema::impact

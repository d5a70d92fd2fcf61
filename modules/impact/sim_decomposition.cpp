#include "modules/impact/sim_decomposition.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"
#include "framework/core/index_cast.hpp"

namespace kinema::impact {

namespace {

constexpr int kBins = 1024;  // histogram bins per refinement (two refinements: extent / kBins²)

int binOf(double x, double lo, double width) {
  if (!(width > 0.0)) return 0;
  const double b = std::floor((x - lo) / width);
  return static_cast<int>(std::clamp(b, 0.0, static_cast<double>(kBins - 1)));
}

// A group of ranks [r0, r1) still to be split, and its node in the tree.
struct Group {
  int node, r0, r1;
};

// The buffers of one build(), one entry (or 3 or kBins) per active group, reused level by level.
struct CutScratch {
  std::vector<double> lo, hi;
  std::vector<std::int64_t> hist;
  std::vector<int> axis, coarse;
  std::vector<double> binLo, binWidth, coarseLo;
  std::vector<std::int64_t> below, target;
};

// Collective. The bounding box of each of the G groups over all ranks (s.lo, s.hi: 3 per group).
void boundingBoxes(std::span<const Eigen::Vector3d> x, const std::vector<int>& group, std::size_t G, const Comm& comm,
                   CutScratch& s) {
  const double inf = std::numeric_limits<double>::infinity();
  s.lo.assign(3 * G, inf);
  s.hi.assign(3 * G, -inf);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (group[i] < 0) continue;
    const std::size_t g = u(group[i]);
    for (int a = 0; a < 3; ++a) {
      s.lo[3 * g + u(a)] = std::min(s.lo[3 * g + u(a)], x[i][a]);
      s.hi[3 * g + u(a)] = std::max(s.hi[3 * g + u(a)], x[i][a]);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, s.lo.data(), static_cast<int>(s.lo.size()), MPI_DOUBLE, MPI_MIN, comm.raw());
  MPI_Allreduce(MPI_IN_PLACE, s.hi.data(), static_cast<int>(s.hi.size()), MPI_DOUBLE, MPI_MAX, comm.raw());
}

// The cut axis of each group (the longest of its box) and the coarse bins along it.
void chooseAxes(int dimension, std::size_t G, CutScratch& s) {
  s.axis.assign(G, 0);
  s.binLo.assign(G, 0.0);
  s.binWidth.assign(G, 0.0);
  for (std::size_t g = 0; g < G; ++g) {
    double longest = -1.0;
    for (int a = 0; a < std::min(dimension, 3); ++a) {
      const double e = s.hi[3 * g + u(a)] - s.lo[3 * g + u(a)];
      if (e > longest) longest = e, s.axis[g] = a;
    }
    const double l = s.lo[3 * g + u(s.axis[g])], h = s.hi[3 * g + u(s.axis[g])];
    s.binLo[g] = std::isfinite(l) ? l : 0.0;
    s.binWidth[g] = std::isfinite(l) && std::isfinite(h) && h > l ? (h - l) / kBins : 0.0;
  }
}

// Collective. The weight histogram of histogram pass `pass` (0: coarse, 1: fine) summed over the ranks.
void histogram(int pass, std::span<const Eigen::Vector3d> x, std::span<const std::int64_t> weight,
               const std::vector<int>& group, const Comm& comm, CutScratch& s) {
  s.hist.assign(s.axis.size() * kBins, 0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (group[i] < 0) continue;
    const std::size_t g = u(group[i]);
    const double xi = x[i][s.axis[g]];
    if (pass == 1) {  // only the bodies of the coarse bin chosen in pass 0
      if (binOf(xi, s.coarseLo[g], s.binWidth[g] * kBins) != s.coarse[g]) continue;
    }
    s.hist[g * kBins + u(binOf(xi, s.binLo[g], s.binWidth[g]))] += weight[i];
  }
  MPI_Allreduce(MPI_IN_PLACE, s.hist.data(), static_cast<int>(s.hist.size()), MPI_INT64_T, MPI_SUM, comm.raw());
}

// Pass 0: the coarse bin that holds each group's target, refined into fine bins; pass 1: the cut.
void locateTargets(int pass, const std::vector<Group>& active, CutScratch& s) {
  for (std::size_t g = 0; g < active.size(); ++g) {
    const Group& gr = active[g];
    const std::int64_t* h = s.hist.data() + g * kBins;
    if (pass == 0) {
      std::int64_t total = 0;
      for (int b = 0; b < kBins; ++b) total += h[b];
      const int nl = (gr.r1 - gr.r0) / 2;
      s.target[g] = total * nl / (gr.r1 - gr.r0);
    }
    // The first bin whose cumulative weight reaches the target.
    std::int64_t cum = s.below[g];
    int b = 0;
    for (; b < kBins - 1; ++b) {
      if (cum + h[b] >= s.target[g]) break;
      cum += h[b];
    }
    if (pass == 0) {
      s.coarse[g] = b;
      s.below[g] = cum;
      s.binLo[g] += b * s.binWidth[g];
      s.binWidth[g] /= kBins;
    } else {
      s.binLo[g] += (b + 1) * s.binWidth[g];  // the cut: the fine bin's upper edge
    }
  }
}

}  // namespace

void SimDecomposition::build(std::span<const Eigen::Vector3d> x, std::span<const std::int64_t> weight, int dimension,
                             const Comm& comm) {
  ranks_ = comm.size();
  ++builds_;
  nodes_.assign(1, Node{});
  if (ranks_ == 1) return;
  std::vector<Group> active = {{0, 0, ranks_}};
  std::vector<int> group(x.size(), 0);  // active group of each body, -1 once it is in a leaf
  CutScratch s;
  while (!active.empty()) {
    const std::size_t G = active.size();
    // Bounding box of each group.
    boundingBoxes(x, group, G, comm, s);
    chooseAxes(dimension, G, s);
    // Two histogram passes: the coarse bin that holds the target, then the fine bin inside it.
    s.coarseLo = s.binLo;
    s.below.assign(G, 0);
    s.target.assign(G, 0);
    s.coarse.assign(G, -1);
    for (int pass = 0; pass < 2; ++pass) {
      histogram(pass, x, weight, group, comm, s);
      locateTargets(pass, active, s);
    }
    // Split each group: the lower ⌊n/2⌋ ranks below the cut.
    std::vector<Group> next;
    std::vector<int> lowerGroup(G, -1), upperGroup(G, -1);
    for (std::size_t g = 0; g < G; ++g) {
      const Group gr = active[g];
      const int mid = gr.r0 + (gr.r1 - gr.r0) / 2;
      Node& n = nodes_[u(gr.node)];
      n.axis = s.axis[g];
      n.cut = s.binLo[g];
      const int lower = static_cast<int>(nodes_.size()), upper = lower + 1;
      nodes_[u(gr.node)].lower = lower;
      nodes_[u(gr.node)].upper = upper;
      Node leaf;
      leaf.rank = gr.r0;
      nodes_.push_back(leaf);
      leaf.rank = mid;
      nodes_.push_back(leaf);
      if (mid - gr.r0 > 1) lowerGroup[g] = static_cast<int>(next.size()), next.push_back({lower, gr.r0, mid});
      if (gr.r1 - mid > 1) upperGroup[g] = static_cast<int>(next.size()), next.push_back({upper, mid, gr.r1});
    }
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (group[i] < 0) continue;
      const std::size_t g = u(group[i]);
      const Node& n = nodes_[u(active[g].node)];
      group[i] = x[i][n.axis] < n.cut ? lowerGroup[g] : upperGroup[g];
    }
    active.swap(next);
  }
}

int SimDecomposition::ownerOf(const Eigen::Vector3d& x) const {
  int node = 0;
  while (nodes_[u(node)].axis >= 0) {
    const Node& n = nodes_[u(node)];
    node = x[n.axis] < n.cut ? n.lower : n.upper;
  }
  return nodes_[u(node)].rank;
}

void SimDecomposition::near(int node, const Eigen::Vector3d& x, double distance, std::vector<int>& out) const {
  const Node& n = nodes_[u(node)];
  if (n.axis < 0) {
    out.push_back(n.rank);
    return;
  }
  if (x[n.axis] - distance < n.cut) near(n.lower, x, distance, out);
  if (x[n.axis] + distance >= n.cut) near(n.upper, x, distance, out);
}

std::vector<double> SimDecomposition::toNumbers() const {
  std::vector<double> out = {static_cast<double>(ranks_)};
  for (const Node& n : nodes_)
    out.insert(out.end(), {static_cast<double>(n.axis), n.cut, static_cast<double>(n.lower), static_cast<double>(n.upper),
                           static_cast<double>(n.rank)});
  return out;
}

SimDecomposition SimDecomposition::fromNumbers(const std::vector<double>& v, int ranks) {
  SimDecomposition d;
  if (v.empty() || (v.size() - 1) % 5 != 0 || v[0] != ranks)
    throw InputError(str("impact decomposition: not a tree for ", ranks, " ranks"));
  d.ranks_ = ranks;
  d.nodes_.clear();
  const auto count = static_cast<int>((v.size() - 1) / 5);
  for (int k = 0; k < count; ++k) {
    const double* p = v.data() + 1 + 5 * k;
    Node n;
    n.axis = static_cast<int>(p[0]);
    n.cut = p[1];
    n.lower = static_cast<int>(p[2]);
    n.upper = static_cast<int>(p[3]);
    n.rank = static_cast<int>(p[4]);
    const bool leaf = n.axis < 0;
    if ((leaf && (n.rank < 0 || n.rank >= ranks)) ||
        (!leaf && (n.axis > 2 || n.lower <= k || n.upper <= k || n.lower >= count || n.upper >= count)))
      throw InputError(str("impact decomposition: node ", k, " is not valid"));
    d.nodes_.push_back(n);
  }
  return d;
}

void SimDecomposition::ranksNear(const Eigen::Vector3d& x, double distance, std::vector<int>& out) const {
  out.clear();
  near(0, x, distance, out);
}

}  // namespace kinema::impact

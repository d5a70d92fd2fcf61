#include "modules/bdem/fragments.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "framework/core/error.hpp"

namespace kinema::bdem {

namespace {

GlobalId findRoot(std::vector<GlobalId>& parent, GlobalId a) {
  while (parent[static_cast<std::size_t>(a)] != a) {
    GlobalId& pa = parent[static_cast<std::size_t>(a)];
    pa = parent[static_cast<std::size_t>(pa)];  // path halving
    a = pa;
  }
  return a;
}

}  // namespace

long FragmentStats::countWithMassFraction(double fraction) const {
  long n = 0;
  for (double m : masses) n += m >= fraction * totalMass ? 1 : 0;
  return n;
}

FragmentStats computeFragments(const System& s, const Comm& comm, long globalParticles,
                               std::vector<GlobalId>* ownedLabels) {
  const auto N = static_cast<std::size_t>(globalParticles);
  std::vector<std::int64_t> mine;
  mine.reserve(2 * s.bonds.size());
  for (const Bond& b : s.bonds)
    if (b.alive) {
      mine.push_back(b.gi);
      mine.push_back(b.gj);
    }
  const std::vector<std::int64_t> all = comm.allgatherv(mine);
  // Union by smaller root: the root of a component is its smallest global index.
  std::vector<GlobalId> parent(N);
  std::iota(parent.begin(), parent.end(), GlobalId{0});
  for (std::size_t k = 0; k + 1 < all.size(); k += 2) {
    KINEMA_CHECK(all[k] >= 0 && all[k] < globalParticles && all[k + 1] >= 0 && all[k + 1] < globalParticles,
                 "bdem fragments: bond (", all[k], ", ", all[k + 1], ") outside [0, ", globalParticles, ")");
    GlobalId a = findRoot(parent, all[k]), b = findRoot(parent, all[k + 1]);
    if (a == b) continue;
    if (a > b) std::swap(a, b);
    parent[static_cast<std::size_t>(b)] = a;
  }
  std::vector<long> size(N, 0);
  for (std::size_t g = 0; g < N; ++g) ++size[static_cast<std::size_t>(findRoot(parent, static_cast<GlobalId>(g)))];

  // Masses: each rank sums its owned particles per label; the sums are gathered.
  std::unordered_map<GlobalId, double> massOf;
  if (ownedLabels) ownedLabels->assign(s.P.numOwned, -1);
  for (std::size_t a = 0; a < s.P.numOwned; ++a) {
    const GlobalId root = findRoot(parent, s.P.gid[a]);
    massOf[root] += s.P.m[a];
    if (ownedLabels) (*ownedLabels)[a] = root;
  }
  std::vector<std::int64_t> labels;
  std::vector<double> masses;
  for (const auto& [l, m] : massOf) {
    labels.push_back(l);
    masses.push_back(m);
  }
  const std::vector<std::int64_t> allLabels = comm.allgatherv(labels);
  const std::vector<double> allMasses = comm.allgatherv(masses);
  std::vector<double> mass(N, 0.0);
  for (std::size_t k = 0; k < allLabels.size(); ++k) mass[static_cast<std::size_t>(allLabels[k])] += allMasses[k];

  FragmentStats st;
  std::vector<std::pair<long, GlobalId>> comps;
  for (std::size_t g = 0; g < N; ++g)
    if (size[g] > 0) comps.emplace_back(size[g], static_cast<GlobalId>(g));
  // Descending size, ties: smaller label first.
  std::sort(comps.begin(), comps.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first > y.first : x.second < y.second;
  });
  st.count = static_cast<long>(comps.size());
  for (const auto& [n, l] : comps) {
    st.sizes.push_back(n);
    st.totalMass += mass[static_cast<std::size_t>(l)];
  }
  if (!comps.empty()) {
    st.largest = comps.front().first;
    st.largestLabel = comps.front().second;
    st.largestMass = mass[static_cast<std::size_t>(st.largestLabel)];
  }
  for (const auto& c : comps) st.masses.push_back(mass[static_cast<std::size_t>(c.second)]);
  std::sort(st.masses.begin(), st.masses.end(), std::greater<double>());
  return st;
}

bool fractureSplit(const System& s, const Comm& comm, const FragmentStats& stats,
                   const std::vector<GlobalId>& ownedLabels, int axis, double endFraction) {
  KINEMA_CHECK(axis >= 0 && axis < 3, "bdem fractureSplit: axis ", axis, " is not 0, 1 or 2");
  KINEMA_CHECK(ownedLabels.size() == s.P.numOwned, "bdem fractureSplit: labels of ", ownedLabels.size(),
               " particles for ", s.P.numOwned, " owned");
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t a = 0; a < s.P.numOwned; ++a) {
    lo = std::min(lo, s.P.pRef[a][axis]);
    hi = std::max(hi, s.P.pRef[a][axis]);
  }
  lo = comm.min(lo);
  hi = comm.max(hi);
  const double w = endFraction * (hi - lo);
  bool low = false, high = false;
  for (std::size_t a = 0; a < s.P.numOwned; ++a) {
    if (ownedLabels[a] != stats.largestLabel) continue;
    low = low || s.P.pRef[a][axis] <= lo + w;
    high = high || s.P.pRef[a][axis] >= hi - w;
  }
  low = comm.any(low);
  high = comm.any(high);
  return !(low && high);
}

}  // namespace kinema::bdem

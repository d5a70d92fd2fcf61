#include "modules/bdem/bond_builder.hpp"

#include <algorithm>
#include <cmath>

#include "framework/core/error.hpp"
#include "framework/geometry/spatial_hash.hpp"

namespace kinema::bdem {

std::vector<std::pair<std::int32_t, std::int32_t>> findBondPairs(const Particles& P, double delta) {
  if (!(delta >= 0) || !std::isfinite(delta))
    throw InputError(str("bdem bonds: delta ", delta, " must be a finite non-negative tolerance"));
  const std::size_t n = P.size();
  std::vector<std::pair<std::int32_t, std::int32_t>> out;
  if (n < 2) return out;
  // Boxes of half width (1 + delta) r_i / ... : two boxes overlap whenever the pair can be within
  // (1 + delta)(r_i + r_j) (a superset; the exact distance test follows).
  std::vector<geometry::Aabb<3>> boxes(n);
  for (std::size_t a = 0; a < n; ++a) boxes[a] = geometry::Aabb<3>::ofBall(P.p[a], (1.0 + delta) * P.r[a]);
  geometry::SpatialHash<3> hash;
  std::vector<geometry::BodyPair> pairs;
  hash.findPairs(boxes, pairs);  // sorted by (i, j), i < j
  out.reserve(pairs.size());
  for (const geometry::BodyPair& bp : pairs) {
    const auto i = static_cast<std::size_t>(bp.i), j = static_cast<std::size_t>(bp.j);
    const double reach = (1.0 + delta) * (P.r[i] + P.r[j]);
    if ((P.p[i] - P.p[j]).squaredNorm() <= reach * reach) out.emplace_back(bp.i, bp.j);
  }
  return out;
}

void sortBonds(System& S) {
  std::sort(S.bonds.begin(), S.bonds.end(),
            [](const Bond& a, const Bond& b) { return a.gi != b.gi ? a.gi < b.gi : a.gj < b.gj; });
  for (std::size_t k = 1; k < S.bonds.size(); ++k)
    if (S.bonds[k].gi == S.bonds[k - 1].gi && S.bonds[k].gj == S.bonds[k - 1].gj)
      throw Error(str("bdem bonds: duplicate bond between particles ", S.bonds[k].gi, " and ", S.bonds[k].gj));
}

std::size_t buildBonds(System& S, double delta) {
  const auto pairs = findBondPairs(S.P, delta);
  // Already bonded pairs (by global index), for generators that add bonds by hand first.
  std::vector<std::pair<GlobalId, GlobalId>> existing;
  existing.reserve(S.bonds.size());
  for (const Bond& b : S.bonds) existing.emplace_back(std::min(b.gi, b.gj), std::max(b.gi, b.gj));
  std::sort(existing.begin(), existing.end());
  std::size_t added = 0;
  S.bonds.reserve(S.bonds.size() + pairs.size());
  for (auto [i, j] : pairs) {
    if (S.P.gid[static_cast<std::size_t>(i)] > S.P.gid[static_cast<std::size_t>(j)]) std::swap(i, j);
    const std::pair<GlobalId, GlobalId> key(S.P.gid[static_cast<std::size_t>(i)], S.P.gid[static_cast<std::size_t>(j)]);
    if (std::binary_search(existing.begin(), existing.end(), key)) continue;
    const int mat = S.P.material[static_cast<std::size_t>(i)];
    if (mat < 0 || static_cast<std::size_t>(mat) >= S.materials.size())
      throw InputError(str("bdem bonds: particle ", key.first, " has material ", mat, " but the scene has ",
                           S.materials.size(), " materials"));
    S.bonds.push_back(makeBond(S.P, i, j, S.materials[static_cast<std::size_t>(mat)]));
    ++added;
  }
  sortBonds(S);
  return added;
}

}  // namespace kinema::bdem

// Force shares of the partitioned AVI (force_share.hpp, README decision 48).
#include "modules/avi/force_share.hpp"

#include <algorithm>
#include <utility>

#include "framework/core/error.hpp"

namespace kinema::avi {

namespace {

// Doubles per force on the wire: scene index, kind, n, v[4], h, j, k, nu, damping, rest, weight,
// restInv (4), g (3), mass, restShape (5). Integers up to 2^53 are exact in a double.
constexpr std::size_t kPacked = 27;

void pack(const ForceElement& f, std::int32_t index, std::vector<double>& out) {
  out.push_back(index);
  out.push_back(static_cast<double>(f.kind));
  out.push_back(f.n);
  for (std::int32_t a : f.v) out.push_back(a);
  out.insert(out.end(), {f.h, static_cast<double>(f.j), f.k, f.nu, f.damping, f.rest, f.weight});
  out.insert(out.end(), f.restInv.data(), f.restInv.data() + 4);
  out.insert(out.end(), f.g.data(), f.g.data() + 3);
  out.push_back(f.mass);
  out.insert(out.end(), f.restShape.begin(), f.restShape.end());
}

ForceElement unpack(const double* p, std::int32_t& index) {
  ForceElement f;
  index = static_cast<std::int32_t>(p[0]);
  f.kind = static_cast<ForceKind>(static_cast<int>(p[1]));
  f.n = static_cast<std::uint8_t>(p[2]);
  for (std::size_t i = 0; i < 4; ++i) f.v[i] = static_cast<std::int32_t>(p[3 + i]);
  f.h = p[7];
  f.j = static_cast<std::int64_t>(p[8]);
  f.k = p[9];
  f.nu = p[10];
  f.damping = p[11];
  f.rest = p[12];
  f.weight = p[13];
  std::copy(p + 14, p + 18, f.restInv.data());
  std::copy(p + 18, p + 21, f.g.data());
  f.mass = p[21];
  std::copy(p + 22, p + 27, f.restShape.begin());
  return f;
}

}  // namespace

bool touchesRank(const ForceElement& f, const std::vector<int>& owner, int rank) {
  for (int k = 0; k < f.n; ++k)
    if (owner[static_cast<std::size_t>(f.v[static_cast<std::size_t>(k)])] == rank) return true;
  return false;
}

ForceShare shareForces(const std::vector<ForceElement>& all, const std::vector<int>& owner, int rank) {
  ForceShare s;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const ForceElement& f = all[i];
    s.gravityElements = s.gravityElements || f.kind == ForceKind::Gravity;
    for (int k = 0; k < f.n; ++k) {
      const std::int32_t a = f.v[static_cast<std::size_t>(k)];
      if (a < 0 || static_cast<std::size_t>(a) >= owner.size())
        throw InputError(str("avi: force ", i, " names vertex ", a, ", but the scene has ", owner.size(), " vertices"));
    }
    if (!touchesRank(f, owner, rank)) continue;
    s.forces.push_back(f);
    s.index.push_back(static_cast<std::int32_t>(i));
  }
  return s;
}

void migrateForces(ForceShare& share, const Comm& comm, const std::vector<int>& oldOwner,
                   const std::vector<int>& newOwner) {
  const int rank = comm.rank();
  // Only forces a rank did not hold travel: the old owner of a force's first vertex (which holds
  // it) sends it to each new owner of its stencil that owned none of its vertices before.
  std::vector<std::vector<double>> send(static_cast<std::size_t>(comm.size()));
  std::vector<int> before, after;
  for (std::size_t i = 0; i < share.forces.size(); ++i) {
    const ForceElement& f = share.forces[i];
    if (oldOwner[static_cast<std::size_t>(f.v[0])] != rank) continue;  // another rank sends it
    bool moved = false;
    for (int k = 0; k < f.n; ++k) {
      const auto a = static_cast<std::size_t>(f.v[static_cast<std::size_t>(k)]);
      moved = moved || oldOwner[a] != newOwner[a];
    }
    if (!moved) continue;  // its ranks hold it already
    before.clear();
    after.clear();
    for (int k = 0; k < f.n; ++k) {
      const auto a = static_cast<std::size_t>(f.v[static_cast<std::size_t>(k)]);
      before.push_back(oldOwner[a]);
      after.push_back(newOwner[a]);
    }
    std::sort(after.begin(), after.end());
    after.erase(std::unique(after.begin(), after.end()), after.end());
    for (int r : after)
      if (std::find(before.begin(), before.end(), r) == before.end()) pack(f, share.index[i], send[static_cast<std::size_t>(r)]);
  }
  // Keep, in place and in order, the forces still touching this rank.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < share.forces.size(); ++i) {
    if (!touchesRank(share.forces[i], newOwner, rank)) continue;
    if (kept != i) {
      share.forces[kept] = share.forces[i];
      share.index[kept] = share.index[i];
    }
    ++kept;
  }
  share.forces.resize(kept);
  share.index.resize(kept);
  const std::vector<std::vector<double>> recv = comm.alltoallv(send);
  send.clear();
  std::size_t count = 0;
  for (const auto& r : recv) {
    KINEMA_CHECK(r.size() % kPacked == 0, "avi: a force message of ", r.size(), " values");
    count += r.size() / kPacked;
  }
  if (count == 0) return;
  // The arrivals in scene order, then merged into the kept list (also in scene order) from the
  // back, in place: an epoch moves few forces, so this costs O(kept) moves and no second list.
  std::vector<std::pair<std::int32_t, ForceElement>> in;
  in.reserve(count);
  for (const auto& r : recv)
    for (std::size_t p = 0; p < r.size(); p += kPacked) {
      std::int32_t index = 0;
      const ForceElement f = unpack(r.data() + p, index);
      in.emplace_back(index, f);
    }
  std::sort(in.begin(), in.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  share.forces.resize(kept + count);
  share.index.resize(kept + count);
  std::size_t i = kept, j = count, w = kept + count;
  while (j > 0) {
    --w;
    if (i > 0 && share.index[i - 1] > in[j - 1].first) {
      --i;
      share.forces[w] = share.forces[i];
      share.index[w] = share.index[i];
    } else {
      --j;
      KINEMA_CHECK(i == 0 || share.index[i - 1] != in[j].first, "avi: force ", in[j].first, " arrived twice");
      KINEMA_CHECK(j == 0 || in[j - 1].first != in[j].first, "avi: force ", in[j].first, " arrived twice");
      share.forces[w] = in[j].second;
      share.index[w] = in[j].first;
    }
  }
}

}  // namespace kinema::avi

// Domain: space-filling-curve partition, ghost layer and state exchange (README decisions 1-5).
//
// Numbering. distribute() sorts every scene particle by the Morton key of its position (21 bits
// per axis over the scene's bounding cube), ties broken by the scene id; the sorted position is
// the particle's global index. This depends on the scene only, never on the rank count, so the
// Newton unknowns are numbered identically at 1, 2 or 3 ranks. Rank r owns the balanced contiguous
// range [r N/P ...) of global indices (lower ranks take the remainder), i.e. one compact stretch of
// the curve. The partition is static (particles do not migrate); the ghost layer is rebuilt.
//
// Ghosts. (a) Bond partners: a bond lives on the owner of min(gi, gj); the owner of the other end
// learns at distribute() (where every rank sees the whole scene) that it must ship that particle,
// and keeps doing so (dead bonds included, which is harmless). (b) Contact candidates: ranks
// exchange the AABBs of their owned particles; each rank ships the owned particles within `reach`
// of another rank's box; the receiver keeps those within `reach` (centre distance) of one of its
// owned particles (cell grid of size reach). Ghosts are stored sorted by global index, hence
// grouped by owner rank, which fixes the receive order of exchangeState().
#include "modules/bdem/domain.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include "framework/core/error.hpp"
#include "framework/core/timer.hpp"
#include "framework/solvers/manifold_rigid.hpp"

namespace kinema::bdem {

namespace {

// Spreads the low 21 bits of x to every third bit.
std::uint64_t spreadBits(std::uint64_t x) {
  x &= 0x1fffffULL;
  x = (x | x << 32) & 0x1f00000000ffffULL;
  x = (x | x << 16) & 0x1f0000ff0000ffULL;
  x = (x | x << 8) & 0x100f00f00f00f00fULL;
  x = (x | x << 4) & 0x10c30c30c30c30c3ULL;
  x = (x | x << 2) & 0x1249249249249249ULL;
  return x;
}

std::uint64_t mortonKey(const Vec3& p, const Vec3& lo, double scale) {
  std::uint64_t k = 0;
  for (int d = 0; d < 3; ++d) {
    double c = std::floor((p[d] - lo[d]) * scale);
    c = std::clamp(c, 0.0, double((1 << 21) - 1));
    k |= spreadBits(static_cast<std::uint64_t>(c)) << d;
  }
  return k;
}

constexpr int kRecord = 28;  // doubles per particle in a ghost refresh (see packParticle)
constexpr int kState = 14;   // doubles per particle in exchangeState: p, q, v, qdot

void packParticle(const Particles& P, std::size_t a, bool bondPartner, std::vector<double>& out) {
  out.push_back(static_cast<double>(P.gid[a]));
  out.push_back(bondPartner ? 1.0 : 0.0);
  for (int k = 0; k < 3; ++k) out.push_back(P.p[a][k]);
  for (int k = 0; k < 4; ++k) out.push_back(P.q[a][k]);
  for (int k = 0; k < 3; ++k) out.push_back(P.v[a][k]);
  for (int k = 0; k < 4; ++k) out.push_back(P.qdot[a][k]);
  out.push_back(P.r[a]);
  out.push_back(P.m[a]);
  out.push_back(static_cast<double>(static_cast<int>(P.dof[a])));
  out.push_back(static_cast<double>(P.grip[a]));
  out.push_back(static_cast<double>(P.material[a]));
  for (int k = 0; k < 3; ++k) out.push_back(P.pRef[a][k]);
  for (int k = 0; k < 4; ++k) out.push_back(P.qRef[a][k]);
}

void unpackParticle(const double* x, Particles& P) {
  const std::size_t a = P.size();
  P.resize(a + 1);
  P.gid[a] = static_cast<GlobalId>(x[0]);
  P.p[a] = Vec3(x[2], x[3], x[4]);
  P.q[a] = Vec4(x[5], x[6], x[7], x[8]);
  P.v[a] = Vec3(x[9], x[10], x[11]);
  P.qdot[a] = Vec4(x[12], x[13], x[14], x[15]);
  P.r[a] = x[16];
  P.m[a] = x[17];
  P.dof[a] = static_cast<Dof>(static_cast<int>(x[18]));
  P.grip[a] = static_cast<std::int32_t>(x[19]);
  P.material[a] = static_cast<std::int32_t>(x[20]);
  P.pRef[a] = Vec3(x[21], x[22], x[23]);
  P.qRef[a] = Vec4(x[24], x[25], x[26], x[27]);
}

// Copies particle `a` of `from` to the end of `to`.
void copyParticle(const Particles& from, std::size_t a, Particles& to) {
  to.p.push_back(from.p[a]);
  to.v.push_back(from.v[a]);
  to.q.push_back(from.q[a]);
  to.qdot.push_back(from.qdot[a]);
  to.r.push_back(from.r[a]);
  to.m.push_back(from.m[a]);
  to.dof.push_back(from.dof[a]);
  to.grip.push_back(from.grip[a]);
  to.material.push_back(from.material[a]);
  to.gid.push_back(from.gid[a]);
  to.pRef.push_back(from.pRef[a]);
  to.qRef.push_back(from.qRef[a]);
}

void truncateParticles(Particles& P, std::size_t n) {
  P.p.resize(n);
  P.v.resize(n);
  P.q.resize(n);
  P.qdot.resize(n);
  P.r.resize(n);
  P.m.resize(n);
  P.dof.resize(n);
  P.grip.resize(n);
  P.material.resize(n);
  P.gid.resize(n);
  P.pRef.resize(n);
  P.qRef.resize(n);
}

// Cell grid over a set of points: sorted (cell key, index) pairs, queried by the 27 neighbours.
class CellGrid {
 public:
  CellGrid(const std::vector<Vec3>& pts, std::size_t n, double h) : pts_(pts), h_(h) {
    lo_ = Vec3::Constant(std::numeric_limits<double>::infinity());
    for (std::size_t a = 0; a < n; ++a) lo_ = lo_.cwiseMin(pts[a]);
    entries_.reserve(n);
    for (std::size_t a = 0; a < n; ++a) entries_.emplace_back(key(cell(pts[a])), a);
    std::sort(entries_.begin(), entries_.end());
  }
  // True when some point lies within distance h of x.
  bool near(const Vec3& x) const {
    if (entries_.empty()) return false;
    const std::array<long, 3> c = cell(x);
    const double h2 = h_ * h_;
    for (long dx = -1; dx <= 1; ++dx)
      for (long dy = -1; dy <= 1; ++dy)
        for (long dz = -1; dz <= 1; ++dz) {
          const std::uint64_t k = key({c[0] + dx, c[1] + dy, c[2] + dz});
          auto it = std::lower_bound(entries_.begin(), entries_.end(),
                                     std::make_pair(k, std::size_t{0}));
          for (; it != entries_.end() && it->first == k; ++it)
            if ((pts_[it->second] - x).squaredNorm() <= h2) return true;
        }
    return false;
  }

 private:
  std::array<long, 3> cell(const Vec3& x) const {
    std::array<long, 3> c{};
    for (int d = 0; d < 3; ++d) {
      double f = std::floor((x[d] - lo_[d]) / h_);
      c[d] = static_cast<long>(std::clamp(f, -1e6, 1e6));
    }
    return c;
  }
  static std::uint64_t key(const std::array<long, 3>& c) {
    const long off = 1L << 20;
    std::uint64_t k = 0;
    for (int d = 0; d < 3; ++d)
      k = (k << 21) | (static_cast<std::uint64_t>(std::clamp(c[d] + off, 0L, (1L << 21) - 1)));
    return k;
  }
  const std::vector<Vec3>& pts_;
  double h_;
  Vec3 lo_;
  std::vector<std::pair<std::uint64_t, std::size_t>> entries_;
};

// Throws unless the scene holds every particle (none distributed yet) at a finite position.
void checkScene(const Particles& P, std::size_t n) {
  if (P.numOwned != 0 && P.numOwned != n)
    throw Error(str("bdem Domain::distribute: the scene must hold every particle (numOwned = ",
                    P.numOwned, ", size = ", n, ")"));
  for (std::size_t a = 0; a < n; ++a)
    if (!std::isfinite(P.p[a].squaredNorm()))
      throw InputError(str("bdem: scene particle ", P.gid[a], " has a non-finite position"));
}

// The scene particles in Morton order over the bounding cube, ties by scene id: perm[k] is the kth.
std::vector<std::size_t> mortonOrder(const Particles& P, std::size_t n) {
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for (std::size_t a = 0; a < n; ++a) {
    lo = lo.cwiseMin(P.p[a]);
    hi = hi.cwiseMax(P.p[a]);
  }
  const double ext = n > 0 ? (hi - lo).maxCoeff() : 0.0;
  const double scale = ext > 0 ? double((1 << 21) - 1) / ext : 0.0;
  std::vector<std::uint64_t> key(n);
  for (std::size_t a = 0; a < n; ++a) key[a] = mortonKey(P.p[a], lo, scale);
  std::vector<std::size_t> perm(n);
  std::iota(perm.begin(), perm.end(), std::size_t{0});
  std::sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) {
    if (key[a] != key[b]) return key[a] < key[b];
    return P.gid[a] < P.gid[b];
  });
  return perm;
}

// Throws if two scene particles share an id.
void checkUniqueIds(const Particles& P) {
  std::vector<GlobalId> ids(P.gid.begin(), P.gid.end());
  std::sort(ids.begin(), ids.end());
  const auto dup = std::adjacent_find(ids.begin(), ids.end());
  if (dup != ids.end()) throw InputError(str("bdem: scene particle id ", *dup, " is used twice"));
}

}  // namespace

struct Domain::Impl {
  Comm comm;
  long N = 0;
  GlobalId begin = 0, end = 0;
  std::vector<GlobalId> offsets;                        // rank r owns [offsets[r], offsets[r+1])
  std::vector<std::vector<std::int32_t>> bondSend;     // per rank: owned local indices it needs as bond partners
  std::vector<std::vector<std::int32_t>> sendIdx;      // per rank: owned local indices shipped by exchangeState
  std::vector<std::size_t> recvCount;                  // per rank: ghosts it owns here (contiguous, in rank order)
  std::vector<GlobalId> ghostGids;                     // sorted
  std::vector<GlobalId> sceneIds;
  std::vector<GlobalId> newIndex;                      // scene input position -> global index
  std::size_t contactGhosts = 0;
  la::IndexMapPtr map;
  bool distributed = false;
  // Verlet skin: the contact ghosts are chosen within reachBuilt = (1 + kSkin) reach of the owned
  // positions pBuilt; a later refresh keeps the set (and only exchanges the state) while
  // reach + 2 max|p - pBuilt| <= reachBuilt, since every pair within reach now was within
  // reachBuilt then.
  static constexpr double kSkin = 0.5;
  double reachBuilt = -1;
  std::vector<Vec3> pBuilt;

  explicit Impl(Comm c) : comm(c) {}

  int ownerOf(GlobalId g) const {
    auto it = std::upper_bound(offsets.begin(), offsets.end(), g);
    return static_cast<int>(it - offsets.begin()) - 1;
  }

  std::int32_t localOf(const Particles& P, GlobalId g) const {
    if (g >= begin && g < end) return static_cast<std::int32_t>(g - begin);
    auto it = std::lower_bound(ghostGids.begin(), ghostGids.end(), g);
    if (it == ghostGids.end() || *it != g) return -1;
    return static_cast<std::int32_t>(P.numOwned + static_cast<std::size_t>(it - ghostGids.begin()));
  }

  // distribute() steps: the owned range of every rank, the owned particles, the bonds held here.
  void partition(int ranks, int me);
  Particles takeOwned(const Particles& P, const std::vector<std::size_t>& perm);
  std::vector<Bond> assignBonds(const System& s, std::size_t n, int me);

  bool refresh(System& s, double reach, bool force);
  // refresh() steps: the skin test, the ghost messages and their answers, the bonds' local indices.
  bool withinSkin(const Particles& P, double reach) const;
  std::vector<std::vector<double>> packGhostCandidates(const Particles& P, double reach) const;
  std::vector<std::vector<std::int64_t>> keepGhosts(Particles& P, double reach,
                                                    const std::vector<std::vector<double>>& recv);
  void setSendLists(const std::vector<std::vector<std::int64_t>>& keptHere);
  void localiseBonds(System& s) const;
  void exchange(System& s) const;
};

Domain::Domain(Comm comm) : impl_(std::make_unique<Impl>(comm)) {}
Domain::~Domain() = default;

void Domain::distribute(System& s, double reach) {
  Impl& d = *impl_;
  Particles& P = s.P;
  const std::size_t n = P.size();
  d.N = static_cast<long>(n);
  const int ranks = d.comm.size(), me = d.comm.rank();
  checkScene(P, n);

  // Morton order over the bounding cube, ties by scene id.
  const std::vector<std::size_t> perm = mortonOrder(P, n);
  checkUniqueIds(P);
  d.newIndex.assign(n, 0);
  for (std::size_t k = 0; k < n; ++k) d.newIndex[perm[k]] = static_cast<GlobalId>(k);

  d.partition(ranks, me);
  Particles owned = d.takeOwned(P, perm);
  std::vector<Bond> mine = d.assignBonds(s, n, me);
  s.P = std::move(owned);
  s.bonds = std::move(mine);
  d.ghostGids.clear();
  d.map.reset();
  d.distributed = true;
  d.refresh(s, reach, true);
}

// Balanced contiguous ranges.
void Domain::Impl::partition(int ranks, int me) {
  offsets.assign(static_cast<std::size_t>(ranks) + 1, 0);
  for (int r = 0; r < ranks; ++r)
    offsets[r + 1] = offsets[r] + N / ranks + (r < N % ranks ? 1 : 0);
  begin = offsets[me];
  end = offsets[me + 1];
}

// The particles of the owned range, renumbered by global index; records their scene ids.
Particles Domain::Impl::takeOwned(const Particles& P, const std::vector<std::size_t>& perm) {
  Particles owned;
  sceneIds.clear();
  for (GlobalId g = begin; g < end; ++g) {
    const std::size_t a = perm[static_cast<std::size_t>(g)];
    copyParticle(P, a, owned);
    owned.gid.back() = g;
    sceneIds.push_back(P.gid[a]);
  }
  owned.numOwned = owned.size();
  return owned;
}

// Bonds: renumber, orient so gid(i) < gid(j), keep those whose smaller end is owned here; fills bondSend.
std::vector<Bond> Domain::Impl::assignBonds(const System& s, std::size_t n, int me) {
  const Particles& P = s.P;
  bondSend.assign(static_cast<std::size_t>(comm.size()), {});
  std::vector<Bond> mine;
  for (const Bond& b0 : s.bonds) {
    if (b0.i < 0 || b0.j < 0 || static_cast<std::size_t>(b0.i) >= n || static_cast<std::size_t>(b0.j) >= n)
      throw InputError(str("bdem: a scene bond refers to particle index ", b0.i, " / ", b0.j,
                           " outside [0, ", n, ")"));
    Bond b = b0;
    GlobalId gi = newIndex[b0.i], gj = newIndex[b0.j];
    if (gi == gj) throw InputError(str("bdem: a scene bond joins particle ", P.gid[b0.i], " to itself"));
    if (gi > gj) {
      // Swap the ends (README decision 43: T-S1): d0 -> -d0 in the common frame; the bend axis moves to q_i's
      // (old) body frame: d0Bend' = R(q_i)^T (-d0_world) = -R(q_i)^T R(q_j) d0Bend.
      using solvers::RigidManifold;
      b.d0Shear = -b0.d0Shear;
      b.d0Bend = -(RigidManifold::rotation(P.q[b0.i]).transpose() *
                   (RigidManifold::rotation(P.q[b0.j]) * b0.d0Bend));
      std::swap(gi, gj);
    }
    b.gi = gi;
    b.gj = gj;
    const int oi = ownerOf(gi), oj = ownerOf(gj);
    if (oi == me) mine.push_back(b);
    if (oj == me && oi != me) bondSend[oi].push_back(static_cast<std::int32_t>(gj - begin));
  }
  for (auto& v : bondSend) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  return mine;
}

bool Domain::refreshGhosts(System& s, double reach) {
  KINEMA_CHECK(impl_->distributed, "bdem Domain::refreshGhosts before distribute");
  return impl_->refresh(s, reach, false);
}

void Domain::rebuildGhosts(System& s, double reach) {
  KINEMA_CHECK(impl_->distributed, "bdem Domain::rebuildGhosts before distribute");
  impl_->refresh(s, reach, true);
}

bool Domain::Impl::refresh(System& s, double reach, bool force) {
  ScopedTimer timer("bdem.domain.refresh");
  Particles& P = s.P;
  const std::size_t nOwned = P.numOwned;
  const int ranks = comm.size();
  if (!force && ranks > 1 && reachBuilt >= 0 && map && withinSkin(P, reach)) {
    exchange(s);
    return false;
  }
  reach = reach > 0 ? (1.0 + kSkin) * reach : 0.0;
  reachBuilt = reach;
  pBuilt.assign(P.p.begin(), P.p.begin() + static_cast<std::ptrdiff_t>(nOwned));
  std::vector<GlobalId> oldGhosts = ghostGids;
  truncateParticles(P, nOwned);
  ghostGids.clear();
  contactGhosts = 0;
  sendIdx.assign(static_cast<std::size_t>(ranks), {});
  recvCount.assign(static_cast<std::size_t>(ranks), 0);

  if (ranks > 1) {
    std::vector<std::vector<double>> send = packGhostCandidates(P, reach);
    std::vector<std::vector<double>> recv = comm.alltoallv(send);
    std::vector<std::vector<std::int64_t>> keepMsg = keepGhosts(P, reach, recv);
    // Tell the owners which of their particles are kept (exchangeState's send lists).
    std::vector<std::vector<std::int64_t>> keptHere = comm.alltoallv(keepMsg);
    setSendLists(keptHere);
  }
  P.numOwned = nOwned;
  localiseBonds(s);

  const bool changed = comm.any(force || ghostGids != oldGhosts || !map);
  if (changed)
    map = std::make_shared<const la::IndexMap>(comm, static_cast<la::GlobalIndex>(nOwned), ghostGids, 7);
  return changed;
}

// Verlet skin test (collective): true when the ghost set built at reachBuilt still covers `reach`.
bool Domain::Impl::withinSkin(const Particles& P, double reach) const {
  double disp = 0;
  for (std::size_t a = 0; a < P.numOwned; ++a) disp = std::max(disp, (P.p[a] - pBuilt[a]).norm());
  disp = comm.max(disp);
  return reach <= 0 || reach + 2.0 * disp <= reachBuilt;
}

// The ghost records for every other rank (collective: gathers the owned boxes); P holds the owned only.
std::vector<std::vector<double>> Domain::Impl::packGhostCandidates(const Particles& P, double reach) const {
  const std::size_t nOwned = P.numOwned;
  const int ranks = comm.size(), me = comm.rank();
  // Owned AABBs of every rank.
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for (std::size_t a = 0; a < nOwned; ++a) {
    lo = lo.cwiseMin(P.p[a]);
    hi = hi.cwiseMax(P.p[a]);
  }
  std::vector<double> box{lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]};
  std::vector<double> boxes = comm.allgatherv(box);
  const bool contacts = reach > 0;
  // Candidates for every other rank: bond partners and owned particles near its box.
  std::vector<std::vector<double>> send(static_cast<std::size_t>(ranks));
  std::vector<char> bondMark(nOwned, 0);
  for (int r = 0; r < ranks; ++r) {
    if (r == me) continue;
    for (std::int32_t a : bondSend[r]) bondMark[a] = 1;
    for (std::int32_t a : bondSend[r]) packParticle(P, static_cast<std::size_t>(a), true, send[r]);
    if (contacts) {
      const double* b = &boxes[6 * static_cast<std::size_t>(r)];
      for (std::size_t a = 0; a < nOwned; ++a) {
        if (bondMark[a]) continue;
        const Vec3& x = P.p[a];
        bool inside = true;
        for (int k = 0; k < 3; ++k) inside = inside && x[k] >= b[k] - reach && x[k] <= b[3 + k] + reach;
        if (inside) packParticle(P, a, false, send[r]);
      }
    }
    for (std::int32_t a : bondSend[r]) bondMark[a] = 0;
  }
  return send;
}

// Appends the received ghosts kept to P (by global index), counts them per owner; returns, per
// owner rank, the global indices kept here.
std::vector<std::vector<std::int64_t>> Domain::Impl::keepGhosts(Particles& P, double reach,
                                                                const std::vector<std::vector<double>>& recv) {
  const int ranks = comm.size(), me = comm.rank();
  const bool contacts = reach > 0;
  // Keep bond partners and the candidates within reach of an owned particle.
  CellGrid grid(P.p, P.numOwned, contacts ? reach : 1.0);
  std::vector<std::pair<GlobalId, const double*>> kept;
  for (int r = 0; r < ranks; ++r) {
    const std::vector<double>& buf = recv[r];
    KINEMA_CHECK(buf.size() % kRecord == 0, "bdem Domain: ghost message of odd size");
    for (std::size_t k = 0; k < buf.size(); k += kRecord) {
      const double* x = &buf[k];
      const bool partner = x[1] != 0.0;
      if (!partner && !grid.near(Vec3(x[2], x[3], x[4]))) continue;
      if (!partner) ++contactGhosts;
      kept.emplace_back(static_cast<GlobalId>(x[0]), x);
    }
  }
  std::sort(kept.begin(), kept.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::vector<std::int64_t>> keepMsg(static_cast<std::size_t>(ranks));
  for (const auto& [g, x] : kept) {
    unpackParticle(x, P);
    ghostGids.push_back(g);
    const int o = ownerOf(g);
    KINEMA_CHECK(o != me, "bdem Domain: received a ghost of an owned particle ", g);
    ++recvCount[o];
    keepMsg[o].push_back(g);
  }
  return keepMsg;
}

// exchangeState's send lists: the owned local index of every particle another rank keeps.
void Domain::Impl::setSendLists(const std::vector<std::vector<std::int64_t>>& keptHere) {
  for (int r = 0; r < comm.size(); ++r) {
    sendIdx[r].reserve(keptHere[r].size());
    for (std::int64_t g : keptHere[r]) {
      KINEMA_CHECK(g >= begin && g < end, "bdem Domain: rank ", r, " asks for particle ", g,
                   " which is not owned here");
      sendIdx[r].push_back(static_cast<std::int32_t>(g - begin));
    }
  }
}

// Bonds' local indices.
void Domain::Impl::localiseBonds(System& s) const {
  const Particles& P = s.P;
  const std::size_t nOwned = P.numOwned;
  for (Bond& b : s.bonds) {
    b.i = localOf(P, b.gi);
    b.j = localOf(P, b.gj);
    KINEMA_CHECK(b.i >= 0 && static_cast<std::size_t>(b.i) < nOwned, "bdem Domain: bond (", b.gi, ", ",
                 b.gj, ") is held by rank ", comm.rank(), " which does not own ", b.gi);
    KINEMA_CHECK(b.j >= 0, "bdem Domain: bond partner ", b.gj, " missing from the ghost layer");
  }
}

void Domain::exchangeState(System& s) const { impl_->exchange(s); }

void Domain::Impl::exchange(System& s) const {
  const Impl& d = *this;
  const int ranks = d.comm.size();
  if (ranks == 1) return;
  ScopedTimer timer("bdem.domain.exchange");
  Particles& P = s.P;
  std::vector<std::vector<double>> send(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    std::vector<double>& buf = send[r];
    buf.reserve(d.sendIdx[r].size() * kState);
    for (std::int32_t a : d.sendIdx[r]) {
      for (int k = 0; k < 3; ++k) buf.push_back(P.p[a][k]);
      for (int k = 0; k < 4; ++k) buf.push_back(P.q[a][k]);
      for (int k = 0; k < 3; ++k) buf.push_back(P.v[a][k]);
      for (int k = 0; k < 4; ++k) buf.push_back(P.qdot[a][k]);
    }
  }
  std::vector<std::size_t> counts(d.recvCount.size());
  for (std::size_t r = 0; r < counts.size(); ++r) counts[r] = d.recvCount[r] * kState;
  std::vector<std::vector<double>> recv = d.comm.alltoallv(send, counts);
  std::size_t a = P.numOwned;
  for (int r = 0; r < ranks; ++r) {
    KINEMA_CHECK(recv[r].size() == d.recvCount[r] * kState, "bdem Domain::exchangeState: rank ", r,
                 " sent ", recv[r].size() / kState, " particles, expected ", d.recvCount[r]);
    const double* x = recv[r].data();
    for (std::size_t k = 0; k < d.recvCount[r]; ++k, ++a, x += kState) {
      P.p[a] = Vec3(x[0], x[1], x[2]);
      P.q[a] = Vec4(x[3], x[4], x[5], x[6]);
      P.v[a] = Vec3(x[7], x[8], x[9]);
      P.qdot[a] = Vec4(x[10], x[11], x[12], x[13]);
    }
  }
  KINEMA_CHECK(a == P.size(), "bdem Domain::exchangeState: ghost layer changed since the last refresh");
}

const la::IndexMapPtr& Domain::pointMap() const { return impl_->map; }
const Comm& Domain::comm() const { return impl_->comm; }
GlobalId Domain::ownedBegin() const { return impl_->begin; }
GlobalId Domain::ownedEnd() const { return impl_->end; }
long Domain::globalParticles() const { return impl_->N; }
const std::vector<GlobalId>& Domain::sceneIds() const { return impl_->sceneIds; }
int Domain::ownerOf(GlobalId g) const {
  KINEMA_CHECK(g >= 0 && g < impl_->N, "bdem Domain::ownerOf: particle ", g, " outside [0, ", impl_->N, ")");
  return impl_->ownerOf(g);
}
const std::vector<GlobalId>& Domain::newIndexOfSceneParticle() const { return impl_->newIndex; }
std::size_t Domain::contactGhosts() const { return impl_->contactGhosts; }

}  // namespace kinema::bdem

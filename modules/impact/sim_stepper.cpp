#include "modules/impact/sim_stepper.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

#include "framework/core/agree.hpp"
#include "framework/core/error.hpp"
#include "framework/core/index_cast.hpp"
#include "framework/core/timer.hpp"
#include "modules/impact/distributed_gr.hpp"
#include "modules/impact/friction.hpp"
#include "modules/impact/impact_system.hpp"
#include "modules/impact/resolver.hpp"
#include "modules/impact/restitution.hpp"

namespace kinema::impact {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
constexpr std::int64_t kNoLabel = std::numeric_limits<std::int64_t>::max();

// Velocity of a body's material point p.
Eigen::Vector3d pointVelocity(const SimBody& b, const Eigen::Vector3d& p) {
  if (b.isStatic) return Eigen::Vector3d::Zero();
  if (!b.rigid) return b.v;
  return b.v + b.omega.cross(p - b.x);
}

// Relative normal velocity at a contact point of bodies a and b (b = nullptr: a plane) under their
// velocities plus `shift` on every dynamic body; > 0: separating.
double relativeNormalVelocity(const SimBody& a, const SimBody* b, const Eigen::Vector3d& point,
                              const Eigen::Vector3d& normal, const Eigen::Vector3d& shift) {
  Eigen::Vector3d rel = -pointVelocity(a, point);
  if (!a.isStatic) rel -= shift;
  if (b) {
    rel += pointVelocity(*b, point);
    if (!b->isStatic) rel += shift;
  }
  return normal.dot(rel);
}

// A body as doubles (ghosts, migration, island gathering, block rows): the ids and counts are
// integers below 2^53, exact in a double.
constexpr std::size_t kBodySlots = 27;
void packBody(const SimBody& b, int owner, std::int64_t weight, std::vector<double>& out) {
  const double v[kBodySlots] = {static_cast<double>(b.id), static_cast<double>(owner), static_cast<double>(weight),
                                b.shape == SimShape::Box ? 1.0 : 0.0, b.isStatic ? 1.0 : 0.0, b.rigid ? 1.0 : 0.0,
                                b.radius, b.halfExtents[0], b.halfExtents[1], b.halfExtents[2], b.mass,
                                b.inertiaBody[0], b.inertiaBody[1], b.inertiaBody[2], b.x[0], b.x[1], b.x[2],
                                b.v[0], b.v[1], b.v[2], b.omega[0], b.omega[1], b.omega[2],
                                b.q.w(), b.q.x(), b.q.y(), b.q.z()};
  out.insert(out.end(), v, v + kBodySlots);
}
SimBody unpackBody(const double* v, int* owner = nullptr, std::int64_t* weight = nullptr) {
  SimBody b;
  b.id = static_cast<std::int64_t>(v[0]);
  if (owner) *owner = static_cast<int>(v[1]);
  if (weight) *weight = static_cast<std::int64_t>(v[2]);
  b.shape = v[3] != 0.0 ? SimShape::Box : SimShape::Sphere;
  b.isStatic = v[4] != 0.0;
  b.rigid = v[5] != 0.0;
  b.radius = v[6];
  b.halfExtents = Eigen::Vector3d(v[7], v[8], v[9]);
  b.mass = v[10];
  b.inertiaBody = Eigen::Vector3d(v[11], v[12], v[13]);
  b.x = Eigen::Vector3d(v[14], v[15], v[16]);
  b.v = Eigen::Vector3d(v[17], v[18], v[19]);
  b.omega = Eigen::Vector3d(v[20], v[21], v[22]);
  b.q = Eigen::Quaterniond(v[23], v[24], v[25], v[26]);
  return b;
}

// A contact of an island as doubles: a, b (-1: plane), plane, point, normal, distance.
constexpr std::size_t kContactSlots = 10;

constexpr int kSlot = 6;  // doubles of a resolved velocity: v, ω

// Rank r's block of ids [N r / P, N (r + 1) / P) and the block that holds an id.
std::int64_t blockFirst(std::int64_t n, int r, int ranks) { return n * r / ranks; }
int blockOf(std::int64_t id, std::int64_t n, int ranks) {
  int r = static_cast<int>(id * ranks / std::max<std::int64_t>(n, 1));
  while (r + 1 < ranks && blockFirst(n, r + 1, ranks) <= id) ++r;
  while (r > 0 && blockFirst(n, r, ranks) > id) --r;
  return r;
}

void sortById(std::vector<SimBody>& bodies) {
  std::sort(bodies.begin(), bodies.end(), [](const SimBody& a, const SimBody& b) { return a.id < b.id; });
}

}  // namespace

GravityKick parseGravityKick(const std::string& name) {
  if (name == "split") return GravityKick::Split;
  if (name == "before") return GravityKick::Before;
  throw InputError(str("gravity kick: unknown order '", name, "' (split | before)"));
}

const SimBody& SimStepper::Island::body(std::int64_t id) const {
  const auto it = std::lower_bound(bodies.begin(), bodies.end(), id,
                                   [](const IslandBody& b, std::int64_t i) { return b.body.id < i; });
  return it->body;
}

SimStepper::SimStepper(SimWorld world, SimOptions options, Comm comm, WorldInput input)
    : options_(std::move(options)), comm_(comm), detector_(options_.broadPhase) {
  const int R = comm_.size(), me = comm_.rank();
  if (input == WorldInput::Replicated) {
    for (std::size_t k = 0; k < world.bodies.size(); ++k) world.bodies[k].id = static_cast<std::int64_t>(k);
    world.validate();  // the same world on every rank: the same error on every rank
    globalBodies_ = world.numBodies();
    if (R > 1) {
      const auto first = u(blockFirst(globalBodies_, me, R)), last = u(blockFirst(globalBodies_, me + 1, R));
      std::vector<SimBody> block(world.bodies.begin() + static_cast<std::ptrdiff_t>(first),
                                 world.bodies.begin() + static_cast<std::ptrdiff_t>(last));
      world.bodies.swap(block);
    }
  } else {
    raiseOnEveryRank(comm_, [&] { world.validate(); });
    globalBodies_ = R > 1 ? comm_.sum(static_cast<std::int64_t>(world.numBodies())) : world.numBodies();
    // Ids: every one of 0 .. N-1 exactly once over the ranks (checked by range, count and sum).
    std::int64_t bad = -1, sum = 0;
    for (const SimBody& b : world.bodies) {
      if (b.id < 0 || b.id >= globalBodies_) bad = b.id;
      sum += b.id;
    }
    raiseOnEveryRank(comm_, bad != -1, str("impact world: body id ", bad, " outside 0 .. ", globalBodies_ - 1));
    const std::int64_t total = R > 1 ? comm_.sum(sum) : sum;
    raiseOnEveryRank(comm_, total != globalBodies_ * (globalBodies_ - 1) / 2,
                     "impact world: the ranks' body ids are not 0 .. N-1, each once");
  }
  sortById(world.bodies);
  world_ = std::move(world);
  if (!(options_.dt > 0.0)) throw InputError(str("impact simulator: dt must be > 0, got ", options_.dt));
  if (!(options_.contactTolerance >= 0.0))
    throw InputError(str("impact simulator: contact tolerance must be >= 0, got ", options_.contactTolerance));
  if (options_.closurePasses < 1) throw InputError("impact simulator: closure passes must be >= 1");
  if (!(options_.rebalanceImbalance >= 1.0))
    throw InputError(str("impact simulator: rebalance imbalance must be >= 1, got ", options_.rebalanceImbalance));
  impactOperators().get(options_.impact.op);  // unknown operator: an error now, not in step 1
  if (world_.dimension == 2)
    for (const SimPlane& p : world_.planes)
      if (p.normal[2] != 0.0) throw InputError("impact simulator: a plane of a 2D world has a z normal component");
  double rmax = 0.0;
  for (const SimBody& b : world_.bodies)
    if (!b.isStatic) rmax = std::max(rmax, b.boundingRadius());
  maxDynamicRadius_ = R > 1 ? comm_.max(rmax) : rmax;
  weight_.assign(world_.bodies.size(), 1);
  rebuild_ = R > 1;
  ghostTo_.assign(u(R), {});
  ghostFrom_.assign(u(R), {});
}

// Sends world_.bodies[which[i]] to rank target[i] and appends what arrives to `into` (and the
// weights and the senders to `intoWeight` and `intoOwner`, if given), in rounds of at most max(1024, n / 64) bodies (n: this rank's bodies), so that the
// exchange buffers stay small beside the bodies themselves (the first rebalance, and the output's
// block split, move about half of a rank's bodies). Collective.
void SimStepper::sendBodies(const std::vector<std::size_t>& which, const std::vector<int>& target,
                            std::vector<SimBody>& into, std::vector<std::int64_t>* intoWeight,
                            std::vector<int>* intoOwner) const {
  // At least 1024 bodies a round, and at most 64 rounds for a rank's whole set: the buffers stay
  // within about 1 % of the bodies' own memory.
  const std::size_t kRound = std::max<std::size_t>(1024, world_.bodies.size() / 64);
  const int R = comm_.size();
  const std::int64_t rounds = comm_.max(static_cast<std::int64_t>((which.size() + kRound - 1) / kRound));
  std::vector<std::vector<double>> send(u(R));
  for (std::int64_t round = 0; round < rounds; ++round) {
    const std::size_t from = std::min(which.size(), u(round) * kRound), to = std::min(which.size(), from + kRound);
    for (auto& m : send) m.clear();
    if (round == 0)
      for (auto& m : send) m.reserve(std::min(to - from, kRound / 4 + 1) * kBodySlots);
    for (std::size_t i = from; i < to; ++i)
      packBody(world_.bodies[which[i]], comm_.rank(), weight_.empty() ? 1 : weight_[which[i]], send[u(target[i])]);
    const std::vector<std::vector<double>> recv = comm_.alltoallv(send);
    for (const auto& m : recv)
      for (std::size_t at = 0; at < m.size(); at += kBodySlots) {
        std::int64_t w = 1;
        int from = 0;
        into.push_back(unpackBody(m.data() + at, &from, &w));
        if (intoWeight) intoWeight->push_back(w);
        if (intoOwner) intoOwner->push_back(from);
      }
  }
}

// Sends world_.bodies[movers[i]] (ascending) to rank target[i] with their weights (sendBodies),
// compacts the bodies that stay in place, appends those that arrive and sorts by id. Collective;
// returns how many bodies this rank sent.
std::int64_t SimStepper::moveBodies(const std::vector<std::size_t>& movers, const std::vector<int>& target) {
  std::vector<SimBody> incoming;
  std::vector<std::int64_t> incomingWeight;
  sendBodies(movers, target, incoming, &incomingWeight);
  std::size_t keep = 0, next = 0;
  for (std::size_t k = 0; k < world_.bodies.size(); ++k) {
    if (next < movers.size() && movers[next] == k) {
      ++next;
      continue;
    }
    if (keep != k) world_.bodies[keep] = world_.bodies[k], weight_[keep] = weight_[k];
    ++keep;
  }
  const std::int64_t moved = static_cast<std::int64_t>(movers.size());
  world_.bodies.resize(keep);
  weight_.resize(keep);
  world_.bodies.reserve(keep + incoming.size());  // exact: no doubling slack
  weight_.reserve(keep + incoming.size());
  world_.bodies.insert(world_.bodies.end(), incoming.begin(), incoming.end());
  weight_.insert(weight_.end(), incomingWeight.begin(), incomingWeight.end());
  std::vector<SimBody>().swap(incoming);
  // Ascending id, weights alongside: the sorting permutation applied in place, cycle by cycle.
  std::vector<int> order(world_.bodies.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return world_.bodies[u(a)].id < world_.bodies[u(b)].id; });
  for (std::size_t start = 0; start < order.size(); ++start) {
    if (order[start] < 0) continue;
    // Position `start` receives element order[start], which receives order[order[start]], ...
    const SimBody first = world_.bodies[start];
    const std::int64_t firstWeight = weight_[start];
    std::size_t at = start;
    for (;;) {
      const auto from = u(order[at]);
      order[at] = -1;
      if (from == start) {
        world_.bodies[at] = first;
        weight_[at] = firstWeight;
        break;
      }
      world_.bodies[at] = world_.bodies[from];
      weight_[at] = weight_[from];
      at = from;
    }
  }
  return moved;
}

// After toBlocks(): the bodies go back to the owners they had when the checkpoint was written,
// under its decomposition, so that the run continues exactly as if it had not stopped.
void SimStepper::restoreOwnership(const SimDecomposition& decomposition, const std::vector<int>& owner,
                                  const std::vector<std::int64_t>& weight) {
  const int me = comm_.rank();
  if (owner.size() != world_.bodies.size() || weight.size() != world_.bodies.size())
    throw Error("impact simulator: restoreOwnership needs one owner and weight per block row");
  weight_ = weight;
  std::vector<std::size_t> movers;
  std::vector<int> target;
  for (std::size_t k = 0; k < owner.size(); ++k)
    if (owner[k] != me) movers.push_back(k), target.push_back(owner[k]);
  moveBodies(movers, target);
  decomposition_ = decomposition;
  rebuild_ = false;
}

void SimStepper::rebalanceAndMigrate() {
  const int R = comm_.size(), me = comm_.rank();
  if (R == 1) return;
  const auto t0 = Clock::now();
  const std::int64_t mine = std::accumulate(weight_.begin(), weight_.end(), std::int64_t{0});
  const std::int64_t most = comm_.max(mine), total = comm_.sum(mine);
  stats_.imbalance = total > 0 ? static_cast<double>(most) * R / static_cast<double>(total) : 1.0;
  if (rebuild_ || stats_.imbalance > options_.rebalanceImbalance) {
    std::vector<Eigen::Vector3d> x(world_.bodies.size());
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = world_.bodies[k].x;
    decomposition_.build(x, weight_, world_.dimension, comm_);
    rebuild_ = false;
    stats_.rebalanced = 1;
  }
  // Bodies outside this rank's subdomain go to their owner.
  std::vector<std::size_t> movers;
  std::vector<int> target;
  for (std::size_t k = 0; k < world_.bodies.size(); ++k) {
    const int owner = decomposition_.ownerOf(world_.bodies[k].x);
    if (owner != me) movers.push_back(k), target.push_back(owner);
  }
  const std::int64_t moved = moveBodies(movers, target);
  stats_.migrated = comm_.sum(moved);
  stats_.secondsMigrate = since(t0);
}

void SimStepper::buildLocal() {
  const int R = comm_.size(), me = comm_.rank();
  local_.dimension = world_.dimension;
  local_.planes = world_.planes;
  local_.gravity = world_.gravity;
  local_.time = world_.time;
  const std::size_t owned = world_.bodies.size();
  ownedLocal_.resize(owned);
  if (R == 1) {
    local_.bodies = world_.bodies;
    ownerOf_.assign(owned, 0);
    std::iota(ownedLocal_.begin(), ownedLocal_.end(), 0);
    return;
  }
  // The detection reach δ + s_a + s_b (sim_contacts.hpp) with s ≤ max s after the kick, plus the
  // bounding radii: a body within that of a subdomain may touch one of its bodies.
  const double dt = options_.dt;
  double smax = 0.0;
  for (const SimBody& b : world_.bodies) {
    if (b.isStatic) continue;
    const Eigen::Vector3d v = b.v + dt * world_.gravity;
    smax = std::max(smax, std::sqrt(3.0) * (v.cwiseAbs().maxCoeff() +
                                            (b.rigid ? b.omega.cwiseAbs().maxCoeff() * b.boundingRadius() : 0.0)) * dt);
  }
  smax = comm_.max(smax);
  const double margin = (options_.contactTolerance + 2.0 * smax) * (1.0 + 1e-6) + 1e-12 * maxDynamicRadius_;
  std::vector<std::vector<double>> send(u(R));
  std::vector<int> near;
  for (auto& g : ghostTo_) g.clear();
  for (std::size_t k = 0; k < owned; ++k) {
    const SimBody& b = world_.bodies[k];
    decomposition_.ranksNear(b.x, b.boundingRadius() + maxDynamicRadius_ + margin, near);
    for (int q : near) {
      if (q == me) continue;
      ghostTo_[u(q)].push_back(static_cast<int>(k));
      packBody(b, me, 1, send[u(q)]);
    }
  }
  const auto recv = comm_.alltoallv(send);
  // Merge owned bodies and ghosts by id.
  struct Entry {
    std::int64_t id;
    int rank, index;  // rank == me: world_ index; else the position in recv[rank]
  };
  std::size_t received = 0;
  for (const auto& m : recv) received += m.size() / kBodySlots;
  std::vector<Entry> entries;
  entries.reserve(owned + received);
  for (std::size_t k = 0; k < owned; ++k) entries.push_back({world_.bodies[k].id, me, static_cast<int>(k)});
  std::int64_t ghosts = 0;
  for (int q = 0; q < R; ++q)
    for (std::size_t at = 0; at < recv[u(q)].size(); at += kBodySlots, ++ghosts)
      entries.push_back({static_cast<std::int64_t>(recv[u(q)][at]), q, static_cast<int>(at / kBodySlots)});
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.id < b.id; });
  local_.bodies.resize(entries.size());
  ownerOf_.resize(entries.size());
  for (auto& g : ghostFrom_) g.clear();
  for (int q = 0; q < R; ++q) ghostFrom_[u(q)].resize(recv[u(q)].size() / kBodySlots);
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const Entry& e = entries[k];
    if (e.rank == me) {
      local_.bodies[k] = world_.bodies[u(e.index)];
      ownerOf_[k] = me;
      ownedLocal_[u(e.index)] = static_cast<int>(k);
    } else {
      local_.bodies[k] = unpackBody(recv[u(e.rank)].data() + u(e.index) * kBodySlots);
      ownerOf_[k] = e.rank;
      ghostFrom_[u(e.rank)][u(e.index)] = static_cast<int>(k);
    }
  }
  stats_.ghosts = comm_.sum(ghosts);
}

int SimStepper::localIndexOf(std::int64_t id) const {
  const auto it = std::lower_bound(local_.bodies.begin(), local_.bodies.end(), id,
                                   [](const SimBody& b, std::int64_t i) { return b.id < i; });
  return it != local_.bodies.end() && it->id == id ? static_cast<int>(it - local_.bodies.begin()) : -1;
}

void SimStepper::refreshGhostVelocities() {
  const int R = comm_.size();
  if (R == 1) return;
  std::vector<std::vector<double>> send(u(R));
  std::vector<std::size_t> counts(u(R));
  for (int q = 0; q < R; ++q) {
    for (int k : ghostTo_[u(q)]) {
      const SimBody& b = local_.bodies[u(ownedLocal_[u(k)])];
      send[u(q)].insert(send[u(q)].end(), {b.v[0], b.v[1], b.v[2], b.omega[0], b.omega[1], b.omega[2]});
    }
    counts[u(q)] = ghostFrom_[u(q)].size() * kSlot;
  }
  const auto recv = comm_.alltoallv(send, counts);
  for (int q = 0; q < R; ++q)
    for (std::size_t i = 0; i < ghostFrom_[u(q)].size(); ++i) {
      SimBody& b = local_.bodies[u(ghostFrom_[u(q)][i])];
      const double* s = recv[u(q)].data() + i * kSlot;
      b.v = Eigen::Vector3d(s[0], s[1], s[2]);
      b.omega = Eigen::Vector3d(s[3], s[4], s[5]);
    }
}

void SimStepper::checkFinite() const {
  std::string why;
  for (std::size_t k = 0; k < local_.bodies.size() && why.empty(); ++k) {
    const SimBody& b = local_.bodies[k];
    if (ownerOf_[k] != comm_.rank()) continue;
    if (!b.v.allFinite() || !b.omega.allFinite())
      why = str("impact simulator: body ", b.id, " has a non-finite velocity (", b.v.transpose(), " | ",
                b.omega.transpose(), ") in step ", step_ + 1, "; check dt, masses and the resolver options");
  }
  raiseOnEveryRank<Error>(comm_, !why.empty(), why);
}

int SimStepper::keeperOf(const SimContact& c) const {
  // The owner of the contact's smaller-id dynamic body (local order is id order, a < b).
  if (c.b < 0) return ownerOf_[u(c.a)];
  if (local_.bodies[u(c.a)].isStatic) return ownerOf_[u(c.b)];
  return ownerOf_[u(c.a)];
}

double SimStepper::normalVelocity(const SimContact& c, const Eigen::Vector3d& shift) const {
  return relativeNormalVelocity(local_.bodies[u(c.a)], c.b >= 0 ? &local_.bodies[u(c.b)] : nullptr, c.point, c.normal,
                                shift);
}

bool SimStepper::isConstraint(const SimContact& c, double dt) const {
  return c.distance <= options_.contactTolerance || c.distance + dt * normalVelocity(c) < 0.0;
}

void SimStepper::labelIslands() {
  const int R = comm_.size();
  const std::size_t n = local_.bodies.size();
  parent_.resize(n);
  std::iota(parent_.begin(), parent_.end(), 0);
  const auto find = [this](int k) {
    while (parent_[u(k)] != k) {
      parent_[u(k)] = parent_[u(parent_[u(k)])];
      k = parent_[u(k)];
    }
    return k;
  };
  for (int k : constraints_) {
    const SimContact& c = candidates_[u(k)];
    if (c.b < 0 || local_.bodies[u(c.a)].isStatic || local_.bodies[u(c.b)].isStatic) continue;
    const int ra = find(c.a), rb = find(c.b);
    if (ra != rb) parent_[u(std::max(ra, rb))] = std::min(ra, rb);
  }
  label_.resize(n);
  labelRoot_.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    label_[k] = local_.bodies[k].isStatic ? kNoLabel : local_.bodies[k].id;
    labelRoot_[k] = ownerOf_[k];
  }
  // The smallest label of each component, on all its members.
  const auto componentMinimum = [&]() {
    for (std::size_t k = 0; k < n; ++k) {
      const auto r = u(find(static_cast<int>(k)));
      if (label_[k] < label_[r]) label_[r] = label_[k], labelRoot_[r] = labelRoot_[k];
    }
    for (std::size_t k = 0; k < n; ++k) {
      const auto r = u(find(static_cast<int>(k)));
      label_[k] = label_[r], labelRoot_[k] = labelRoot_[r];
    }
  };
  componentMinimum();
  stats_.labelRounds = 0;
  if (R == 1) return;
  // Label propagation: ghosts tell their owners the smallest label they reached here, owners take
  // the minimum and tell every rank that holds the body; until no label changes anywhere.
  std::vector<std::vector<std::int64_t>> send(u(R));
  for (;;) {
    ++stats_.labelRounds;
    bool changed = false;
    for (int q = 0; q < R; ++q) {
      send[u(q)].clear();
      for (int k : ghostFrom_[u(q)]) send[u(q)].insert(send[u(q)].end(), {label_[u(k)], labelRoot_[u(k)]});
    }
    auto recv = comm_.alltoallv(send);
    for (int q = 0; q < R; ++q)
      for (std::size_t i = 0; i < ghostTo_[u(q)].size(); ++i) {
        const auto k = u(ownedLocal_[u(ghostTo_[u(q)][i])]);
        if (recv[u(q)][2 * i] < label_[k]) {
          label_[k] = recv[u(q)][2 * i];
          labelRoot_[k] = static_cast<int>(recv[u(q)][2 * i + 1]);
          changed = true;
        }
      }
    componentMinimum();
    for (int q = 0; q < R; ++q) {
      send[u(q)].clear();
      for (int k : ghostTo_[u(q)]) {
        const auto l = u(ownedLocal_[u(k)]);
        send[u(q)].insert(send[u(q)].end(), {label_[l], labelRoot_[l]});
      }
    }
    recv = comm_.alltoallv(send);
    for (int q = 0; q < R; ++q)
      for (std::size_t i = 0; i < ghostFrom_[u(q)].size(); ++i) {
        const auto k = u(ghostFrom_[u(q)][i]);
        if (recv[u(q)][2 * i] != label_[k]) {
          label_[k] = recv[u(q)][2 * i];
          labelRoot_[k] = static_cast<int>(recv[u(q)][2 * i + 1]);
          changed = true;
        }
      }
    componentMinimum();
    if (!comm_.any(changed)) break;
  }
}

namespace {

// An island as doubles: [label, bodies, contacts, the bodies..., the contacts...] (a rank's
// contribution to an island's root, or a whole island broadcast for the distributed GR).
template <class IslandT>
void packIsland(const IslandT& isl, std::vector<double>& out) {
  out.insert(out.end(), {static_cast<double>(isl.label), static_cast<double>(isl.bodies.size()),
                         static_cast<double>(isl.contacts.size())});
  for (const auto& b : isl.bodies) packBody(b.body, b.owner, 1, out);
  for (const auto& c : isl.contacts)
    out.insert(out.end(), {static_cast<double>(c.a), static_cast<double>(c.b), static_cast<double>(c.plane), c.point[0],
                           c.point[1], c.point[2], c.normal[0], c.normal[1], c.normal[2], c.distance});
}
// Appends an island packed as above (a contribution of one rank, or a whole island) to `isl`.
template <class IslandT>
void appendIsland(const double* m, IslandT& isl) {
  isl.label = static_cast<std::int64_t>(m[0]);
  const auto nb = u(static_cast<std::int64_t>(m[1])), nc = u(static_cast<std::int64_t>(m[2]));
  const double* b = m + 3;
  for (std::size_t i = 0; i < nb; ++i, b += kBodySlots) {
    isl.bodies.emplace_back();
    isl.bodies.back().body = unpackBody(b, &isl.bodies.back().owner);
  }
  for (std::size_t i = 0; i < nc; ++i, b += kContactSlots) {
    auto& c = isl.contacts.emplace_back();
    c.a = static_cast<std::int64_t>(b[0]);
    c.b = static_cast<std::int64_t>(b[1]);
    c.plane = static_cast<int>(b[2]);
    c.point = Eigen::Vector3d(b[3], b[4], b[5]);
    c.normal = Eigen::Vector3d(b[6], b[7], b[8]);
    c.distance = b[9];
  }
}

// Collective. Sends send[q] to rank q and returns what arrived, by sender; send[me] stays on this
// rank (moved, not exchanged), and `send` is released after the exchange (no third copy of it).
std::vector<std::vector<double>> exchangeExceptSelf(const Comm& comm, std::vector<std::vector<double>>& send) {
  const int R = comm.size(), me = comm.rank();
  std::vector<double> self;
  self.swap(send[u(me)]);
  std::vector<std::vector<double>> recv;
  if (R > 1) {
    recv = comm.alltoallv(send);
    std::vector<std::vector<double>>().swap(send);  // no third copy of the messages while `recv` is read
  } else {
    recv.resize(1);
  }
  recv[u(me)].swap(self);
  return recv;
}

// The islands rooted here, by label, from the contributions in `recv` (by sender rank); contributions
// from several ranks are merged. Returns how many islands came from several ranks.
template <class IslandT>
std::int64_t mergeContributions(const std::vector<std::vector<double>>& recv, std::vector<IslandT>& islands) {
  islands.clear();
  struct Part {
    const double* at;
    int rank;
  };
  std::vector<Part> parts;
  for (int q = 0; q < static_cast<int>(recv.size()); ++q) {
    const std::vector<double>& m = recv[u(q)];
    for (std::size_t at = 0; at < m.size();) {
      parts.push_back({m.data() + at, q});
      at += 3 + u(static_cast<std::int64_t>(m[at + 1])) * kBodySlots + u(static_cast<std::int64_t>(m[at + 2])) * kContactSlots;
    }
  }
  std::stable_sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.at[0] < b.at[0]; });
  std::int64_t crossRank = 0;
  int firstRank = -1;
  bool several = false;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const double* m = parts[p].at;
    const auto label = static_cast<std::int64_t>(m[0]);
    if (islands.empty() || islands.back().label != label) {
      islands.emplace_back();
      islands.back().label = label;
      firstRank = parts[p].rank;
      several = false;
    } else if (!several && parts[p].rank != firstRank) {
      several = true;
      ++crossRank;
    }
    appendIsland(m, islands.back());
  }
  return crossRank;
}

// Canonical order: bodies by id (a body sent by several ranks is the same bits: kept once);
// contacts between bodies by (a, b), then contacts with planes by (body, plane). A pair's
// several points come from one rank in the narrow phase's order, which the stable sort keeps.
template <class IslandT>
void sortCanonically(IslandT& isl) {
  std::stable_sort(isl.bodies.begin(), isl.bodies.end(),
                   [](const auto& a, const auto& b) { return a.body.id < b.body.id; });
  isl.bodies.erase(std::unique(isl.bodies.begin(), isl.bodies.end(),
                               [](const auto& a, const auto& b) { return a.body.id == b.body.id; }),
                   isl.bodies.end());
  std::stable_sort(isl.contacts.begin(), isl.contacts.end(), [](const auto& x, const auto& y) {
    const bool px = x.b < 0, py = y.b < 0;
    if (px != py) return py;  // pairs first
    if (x.a != y.a) return x.a < y.a;
    return px ? x.plane < y.plane : x.b < y.b;
  });
}

}  // namespace

// This rank's constraints grouped by island (the label of their dynamic body), each group packed
// for the island's root (send[root]): [label, bodies, contacts, the bodies..., the contacts...].
std::vector<std::vector<double>> SimStepper::packContributions() {
  const int R = comm_.size();
  std::vector<int> order(constraints_.begin(), constraints_.end());
  const auto labelOf = [&](int k) {
    const SimContact& c = candidates_[u(k)];
    return label_[u(local_.bodies[u(c.a)].isStatic ? c.b : c.a)];
  };
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return labelOf(x) < labelOf(y); });
  std::vector<std::vector<double>> send(u(R));
  std::vector<int> bodies;
  touched_.assign(local_.bodies.size(), 0);  // here: "body already packed in this group"
  for (std::size_t s = 0; s < order.size();) {
    std::size_t e = s;
    const std::int64_t label = labelOf(order[s]);
    while (e < order.size() && labelOf(order[e]) == label) ++e;
    const SimContact& first = candidates_[u(order[s])];
    const int root = labelRoot_[u(local_.bodies[u(first.a)].isStatic ? first.b : first.a)];
    bodies.clear();
    for (std::size_t i = s; i < e; ++i) {
      const SimContact& c = candidates_[u(order[i])];
      for (int b : {c.a, c.b})
        if (b >= 0 && !touched_[u(b)]) touched_[u(b)] = 1, bodies.push_back(b);
    }
    std::vector<double>& out = send[u(root)];
    out.insert(out.end(), {static_cast<double>(label), static_cast<double>(bodies.size()), static_cast<double>(e - s)});
    for (int b : bodies) {
      packBody(local_.bodies[u(b)], ownerOf_[u(b)], 1, out);
      touched_[u(b)] = 0;
    }
    for (std::size_t i = s; i < e; ++i) {
      const SimContact& c = candidates_[u(order[i])];
      out.insert(out.end(), {static_cast<double>(local_.bodies[u(c.a)].id),
                             c.b >= 0 ? static_cast<double>(local_.bodies[u(c.b)].id) : -1.0,
                             static_cast<double>(c.plane), c.point[0], c.point[1], c.point[2], c.normal[0], c.normal[1],
                             c.normal[2], c.distance});
    }
    s = e;
  }
  return send;
}

void SimStepper::gatherIslands() {
  std::vector<std::vector<double>> send = packContributions();
  // This rank's own islands stay where they are; only what crosses ranks is exchanged.
  const std::vector<std::vector<double>> recv = exchangeExceptSelf(comm_, send);
  // Islands rooted here, by label; contributions from several ranks are merged.
  const std::int64_t crossRank = mergeContributions(recv, islands_);
  for (Island& isl : islands_) sortCanonically(isl);
  stats_.crossRankIslands = crossRank;
}

bool SimStepper::approaching(const Island& island) const {
  // Approaching under w (the impact acts) or under w + h (the support projection acts).
  for (const IslandContact& c : island.contacts) {
    const SimBody& a = island.body(c.a);
    const SimBody* b = c.b >= 0 ? &island.body(c.b) : nullptr;
    if (relativeNormalVelocity(a, b, c.point, c.normal, Eigen::Vector3d::Zero()) < 0.0 ||
        (half_ != Eigen::Vector3d::Zero() && relativeNormalVelocity(a, b, c.point, c.normal, half_) < 0.0))
      return true;
  }
  return false;
}

bool SimStepper::distributedIsland(const Island& island) const {
  const ImpactParams& P = options_.impact;
  return options_.distributedIslandContacts > 0 && comm_.size() > 1 && options_.backend &&
         options_.backend->distributed() && P.op == "gr" && P.restitution == 1.0 &&
         static_cast<std::int64_t>(island.contacts.size()) >= options_.distributedIslandContacts;
}

void SimStepper::buildIslandSystem(const Island& island, ImpactSystem& sys, Eigen::VectorXd& q0) const {
  // Dynamic bodies in id order become the system's bodies 0, 1, ...; static ones are the world.
  std::vector<int> sysOf(island.bodies.size(), -1);
  for (std::size_t i = 0; i < island.bodies.size(); ++i) {
    const SimBody& B = island.bodies[i].body;
    if (B.isStatic) continue;
    if (world_.dimension == 2) sysOf[i] = sys.addBall2D(B.mass, B.x.head<2>());
    else if (B.rigid) sysOf[i] = sys.addRigidBody(B.mass, B.inertiaWorld(), B.x);
    else sysOf[i] = sys.addBall3D(B.mass, B.x);
  }
  const auto local = [&](std::int64_t id) {
    if (id < 0) return -1;
    const auto it = std::lower_bound(island.bodies.begin(), island.bodies.end(), id,
                                     [](const IslandBody& b, std::int64_t i) { return b.body.id < i; });
    return sysOf[u(it - island.bodies.begin())];
  };
  for (const IslandContact& c : island.contacts) sys.addContact(local(c.a), local(c.b), c.point, c.normal);
  q0.resize(sys.dofs());
  for (std::size_t i = 0; i < island.bodies.size(); ++i) {
    if (sysOf[i] < 0) continue;
    const SimBody& B = island.bodies[i].body;
    const Body& S = sys.body(sysOf[i]);
    q0.segment(S.offset, std::min(S.dofs, 3)) = B.v.head(std::min(S.dofs, 3));
    if (S.dofs == 6) q0.segment<3>(S.offset + 3) = B.omega;
  }
}

Eigen::VectorXd SimStepper::finishIsland(const ImpactSystem& sys, const Eigen::VectorXd& q0, Eigen::VectorXd qdot,
                                         Eigen::VectorXd impulse, const OperatorOptions& oo, IslandResult& r) const {
  const ImpactParams& P = options_.impact;
  r.impactWork = sys.kineticEnergy(qdot) - sys.kineticEnergy(q0);
  // h on the translational DOFs of every body (2 for a disc, the first 3 of a ball or rigid body).
  Eigen::VectorXd h = Eigen::VectorXd::Zero(sys.dofs());
  if (half_ != Eigen::Vector3d::Zero())
    for (int k = 0; k < sys.numBodies(); ++k) {
      const Body& S = sys.body(k);
      if (S.dofs > 0) h.segment(S.offset, std::min(S.dofs, 3)) = half_.head(std::min(S.dofs, 3));
    }
  if (P.friction.mu > 0.0) {
    // Coulomb's bound is the step's whole normal impulse: the impact's plus the support the second
    // half kick will need, taken from a tentative support projection of w⁺ + h.
    if (half_ != Eigen::Vector3d::Zero() && minRelativeFeasibility(sys, qdot + h) < -P.resolver.epsilon) {
      const InelasticResult support = solveInelastic(sys, qdot + h, oo);
      if (support.lambda.size() == impulse.size()) impulse += support.lambda;
    }
    qdot = applyFriction(sys, qdot, impulse, P.friction).qdot;
    // One-way friction (paper section 6.3) changes the velocity of bodies with several contacts and
    // can make another of their constraints approaching again; a final inelastic projection
    // argmin ‖v − q̇‖_M s.t. Nᵀv ≥ 0 restores feasibility without adding energy. Friction acts on
    // the impact's result w⁺, before the second half kick: applied after it, its impulses (tangent
    // to tilted contacts, partly vertical) do work against the half kick and a settled pile creeps
    // with a steady energy gain (measured: +1e-5 J per step in a 60-disc pile; docs/modules/impact.md,
    // Energy).
    if (minRelativeFeasibility(sys, qdot) < -P.resolver.epsilon) qdot = solveInelastic(sys, qdot, oo).qdot;
  }
  if (half_ != Eigen::Vector3d::Zero()) {
    qdot += h;
    // The second half kick pressed a contact the impact left at rest (or barely separating): the
    // support projection, the inelastic QP of paper section 6.2 on the kicked velocity. A body
    // resting on a floor ends the step at rest exactly (no micro-bounce from the c_r blend).
    if (minRelativeFeasibility(sys, qdot) < -P.resolver.epsilon) {
      qdot = solveInelastic(sys, qdot, oo).qdot;
      r.supportProjection = true;
    }
  }
  // ΔH̃ of this island (sim_stepper.hpp): ½‖v⁺ − h‖²_M − ½‖w‖²_M.
  r.contactWork = sys.kineticEnergy(qdot - h) - sys.kineticEnergy(q0);
  return qdot;
}

SimStepper::IslandResult SimStepper::resolveIsland(const Island& island, Eigen::VectorXd& qdotOut) const {
  // Allocation: ImpactSystem, the operator and the resolver results allocate per island (their
  // API has no reusable workspace).
  ImpactSystem sys;
  Eigen::VectorXd q0;
  buildIslandSystem(island, sys, q0);
  const ImpactParams& P = options_.impact;
  OperatorOptions oo = P.operatorOptions;
  oo.seed = P.operatorOptions.seed + 1000003ull * static_cast<std::uint64_t>(step_) + static_cast<std::uint64_t>(island.label);
  ImpactOperatorPtr op = makeImpactOperator(P.op, oo);
  Resolver resolver(P.resolver);
  IslandResult r;
  const auto take = [&r](const ResolverStats& st) {
    r.iterations = st.iterations;
    r.cycle = st.cycleDetected;
    r.cap = st.capReached;
    r.converged = st.converged;
    r.linealityDetections = st.implicitEqualities > 0 ? 1 : 0;
    r.constraintsRemoved = st.constraintsRemoved;
  };
  Eigen::VectorXd qdot, impulse;
  if (P.restitution == 1.0) {
    ResolveResult res = resolver.resolve(sys, *op, q0);
    qdot = std::move(res.qdot);
    impulse = std::move(res.impulse);
    take(res.stats);
  } else {
    RestitutionResult res = resolveWithRestitution(sys, q0, P.restitution, *op, resolver, oo);
    qdot = std::move(res.qdot);
    impulse = std::move(res.impulse);
    r.qpConverged = res.qp.converged;
    const double scale = sys.normM(q0);
    r.qpResidual = scale > 0.0 ? res.qp.kktResidual / scale : 0.0;
    if (P.restitution > 0.0) take(res.elasticStats);
  }
  qdotOut = finishIsland(sys, q0, std::move(qdot), std::move(impulse), oo, r);
  return r;
}

// Collective: every rank builds the same island system and resolves it together.
SimStepper::IslandResult SimStepper::resolveDistributedIsland(const Island& island, Eigen::VectorXd& qdotOut) const {
  ImpactSystem sys;
  Eigen::VectorXd q0;
  buildIslandSystem(island, sys, q0);
  const ImpactParams& P = options_.impact;
  DistributedGROptions o;
  o.arithmetic = P.resolver.arithmetic;
  o.epsilon = P.resolver.epsilon;
  o.renormalise = P.resolver.renormalise;
  o.maxIterations = P.resolver.maxIterations;
  const DistributedGRResult res = resolveDistributedGR(sys, q0, *options_.backend, comm_, o);
  IslandResult r;
  qdotOut = finishIsland(sys, q0, res.qdot, res.impulse, P.operatorOptions, r);
  r.iterations = res.stats.iterations;
  r.cap = res.stats.capReached;
  r.converged = res.stats.converged;
  return r;
}

// One pass of resolveAll(): sums (islands, resolved, iterations, cycles, caps, not converged, QP not
// converged, lineality, removed, support, distributed, gathered across ranks) and maxima (largest
// island, iterations, QP residual); works summed; and the resolved velocities for the bodies' owners.
struct SimStepper::PassTally {
  enum { Islands, Resolved, ItTotal, Cycles, Caps, Bad, QpBad, Lineal, Removed, Support, Dist, Cross, NSum };
  std::int64_t sums[NSum] = {};
  double maxima[3] = {0.0, 0.0, 0.0};  // largest island, iterations, QP residual
  double works[2] = {0.0, 0.0};        // contact work, impact work
  std::vector<std::vector<double>> results;  // (id, v, ω) for each body's owner

  // `crossRank`: this rank's islands gathered across ranks, from gatherIslands().
  PassTally(int ranks, std::int64_t crossRank) : results(u(ranks)) { sums[Cross] = crossRank; }

  // An island's resolved velocities to its bodies' owners.
  void post(const Island& isl, const Eigen::VectorXd& qdot, int dimension) {
    // Dynamic bodies in id order are the system's bodies 0, 1, ... (buildIslandSystem).
    int dof = 0;
    for (const IslandBody& ib : isl.bodies) {
      if (ib.body.isStatic) continue;
      const int dofs = dimension == 2 ? 2 : (ib.body.rigid ? 6 : 3);
      double slot[1 + kSlot] = {static_cast<double>(ib.body.id), 0, 0, 0, 0, 0, 0};
      for (int k = 0; k < dofs; ++k) slot[1 + k] = qdot[dof + k];
      dof += dofs;
      results[u(ib.owner)].insert(results[u(ib.owner)].end(), slot, slot + 1 + kSlot);
    }
  }
  // The figures of an island resolved by this rank.
  void count(const IslandResult& r) {
    maxima[1] = std::max(maxima[1], static_cast<double>(r.iterations));
    sums[ItTotal] += r.iterations;
    sums[Cycles] += r.cycle ? 1 : 0;
    sums[Caps] += r.cap ? 1 : 0;
    sums[Bad] += r.converged ? 0 : 1;
    sums[QpBad] += r.qpConverged ? 0 : 1;
    sums[Lineal] += r.linealityDetections;
    sums[Removed] += r.constraintsRemoved;
    maxima[2] = std::max(maxima[2], r.qpResidual);
    sums[Support] += r.supportProjection ? 1 : 0;
    works[0] += r.contactWork;
    works[1] += r.impactWork;
  }
  // The figures of an island resolved by all ranks together (counted by its root).
  void countDistributed(const IslandResult& r) {
    ++sums[Dist];
    maxima[1] = std::max(maxima[1], static_cast<double>(r.iterations));
    sums[ItTotal] += r.iterations;
    sums[Caps] += r.cap ? 1 : 0;
    sums[Bad] += r.converged ? 0 : 1;
    sums[Support] += r.supportProjection ? 1 : 0;
    works[0] += r.contactWork;
    works[1] += r.impactWork;
  }
  // An island of this rank's, whether it was resolved (approaching) and its constraints.
  void countIsland(bool resolved, std::size_t contacts) {
    ++sums[Islands];
    if (!resolved) return;
    ++sums[Resolved];
    maxima[0] = std::max(maxima[0], static_cast<double>(contacts));
  }
  // Collective: the figures summed (maxima: max) over the ranks.
  void reduce(const Comm& comm) {
    if (comm.size() == 1) return;
    MPI_Allreduce(MPI_IN_PLACE, sums, NSum, MPI_INT64_T, MPI_SUM, comm.raw());
    MPI_Allreduce(MPI_IN_PLACE, maxima, 3, MPI_DOUBLE, MPI_MAX, comm.raw());
    MPI_Allreduce(MPI_IN_PLACE, works, 2, MPI_DOUBLE, MPI_SUM, comm.raw());
  }
  // The pass's figures into the step's.
  void record(SimStepStats& stats) const {
    stats.islands = sums[Islands];
    stats.resolvedIslands = sums[Resolved];
    stats.largestIsland = std::max(stats.largestIsland, static_cast<std::int64_t>(maxima[0]));
    stats.iterationsMax = std::max(stats.iterationsMax, static_cast<std::int64_t>(maxima[1]));
    stats.iterationsTotal += sums[ItTotal];
    stats.cycles += sums[Cycles];
    stats.caps += sums[Caps];
    stats.notConverged += sums[Bad];
    stats.qpNotConverged += sums[QpBad];
    stats.linealityDetections += sums[Lineal];
    stats.constraintsRemoved += sums[Removed];
    stats.qpResidualMax = std::max(stats.qpResidualMax, maxima[2]);
    stats.distributedIslands += sums[Dist];
    stats.crossRankIslands = sums[Cross];
    // The work of the last pass only: earlier passes were undone (the step restarts from w).
    stats.supportProjections = sums[Support];
    stats.contactWork = works[0];
    stats.impactWork = works[1];
  }
};

// Collective. Islands above the size threshold: resolved by every rank together, in label order;
// done[i] = 1 for those of them rooted here.
void SimStepper::resolveDistributedIslands(PassTally& tally, std::vector<std::uint8_t>& done) {
  const int me = comm_.rank();
  std::vector<std::int64_t> mine;
  for (std::size_t i = 0; i < islands_.size(); ++i)
    if (distributedIsland(islands_[i]) && approaching(islands_[i]))
      mine.insert(mine.end(), {islands_[i].label, static_cast<std::int64_t>(i), me});
  const std::vector<std::int64_t> all = comm_.allgatherv(mine);
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < all.size(); k += 3) order.push_back(k);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return all[a] < all[b]; });
  std::vector<double> buf;
  Island shared;
  for (std::size_t k : order) {
    const int root = static_cast<int>(all[k + 2]);
    buf.clear();
    if (me == root) packIsland(islands_[u(all[k + 1])], buf);
    std::int64_t size = static_cast<std::int64_t>(buf.size());
    MPI_Bcast(&size, 1, MPI_INT64_T, root, comm_.raw());
    buf.resize(u(size));
    MPI_Bcast(buf.data(), static_cast<int>(size), MPI_DOUBLE, root, comm_.raw());
    const Island* isl = &shared;
    if (me == root) isl = &islands_[u(all[k + 1])];
    else {
      shared.bodies.clear();
      shared.contacts.clear();
      appendIsland(buf.data(), shared);
    }
    Eigen::VectorXd qdot;
    const IslandResult r = resolveDistributedIsland(*isl, qdot);
    if (me != root) continue;
    done[u(all[k + 1])] = 1;
    tally.post(*isl, qdot, world_.dimension);
    tally.countDistributed(r);
  }
}

// Collective. The resolved velocities (results[q]: of rank q's bodies) to the bodies' owners, then to
// the ranks that hold them as ghosts; bodies of islands left alone get the second half kick.
void SimStepper::deliverVelocities(std::vector<std::vector<double>>& results) {
  const int me = comm_.rank();
  // The velocities of this rank's own bodies are not exchanged.
  const std::vector<std::vector<double>> recv = exchangeExceptSelf(comm_, results);
  touched_.assign(local_.bodies.size(), 0);
  for (const std::vector<double>& m : recv)
    for (std::size_t at = 0; at < m.size(); at += 1 + kSlot) {
      const int k = localIndexOf(static_cast<std::int64_t>(m[at]));
      SimBody& B = local_.bodies[u(k)];
      const double* s = m.data() + at + 1;
      touched_[u(k)] = 1;
      B.v = Eigen::Vector3d(s[0], s[1], world_.dimension == 2 ? 0.0 : s[2]);
      if (B.rigid) B.omega = Eigen::Vector3d(s[3], s[4], s[5]);
    }
  // Bodies of islands left alone get the second half kick here (those resolved got it in step 4):
  // v⁻ itself, so that free flight is bitwise the same under either kick order.
  if (half_ != Eigen::Vector3d::Zero())
    for (std::size_t k = 0; k < local_.bodies.size(); ++k)
      if (!touched_[k] && ownerOf_[k] == me) local_.bodies[k].v = vKicked_[k];
  refreshGhostVelocities();
}

void SimStepper::resolveAll() {
  auto t0 = Clock::now();
  const int R = comm_.size();
  PassTally tally(R, stats_.crossRankIslands);
  // Islands above the size threshold: resolved by every rank together, in label order.
  std::vector<std::uint8_t> done(islands_.size(), 0);
  if (R > 1 && options_.distributedIslandContacts > 0 && options_.backend && options_.backend->distributed())
    resolveDistributedIslands(tally, done);
  Eigen::VectorXd qdot;
  for (std::size_t i = 0; i < islands_.size(); ++i) {
    const Island& isl = islands_[i];
    const bool resolved = approaching(isl);
    tally.countIsland(resolved, isl.contacts.size());
    if (!resolved || done[i]) continue;
    tally.count(resolveIsland(isl, qdot));
    tally.post(isl, qdot, world_.dimension);
  }
  stats_.secondsResolve += since(t0);
  t0 = Clock::now();
  // Exchange: the velocities to the bodies' owners, then to the ranks that hold them as ghosts.
  deliverVelocities(tally.results);
  tally.reduce(comm_);
  tally.record(stats_);
  stats_.secondsExchange += since(t0);
}

void SimStepper::integrate() {
  const double dt = options_.dt;
  for (SimBody& b : world_.bodies) {
    if (b.isStatic) continue;
    b.x += dt * b.v;
    if (world_.dimension == 2) b.x[2] = 0.0;
    if (b.rigid) {
      const double w = b.omega.norm();
      if (w > 0.0) {
        const Eigen::Vector3d L = b.inertiaWorld() * b.omega;
        b.q = (Eigen::Quaterniond(Eigen::AngleAxisd(w * dt, b.omega / w)) * b.q).normalized();
        const Eigen::Matrix3d R = b.rotation();
        b.omega = R * (R.transpose() * L).cwiseQuotient(b.inertiaBody);
      }
    }
  }
}

// w = v + (Δt g − h), the impact's pre-impact velocity (v⁻ itself under Before), kept for the
// closure passes; ω has no gravity kick.
void SimStepper::kickLocalBodies() {
  const double dt = options_.dt;
  const std::size_t n = local_.bodies.size();
  vMinus_.resize(n);
  omegaMinus_.resize(n);
  vKicked_.resize(n);
  const Eigen::Vector3d preKick = dt * world_.gravity - half_;
  for (std::size_t k = 0; k < n; ++k) {
    SimBody& b = local_.bodies[k];
    vMinus_[k] = b.isStatic ? b.v : Eigen::Vector3d(b.v + preKick);
    omegaMinus_[k] = b.omega;
    // 1. kick: v⁻ = v + Δt g for the detection (the drift velocity if no contact acts).
    if (!b.isStatic) b.v += dt * world_.gravity;
    vKicked_[k] = b.v;
  }
}

// 2. detection; this rank keeps the contacts whose smaller-id dynamic body it owns. Returns the
// largest penetration among them (0 if none).
double SimStepper::detectConstraints() {
  const double dt = options_.dt;
  const int me = comm_.rank();
  detector_.detect(local_, dt, options_.contactTolerance, candidates_);
  std::size_t kept = 0;
  for (std::size_t k = 0; k < candidates_.size(); ++k)
    if (keeperOf(candidates_[k]) == me) candidates_[kept++] = candidates_[k];
  candidates_.resize(kept);
  constraintOf_.assign(candidates_.size(), -1);
  constraints_.clear();
  double penetration = 0.0;
  for (std::size_t k = 0; k < candidates_.size(); ++k) {
    penetration = std::max(penetration, -candidates_[k].distance);
    if (isConstraint(candidates_[k], dt)) {
      constraintOf_[k] = static_cast<int>(constraints_.size());
      constraints_.push_back(static_cast<int>(k));
    }
  }
  return penetration;
}

// Collective. Steps 3-6: islands, impact and exchange from w, redone while the new velocities close
// further contacts (at most closurePasses passes).
void SimStepper::resolvePasses() {
  const double dt = options_.dt;
  const std::size_t n = local_.bodies.size();
  for (int pass = 0; pass < options_.closurePasses; ++pass) {
    if (pass > 0 || half_ != Eigen::Vector3d::Zero())
      for (std::size_t k = 0; k < n; ++k) {
        local_.bodies[k].v = vMinus_[k];
        local_.bodies[k].omega = omegaMinus_[k];
      }
    const auto t0 = Clock::now();
    labelIslands();
    gatherIslands();
    stats_.secondsIslands += since(t0);
    ++stats_.closurePasses;
    resolveAll();
    checkFinite();
    // 6. closure: contacts the new velocities would close within the step.
    std::int64_t added = 0;
    for (std::size_t k = 0; k < candidates_.size(); ++k)
      if (constraintOf_[k] < 0 && isConstraint(candidates_[k], dt)) {
        if (pass + 1 < options_.closurePasses) {
          constraintOf_[k] = static_cast<int>(constraints_.size());
          constraints_.push_back(static_cast<int>(k));
        }
        ++added;
      }
    if (comm_.size() > 1) added = comm_.sum(added);
    if (added == 0) break;
    if (pass + 1 == options_.closurePasses) stats_.unresolvedClosures = added;
  }
}

// Weights for the next rebalance: 1 + 2 per constraint of an owned body kept here.
void SimStepper::updateLoadWeights() {
  for (std::size_t k = 0; k < world_.bodies.size(); ++k) weight_[k] = 1;
  if (comm_.size() > 1) {
    std::vector<int> worldOf(local_.bodies.size(), -1);
    for (std::size_t k = 0; k < world_.bodies.size(); ++k) worldOf[u(ownedLocal_[k])] = static_cast<int>(k);
    for (int c : constraints_)
      for (int b : {candidates_[u(c)].a, candidates_[u(c)].b})
        if (b >= 0 && worldOf[u(b)] >= 0) weight_[u(worldOf[u(b)])] += 2;
  }
}

const SimStepStats& SimStepper::step() {
  ScopedTimer timer("impact.step");
  stats_ = SimStepStats{};
  const double dt = options_.dt;
  half_ = options_.gravityKick == GravityKick::Split ? Eigen::Vector3d(0.5 * dt * world_.gravity) : Eigen::Vector3d::Zero();
  // 0. ownership: rebalance if needed, bodies that left their subdomain to their new owner; then
  // the ghosts (the state at the start of the step: every rank computes the kicks below alike).
  rebalanceAndMigrate();
  auto t0 = Clock::now();
  buildLocal();
  stats_.secondsExchange += since(t0);
  kickLocalBodies();
  checkFinite();
  t0 = Clock::now();
  double penetration = detectConstraints();
  stats_.secondsDetect = since(t0);
  resolvePasses();
  updateLoadWeights();
  // The owned bodies' new velocities back into the world.
  for (std::size_t k = 0; k < world_.bodies.size(); ++k) {
    const SimBody& b = local_.bodies[u(ownedLocal_[k])];
    world_.bodies[k].v = b.v;
    world_.bodies[k].omega = b.omega;
  }
  std::int64_t counts[3] = {static_cast<std::int64_t>(candidates_.size()), static_cast<std::int64_t>(constraints_.size()),
                            0};
  if (comm_.size() > 1) {
    MPI_Allreduce(MPI_IN_PLACE, counts, 3, MPI_INT64_T, MPI_SUM, comm_.raw());
    penetration = comm_.max(penetration);
  }
  stats_.candidates = counts[0];
  stats_.constraints = counts[1];
  stats_.maxPenetration = penetration;
  // 7. drift
  t0 = Clock::now();
  integrate();
  world_.time += dt;
  ++step_;
  stats_.secondsIntegrate = since(t0);
  if (comm_.size() > 1) {
    double s[6] = {stats_.secondsDetect, stats_.secondsIslands, stats_.secondsResolve, stats_.secondsExchange,
                   stats_.secondsIntegrate, stats_.secondsMigrate};
    MPI_Allreduce(MPI_IN_PLACE, s, 6, MPI_DOUBLE, MPI_MAX, comm_.raw());
    stats_.secondsDetect = s[0], stats_.secondsIslands = s[1], stats_.secondsResolve = s[2];
    stats_.secondsExchange = s[3], stats_.secondsIntegrate = s[4], stats_.secondsMigrate = s[5];
  }
  return stats_;
}

double SimStepper::kineticEnergy() const {
  const double e = world_.kineticEnergy();
  return comm_.size() > 1 ? comm_.sum(e) : e;
}
double SimStepper::potentialEnergy() const {
  const double e = world_.potentialEnergy();
  return comm_.size() > 1 ? comm_.sum(e) : e;
}
double SimStepper::shadowEnergy() const {
  const double e = world_.shadowEnergy(options_.dt);
  return comm_.size() > 1 ? comm_.sum(e) : e;
}
Eigen::Vector3d SimStepper::linearMomentum() const {
  Eigen::Vector3d p = world_.linearMomentum();
  if (comm_.size() > 1) MPI_Allreduce(MPI_IN_PLACE, p.data(), 3, MPI_DOUBLE, MPI_SUM, comm_.raw());
  return p;
}
Eigen::Vector3d SimStepper::angularMomentum() const {
  Eigen::Vector3d L = world_.angularMomentum();
  if (comm_.size() > 1) MPI_Allreduce(MPI_IN_PLACE, L.data(), 3, MPI_DOUBLE, MPI_SUM, comm_.raw());
  return L;
}

void SimStepper::blockRows(std::vector<SimBody>& rows, std::int64_t& first, std::vector<int>* owner,
                           std::vector<std::int64_t>* weight) const {
  const int R = comm_.size(), me = comm_.rank();
  first = blockFirst(globalBodies_, me, R);
  if (owner) owner->clear();
  if (weight) weight->clear();
  if (R == 1) {
    rows = world_.bodies;
    if (owner) owner->assign(rows.size(), 0);
    if (weight) *weight = weight_;
    return;
  }
  // Bodies already in this rank's block are copied, the others exchanged (sendBodies).
  rows.clear();
  rows.reserve(u(blockFirst(globalBodies_, me + 1, R) - first));
  std::vector<std::size_t> which;
  std::vector<int> target;
  for (std::size_t k = 0; k < world_.bodies.size(); ++k) {
    const int r = blockOf(world_.bodies[k].id, globalBodies_, R);
    if (r == me) {
      rows.push_back(world_.bodies[k]);
      if (owner) owner->push_back(me);
      if (weight) weight->push_back(weight_[k]);
    } else {
      which.push_back(k), target.push_back(r);
    }
  }
  sendBodies(which, target, rows, weight, owner);
  if (!owner && !weight) {
    sortById(rows);
    return;
  }
  // Sorted with their owners and weights alongside.
  std::vector<std::size_t> order(rows.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rows[a].id < rows[b].id; });
  std::vector<SimBody> sorted(rows.size());
  std::vector<int> o(owner ? rows.size() : 0);
  std::vector<std::int64_t> w(weight ? rows.size() : 0);
  for (std::size_t k = 0; k < order.size(); ++k) {
    sorted[k] = rows[order[k]];
    if (owner) o[k] = (*owner)[order[k]];
    if (weight) w[k] = (*weight)[order[k]];
  }
  rows.swap(sorted);
  if (owner) owner->swap(o);
  if (weight) weight->swap(w);
}

std::int64_t SimStepper::toBlocks() {
  std::int64_t first = 0;
  std::vector<SimBody> rows;
  blockRows(rows, first);
  world_.bodies.swap(rows);
  weight_.assign(world_.bodies.size(), 1);
  rebuild_ = comm_.size() > 1;
  return first;
}

SimWorld SimStepper::gathered() const {
  SimWorld w = world_;
  if (comm_.size() == 1) return w;
  std::vector<double> mine;
  for (const SimBody& b : world_.bodies) packBody(b, comm_.rank(), 1, mine);
  const std::vector<double> all = comm_.allgatherv(mine);
  w.bodies.clear();
  for (std::size_t at = 0; at < all.size(); at += kBodySlots) w.bodies.push_back(unpackBody(all.data() + at));
  sortById(w.bodies);
  return w;
}

}  // namespace kinema::impact

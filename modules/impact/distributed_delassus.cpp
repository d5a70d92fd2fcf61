#include "modules/impact/distributed_delassus.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "framework/core/error.hpp"

namespace kinema::impact {

namespace {

// Lower-id dynamic body of a constraint (its owner's body, README decision 15).
int ownerBody(const Constraint& c) {
  int b = -1;
  for (int s = 0; s < 2; ++s)
    if (c.body[s] >= 0 && (b < 0 || c.body[s] < b)) b = c.body[s];
  return b;
}

// Fails early, before any collective object exists, with the layer's message if the backend cannot
// hold objects spanning comm's ranks.
void requireDistributedBackend(const la::Backend& backend, const Comm& comm) {
  const la::IndexMap probe(comm, 0);
  try {
    backend.requireUsable(probe);
  } catch (const InputError& e) {
    throw InputError(str("distributed impact resolution (one island over ", comm.size(), " ranks): ", e.what()));
  }
}

// The rank of each body: the given list, checked, or (empty) contiguous body ranges of about d/P DOFs each.
void assignBodyRanks(const ImpactSystem& system, int P, std::vector<int>& bodyRank) {
  const int nb = system.numBodies(), d = system.dofs();
  if (bodyRank.empty()) {
    // Contiguous body ranges of about d/P DOFs each.
    bodyRank.assign(static_cast<std::size_t>(nb), 0);
    for (int b = 0; b < nb; ++b) {
      const Body& body = system.body(b);
      if (body.dofs == 0 || d == 0) continue;
      const long r = static_cast<long>(body.offset) * P / d;
      bodyRank[static_cast<std::size_t>(b)] = static_cast<int>(std::min<long>(r, P - 1));
    }
  }
  if (static_cast<int>(bodyRank.size()) != nb)
    throw InputError(str("distributed Delassus: body rank list has ", bodyRank.size(), " entries, the system ",
                         nb, " bodies"));
  for (int r : bodyRank)
    if (r < 0 || r >= P) throw InputError(str("distributed Delassus: body rank ", r, " is not in [0, ", P, ")"));
}

// Distributed DOF numbering: bodies sorted by (rank, id), so each rank's DOFs are contiguous. Fills
// the first distributed DOF of each body and rank `me`'s bodies with DOFs (sorted); returns their DOF count.
la::GlobalIndex numberDofs(const ImpactSystem& system, const std::vector<int>& bodyRank, int me,
                           std::vector<la::GlobalIndex>& distDof, std::vector<int>& ownedBodies) {
  const int nb = system.numBodies();
  std::vector<int> order(static_cast<std::size_t>(nb));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return bodyRank[a] < bodyRank[b]; });
  distDof.assign(static_cast<std::size_t>(nb), 0);
  la::GlobalIndex next = 0, ownedDofs = 0;
  for (int b : order) {
    distDof[static_cast<std::size_t>(b)] = next;
    next += system.body(b).dofs;
    if (bodyRank[b] == me && system.body(b).dofs > 0) {
      ownedBodies.push_back(b);
      ownedDofs += system.body(b).dofs;
    }
  }
  std::sort(ownedBodies.begin(), ownedBodies.end());
  return ownedDofs;
}

// Constraint ownership and the λ numbering (owner rank, constraint id): the distributed λ index of
// each constraint, and rank `me`'s constraints in local order.
void numberConstraints(const ImpactSystem& system, const std::vector<int>& bodyRank, int me,
                       std::vector<la::GlobalIndex>& constraintGlobal, std::vector<int>& ownedConstraints) {
  const int m = system.numConstraints();
  std::vector<int> crank(static_cast<std::size_t>(m), 0);
  for (int i = 0; i < m; ++i) {
    const int b = ownerBody(system.constraint(i));
    crank[static_cast<std::size_t>(i)] = b >= 0 ? bodyRank[b] : 0;
  }
  std::vector<int> corder(static_cast<std::size_t>(m));
  std::iota(corder.begin(), corder.end(), 0);
  std::stable_sort(corder.begin(), corder.end(), [&](int a, int b) { return crank[a] < crank[b]; });
  constraintGlobal.assign(static_cast<std::size_t>(m), 0);
  for (int k = 0; k < m; ++k) {
    const int i = corder[static_cast<std::size_t>(k)];
    constraintGlobal[static_cast<std::size_t>(i)] = k;
    if (crank[static_cast<std::size_t>(i)] == me) ownedConstraints.push_back(i);
  }
}

// Ghost bodies: touched by an owned constraint, owned elsewhere (sorted by id).
std::vector<int> findGhostBodies(const ImpactSystem& system, const std::vector<int>& bodyRank,
                                 const std::vector<int>& ownedConstraints, int me) {
  std::vector<char> isGhost(static_cast<std::size_t>(system.numBodies()), 0);
  std::vector<int> ghosts;
  for (int i : ownedConstraints)
    for (int b : system.constraint(i).body)
      if (b >= 0 && bodyRank[b] != me && !isGhost[b]) isGhost[b] = 1, ghosts.push_back(b);
  std::sort(ghosts.begin(), ghosts.end());
  return ghosts;
}

}  // namespace

DistributedDelassus::DistributedDelassus(const ImpactSystem& system, const la::Backend& backend, Comm comm,
                                         std::vector<int> bodyRank)
    : system_(system), backend_(backend), comm_(comm), bodyRank_(std::move(bodyRank)) {
  const int P = comm_.size(), me = comm_.rank();
  const int nb = system_.numBodies(), d = system_.dofs();
  requireDistributedBackend(backend_, comm_);
  assignBodyRanks(system_, P, bodyRank_);
  const la::GlobalIndex ownedDofs = numberDofs(system_, bodyRank_, me, distDof_, ownedBodies_);
  numberConstraints(system_, bodyRank_, me, constraintGlobal_, ownedConstraints_);

  // Ghost DOFs of one body are consecutive in the ghost list, so its local indices are too.
  const std::vector<int> ghosts = findGhostBodies(system_, bodyRank_, ownedConstraints_, me);
  ghostBodies_ = static_cast<int>(ghosts.size());
  std::vector<la::GlobalIndex> ghostDofs;
  for (int b : ghosts)
    for (int j = 0; j < system_.body(b).dofs; ++j) ghostDofs.push_back(distDof_[b] + j);

  vmap_ = std::make_shared<const la::IndexMap>(comm_, ownedDofs, ghostDofs);
  cmap_ = std::make_shared<const la::IndexMap>(comm_, static_cast<la::GlobalIndex>(ownedConstraints_.size()));
  KINEMA_CHECK(vmap_->globalSize() == d, "distributed Delassus: DOF map has ", vmap_->globalSize(), " != d = ", d);
  KINEMA_CHECK(ownedBodies_.empty() || distDof_[ownedBodies_[0]] == vmap_->ownedBegin(),
               "distributed Delassus: DOF numbering is not contiguous per rank");
  backend_.requireUsable(*vmap_);

  localDof_.assign(static_cast<std::size_t>(nb), -1);
  for (int b : ownedBodies_) localDof_[b] = distDof_[b] - vmap_->ownedBegin();
  for (int b : ghosts) localDof_[b] = vmap_->globalToLocal(distDof_[b]);

  u_ = backend_.createVector(vmap_);
  A_ = std::make_shared<la::FunctionOperator>(
      backend_, cmap_, cmap_, [this](const la::Vector& x, la::Vector& y) { apply(x, y); },
      "impact distributed Delassus operator N^T M^-1 N", [](la::Vector& dg) { dg.set(1.0); });
}

void DistributedDelassus::scatterMinvN(const la::Vector& x, la::Vector& u) const {
  {
    auto uv = u.view();
    std::fill(uv.all().begin(), uv.all().end(), 0.0);  // ghosts too: they carry contributions
    auto xv = x.constView();
    for (std::size_t k = 0; k < ownedConstraints_.size(); ++k) {
      const double xk = xv[static_cast<la::LocalIndex>(k)];
      if (xk == 0.0) continue;
      const Constraint& c = system_.constraint(ownedConstraints_[k]);
      for (int s = 0; s < 2; ++s) {
        const int b = c.body[s];
        if (b < 0) continue;
        const la::LocalIndex o = localDof(b);
        const int nd = system_.body(b).dofs;
        for (int j = 0; j < nd; ++j) uv[o + j] += c.Minv_n[s][j] * xk;
      }
    }
  }
  u.accumulateGhosts();
}

void DistributedDelassus::gatherNT(const la::Vector& u, la::Vector& s) const {
  auto uv = u.constView();
  auto sv = s.view();
  for (std::size_t k = 0; k < ownedConstraints_.size(); ++k) {
    const Constraint& c = system_.constraint(ownedConstraints_[k]);
    double acc = 0.0;
    for (int t = 0; t < 2; ++t) {
      const int b = c.body[t];
      if (b < 0) continue;
      const la::LocalIndex o = localDof(b);
      const int nd = system_.body(b).dofs;
      for (int j = 0; j < nd; ++j) acc += c.n[t][j] * uv[o + j];
    }
    sv[static_cast<la::LocalIndex>(k)] = acc;
  }
}

void DistributedDelassus::apply(const la::Vector& x, la::Vector& y) const {
  scatterMinvN(x, *u_);  // owned entries of u = M⁻¹N x
  u_->updateGhosts();
  gatherNT(*u_, y);      // y = Nᵀ u
}

void DistributedDelassus::NT(const la::Vector& v, la::Vector& s) const {
  u_->copy(v);
  u_->updateGhosts();
  gatherNT(*u_, s);
}

void DistributedDelassus::addMinvN(const la::Vector& lambda, la::Vector& v) const {
  scatterMinvN(lambda, *u_);
  v.axpy(1.0, *u_);
}

double DistributedDelassus::dotM(const la::Vector& u, const la::Vector& v) const {
  double acc = 0.0;
  {
    auto uv = u.constView();
    auto vv = v.constView();
    for (int b : ownedBodies_) {
      const Body& body = system_.body(b);
      const la::LocalIndex o = localDof(b);
      for (int r = 0; r < body.dofs; ++r) {
        double mv = 0.0;
        for (int c = 0; c < body.dofs; ++c) mv += body.M(r, c) * vv[o + c];
        acc += uv[o + r] * mv;
      }
    }
  }
  return comm_.sum(acc);
}

double DistributedDelassus::normM(const la::Vector& v) const { return std::sqrt(std::max(0.0, dotM(v, v))); }

void DistributedDelassus::scatterVelocity(const Eigen::VectorXd& q, la::Vector& v) const {
  if (q.size() != system_.dofs())
    throw InputError(str("distributed Delassus: velocity has ", q.size(), " entries, the system ", system_.dofs(),
                         " DOFs"));
  auto vv = v.view();
  for (int b : ownedBodies_) {
    const Body& body = system_.body(b);
    for (int j = 0; j < body.dofs; ++j) vv[localDof(b) + j] = q[body.offset + j];
  }
}

Eigen::VectorXd DistributedDelassus::gatherVelocity(const la::Vector& v) const {
  if (!vfull_) {  // every non-owned DOF as a ghost: updateGhosts replicates the vector
    std::vector<la::GlobalIndex> g;
    for (la::GlobalIndex i = 0; i < vmap_->globalSize(); ++i)
      if (!vmap_->owns(i)) g.push_back(i);
    vfull_ = std::make_shared<const la::IndexMap>(comm_, vmap_->ownedBlocks(), g);
  }
  la::VectorPtr full = backend_.createVector(vfull_);
  {
    auto fv = full->view();
    auto vv = v.constView();
    for (la::LocalIndex i = 0; i < vmap_->ownedSize(); ++i) fv[i] = vv[i];
  }
  full->updateGhosts();
  Eigen::VectorXd q = Eigen::VectorXd::Zero(system_.dofs());
  auto fv = full->constView();
  for (int b = 0; b < system_.numBodies(); ++b) {
    const Body& body = system_.body(b);
    if (body.dofs == 0) continue;
    const la::LocalIndex o = vfull_->globalToLocal(distDof_[b]);
    for (int j = 0; j < body.dofs; ++j) q[body.offset + j] = fv[o + j];
  }
  return q;
}

void DistributedDelassus::scatterConstraints(const Eigen::VectorXd& x, la::Vector& v) const {
  if (x.size() != system_.numConstraints())
    throw InputError(str("distributed Delassus: constraint vector has ", x.size(), " entries, m = ",
                         system_.numConstraints()));
  auto vv = v.view();
  for (std::size_t k = 0; k < ownedConstraints_.size(); ++k)
    vv[static_cast<la::LocalIndex>(k)] = x[ownedConstraints_[k]];
}

Eigen::VectorXd DistributedDelassus::gatherConstraints(const la::Vector& v) const {
  if (!cfull_) {
    std::vector<la::GlobalIndex> g;
    for (la::GlobalIndex i = 0; i < cmap_->globalSize(); ++i)
      if (!cmap_->owns(i)) g.push_back(i);
    cfull_ = std::make_shared<const la::IndexMap>(comm_, cmap_->ownedBlocks(), g);
  }
  la::VectorPtr full = backend_.createVector(cfull_);
  {
    auto fv = full->view();
    auto vv = v.constView();
    for (la::LocalIndex i = 0; i < cmap_->ownedSize(); ++i) fv[i] = vv[i];
  }
  full->updateGhosts();
  const int m = system_.numConstraints();
  Eigen::VectorXd x = Eigen::VectorXd::Zero(m);
  auto fv = full->constView();
  for (int i = 0; i < m; ++i) x[i] = fv[cfull_->globalToLocal(constraintGlobal_[static_cast<std::size_t>(i)])];
  return x;
}

}  // namespace kinema::impact

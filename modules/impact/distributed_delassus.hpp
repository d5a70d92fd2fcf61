#pragma once
// The contact Jacobian N, the mass operator and the Delassus operator A = NᵀM⁻¹N of one large
// island distributed over the ranks of a communicator (modules/impact/README.md, decision 15),
// written over the abstract la layer so that it runs on any backend that can hold distributed
// objects (petsc, trilinos; eigen at one rank only).
//
// Decomposition (the design decision of this file):
//  * The ImpactSystem is replicated: every rank holds the same system (bodies, constraints,
//    normalised gradients, M⁻¹N precomputed). Only vectors and work are distributed.
//  * Bodies are owned by ranks (`bodyRank`; default: contiguous ranges of bodies holding about
//    d/P DOFs each, i.e. a slab partition if the caller numbers bodies spatially). Velocity-space
//    vectors (q̇, M⁻¹Nλ) live on a scalar IndexMap over the DOFs, renumbered so that each rank's
//    bodies are one contiguous range: owned DOFs of owned bodies, plus ghost DOFs of every body
//    touched by an owned constraint.
//  * Each constraint (λ entry) is owned by the rank of its lower-id dynamic body (README decision 15); the
//    λ space is a scalar IndexMap renumbered by (owner rank, constraint id).
//  * A x = Nᵀ(M⁻¹(N x)) matrix-free: u = Σ_{owned i} (M⁻¹n_i) x_i into the velocity vector with
//    ghosts (M⁻¹ is block diagonal, so M⁻¹N has N's sparsity and is precomputed per constraint),
//    accumulateGhosts (ghost contributions added to the owning body), updateGhosts (owner to
//    ghosts), then y_i = n_iᵀu for owned i. Two halo exchanges per apply, no global reduction.
#include <Eigen/Dense>
#include <memory>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/la/backend.hpp"
#include "framework/la/operator.hpp"
#include "modules/impact/impact_system.hpp"

namespace kinema::impact {

class DistributedDelassus {
 public:
  // Collective over `comm`; every rank passes the same system (and bodyRank). `bodyRank` (size
  // numBodies, values in [0, P)) assigns bodies to ranks; empty: contiguous DOF ranges. Throws an
  // InputError if the backend cannot hold objects spanning comm's ranks (the message names the
  // backends that can). `system` and `backend` must outlive this object.
  DistributedDelassus(const ImpactSystem& system, const la::Backend& backend, Comm comm,
                      std::vector<int> bodyRank = {});
  DistributedDelassus(const DistributedDelassus&) = delete;
  DistributedDelassus& operator=(const DistributedDelassus&) = delete;

  const ImpactSystem& system() const { return system_; }
  const la::Backend& backend() const { return backend_; }
  const Comm& comm() const { return comm_; }
  // λ space (one entry per constraint) and velocity space (one entry per DOF, with ghosts).
  const la::IndexMapPtr& constraintMap() const { return cmap_; }
  const la::IndexMapPtr& velocityMap() const { return vmap_; }
  // The Delassus operator on constraintMap (FunctionOperator; unit diagonal by (norm)).
  la::OperatorPtr delassus() const { return A_; }
  // System constraint ids of this rank's owned λ entries, in local order.
  const std::vector<int>& ownedConstraints() const { return ownedConstraints_; }
  // Bodies this rank owns, and the ghost bodies its constraints touch.
  const std::vector<int>& ownedBodies() const { return ownedBodies_; }
  int ghostBodies() const { return ghostBodies_; }
  // The rank owning each body (replicated).
  const std::vector<int>& bodyRank() const { return bodyRank_; }

  la::VectorPtr createConstraintVector() const { return backend_.createVector(cmap_); }
  la::VectorPtr createVelocityVector() const { return backend_.createVector(vmap_); }

  // y = A x (both on constraintMap). The operator's apply.
  void apply(const la::Vector& x, la::Vector& y) const;
  // s = Nᵀv: v on velocityMap (owned entries read; ghosts refreshed internally), s on constraintMap.
  void NT(const la::Vector& v, la::Vector& s) const;
  // v += M⁻¹Nλ on v's owned entries (λ on constraintMap).
  void addMinvN(const la::Vector& lambda, la::Vector& v) const;
  // ⟨u, v⟩_M and ‖v‖_M over owned bodies, summed over ranks (collective).
  double dotM(const la::Vector& u, const la::Vector& v) const;
  double normM(const la::Vector& v) const;

  // Replicated (system-ordered) <-> distributed. scatter: owned entries from a vector every rank
  // holds in full; gather (collective): the full vector, identical on every rank.
  void scatterVelocity(const Eigen::VectorXd& q, la::Vector& v) const;
  Eigen::VectorXd gatherVelocity(const la::Vector& v) const;
  void scatterConstraints(const Eigen::VectorXd& x, la::Vector& v) const;
  Eigen::VectorXd gatherConstraints(const la::Vector& v) const;

 private:
  // Local (owned or ghost) index of the first DOF of body b in velocity vectors; -1 if absent.
  la::LocalIndex localDof(int b) const { return localDof_[static_cast<std::size_t>(b)]; }
  // u (all local entries, ghosts zeroed first) = Σ_owned (M⁻¹n_i) x_i, then accumulateGhosts.
  void scatterMinvN(const la::Vector& x, la::Vector& u) const;
  // s_i = n_iᵀu for owned i (u's ghosts must be current).
  void gatherNT(const la::Vector& u, la::Vector& s) const;

  const ImpactSystem& system_;
  const la::Backend& backend_;
  Comm comm_;
  std::vector<int> bodyRank_;
  std::vector<la::GlobalIndex> distDof_;  // first distributed DOF of each body
  std::vector<la::LocalIndex> localDof_;  // per body: local index of its first DOF, -1 if not held
  std::vector<int> ownedBodies_;
  std::vector<int> ownedConstraints_;
  std::vector<la::GlobalIndex> constraintGlobal_;  // per system constraint: distributed λ index
  int ghostBodies_ = 0;
  la::IndexMapPtr cmap_, vmap_;
  mutable la::IndexMapPtr vfull_, cfull_;  // every entry ghosted: for gathers (built lazily)
  std::shared_ptr<la::FunctionOperator> A_;
  la::VectorPtr u_;  // velocity work vector with ghosts
};

}  // namespace kinema::impact

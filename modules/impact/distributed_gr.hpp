#pragma once
// Generalized Reflections (the paper's Sec. 2 and Algorithm 4) for ONE large island whose QP is
// distributed over MPI ranks (README decision 15): the same outer loop as
// Resolver + GeneralizedReflections (violated set V = {i : n_iᵀq̇ < −ϵ‖q̇‖_M}, the GR-QP
//     min_{λ ≥ 0 on V, λ = 0 off V} ½λᵀAλ + λᵀ(2Nᵀq̇),   A = NᵀM⁻¹N,
// q̇ ← q̇ + M⁻¹Nλ, renormalisation q̇ ← (‖q̇_0‖_M/‖q̇‖_M) q̇), with every vector distributed
// (distributed_delassus.hpp) and the QP solved by the framework's MPRGP on the matrix-free
// distributed Delassus operator.
//
// Consistency across ranks: q̇, s = Nᵀq̇ and λ are distributed (each rank its owned part); every
// decision of the outer loop (V empty?, iteration cap, the threshold ϵ‖q̇‖_M, the QP scale ‖q̇‖_M,
// the renormalisation factor) is a function of collective reductions only, so every rank takes
// the same branch and performs the same number of iterations. Only the reductions' summation
// order depends on the rank count, so iterates agree with the one-rank GR to the QP tolerance
// (not bitwise; see the test for the stated tolerance).
//
// Versus the one-rank DelassusQp, there is no dense active-set polish (it would gather the free
// set onto one rank); instead MPRGP runs to a tighter projected-gradient tolerance
// (`mprgpTolerance`, relative to ‖q̇‖_M), and the KKT residual is reported per QP.
#include <Eigen/Dense>
#include <string>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/la/backend.hpp"
#include "modules/impact/impact_system.hpp"
#include "modules/impact/resolver.hpp"

namespace kinema::impact {

struct DistributedGROptions {
  Arithmetic arithmetic = Arithmetic::Relaxed;  // as ResolverOptions
  double epsilon = 1e-10;                       // as ResolverOptions::epsilon
  bool renormalise = true;                      // Relaxed mode only (Algorithm 4)
  long maxIterations = 100000;                  // outer GR iterations (cap K)
  // MPRGP on the QP scaled by 1/‖q̇‖_M stops at this absolute projected gradient (so it is
  // relative to ‖q̇‖_M); tighter than the one-rank default 1e-10 because no polish follows.
  double mprgpTolerance = 1e-12;
  int qpMaxIterations = 20000;                  // MPRGP iteration cap per QP
  // A QP counts as converged iff its KKT residual ‖min(λ, Aλ + c)‖_∞ (over V) ≤ kktTolerance·‖q̇‖_M.
  double kktTolerance = 1e-9;
  // Optional body → rank assignment (size numBodies); empty: contiguous DOF ranges.
  std::vector<int> bodyRank;
};

struct DistributedGRStats {
  long iterations = 0;              // outer GR iterations (QP solves)
  long impulses = 0;                // nonzero λ_i over all iterations
  long qpIterations = 0;            // MPRGP iterations, summed
  int maxQpIterations = 0;          // largest single QP
  double maxKktResidual = 0.0;      // max over QPs of the KKT residual / ‖q̇‖_M
  bool allQpConverged = true;       // every QP met kktTolerance
  double energyBefore = 0.0, energyAfter = 0.0, relativeEnergyDrift = 0.0;
  double maxStepEnergyChange = 0.0; // as ResolverStats (KIN check before renormalisation)
  double minRelativeFeasibility = 0.0;
  bool converged = false;
  bool capReached = false;
  int ranks = 1;
  long ownedConstraints = 0;        // this rank
  long ghostBodies = 0;             // this rank
  double seconds = 0.0;
  std::string report;               // one paragraph (identical on every rank)
};

struct DistributedGRResult {
  Eigen::VectorXd qdot;     // final velocity, replicated on every rank (system DOF order)
  Eigen::VectorXd impulse;  // α = Σ λ^(i) per constraint, replicated
  DistributedGRStats stats;
};

// Resolves one island with distributed GR. Collective over `comm`: every rank passes the same
// system and qdot0. `backend` must hold distributed objects when comm has several ranks (petsc,
// trilinos); otherwise an InputError names the backends that can.
DistributedGRResult resolveDistributedGR(const ImpactSystem& system, const Eigen::VectorXd& qdot0,
                                         const la::Backend& backend, const Comm& comm,
                                         const DistributedGROptions& options = {});

}  // namespace kinema::impact

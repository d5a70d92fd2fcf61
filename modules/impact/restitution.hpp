#pragma once
// Dissipation by the interpolated restitution model of paper section 6.2:
//   q̇_in = the perfectly inelastic velocity: 0 ≤ λ ⊥ Aλ + N_Aᵀq̇⁻ ≥ 0 over ALL active constraints (A = NᵀM⁻¹N),
//          q̇_in = q̇⁻ + M⁻¹Nλ  (= argmin ‖v − q̇⁻‖_M s.t. Nᵀv ≥ 0), solved by MPRGP (delassus_qp.hpp)
//   q̇_el = the elastic result of Algorithm 1/3/4 with any (NORM)..(MOD) operator
//   q̇    = (1 − c_r) q̇_in + c_r q̇_el.
// Feasible (F is a convex cone), ONE for the total impulse, energy non-increasing, FIN for every
// c_r ∈ [0, 1]; for one constraint it is Newton's law. (Putting c_r inside R instead collapses.)
#include "modules/impact/delassus_qp.hpp"
#include "modules/impact/resolver.hpp"

namespace kinema::impact {

struct InelasticResult {
  Eigen::VectorXd qdot;    // q̇_in
  Eigen::VectorXd lambda;  // its impulses (size m, ≥ 0)
  QpStats qp;
};

// The inelastic LCP (c_r = 0 one-shot, [Anitescu & Potra 1997; Moreau 1985; Stewart 2000]).
InelasticResult solveInelastic(const ImpactSystem& system, const Eigen::VectorXd& qdotMinus,
                               const OperatorOptions& options = {});

struct RestitutionResult {
  Eigen::VectorXd qdot;       // the blend
  Eigen::VectorXd inelastic;  // q̇_in
  Eigen::VectorXd elastic;    // q̇_el
  Eigen::VectorXd impulse;    // (1 − c_r) λ_in + c_r α_el, total impulse per constraint (friction bound)
  QpStats qp;
  ResolverStats elasticStats;
};

// `restitution` is c_r ∈ [0, 1] (InputError otherwise). c_r = 0 skips the elastic solve.
RestitutionResult resolveWithRestitution(const ImpactSystem& system, const Eigen::VectorXd& qdotMinus,
                                         double restitution, ImpactOperator& elasticOperator,
                                         const Resolver& resolver, const OperatorOptions& options = {});

}  // namespace kinema::impact

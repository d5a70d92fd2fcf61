#pragma once
// One-way coupled Coulomb friction after the frictionless impact solve (paper sections 6.3, 8;
// modules/impact/README.md, decision 6): the normal impulses are final and bound the tangential
// ones, ‖f_k‖ ≤ μ P_k, but friction does not feed back into the normal solve, so (FIN) of the
// frictionless resolution is kept. Per contact (Gauss-Seidel over contacts), the tangential impulse
// that stops sliding, f = −W⁻¹u (u: tangential relative velocity, W = G_tᵀM⁻¹G_t), is scaled
// radially into the Coulomb disk. Radial scaling of the sticking impulse never adds energy (ΔE =
// (s²/2 − s) uᵀW⁻¹u ≤ 0 for s ∈ [0, 1]), which a nearest-point projection in an anisotropic W would
// not guarantee.
#include "modules/impact/impact_system.hpp"

namespace kinema::impact {

struct FrictionOptions {
  double mu = 0.0;  // Coulomb coefficient, ≥ 0
  int sweeps = 1;   // Gauss-Seidel passes over the contacts
};

struct FrictionResult {
  Eigen::VectorXd qdot;
  std::vector<Eigen::Vector2d> tangentialImpulse;  // per constraint (2D contacts use entry 0)
  int sticking = 0;                                // contacts whose sliding stopped (last sweep)
  double energyChange = 0.0;                       // ≤ 0
};

// `normalImpulse` is λ per constraint in the normalised units of N (e.g. ResolveResult::impulse or
// RestitutionResult::impulse); the physical normal impulse is λ_k / scale_k. Constraints without
// contact geometry (added by addConstraint) get no friction.
FrictionResult applyFriction(const ImpactSystem& system, const Eigen::VectorXd& qdot,
                             const Eigen::VectorXd& normalImpulse, const FrictionOptions& options);

}  // namespace kinema::impact

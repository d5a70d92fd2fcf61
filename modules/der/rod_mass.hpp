#pragma once
// Diagonal generalised mass and gravity of a DER strand (paper Eq. 1; README decision 12), and the
// naive rest state "rest values = current shape" from which forward simulations and the parameter
// optimisation start (README decision 11: 4D rest curvature synchronised at initialisation).
#include <span>
#include <vector>

#include "modules/der/rod_kinematics.hpp"
#include "modules/der/strand.hpp"

namespace kinema::der {

// Diagonal of M over the 4N - 1 DOFs of q, from the rest lengths lbar_j (N - 1 entries):
// vertex mass m_v = rho_d pi r^2 (lbar_{v-1} + lbar_v) / 2 (one-sided at the ends) on x_v, twist
// inertia I_j = rho_d pi r^4 lbar_j / 2 on theta_j.
std::vector<double> massDiagonal(const std::vector<double>& restLength, const Material& material);

// Generalised gravity force f_ext: m_v g on the vertex DOFs, 0 on the angles. `mass` is the
// diagonal of M (4N - 1); `fext` (same size) is overwritten.
void gravityForce(std::span<const double> mass, const Vec3& gravity, std::span<double> fext);
std::vector<double> gravityForce(const std::vector<double>& mass, const Vec3& gravity);

// Rest state taken from the configuration (q, frames): lbar_j = l_j, kbar_i = kappa_i (4D), then if
// `synchronizeKappa` kbar_{i,2} = kbar_{i,0} and kbar_{i,3} = kbar_{i,1} (README decision 11), mbar_i = m_i;
// stiffnesses c_st, c_be, c_tw from the material on every edge / vertex. `frames` must belong to
// q (or to an earlier configuration, see computeKinematics).
RestState restStateFrom(const std::vector<double>& q, const ReferenceFrames& frames, const Material& material,
                        bool synchronizeKappa = true);
// The same rest state from kinematics already computed (K = computeKinematics(q, frames, FourD)),
// written into `rest` (its storage reused): bitwise restStateFrom(q, frames, material, sync). The
// optimiser's workspace computes the kinematics of a strand once for its force model and its rest
// state (docs/modules/der.md, "Memory").
void restStateFrom(const RodKinematics& K, const Material& material, bool synchronizeKappa, RestState& rest);

}  // namespace kinema::der

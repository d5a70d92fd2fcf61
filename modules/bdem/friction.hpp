#pragma once
// Friction as an explicit velocity correction after the solve (paper §5.4,
// Eqs. 34-35, Alg. 3 line 19), shared by the implicit and the explicit integrator.
//
// For each active contact (pair: |p_i - p_j| < r_i + r_j, unbonded; obstacle: phi < 0) at x^{n+1}:
//   v_t = tangential part of the relative velocity, w = relative angular velocity,
//   Delta v = - min(1, mu_s |F_n| dt / (m* |v_t|)) v_t          (Eq. 34)
//   Delta w = - min(1, mu_r |F_n| r^k dt / (I* |w|)) w          (Eq. 35), k = 1 (default) or 3
// with m* = m_i for an obstacle and the pair's reduced mass m_i m_j / (m_i + m_j) for two
// elements (likewise I* with I = (2/5) m r^2, r the harmonic mean 2 r_i r_j/(r_i + r_j)); particle
// i receives (m*/m_i) Delta v and j the opposite impulse (symmetric, momentum conserving, and
// the relative sliding is stopped at most, never reversed). Per particle the corrections of all its
// contacts are summed from the pre-friction velocities (order independent). Spec 2.6 (friction
// only slows an element, at most to zero): the sum is kept when |v + dv| <= |v| (always so for a
// single obstacle contact, which therefore stops the sliding exactly, T-C4), else it is projected
// onto the particle's own v (resp. omega) and clamped to [-|v|, 0] along it (the paper's literal
// rule; so a pair contact cannot drag a slower particle along). omega = 2 vec(qdot (x) q-bar)
// before, qdot = 1/2 (omega, 0)
// (x) q after; particles without contact keep their raw 4-D velocity. Fixed and gripped particles
// are not corrected (infinite mass for their partners).
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/la/vector.hpp"
#include "modules/bdem/incremental_potential.hpp"
#include "modules/bdem/system.hpp"

namespace kinema::bdem {

struct FrictionStats {
  long pairContacts = 0;      // active pair contacts (global)
  long obstacleContacts = 0;  // active particle-obstacle contacts (global)
  long corrected = 0;         // particles whose velocity changed (global)
};

// `work`: a vector on the point map (block size 7, ghosts as s.P), used to accumulate the
// corrections of ghost particles to their owners. `candidates`: pair candidates as built by
// IncrementalPotential (the owner of the smaller global index holds the pair). Velocities of owned
// particles are corrected; ghosts must be refreshed by the caller. Collective.
FrictionStats applyFriction(System& s, double dt, double kec, double kc, const std::vector<ContactCandidate>& candidates,
                            la::Vector& work, const Comm& comm);

}  // namespace kinema::bdem

#pragma once
// Prescribed (Dirichlet) motion of fixed and gripped particles (README decision 28, Grip in
// system.hpp). A gripped particle a with grip g follows, at time t with tau = min(t, tStop),
//   p(t) = c + v tau + R(omega tau) (pRef_a - c),   q(t) = exp(omega tau) (x) qRef_a,
// a fixed particle keeps its current p and q. The implicit and the explicit integrators set these
// values at t^{n+1} before the step and remove the DOFs from the unknowns.
#include "modules/bdem/system.hpp"

namespace kinema::bdem {

// Prescribed p and q of particle a of `s` at time t (a must not be free). Throws an InputError
// naming the particle when its grip index is out of range.
void prescribedState(const System& s, std::size_t a, double t, Vec3& p, Vec4& q);
// Velocity of the prescribed motion of particle a at time t (zero after tStop and for fixed).
void prescribedVelocity(const System& s, std::size_t a, double t, Vec3& v, Vec4& qdot);
// Sets p and q of every local (owned and ghost) non-free particle to its prescribed value at t.
void applyPrescribedMotion(System& s, double t);
// Number of local particles that are not free.
std::size_t countConstrained(const Particles& P);

}  // namespace kinema::bdem

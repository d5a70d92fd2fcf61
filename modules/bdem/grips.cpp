#include "modules/bdem/grips.hpp"

#include <algorithm>

#include "framework/core/error.hpp"
#include "modules/bdem/quaternion.hpp"

namespace kinema::bdem {

namespace {
const Grip& gripOf(const System& s, std::size_t a) {
  const std::int32_t g = s.P.grip[a];
  if (g < 0 || static_cast<std::size_t>(g) >= s.grips.size())
    throw InputError(str("bdem: particle ", s.P.gid[a], " is gripped by grip ", g, " but the scene has ",
                         s.grips.size(), " grips"));
  return s.grips[static_cast<std::size_t>(g)];
}
}  // namespace

void prescribedState(const System& s, std::size_t a, double t, Vec3& p, Vec4& q) {
  if (s.P.dof[a] != Dof::Grip) {
    p = s.P.p[a];
    q = s.P.q[a];
    return;
  }
  const Grip& g = gripOf(s, a);
  const double tau = std::min(t, g.tStop);
  const Vec3 phi = g.angularVelocity * tau;
  const Vec4 e = quat::expRotation(phi);
  p = g.centre + g.velocity * tau + quat::rotation(e) * (s.P.pRef[a] - g.centre);
  q = quat::multiply(e, s.P.qRef[a]);
  q.normalize();
}

void prescribedVelocity(const System& s, std::size_t a, double t, Vec3& v, Vec4& qdot) {
  v.setZero();
  qdot.setZero();
  if (s.P.dof[a] != Dof::Grip) return;
  const Grip& g = gripOf(s, a);
  if (t >= g.tStop) return;
  Vec3 p;
  Vec4 q;
  prescribedState(s, a, t, p, q);
  const Vec3 c = g.centre + g.velocity * t;
  v = g.velocity + g.angularVelocity.cross(p - c);
  qdot = quat::qdotFromOmega(q, g.angularVelocity);
}

void applyPrescribedMotion(System& s, double t) {
  for (std::size_t a = 0; a < s.P.size(); ++a)
    if (s.P.dof[a] == Dof::Grip) prescribedState(s, a, t, s.P.p[a], s.P.q[a]);
}

std::size_t countConstrained(const Particles& P) {
  return static_cast<std::size_t>(std::count_if(P.dof.begin(), P.dof.end(), [](Dof d) { return d != Dof::Free; }));
}

}  // namespace kinema::bdem

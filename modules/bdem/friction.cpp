#include "modules/bdem/friction.hpp"

#include <algorithm>
#include <cmath>

#include "modules/bdem/contact_energy.hpp"
#include "modules/bdem/quaternion.hpp"

namespace kinema::bdem {

namespace {
// Delta v of Eq. 34 for the reduced mass mStar: -min(1, mu Fn dt/(mStar |vt|)) vt, times mStar.
// Returned as the impulse, so each particle divides by its own mass.
Vec3 slidingImpulse(double mu, double Fn, double dt, double mStar, const Vec3& vt) {
  const double n = vt.norm();
  if (mu <= 0 || Fn <= 0 || n == 0 || !(mStar > 0)) return Vec3::Zero();
  return -std::min(1.0, mu * Fn * dt / (mStar * n)) * mStar * vt;
}
// Spec 2.6: friction only slows an element, at most to zero. A correction that does not raise the
// speed (|v + d| <= |v|, always true for one contact's Eq. 34 / 35 term) is kept as is, so a
// clamped contact stops the sliding exactly; otherwise (a sum over several contacts) it is
// projected on v and clamped to [-|v|, 0] along it, the paper's literal rule.
Vec3 projectClamp(const Vec3& d, const Vec3& v) {
  const double n = v.norm();
  if (n == 0) return Vec3::Zero();
  if ((v + d).squaredNorm() <= v.squaredNorm()) return d;
  const Vec3 u = v / n;
  const double c = std::clamp(d.dot(u), -n, 0.0);
  return c * u;
}
}  // namespace

FrictionStats applyFriction(System& s, double dt, double kec, double kc, const std::vector<ContactCandidate>& candidates,
                            la::Vector& work, const Comm& comm) {
  FrictionStats st;
  Particles& P = s.P;
  const double rollPow = s.contact.rollingR3 ? 3.0 : 1.0;
  auto inertia = [&](std::size_t a) { return 0.4 * P.m[a] * P.r[a] * P.r[a]; };
  {
    la::Vector::View w = work.view();
    std::fill(w.all().begin(), w.all().end(), 0.0);
    double* W = w.data();
    // Block a: [0..2] linear impulse, [3..5] angular impulse, [6] contact count.
    auto add = [&](std::size_t a, const Vec3& J, const Vec3& L) {
      for (int k = 0; k < 3; ++k) {
        W[7 * a + k] += J[k];
        W[7 * a + 3 + k] += L[k];
      }
      W[7 * a + 6] += 1.0;
    };
    for (const ContactCandidate& c : candidates) {
      const auto i = static_cast<std::size_t>(c.i), j = static_cast<std::size_t>(c.j);
      const double Fn = pairContactForce(kec, P.r[i], P.r[j], P.p[i], P.p[j]);
      if (Fn <= 0) continue;
      ++st.pairContacts;
      const bool fi = P.dof[i] == Dof::Free, fj = P.dof[j] == Dof::Free;
      const Vec3 n = (P.p[i] - P.p[j]).normalized();
      const Vec3 vij = P.v[i] - P.v[j];
      const Vec3 vt = vij - vij.dot(n) * n;
      const double mStar = fi && fj ? P.m[i] * P.m[j] / (P.m[i] + P.m[j]) : (fi ? P.m[i] : P.m[j]);
      const Vec3 J = slidingImpulse(s.contact.muS, Fn, dt, mStar, vt);  // on i; -J on j
      const Vec3 wij = quat::omegaFromQdot(P.q[i], P.qdot[i]) - quat::omegaFromQdot(P.q[j], P.qdot[j]);
      const double Ii = inertia(i), Ij = inertia(j);
      const double IStar = fi && fj ? Ii * Ij / (Ii + Ij) : (fi ? Ii : Ij);
      const double rEff = 2.0 * P.r[i] * P.r[j] / (P.r[i] + P.r[j]);
      const Vec3 L = slidingImpulse(s.contact.muR * std::pow(rEff, rollPow), Fn, dt, IStar, wij);
      if (fi) add(i, J, L);
      if (fj) add(j, -J, -L);
    }
    for (std::size_t a = 0; a < P.numOwned; ++a) {
      if (P.dof[a] != Dof::Free) continue;
      for (const Obstacle& o : s.obstacles) {
        const double Fn = obstacleContactForce(kc, o, s.time, P.r[a], P.p[a]);
        if (Fn <= 0) continue;
        ++st.obstacleContacts;
        Vec3 gradG;
        o.distance(P.p[a], s.time, &gradG);
        const Vec3 n = gradG.normalized();
        const Vec3 vrel = P.v[a] - o.velocity;
        const Vec3 vt = vrel - vrel.dot(n) * n;
        const Vec3 J = slidingImpulse(o.friction, Fn, dt, P.m[a], vt);
        const Vec3 wa = quat::omegaFromQdot(P.q[a], P.qdot[a]);
        const Vec3 L = slidingImpulse(s.contact.muR * std::pow(P.r[a], rollPow), Fn, dt, inertia(a), wa);
        add(a, J, L);
      }
    }
  }
  work.accumulateGhosts();
  {
    la::Vector::ConstView w = work.constView();
    for (std::size_t a = 0; a < P.numOwned; ++a) {
      const double* b = w.data() + 7 * a;
      if (b[6] == 0.0 || P.dof[a] != Dof::Free) continue;
      const Vec3 dv = projectClamp(Vec3(b[0], b[1], b[2]) / P.m[a], P.v[a]);
      const Vec3 omega = quat::omegaFromQdot(P.q[a], P.qdot[a]);
      const Vec3 dw = projectClamp(Vec3(b[3], b[4], b[5]) / inertia(a), omega);
      P.v[a] += dv;
      P.qdot[a] = quat::qdotFromOmega(P.q[a], omega + dw);  // Eqs. 51-53
      ++st.corrected;
    }
  }
  st.pairContacts = static_cast<long>(comm.sum(static_cast<std::int64_t>(st.pairContacts)));
  st.obstacleContacts = static_cast<long>(comm.sum(static_cast<std::int64_t>(st.obstacleContacts)));
  st.corrected = static_cast<long>(comm.sum(static_cast<std::int64_t>(st.corrected)));
  return st;
}

}  // namespace kinema::bdem

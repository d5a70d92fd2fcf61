#include "modules/bdem/quaternion.hpp"

#include <cmath>

namespace kinema::bdem::quat {

Mat34 Gl(const Vec4& q) {
  Mat34 G;
  const Vec3 t = q.head<3>();
  G.leftCols<3>() = q[3] * Mat3::Identity() - cross(t);
  G.col(3) = -t;
  return G;
}

Mat4 Ql(const Vec4& q) {
  Mat4 Q;
  const Vec3 t = q.head<3>();
  Q.topLeftCorner<3, 3>() = q[3] * Mat3::Identity() + cross(t);
  Q.topRightCorner<3, 1>() = t;
  Q.bottomLeftCorner<1, 3>() = -t.transpose();
  Q(3, 3) = q[3];
  return Q;
}

Mat4 Qr(const Vec4& q) {
  Mat4 Q;
  const Vec3 t = q.head<3>();
  Q.topLeftCorner<3, 3>() = q[3] * Mat3::Identity() - cross(t);
  Q.topRightCorner<3, 1>() = t;
  Q.bottomLeftCorner<1, 3>() = -t.transpose();
  Q(3, 3) = q[3];
  return Q;
}

Vec3 rotate(const Vec4& q, const Vec3& d0) {
  const Vec4 d4 = multiply(multiply(q, Vec4(d0[0], d0[1], d0[2], 0.0)), conjugate(q));
  return d4.head<3>();
}

Vec4 expRotation(const Vec3& phi) {
  const double a = phi.norm();
  // sin(a/2)/a with its series below 1e-4 (error < 1e-18).
  const double k = a < 1e-4 ? 0.5 - a * a / 48.0 : std::sin(0.5 * a) / a;
  return Vec4(k * phi[0], k * phi[1], k * phi[2], std::cos(0.5 * a));
}

Vec3 logRotation(const Vec4& qIn) {
  const Vec4 q = qIn[3] < 0 ? Vec4(-qIn) : qIn;
  const Vec3 t = q.head<3>();
  const double sn = t.norm();
  const double a = 2.0 * std::atan2(sn, q[3]);  // in [0, pi]
  // a / sin(a/2) -> 2 (1 + sn^2/6) as sn -> 0 (q[3] ~ 1).
  const double k = sn < 1e-8 ? 2.0 / q[3] : a / sn;
  return k * t;
}

Vec3 omegaFromQdot(const Vec4& q, const Vec4& qdot) { return 2.0 * multiply(qdot, conjugate(q)).head<3>(); }

Vec4 qdotFromOmega(const Vec4& q, const Vec3& omega) {
  return 0.5 * multiply(Vec4(omega[0], omega[1], omega[2], 0.0), q);
}

Vec3 relative(const Vec4& qi, const Vec4& qj) { return multiply(conjugate(qj), qi).head<3>(); }

}  // namespace kinema::bdem::quat

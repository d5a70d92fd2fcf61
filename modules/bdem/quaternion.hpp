#pragma once
// Quaternion algebra of the paper (App. A, Eqs. 39-54) beyond what
// solvers::RigidManifold already provides (multiply, cross, G = G_r, rotation R(q), basis).
// Scalar-last storage q = (t, s) = (u, v, w, s) (Eq. 39); Hamilton products. Fixed size, inline
// where trivial, no allocation.
#include <Eigen/Core>

#include "framework/solvers/manifold_rigid.hpp"
#include "modules/bdem/particles.hpp"

namespace kinema::bdem::quat {

using Mat34 = Eigen::Matrix<double, 3, 4>;
using Mat4 = Eigen::Matrix4d;

inline Vec4 identity() { return Vec4(0, 0, 0, 1); }
// Conjugate q-bar = (-t, s).
inline Vec4 conjugate(const Vec4& q) { return Vec4(-q[0], -q[1], -q[2], q[3]); }
// Hamilton product a (x) b (Eq. 40).
inline Vec4 multiply(const Vec4& a, const Vec4& b) { return solvers::RigidManifold::multiply(a, b); }
// t^x (Eq. 43).
inline Mat3 cross(const Vec3& t) { return solvers::RigidManifold::cross(t); }
// R(q) = (s^2 - |t|^2) I3 + 2 t t^T + 2 s t^x: d = q (.) d0 (Eqs. 44-45). For a non-unit q this is
// |q|^2 times the rotation of q/|q| (R is homogeneous quadratic in q).
inline Mat3 rotation(const Vec4& q) { return solvers::RigidManifold::rotation(q); }

// G_l(q) = [s I3 - t^x | -t] (Eq. 47): G_l(q) a = vec(q-bar (x) a); G_l(q)^T y = q (x) (y, 0).
Mat34 Gl(const Vec4& q);
// G_r(q) = [s I3 + t^x | -t] (Eq. 47): G_r(q) a = vec(a (x) q-bar); G_r(q)^T y = (y, 0) (x) q.
inline Mat34 Gr(const Vec4& q) { return solvers::RigidManifold::G(q); }
// Ql(q) = [[s I3 + t^x, t], [-t^T, s]]: q (x) a = Ql(q) a (Eq. 41).
Mat4 Ql(const Vec4& q);
// Qr(q) = [[s I3 - t^x, t], [-t^T, s]]: a (x) q = Qr(q) a (Eq. 42).
Mat4 Qr(const Vec4& q);
// d = q (.) d0 via the sandwich q (x) (d0, 0) (x) q-bar (Eq. 44), without forming R.
Vec3 rotate(const Vec4& q, const Vec3& d0);

// exp of a rotation vector phi (angle |phi| about phi/|phi|) as the unit quaternion
// (sin(|phi|/2) phi/|phi|, cos(|phi|/2)); a world-frame rotation applies as exp(phi) (x) q.
Vec4 expRotation(const Vec3& phi);
// The rotation vector of a unit quaternion (inverse of expRotation, angle in [0, pi]; q and -q
// give the same result).
Vec3 logRotation(const Vec4& q);

// World-frame angular velocity from qdot (Eqs. 52-53): w4 = 2 qdot (x) q-bar, omega = vec(w4)
// (the scalar part, 2 qdot.q, vanishes for qdot tangent to S^3 and is dropped).
Vec3 omegaFromQdot(const Vec4& q, const Vec4& qdot);
// qdot = 1/2 (omega, 0) (x) q (Eq. 51).
Vec4 qdotFromOmega(const Vec4& q, const Vec3& omega);

// Relative rotation vec(q_j-bar (x) q_i) = G_l(q_j) q_i (Eqs. 10-11): i relative to j, in j's body
// frame; sin(phi/2) a for q_i = q_j (x) (a sin(phi/2), cos(phi/2)). Antisymmetric in i, j.
Vec3 relative(const Vec4& qi, const Vec4& qj);

}  // namespace kinema::bdem::quat

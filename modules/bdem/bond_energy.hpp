#pragma once
// Bond potential V = V_stretch + V_shear + V_bendtwist (paper §3.2, Eq. 7), its
// Euclidean gradient and Hessian over the 14 ambient variables (p_i, q_i, p_j, q_j) in that order
// (README decision 16), and the reduced 12 x 12 element form with the curvature term
// (RigidManifold::reduceHessian<2>, Eqs. 28-29). Fixed-size, no allocation.
#include <Eigen/Core>

#include "modules/bdem/bond.hpp"

namespace kinema::bdem {

using Vec14 = Eigen::Matrix<double, 14, 1>;
using Mat14 = Eigen::Matrix<double, 14, 14>;
using Vec12 = Eigen::Matrix<double, 12, 1>;
using Mat12 = Eigen::Matrix<double, 12, 12>;

// The three terms separately (for fracture, diagnostics and tests).
struct BondTerms {
  double stretch = 0, shear = 0, bendTwist = 0;
  double total() const { return stretch + shear + bendTwist; }
};

// Energy; gradient and Hessian are accumulated (+=) into grad / hess when non-null.
BondTerms bondEnergy(const Bond& b, const BondModel& model, const Vec3& pi, const Vec4& qi, const Vec3& pj,
                     const Vec4& qj, Vec14* grad = nullptr, Mat14* hess = nullptr);

// Reduced element (Eqs. 28-29): g_red = B^T grad, H_red = B^T hess B - curvature, both
// 12-dimensional over (dp_i, y_i, dp_j, y_j). Not PSD-projected (the caller's ReducedHessian does).
double bondReduced(const Bond& b, const BondModel& model, const Vec3& pi, const Vec4& qi, const Vec3& pj,
                   const Vec4& qj, Vec12* gred, Mat12* hred);

// Bend/twist relative rotation c = G_l(q_j) q_i = vec(conj(q_j) (x) q_i) (Eqs. 10-11; README decision 14), times the
// model's rotScale(); its moment K' c (K' = kTwist d0 d0^T + kBend (I - d0 d0^T)).
Vec3 bendTwistMeasure(const Bond& b, const BondModel& model, const Vec4& qi, const Vec4& qj);

// ---- Added by the elements helper: the three terms one at a time (same conventions: energy
// returned, gradient / Hessian over (p_i, q_i, p_j, q_j) accumulated when non-null). ----
double stretchEnergy(const Bond& b, const Vec3& pi, const Vec3& pj, Vec14* grad = nullptr, Mat14* hess = nullptr);
double shearEnergy(const Bond& b, const BondModel& model, const Vec3& pi, const Vec4& qi, const Vec3& pj,
                   const Vec4& qj, Vec14* grad = nullptr, Mat14* hess = nullptr);
double bendTwistEnergy(const Bond& b, const BondModel& model, const Vec4& qi, const Vec4& qj, Vec14* grad = nullptr,
                       Mat14* hess = nullptr);
// The shear angle theta = angle(R(q_c) d0Shear, n) of README decision 13 (q_c with the sign flip).
double shearAngle(const Bond& b, const Vec3& pi, const Vec4& qi, const Vec3& pj, const Vec4& qj);
// K' = kTwist d0 d0^T + kBend (I - d0 d0^T), d0 = d0Bend (README decision 15, R0-free form).
Mat3 bendTwistStiffness(const Bond& b);
// The bend/twist moment K' (s c), s = model.rotScale(), c = G_l(q_j) q_i, in j's body frame
// (README decision 19: |M_t| = |d0 . M|, |M_b| = |(I - d0 d0^T) M|).
Vec3 bendTwistMoment(const Bond& b, const BondModel& model, const Vec4& qi, const Vec4& qj);

}  // namespace kinema::bdem

// Bond potential (paper §3.2, Eqs. 7-11) with its Euclidean gradient and Hessian
// over (p_i, q_i, p_j, q_j) (README decision 16). All analytic, fixed-size, no allocation.
//
// Shear (Eq. 9, README decision 13): with s = q_i + sigma q_j (sigma = -1 when q_i.q_j < 0),
// rho = s^T s, x = p_j - p_i, l = |x|, n = x / l, the carried rest axis is d = R(s) d0 / rho
// (R is homogeneous quadratic, so R(s)/rho = R(s/|s|)), and c = n . d = s^T M(n) s / rho is a
// Rayleigh quotient with the symmetric 4 x 4
//   M(n) = [[-(n.d0) I + n d0^T + d0 n^T, d0 x n], [(d0 x n)^T, n.d0]],
// so c is a function of the 7 variables (x, s) only, and its exact Hessian there is
//   c_xx = -(n d_perp^T + d_perp n^T + c (I - n n^T)) / l^2,   d_perp = d - c n,
//   c_xs = (I - n n^T) J_d / l,   J_d row k = 2 (M(e_k) s - d_k s)^T / rho,
//   c_ss = (2/rho) (M - c I - s c_s^T - c_s s^T),   c_s = 2 (M s - c s) / rho,
// mapped to the 14 variables by the linear map x = p_j - p_i, s = q_i + sigma q_j. Then
// V = 1/2 k~ h(c), h(c) = acos(c)^2, with h' and h'' in theta and their series near theta = 0.
#include "modules/bdem/bond_energy.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "modules/bdem/quaternion.hpp"

namespace kinema::bdem {

namespace {

using Mat4 = Eigen::Matrix4d;
using Mat34 = Eigen::Matrix<double, 3, 4>;

// Offsets of the four blocks in the 14-vector.
constexpr int kPi = 0, kQi = 3, kPj = 7, kQj = 10;

// M(n) of the header comment: s^T M(n) s = n . R(s) d0.
Mat4 rayleighMatrix(const Vec3& n, const Vec3& d0) {
  Mat4 M;
  const double nd = n.dot(d0);
  M.topLeftCorner<3, 3>() = -nd * Mat3::Identity() + n * d0.transpose() + d0 * n.transpose();
  const Vec3 w = d0.cross(n);
  M.topRightCorner<3, 1>() = w;
  M.bottomLeftCorner<1, 3>() = w.transpose();
  M(3, 3) = nd;
  return M;
}

// h'(c) and h''(c) for h(c) = acos(c)^2, written in theta = acos(c) (README decision 16).
void shearH(double theta, double& h1, double& h2) {
  if (theta < 0.05) {
    const double t2 = theta * theta;
    h1 = -2.0 - t2 * (1.0 / 3.0 + t2 * (7.0 / 180.0 + t2 * (31.0 / 7560.0 + t2 * 127.0 / 302400.0)));
    h2 = 2.0 / 3.0 + t2 * (4.0 / 15.0 + t2 * (4.0 / 63.0 + t2 * (8.0 / 675.0 + t2 * 4.0 / 2079.0)));
    return;
  }
  // theta -> pi makes h' unbounded; the guard only keeps the numbers finite for a bond that is
  // rotated inside out (it has broken long before in any physical run).
  const double sn = std::max(std::sin(theta), 1e-12);
  h1 = -2.0 * theta / sn;
  h2 = 2.0 * (std::sin(theta) - theta * std::cos(theta)) / (sn * sn * sn);
}

double shearStiffness(const Bond& b, const BondModel& model) {
  return model.shear == ShearForm::Consistent ? b.kt * b.l0 * b.l0 : b.kt;
}

}  // namespace

double stretchEnergy(const Bond& b, const Vec3& pi, const Vec3& pj, Vec14* grad, Mat14* hess) {
  // Eq. 8: V = 1/2 kn (l - l0)^2, u = (p_i - p_j)/l.
  const Vec3 x = pi - pj;
  const double l = x.norm();
  const double dl = l - b.l0;
  if (grad || hess) {
    const Vec3 u = x / l;
    if (grad) {
      const Vec3 g = b.kn * dl * u;
      grad->segment<3>(kPi) += g;
      grad->segment<3>(kPj) -= g;
    }
    if (hess) {
      const Mat3 uu = u * u.transpose();
      const Mat3 A = b.kn * (uu + (dl / l) * (Mat3::Identity() - uu));
      hess->block<3, 3>(kPi, kPi) += A;
      hess->block<3, 3>(kPj, kPj) += A;
      hess->block<3, 3>(kPi, kPj) -= A;
      hess->block<3, 3>(kPj, kPi) -= A;
    }
  }
  return 0.5 * b.kn * dl * dl;
}

double shearAngle(const Bond& b, const Vec3& pi, const Vec4& qi, const Vec3& pj, const Vec4& qj) {
  const Vec4 s = qi + (qi.dot(qj) < 0 ? Vec4(-qj) : qj);
  const Vec3 d = quat::rotation(s) * b.d0Shear / s.squaredNorm();
  const Vec3 n = (pj - pi).normalized();
  return std::atan2(d.cross(n).norm(), d.dot(n));
}

double shearEnergy(const Bond& b, const BondModel& model, const Vec3& pi, const Vec4& qi, const Vec3& pj,
                   const Vec4& qj, Vec14* grad, Mat14* hess) {
  // Eq. 9 with README decisions 13-14: V = 1/2 k~ theta^2, theta = angle(R(q_c) d0, n).
  const double sigma = qi.dot(qj) < 0 ? -1.0 : 1.0;
  const Vec4 s = qi + sigma * qj;
  const double rho = s.squaredNorm();
  const Vec3& d0 = b.d0Shear;
  const Vec3 d = quat::rotation(s) * d0 / rho;
  const Vec3 x = pj - pi;
  const double l = x.norm();
  const Vec3 n = x / l;
  const double theta = std::atan2(d.cross(n).norm(), d.dot(n));
  const double k = shearStiffness(b, model);
  const double V = 0.5 * k * theta * theta;
  if (!grad && !hess) return V;

  const double c = n.dot(d);
  double h1 = 0, h2 = 0;
  shearH(theta, h1, h2);
  const Mat3 Pn = Mat3::Identity() - n * n.transpose();
  const Mat4 M = rayleighMatrix(n, d0);
  const Vec3 cx = Pn * d / l;                 // dc/dx
  const Vec4 cs = 2.0 * (M * s - c * s) / rho; // dc/ds
  const std::array<double, 2> ax = {-1.0, 1.0};  // x = -p_i + p_j
  const std::array<double, 2> as = {1.0, sigma}; // s = q_i + sigma q_j
  const std::array<int, 2> op = {kPi, kPj}, oq = {kQi, kQj};
  const double g1 = 0.5 * k * h1;
  if (grad) {
    for (int a = 0; a < 2; ++a) {
      grad->segment<3>(op[a]) += (g1 * ax[a]) * cx;
      grad->segment<4>(oq[a]) += (g1 * as[a]) * cs;
    }
  }
  if (hess) {
    const Vec3 dperp = d - c * n;
    const Mat3 cxx = -(n * dperp.transpose() + dperp * n.transpose() + c * Pn) / (l * l);
    Mat34 Jd;
    for (int r = 0; r < 3; ++r) {
      const Mat4 Mk = rayleighMatrix(Vec3::Unit(r), d0);
      Jd.row(r) = (2.0 / rho) * (Mk * s - d[r] * s).transpose();
    }
    const Mat34 cxs = Pn * Jd / l;
    const Mat4 css = (2.0 / rho) * (M - c * Mat4::Identity()) - (s * cs.transpose() + cs * s.transpose()) * (2.0 / rho);
    // Full second derivative of V in (x, s): 1/2 k (h'' grad c grad c^T + h' hess c).
    const double g2 = 0.5 * k * h2;
    const Mat3 Vxx = g2 * cx * cx.transpose() + g1 * cxx;
    const Mat34 Vxs = g2 * cx * cs.transpose() + g1 * cxs;
    const Mat4 Vss = g2 * cs * cs.transpose() + g1 * css;
    for (int a = 0; a < 2; ++a) {
      for (int bb = 0; bb < 2; ++bb) {
        hess->block<3, 3>(op[a], op[bb]) += (ax[a] * ax[bb]) * Vxx;
        hess->block<3, 4>(op[a], oq[bb]) += (ax[a] * as[bb]) * Vxs;
        hess->block<4, 3>(oq[a], op[bb]) += (as[a] * ax[bb]) * Vxs.transpose();
        hess->block<4, 4>(oq[a], oq[bb]) += (as[a] * as[bb]) * Vss;
      }
    }
  }
  return V;
}

Mat3 bendTwistStiffness(const Bond& b) {
  const Mat3 dd = b.d0Bend * b.d0Bend.transpose();
  return b.kTwist * dd + b.kBend * (Mat3::Identity() - dd);
}

Vec3 bendTwistMeasure(const Bond& b, const BondModel& model, const Vec4& qi, const Vec4& qj) {
  (void)b;
  return model.rotScale() * (quat::Gl(qj) * qi);
}

Vec3 bendTwistMoment(const Bond& b, const BondModel& model, const Vec4& qi, const Vec4& qj) {
  return bendTwistStiffness(b) * bendTwistMeasure(b, model, qi, qj);
}

double bendTwistEnergy(const Bond& b, const BondModel& model, const Vec4& qi, const Vec4& qj, Vec14* grad,
                       Mat14* hess) {
  // Eqs. 10-11, R0-free (README decision 15): V = 1/2 (s c)^T K' (s c), c = G_l(q_j) q_i; analytic blocks
  // times s^2.
  const double s2 = model.rotScale() * model.rotScale();
  const Mat34 Glj = quat::Gl(qj);
  const Vec3 c = Glj * qi;
  const Mat3 Kp = bendTwistStiffness(b);
  const Vec3 lambda = Kp * c;
  const double V = 0.5 * s2 * c.dot(lambda);
  if (grad || hess) {
    const Mat34 Gli = quat::Gl(qi);
    if (grad) {
      grad->segment<4>(kQi) += s2 * Glj.transpose() * lambda;
      grad->segment<4>(kQj) -= s2 * Gli.transpose() * lambda;
    }
    if (hess) {
      hess->block<4, 4>(kQi, kQi) += s2 * Glj.transpose() * Kp * Glj;
      hess->block<4, 4>(kQj, kQj) += s2 * Gli.transpose() * Kp * Gli;
      const Eigen::Matrix4d Hij = s2 * (quat::Qr(Vec4(lambda[0], lambda[1], lambda[2], 0.0)) -
                                        Glj.transpose() * Kp * Gli);
      hess->block<4, 4>(kQi, kQj) += Hij;
      hess->block<4, 4>(kQj, kQi) += Hij.transpose();
    }
  }
  return V;
}

BondTerms bondEnergy(const Bond& b, const BondModel& model, const Vec3& pi, const Vec4& qi, const Vec3& pj,
                     const Vec4& qj, Vec14* grad, Mat14* hess) {
  BondTerms T;
  T.stretch = stretchEnergy(b, pi, pj, grad, hess);
  T.shear = shearEnergy(b, model, pi, qi, pj, qj, grad, hess);
  T.bendTwist = bendTwistEnergy(b, model, qi, qj, grad, hess);
  return T;
}

double bondReduced(const Bond& b, const BondModel& model, const Vec3& pi, const Vec4& qi, const Vec3& pj,
                   const Vec4& qj, Vec12* gred, Mat12* hred) {
  // Spec 3.4: g_red = B^T grad, H_red = B^T hess B - blockdiag(0, (q_a . grad_{q_a}) I3), with
  // B = blockdiag(I3, G(q_i)^T, I3, G(q_j)^T). The same as RigidManifold::reduceGradient<2> /
  // reduceHessian<2> (the tests compare them), written block by block: the dense 14 x 12 products
  // there cost 3x the element itself.
  Vec14 g = Vec14::Zero();
  Mat14 H;
  if (hred) H.setZero();
  const BondTerms T = bondEnergy(b, model, pi, qi, pj, qj, &g, hred ? &H : nullptr);
  const std::array<Mat34, 2> G = {solvers::RigidManifold::G(qi), solvers::RigidManifold::G(qj)};
  const std::array<int, 2> op = {kPi, kPj}, oq = {kQi, kQj};
  if (gred) {
    for (int a = 0; a < 2; ++a) {
      gred->segment<3>(6 * a) = g.segment<3>(op[a]);
      gred->segment<3>(6 * a + 3) = G[a] * g.segment<4>(oq[a]);
    }
  }
  if (hred) {
    for (int a = 0; a < 2; ++a) {
      for (int c = 0; c < 2; ++c) {
        hred->block<3, 3>(6 * a, 6 * c) = H.block<3, 3>(op[a], op[c]);
        hred->block<3, 3>(6 * a, 6 * c + 3).noalias() = H.block<3, 4>(op[a], oq[c]) * G[c].transpose();
        hred->block<3, 3>(6 * a + 3, 6 * c).noalias() = G[a] * H.block<4, 3>(oq[a], op[c]);
        const Eigen::Matrix<double, 3, 4> GH = G[a] * H.block<4, 4>(oq[a], oq[c]);
        hred->block<3, 3>(6 * a + 3, 6 * c + 3).noalias() = GH * G[c].transpose();
      }
      // Curvature (Weingarten) term of S^3, Eq. 27.
      const double qg = (a == 0 ? qi : qj).dot(g.segment<4>(oq[a]));
      hred->block<3, 3>(6 * a + 3, 6 * a + 3).diagonal().array() -= qg;
    }
  }
  return T.total();
}

}  // namespace kinema::bdem

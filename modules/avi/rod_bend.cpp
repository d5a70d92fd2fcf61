// Discrete rod bending without twist (rod_bend.hpp).
#include "modules/avi/rod_bend.hpp"

#include <Eigen/Geometry>
#include <cmath>

#include "framework/core/error.hpp"

namespace kinema::avi {

namespace {

Eigen::Matrix3d skew(const Vec3& a) {
  Eigen::Matrix3d m;
  m << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return m;
}

// d|kb|/dx on the three vertices (zero at kb = 0).
Stencil<3> magnitudeGradient(const Stencil<3>& x, double* magnitude) {
  Eigen::Matrix3d j0, j1;
  const Vec3 kb = rodCurvatureBinormal(x, &j0, &j1);
  const double m = kb.norm();
  if (magnitude) *magnitude = m;
  Stencil<3> g = Stencil<3>::Zero();
  if (!(m > 0.0)) return g;
  const Vec3 u = kb / m;
  const Vec3 ge0 = j0.transpose() * u, ge1 = j1.transpose() * u;
  g.col(0) = -ge0;
  g.col(1) = ge0 - ge1;
  g.col(2) = ge1;
  return g;
}

}  // namespace

ForceElement makeRodBend(int a, int b, int c, const Vec3& xa, const Vec3& xb, const Vec3& xc, double kb,
                         double damping) {
  const Vec3 e0 = xb - xa, e1 = xc - xb;
  const double l0 = e0.norm(), l1 = e1.norm();
  if (!(l0 > 0.0) || !(l1 > 0.0) || !std::isfinite(l0 + l1))
    throw InputError(str("avi rod bend at vertex ", b, " (", a, ", ", b, ", ", c, "): degenerate rest edge lengths ",
                         l0, ", ", l1));
  const double phi = std::atan2(e0.cross(e1).norm(), e0.dot(e1));
  if (!(phi < M_PI * (1.0 - 1e-9)))
    throw InputError(str("avi rod bend at vertex ", b, ": rest shape folded back on itself (turning angle ", phi, ")"));
  if (!(kb >= 0.0) || !(damping >= 0.0))
    throw InputError(str("avi rod bend at vertex ", b, ": need k_b >= 0 and damping >= 0 (k_b = ", kb,
                         ", damping = ", damping, ")"));
  ForceElement e;
  e.kind = ForceKind::RodBend;
  e.n = 3;
  e.v = {a, b, c, -1};
  e.k = kb;
  e.damping = damping;
  e.rest = phi;
  e.weight = 2.0 / (l0 + l1);
  e.restShape = {l0, l1, 0.0, 0.0, 0.0};
  return e;
}

// kb = 2 c / D, c = e0 x e1, D = |e0||e1| + e0.e1:
// d kb / d e0 = (-2 [e1]x - kb (|e1| t0 + e1)^T) / D,  d kb / d e1 = (2 [e0]x - kb (|e0| t1 + e0)^T) / D.
Vec3 rodCurvatureBinormal(const Stencil<3>& x, Eigen::Matrix3d* dkbde0, Eigen::Matrix3d* dkbde1) {
  const Vec3 e0 = x.col(1) - x.col(0), e1 = x.col(2) - x.col(1);
  const double l0 = e0.norm(), l1 = e1.norm();
  const double D = l0 * l1 + e0.dot(e1);
  if (!(D > 0.0) || !(l0 > 0.0) || !(l1 > 0.0)) {
    // Collapsed edge or folded back (phi = pi): no defined curvature; no force.
    if (dkbde0) dkbde0->setZero();
    if (dkbde1) dkbde1->setZero();
    return Vec3::Zero();
  }
  const Vec3 kb = 2.0 * e0.cross(e1) / D;
  if (dkbde0) *dkbde0 = (-2.0 * skew(e1) - kb * (l1 / l0 * e0 + e1).transpose()) / D;
  if (dkbde1) *dkbde1 = (2.0 * skew(e0) - kb * (l0 / l1 * e1 + e0).transpose()) / D;
  return kb;
}

double rodBendEnergy(const ForceElement& e, const Stencil<3>& x) {
  const double dk = rodCurvatureBinormal(x).norm() - 2.0 * std::tan(0.5 * e.rest);
  return e.k * e.weight * dk * dk;
}

Stencil<3> rodBendGradient(const ForceElement& e, const Stencil<3>& x) {
  const double kbar = 2.0 * std::tan(0.5 * e.rest);
  if (kbar == 0.0) {
    // Straight rest shape: W = k w |kb|^2, dW/dkb = 2 k w kb (smooth through kb = 0).
    Eigen::Matrix3d j0, j1;
    const Vec3 kb = rodCurvatureBinormal(x, &j0, &j1);
    const Vec3 ge0 = 2.0 * e.k * e.weight * (j0.transpose() * kb);
    const Vec3 ge1 = 2.0 * e.k * e.weight * (j1.transpose() * kb);
    Stencil<3> g;
    g.col(0) = -ge0;
    g.col(1) = ge0 - ge1;
    g.col(2) = ge1;
    return g;
  }
  double m = 0.0;
  const Stencil<3> gm = magnitudeGradient(x, &m);
  return 2.0 * e.k * e.weight * (m - kbar) * gm;
}

Stencil<3> rodBendDamping(const ForceElement& e, const Stencil<3>& x, const Stencil<3>& v) {
  if (e.damping == 0.0) return Stencil<3>::Zero();
  const Stencil<3> gm = magnitudeGradient(x, nullptr);
  const double rate = gm.cwiseProduct(v).sum();
  return -e.damping * rate * gm;
}

// x0 = -|e0| e_x, x1 = 0, x2 = |e1| (cos phi_bar, sin phi_bar, 0).
Stencil<3> rodBendRestStencil(const ForceElement& e) {
  Stencil<3> x = Stencil<3>::Zero();
  x.col(0) = Vec3(-e.restShape[0], 0.0, 0.0);
  x.col(2) = e.restShape[1] * Vec3(std::cos(e.rest), std::sin(e.rest), 0.0);
  return x;
}

}  // namespace kinema::avi

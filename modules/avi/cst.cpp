// St-Venant-Kirchhoff constant-strain triangle (cst.hpp; README decisions 8 and 21).
#include "modules/avi/cst.hpp"

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>

#include "framework/core/error.hpp"

namespace kinema::avi {

namespace {

using Mat32 = Eigen::Matrix<double, 3, 2>;

Mat32 edgeMatrix(const Stencil<3>& x) {
  Mat32 ds;
  ds.col(0) = x.col(1) - x.col(0);
  ds.col(1) = x.col(2) - x.col(0);
  return ds;
}

// Spreads an edge-column gradient G (d/d(x1 - x0), d/d(x2 - x0)) onto the three vertices.
Stencil<3> spread(const Mat32& G) {
  Stencil<3> out;
  out.col(0) = -G.col(0) - G.col(1);
  out.col(1) = G.col(0);
  out.col(2) = G.col(1);
  return out;
}

}  // namespace

ForceElement makeCst(int a, int b, int c, const Vec3& xa, const Vec3& xb, const Vec3& xc, double Y, double nu,
                     double damping) {
  const Vec3 e1 = xb - xa, e2 = xc - xa;
  const Vec3 normal = e1.cross(e2);
  const double area = 0.5 * normal.norm();
  const double scale2 = std::max({e1.squaredNorm(), e2.squaredNorm(), (xc - xb).squaredNorm()});
  if (!(area > 1e-12 * scale2) || !std::isfinite(area))
    throw InputError(str("avi CST triangle (", a, ", ", b, ", ", c, "): degenerate rest shape (area ", area, ")"));
  if (!(Y >= 0.0) || !(damping >= 0.0) || !(nu > -1.0 && nu < 1.0))
    throw InputError(str("avi CST triangle (", a, ", ", b, ", ", c, "): need Y >= 0, damping >= 0 and -1 < nu < 1 (Y = ",
                         Y, ", nu = ", nu, ", damping = ", damping, ")"));
  // Orthonormal frame (t, s) of the rest triangle; Dm = [e1 e2] in that frame.
  const Vec3 t = e1.normalized();
  const Vec3 s = normal.normalized().cross(t);
  Eigen::Matrix2d dm;
  dm << e1.norm(), e2.dot(t), 0.0, e2.dot(s);
  ForceElement e;
  e.kind = ForceKind::Cst;
  e.n = 3;
  e.v = {a, b, c, -1};
  e.k = Y;
  e.nu = nu;
  e.damping = damping;
  e.weight = area;
  e.restInv = dm.inverse();
  return e;
}

Mat32 cstDeformationGradient(const ForceElement& e, const Stencil<3>& x) { return edgeMatrix(x) * e.restInv; }

double cstEnergy(const ForceElement& e, const Stencil<3>& x) {
  const Mat32 F = cstDeformationGradient(e, x);
  const Eigen::Matrix2d E = 0.5 * (F.transpose() * F - Eigen::Matrix2d::Identity());
  const double tr = E.trace();
  return e.weight * e.k / (2.0 * (1.0 - e.nu * e.nu)) * ((1.0 - e.nu) * E.squaredNorm() + e.nu * tr * tr);
}

Stencil<3> cstGradient(const ForceElement& e, const Stencil<3>& x) {
  const Mat32 F = cstDeformationGradient(e, x);
  const Eigen::Matrix2d E = 0.5 * (F.transpose() * F - Eigen::Matrix2d::Identity());
  const Eigen::Matrix2d S =
      e.k / (1.0 - e.nu * e.nu) * ((1.0 - e.nu) * E + e.nu * E.trace() * Eigen::Matrix2d::Identity());
  return spread(e.weight * F * S * e.restInv.transpose());
}

Stencil<3> cstDamping(const ForceElement& e, const Stencil<3>& x, const Stencil<3>& v) {
  if (e.damping == 0.0) return Stencil<3>::Zero();
  const Mat32 F = cstDeformationGradient(e, x);
  const Mat32 Fdot = edgeMatrix(v) * e.restInv;
  const Eigen::Matrix2d FtFdot = F.transpose() * Fdot;
  const Eigen::Matrix2d Edot = 0.5 * (FtFdot + FtFdot.transpose());
  return spread(-e.damping * e.weight * F * Edot * e.restInv.transpose());
}

Stencil<3> cstRestStencil(const ForceElement& e) {
  const Eigen::Matrix2d dm = e.restInv.inverse();
  Stencil<3> x = Stencil<3>::Zero();
  x.block<2, 1>(0, 1) = dm.col(0);
  x.block<2, 1>(0, 2) = dm.col(1);
  return x;
}

}  // namespace kinema::avi

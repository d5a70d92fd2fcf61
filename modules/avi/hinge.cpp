// Discrete-shell hinge bending (hinge.hpp; Grinspun et al. 2003, the paper's ref. [42]).
#include "modules/avi/hinge.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

#include "framework/core/error.hpp"

namespace kinema::avi {

ForceElement makeHinge(int a, int b, int c, int d, const Vec3& xa, const Vec3& xb, const Vec3& xc, const Vec3& xd,
                       double kb, double damping) {
  const Vec3 edge = xb - xa;
  const double len = edge.norm();
  const double a1 = 0.5 * edge.cross(xc - xa).norm();
  const double a2 = 0.5 * (xa - xb).cross(xd - xb).norm();
  const double scale2 = std::max({edge.squaredNorm(), (xc - xa).squaredNorm(), (xd - xa).squaredNorm(),
                                  (xc - xb).squaredNorm(), (xd - xb).squaredNorm()});
  if (!(len > 0.0) || !(a1 > 1e-12 * scale2) || !(a2 > 1e-12 * scale2) || !std::isfinite(scale2))
    throw InputError(str("avi hinge on edge (", a, ", ", b, ") with flaps ", c, ", ", d,
                         ": degenerate rest shape (edge length ", len, ", flap areas ", a1, ", ", a2, ")"));
  if (!(kb >= 0.0) || !(damping >= 0.0))
    throw InputError(str("avi hinge on edge (", a, ", ", b, "): need k_b >= 0 and damping >= 0 (k_b = ", kb,
                         ", damping = ", damping, ")"));
  Stencil<4> x;
  x << xa, xb, xc, xd;
  ForceElement e;
  e.kind = ForceKind::Hinge;
  e.n = 4;
  e.v = {a, b, c, d};
  e.k = kb;
  e.damping = damping;
  e.rest = hingeAngle(x);
  e.weight = 3.0 * len * len / (a1 + a2);
  const Vec3 t = edge / len;
  e.restShape = {len, (xc - xa).dot(t), 2.0 * a1 / len, (xd - xa).dot(t), 2.0 * a2 / len};
  return e;
}

double hingeAngle(const Stencil<4>& x, Stencil<4>* gradTheta) {
  const Vec3 x0 = x.col(0), x1 = x.col(1), x2 = x.col(2), x3 = x.col(3);
  const Vec3 edge = x1 - x0;
  const Vec3 n1 = edge.cross(x2 - x0);
  const Vec3 n2 = (x0 - x1).cross(x3 - x1);
  const double len = edge.norm();
  const double n1sq = n1.squaredNorm(), n2sq = n2.squaredNorm();
  const double sinPart = len > 0.0 ? n2.cross(n1).dot(edge) / len : 0.0;
  const double theta = std::atan2(sinPart, n1.dot(n2));
  if (gradTheta) {
    if (!(len > 0.0) || !(n1sq > 0.0) || !(n2sq > 0.0)) {
      gradTheta->setZero();
    } else {
      const Vec3 t = edge / len;
      const Vec3 m1 = n1 / n1sq, m2 = n2 / n2sq;
      gradTheta->col(2) = len * m1;
      gradTheta->col(3) = len * m2;
      gradTheta->col(0) = (x2 - x1).dot(t) * m1 + (x3 - x1).dot(t) * m2;
      gradTheta->col(1) = -(x2 - x0).dot(t) * m1 - (x3 - x0).dot(t) * m2;
    }
  }
  return theta;
}

double hingeEnergy(const ForceElement& e, const Stencil<4>& x) {
  const double dt = hingeAngle(x) - e.rest;
  return e.k * e.weight * dt * dt;
}

Stencil<4> hingeGradient(const ForceElement& e, const Stencil<4>& x) {
  Stencil<4> gt;
  const double theta = hingeAngle(x, &gt);
  return 2.0 * e.k * e.weight * (theta - e.rest) * gt;
}

Stencil<4> hingeDamping(const ForceElement& e, const Stencil<4>& x, const Stencil<4>& v) {
  if (e.damping == 0.0) return Stencil<4>::Zero();
  Stencil<4> gt;
  hingeAngle(x, &gt);
  const double thetaDot = gt.cwiseProduct(v).sum();
  return -e.damping * thetaDot * gt;
}

// x0 = 0, x1 = |e| e_x, x2 = (s2, h2, 0); x3 at foot s3 and height h3, rotated about the edge so
// that the dihedral angle is theta_bar (the rotation sense is chosen by evaluating theta).
Stencil<4> hingeRestStencil(const ForceElement& e) {
  const auto& r = e.restShape;
  Stencil<4> x = Stencil<4>::Zero();
  x.col(1) = Vec3(r[0], 0.0, 0.0);
  x.col(2) = Vec3(r[1], r[2], 0.0);
  const double c = std::cos(e.rest), s = std::sin(e.rest);
  Stencil<4> best = x;
  double bestErr = INFINITY;
  for (double sign : {1.0, -1.0}) {
    Stencil<4> cand = x;
    cand.col(3) = Vec3(r[3], -r[4] * c, sign * r[4] * s);
    const double err = std::abs(hingeAngle(cand) - e.rest);
    if (err < bestErr) {
      bestErr = err;
      best = cand;
    }
  }
  return best;
}

}  // namespace kinema::avi

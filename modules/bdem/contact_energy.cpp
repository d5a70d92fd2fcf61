// Penalty contact (paper §5.4, Eqs. 32-33; activation and projected Hessians of
// README decisions 44 and 18).
#include "modules/bdem/contact_energy.hpp"

#include <cmath>

namespace kinema::bdem {

double pairContactEnergy(double kec, double ri, double rj, const Vec3& pi, const Vec3& pj, Vec6* grad, Mat6* hess) {
  // Eq. 32, active only while l < r_i + r_j (the caller excludes bonded pairs).
  const Vec3 x = pi - pj;
  const double l = x.norm();
  const double gap = l - ri - rj;
  if (!(gap < 0)) return 0.0;
  if (grad || hess) {
    // Coincident centres: no direction; push along x (a deterministic choice).
    const Vec3 u = l > 0 ? Vec3(x / l) : Vec3::UnitX();
    if (grad) {
      const Vec3 g = kec * gap * u;
      grad->head<3>() += g;
      grad->tail<3>() -= g;
    }
    if (hess) {
      // Projected block: the transverse term kec gap/l (I - u u^T) is negative here and dropped.
      const Mat3 A = kec * u * u.transpose();
      hess->topLeftCorner<3, 3>() += A;
      hess->bottomRightCorner<3, 3>() += A;
      hess->topRightCorner<3, 3>() -= A;
      hess->bottomLeftCorner<3, 3>() -= A;
    }
  }
  return 0.5 * kec * gap * gap;
}

double pairContactForce(double kec, double ri, double rj, const Vec3& pi, const Vec3& pj) {
  const double gap = (pi - pj).norm() - ri - rj;
  return gap < 0 ? kec * std::abs(gap) : 0.0;
}

double obstacleContactEnergy(double kc, const Obstacle& o, double t, double r, const Vec3& p, Vec3* grad,
                             Mat3* hess) {
  // Eq. 33 for a sphere: phi = g(p) - r, V = 1/2 kc min(phi, 0)^2 (README decision 44).
  Vec3 n;
  const double phi = o.distance(p, t, &n) - r;
  if (!(phi < 0)) return 0.0;
  if (grad) *grad += kc * phi * n;
  if (hess) *hess += kc * n * n.transpose();  // projected: kc (grad g grad g^T + phi hess g) without phi hess g
  return 0.5 * kc * phi * phi;
}

double obstacleContactForce(double kc, const Obstacle& o, double t, double r, const Vec3& p) {
  const double phi = o.distance(p, t) - r;
  return phi < 0 ? kc * std::abs(phi) : 0.0;
}

}  // namespace kinema::bdem

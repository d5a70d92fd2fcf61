// Obstacle signed distances (paper §5.4, Eq. 33) with closed-form gradient and
// Hessian. The Hessian is exact wherever the distance is twice differentiable (zero on plane and
// box faces and on cylinder caps; the curvature of cylinder sides and of box / cylinder edges and
// corners otherwise). The contact element itself uses the projected k_c grad g grad g^T (README
// decision 18), so the Hessian here serves diagnostics, tests and the unprojected option.
#include "modules/bdem/obstacle.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

namespace kinema::bdem {

namespace {

// Solid axis-aligned box, centre c, half extents h: the standard signed distance.
double boxDistance(const Vec3& p, const Vec3& c, const Vec3& h, Vec3* grad, Mat3* hess) {
  const Vec3 r = p - c;
  Vec3 sg, q;
  for (int k = 0; k < 3; ++k) {
    sg[k] = r[k] < 0 ? -1.0 : 1.0;
    q[k] = std::abs(r[k]) - h[k];
  }
  const double qmax = q.maxCoeff();
  if (qmax <= 0) {  // inside: nearest face, g = max_k q_k (negative)
    int k = 0;
    q.maxCoeff(&k);
    if (grad) *grad = sg[k] * Vec3::Unit(k);
    if (hess) hess->setZero();
    return qmax;
  }
  Vec3 e = Vec3::Zero();  // outside: distance to the box, |max(q, 0)|
  Vec3 mask = Vec3::Zero();
  for (int k = 0; k < 3; ++k)
    if (q[k] > 0) {
      e[k] = q[k];
      mask[k] = 1.0;
    }
  const double g = e.norm();
  const Vec3 gr = sg.cwiseProduct(e) / g;
  if (grad) *grad = gr;
  if (hess) *hess = (Mat3(mask.asDiagonal()) - gr * gr.transpose()) / g;  // zero on a face
  return g;
}

// Solid finite cylinder (capped), centre c, unit axis a, radius R, half length H.
double cylinderDistance(const Vec3& p, const Vec3& c, const Vec3& a, double R, double H, Vec3* grad, Mat3* hess) {
  const Vec3 r = p - c;
  const double z = r.dot(a);
  const Vec3 rho = r - z * a;
  const double rr = rho.norm();
  Vec3 e;  // radial unit vector (any perpendicular on the axis)
  if (rr > 1e-300) {
    e = rho / rr;
  } else {
    e = a.unitOrthogonal();
  }
  const double sz = z < 0 ? -1.0 : 1.0;
  const Vec3 ez = sz * a;
  const double dx = rr - R, dy = std::abs(z) - H;
  // Hessian of the radial distance rr: (I - a a^T - e e^T) / rr.
  auto radialHess = [&]() -> Mat3 {
    if (rr <= 1e-300) return Mat3::Zero();
    return (Mat3::Identity() - a * a.transpose() - e * e.transpose()) / rr;
  };
  if (dx <= 0 && dy <= 0) {  // inside
    if (dx > dy) {
      if (grad) *grad = e;
      if (hess) *hess = radialHess();
      return dx;
    }
    if (grad) *grad = ez;
    if (hess) hess->setZero();
    return dy;
  }
  if (dy <= 0) {  // beside the mantle
    if (grad) *grad = e;
    if (hess) *hess = radialHess();
    return dx;
  }
  if (dx <= 0) {  // above / below a cap
    if (grad) *grad = ez;
    if (hess) hess->setZero();
    return dy;
  }
  // Beyond the rim: distance to the circle edge, g = sqrt(dx^2 + dy^2).
  const double g = std::hypot(dx, dy);
  const Vec3 gr = (dx * e + dy * ez) / g;
  if (grad) *grad = gr;
  if (hess) *hess = (e * e.transpose() + ez * ez.transpose() + dx * radialHess() - gr * gr.transpose()) / g;
  return g;
}

}  // namespace

double Obstacle::distance(const Vec3& p, double t, Vec3* grad, Mat3* hess) const {
  const Vec3 c = point + t * velocity;
  switch (kind) {
    case Kind::Plane: {
      if (grad) *grad = normal;
      if (hess) hess->setZero();
      return normal.dot(p - c);
    }
    case Kind::Box: {
      const double g = boxDistance(p, c, halfExtents, grad, hess);
      if (!hollow) return g;
      // Hollow container: particles live inside, distance to the walls, negative outside.
      if (grad) *grad = -*grad;
      if (hess) *hess = -*hess;
      return -g;
    }
    case Kind::Cylinder:
      return cylinderDistance(p, c, axis, radius, halfLength, grad, hess);
  }
  return 0.0;
}

}  // namespace kinema::bdem

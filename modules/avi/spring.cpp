// Linear spring (spring.hpp; the paper's §8.1).
#include "modules/avi/spring.hpp"

#include <cmath>

#include "framework/core/error.hpp"

namespace kinema::avi {

ForceElement makeSpring(int a, int b, const Vec3& xa, const Vec3& xb, double k, double damping) {
  const double L = (xb - xa).norm();
  if (!(L > 0.0) || !std::isfinite(L))
    throw InputError(str("avi spring (", a, ", ", b, "): degenerate rest length ", L));
  if (!(k >= 0.0) || !(damping >= 0.0))
    throw InputError(str("avi spring (", a, ", ", b, "): stiffness and damping must be >= 0 (k = ", k,
                         ", damping = ", damping, ")"));
  ForceElement e;
  e.kind = ForceKind::Spring;
  e.n = 2;
  e.v = {a, b, -1, -1};
  e.k = k;
  e.damping = damping;
  e.rest = L;
  return e;
}

double springLength(const Stencil<2>& x, Stencil<2>* gradLength) {
  const Vec3 d = x.col(1) - x.col(0);
  const double l = d.norm();
  if (gradLength) {
    const Vec3 n = l > 0.0 ? Vec3(d / l) : Vec3::Zero();
    gradLength->col(0) = -n;
    gradLength->col(1) = n;
  }
  return l;
}

double springEnergy(const ForceElement& e, const Stencil<2>& x) {
  const double s = springLength(x) - e.rest;
  return 0.5 * e.k * s * s;
}

Stencil<2> springGradient(const ForceElement& e, const Stencil<2>& x) {
  Stencil<2> gl;
  const double l = springLength(x, &gl);
  return e.k * (l - e.rest) * gl;
}

Stencil<2> springDamping(const ForceElement& e, const Stencil<2>& x, const Stencil<2>& v) {
  if (e.damping == 0.0) return Stencil<2>::Zero();
  Stencil<2> gl;
  springLength(x, &gl);
  const double ldot = gl.cwiseProduct(v).sum();
  return -e.damping * ldot * gl;
}

Stencil<2> springRestStencil(const ForceElement& e) {
  Stencil<2> x = Stencil<2>::Zero();
  x(0, 1) = e.rest;
  return x;
}

}  // namespace kinema::avi

#pragma once
// Discrete-shell bending on an interior edge (Grinspun et al. 2003, the paper's ref. [42],
// used in its §8; modules/avi/README.md, decisions 8 and 22):
// stencil: edge (x0, x1), flap x2 in triangle (x0, x1, x2), flap x3 in triangle (x1, x0, x3).
// W = k_b (theta - theta_bar)^2 * 3 |e_bar|^2 / (A1_bar + A2_bar)   (e.weight holds the factor),
// theta = signed dihedral (bending) angle, 0 when flat, in (-pi, pi]:
//   N1 = (x1 - x0) x (x2 - x0), N2 = (x0 - x1) x (x3 - x1), e_hat = (x1 - x0) / |x1 - x0|,
//   theta = atan2((N2 x N1) . e_hat, N1 . N2).
// grad theta: the bending modes of Bridson et al. 2003 (u1 on x2, u2 on x3, u3 on x0, u4 on x1):
//   u1 = |e| N1 / |N1|^2, u2 = |e| N2 / |N2|^2,
//   u3 = ((x2 - x1).e_hat) N1/|N1|^2 + ((x3 - x1).e_hat) N2/|N2|^2,
//   u4 = -((x2 - x0).e_hat) N1/|N1|^2 - ((x3 - x0).e_hat) N2/|N2|^2   (sum = 0; the sign of theta
//   above is the one for which these are +grad theta, checked by finite differences in U6).
// theta - theta_bar is not wrapped: passing through the fold theta = +-pi needs the flaps to
// interpenetrate, which contact prevents (README).
// Damping (README decisions 7 and 24): f = -c (dtheta/dt) grad theta, dtheta/dt = grad theta . v.
#include "modules/avi/force_element.hpp"

namespace kinema::avi {

// theta and (optionally) grad theta; a collapsed edge or flap gives theta from atan2 and a zero
// gradient (no force rather than NaN).
double hingeAngle(const Stencil<4>& x, Stencil<4>* gradTheta = nullptr);
double hingeEnergy(const ForceElement& e, const Stencil<4>& x);
Stencil<4> hingeGradient(const ForceElement& e, const Stencil<4>& x);
Stencil<4> hingeDamping(const ForceElement& e, const Stencil<4>& x, const Stencil<4>& v);
// Rest stencil rebuilt from e.restShape and e.rest in a local frame, for stableStep.
Stencil<4> hingeRestStencil(const ForceElement& e);

}  // namespace kinema::avi

#pragma once
// Constant-strain-triangle membrane, St-Venant-Kirchhoff (the stretching model of the paper's §8,
// ref. [41]; our reading: modules/avi/README.md, decisions 8 and 21):
// F = Ds Dm^-1 (3x2; Ds = [x1 - x0, x2 - x0], Dm the 2x2 rest edge matrix in an orthonormal frame
// of the rest triangle, stored inverted in e.restInv), Green strain E = 1/2 (F^T F - I),
// W = A * Y / (2 (1 - nu^2)) * ((1 - nu) tr(E^2) + nu (tr E)^2), A = rest area (e.weight),
// Y = e.k the paper's "stretching stiffness" read as Young's modulus times thickness (README).
// Gradient: dW/dDs = A F S Dm^-T with S = Y / (1 - nu^2) ((1 - nu) E + nu tr(E) I).
// Damping (README decisions 7 and 24): f = -c A (dE/dt : dE/dx) = -c A F Edot Dm^-T per edge column,
// Edot = sym(F^T Ddot Dm^-1); it is -c A grad_x (E(x) : W) at W = Edot, so balanced.
#include "modules/avi/force_element.hpp"

namespace kinema::avi {

// Deformation gradient F (3x2) of the stencil.
Eigen::Matrix<double, 3, 2> cstDeformationGradient(const ForceElement& e, const Stencil<3>& x);
double cstEnergy(const ForceElement& e, const Stencil<3>& x);
Stencil<3> cstGradient(const ForceElement& e, const Stencil<3>& x);
Stencil<3> cstDamping(const ForceElement& e, const Stencil<3>& x, const Stencil<3>& v);
// Rest stencil in the local frame of Dm (x0 = 0, in the xy plane), for stableStep.
Stencil<3> cstRestStencil(const ForceElement& e);

}  // namespace kinema::avi

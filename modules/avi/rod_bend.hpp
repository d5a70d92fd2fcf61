#pragma once
// Discrete rod bending at the middle vertex of x0 - x1 - x2, without twist (README decision;
// after Bergou et al. 2008 with the material frame dropped):
//   e0 = x1 - x0, e1 = x2 - x1, kb = 2 e0 x e1 / (|e0||e1| + e0.e1) (curvature binormal),
//   |kb| = 2 tan(phi / 2), phi the turning angle between e0 and e1,
//   W = k_b (|kb| - |kb_bar|)^2 / lbar, lbar = (|e0_bar| + |e1_bar|) / 2 (e.weight = 1 / lbar),
//   e.rest = phi_bar (rest turning angle, [0, pi)), |kb_bar| = 2 tan(phi_bar / 2).
// With a straight rest shape W = k_b |kb|^2 / lbar is smooth at the straight state; with a curved
// rest shape the straight state is a cone point of |kb| (no preferred bending direction without
// a material frame), where the gradient is taken as 0.
// Damping (README decisions 7 and 24, analogous to the hinge): f = -c (d|kb|/dt) grad |kb|.
#include "modules/avi/force_element.hpp"

namespace kinema::avi {

// The curvature binormal kb and (optionally) its Jacobians d kb / d e0 and d kb / d e1.
Vec3 rodCurvatureBinormal(const Stencil<3>& x, Eigen::Matrix3d* dkbde0 = nullptr, Eigen::Matrix3d* dkbde1 = nullptr);
double rodBendEnergy(const ForceElement& e, const Stencil<3>& x);
Stencil<3> rodBendGradient(const ForceElement& e, const Stencil<3>& x);
Stencil<3> rodBendDamping(const ForceElement& e, const Stencil<3>& x, const Stencil<3>& v);
// Rest stencil rebuilt from e.restShape and e.rest in a local frame, for stableStep.
Stencil<3> rodBendRestStencil(const ForceElement& e);

}  // namespace kinema::avi

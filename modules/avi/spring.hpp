#pragma once
// Linear spring between two vertices (the paper's §8.1; the conventions are ours,
// modules/avi/README.md, decision 59):
// V = 1/2 k (l - L)^2, l = |x1 - x0| (the 1/2 convention; penalty layers use k g^2 without it).
// Damping (README, decisions 7 and 24): f = -c (dl/dt) grad l, dl/dt = grad l . v.
#include "modules/avi/force_element.hpp"

namespace kinema::avi {

// Current length l and its gradient (columns dl/dx0, dl/dx1; zero when l == 0).
double springLength(const Stencil<2>& x, Stencil<2>* gradLength = nullptr);
double springEnergy(const ForceElement& e, const Stencil<2>& x);
Stencil<2> springGradient(const ForceElement& e, const Stencil<2>& x);
Stencil<2> springDamping(const ForceElement& e, const Stencil<2>& x, const Stencil<2>& v);
// Rest stencil in a local frame (x0 = 0, x1 = L e_x), for stableStep.
Stencil<2> springRestStencil(const ForceElement& e);

}  // namespace kinema::avi

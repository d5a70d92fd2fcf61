#pragma once
// Gravity as an asynchronous potential on one vertex (the paper's §8.1, second experiment):
// V = -m g . x, dV/dx = -m g. No damping, no stability limit (stableStep = +inf).
#include "modules/avi/force_element.hpp"

namespace kinema::avi {

double gravityEnergy(const ForceElement& e, const Vec3& x);
Vec3 gravityGradient(const ForceElement& e);

}  // namespace kinema::avi

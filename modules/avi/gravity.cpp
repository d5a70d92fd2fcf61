// Gravity potential (gravity.hpp; the paper's §8.1).
#include "modules/avi/gravity.hpp"

#include <cmath>

#include "framework/core/error.hpp"

namespace kinema::avi {

ForceElement makeGravity(int a, double mass, const Vec3& g) {
  if (!(mass >= 0.0) || !std::isfinite(mass) || !g.allFinite())
    throw InputError(str("avi gravity on vertex ", a, ": need a finite mass >= 0 and a finite g (mass = ", mass,
                         ")"));
  ForceElement e;
  e.kind = ForceKind::Gravity;
  e.n = 1;
  e.v = {a, -1, -1, -1};
  e.mass = mass;
  e.g = g;
  return e;
}

double gravityEnergy(const ForceElement& e, const Vec3& x) { return -e.mass * e.g.dot(x); }

Vec3 gravityGradient(const ForceElement& e) { return -e.mass * e.g; }

}  // namespace kinema::avi

#include "modules/bdem/bond.hpp"

#include <cmath>
#include <numbers>

#include "framework/core/error.hpp"
#include "framework/solvers/manifold_rigid.hpp"

namespace kinema::bdem {

ShearForm parseShearForm(const std::string& name) {
  if (name == "paper") return ShearForm::Paper;
  if (name == "consistent") return ShearForm::Consistent;
  throw InputError("bdem: unknown shear form '" + name + "' (expected paper | consistent)");
}

RotMeasure parseRotMeasure(const std::string& name) {
  if (name == "paper") return RotMeasure::Paper;
  if (name == "full_angle") return RotMeasure::FullAngle;
  throw InputError("bdem: unknown bend/twist measure '" + name + "' (expected paper | full_angle)");
}

Bond makeBond(const Particles& P, std::int32_t i, std::int32_t j, const Material& mat) {
  using solvers::RigidManifold;
  Bond b;
  b.i = i;
  b.j = j;
  b.gi = P.gid[i];
  b.gj = P.gid[j];
  const Vec3 d = P.p[j] - P.p[i];
  b.l0 = d.norm();
  if (!(b.l0 > 0)) throw InputError("bdem: particles " + std::to_string(P.gid[i]) + " and " +
                                    std::to_string(P.gid[j]) + " coincide; cannot bond them");
  b.r0 = 0.5 * (P.r[i] + P.r[j]);
  const double pi = std::numbers::pi;
  b.S = pi * b.r0 * b.r0;
  b.I = pi * std::pow(b.r0, 4) / 4.0;
  b.J = pi * std::pow(b.r0, 4) / 2.0;
  b.kn = mat.E * b.S / b.l0;
  b.kt = mat.shearModulus() * b.S / b.l0;
  b.kTwist = mat.shearModulus() * b.J / b.l0;
  b.kBend = mat.E * b.I / b.l0;
  b.sigmaC = mat.sigmaC;
  b.tauC = mat.tauC;
  const Vec3 d0 = d / b.l0;
  Vec4 qc = P.q[i] + (P.q[i].dot(P.q[j]) < 0 ? -P.q[j] : P.q[j]);
  qc.normalize();
  b.d0Shear = RigidManifold::rotation(qc).transpose() * d0;
  b.d0Bend = RigidManifold::rotation(P.q[j]).transpose() * d0;
  return b;
}

}  // namespace kinema::bdem

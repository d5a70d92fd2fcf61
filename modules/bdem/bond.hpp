#pragma once
// Bond: the parallel bond between two particles (paper §3.2, §3.4) and the model switches
// of README decisions 13-14 and 34. A bond stores what it needs from its
// creation: rest length l0, bond radius r0 = (r_i + r_j)/2, area S = pi r0^2 (Eq. 8), second
// moments I = pi r0^4/4 and J = pi r0^4/2 (Eq. 11), stiffnesses kn = E S / l0 (Eq. 8),
// kt = G S / l0 (Eq. 9) with G = E / (2 (1 + nu)), the bend/twist diagonal K = (1/l0) diag(GJ, EI, EI)
// (Eq. 11), and the rest axis d0 in the two frames it is used in.
//
// A bond is held by exactly one rank: the owner of its endpoint with the smaller global index
// (domain.hpp). i and j are local particle indices on that rank.
#include <cstdint>
#include <string>

#include "modules/bdem/particles.hpp"

namespace kinema::bdem {

// Shear energy form (Eq. 9; README decisions 13-14): paper-literal 1/2 kt theta^2 or the
// dimensionally consistent 1/2 kt (l0 theta)^2.
enum class ShearForm : std::int8_t { Paper = 0, Consistent = 1 };
// Bend/twist measure (Eqs. 10-11; README decision 14): t = R0 vec(conj(q_j) q_i), a half angle
// (paper), or 2 t, the full relative rotation angle.
enum class RotMeasure : std::int8_t { Paper = 0, FullAngle = 1 };

struct BondModel {
  ShearForm shear = ShearForm::Consistent;
  RotMeasure rot = RotMeasure::FullAngle;
  bool tensionOnly = false;  // fracture: count only tensile F_n in sigma (README decision 34)
  double rotScale() const { return rot == RotMeasure::FullAngle ? 2.0 : 1.0; }
};

ShearForm parseShearForm(const std::string& name);  // "paper" | "consistent"
RotMeasure parseRotMeasure(const std::string& name); // "paper" | "full_angle"

// A material: Young's modulus, Poisson ratio, density, strengths (§3.2, §3.3; README decision 44).
struct Material {
  double E = 1e7;        // Pa
  double nu = 0.3;
  double density = 1000; // kg/m^3
  double sigmaC = 3e4;   // tensile strength, Pa (Eq. 12); +inf: unbreakable
  double tauC = 3e4;     // shear strength, Pa (Eq. 13)
  double shearModulus() const { return E / (2.0 * (1.0 + nu)); }
};

struct Bond {
  std::int32_t i = -1, j = -1;  // local particle indices, gid(i) < gid(j)
  GlobalId gi = -1, gj = -1;    // their global indices (local ones are remapped when ghosts change)
  double l0 = 0, r0 = 0, S = 0, I = 0, J = 0;
  double kn = 0, kt = 0;        // Eq. 8, Eq. 9
  double kTwist = 0, kBend = 0; // K = diag(kTwist, kBend, kBend) = (1/l0) diag(GJ, EI, EI), Eq. 11
  double sigmaC = 0, tauC = 0;
  // Rest axis (p_j - p_i)/l0 carried back to the rest frame of the common rotation q_c (shear,
  // Eq. 9) and of q_j's body frame (bend/twist, Eq. 10; K' = R0^T K R0 = kTwist d0 d0^T +
  // kBend (I - d0 d0^T), README decision 15). Equal when the particles start at q = identity.
  Vec3 d0Shear = Vec3::UnitX(), d0Bend = Vec3::UnitX();
  bool alive = true;
};

// A bond between particles i and j of `P` with the geometry at the current state and the
// material's stiffnesses (Eqs. 8-11; README decision 44).
// Note (elements helper): the bend/twist measure c = G_l(q_j) q_i is zero only when q_i = q_j, so a
// bond is at rest only if its particles have equal orientations at creation (true after packing,
// where every particle starts at identity); shear and stretch are at rest for any orientations.
Bond makeBond(const Particles& P, std::int32_t i, std::int32_t j, const Material& mat);

}  // namespace kinema::bdem

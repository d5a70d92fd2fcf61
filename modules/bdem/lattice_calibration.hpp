#pragma once
// Lattice calibration: what a bonded packing shows as a continuum, and the bond parameters that
// make it show the user's Young's modulus and density (docs/modules/bdem.md, "Calibrated material").
//
// A packing of equal spheres joined by the bonds of Eqs. 8-11 (kn = E S / l0, kt = G S / l0,
// K = (1/l0) diag(G J, E I, E I)) is stiffer than the E the bonds are built from: per unit volume
// an fcc lattice carries 12 bonds of area pi r^2 through cells of 4 sqrt2 r^3. Its homogenised
// stiffness follows from the Cauchy-Born rule: under a uniform strain eps every bond vector d
// becomes (I + eps) d, each basis particle b of the periodic cell may translate by u_b and rotate
// by w_b, and the energy per cell, to second order,
//   W = sum_bonds 1/2 kn (n.du)^2 + 1/2 kt l0^2 |P du / l0 - w_c x n|^2 + 1/2 phi^T K' phi,
//   du = eps d + u_j - u_i,  w_c = (w_i + w_j)/2,  phi = s/2 (w_j - w_i) ... (s = 2: full angle),
// is minimised over (u, w) by static condensation; C = d^2 W / d eps^2 / V_cell (Voigt, engineering
// shears). The consistent shear form (1/2 kt (l0 theta)^2) and the paper's (1/2 kt theta^2) differ
// by the l0^2 factor, the half-angle bend measure by 1/4 on K'.
//
// Calibration (`bdem.scene.material.calibration: lattice`): every bond stiffness and strength is
// multiplied by E / E_lattice, where E_lattice = sqrt(E_x E_z) is the lattice's modulus with bonds
// of modulus E (x, y in the close-packed layers, z across them; fcc and hcp are 5 % stiffer across,
// so both axes are within 2.6 %), and every particle's mass by 1 / (packing fraction), so that the
// mass per volume of the packing is the density. The lattice's Poisson ratio is not a free
// parameter of the bond model (fcc: 0.09-0.25, cubic: 0) and is reported, not calibrated.
#include <Eigen/Core>
#include <optional>
#include <vector>

#include "modules/bdem/bond.hpp"
#include "modules/bdem/packing.hpp"
#include "modules/bdem/system.hpp"

namespace kinema::bdem {

using Mat6 = Eigen::Matrix<double, 6, 6>;

struct LatticeElasticity {
  Mat6 C = Mat6::Zero();         // homogenised stiffness [Pa], Voigt order xx yy zz yz xz xy
  double volumePerParticle = 0;  // cell volume per particle [m^3]
  double packingFraction = 0;    // (4/3) pi r^3 / volumePerParticle
  // Young's modulus along the unit direction a (uniaxial stress), Poisson ratio nu_ab = -eps_b / eps_a.
  double young(const Vec3& a) const;
  double poisson(const Vec3& a, const Vec3& b) const;
};

// The homogenised elasticity of `lattice` (spacing 2r) with bonds of `material` under `model`.
// The modulus scales with E and does not depend on r.
LatticeElasticity homogenise(Lattice lattice, double radius, const Material& material, const BondModel& model);

struct LatticeCalibration {
  std::optional<Lattice> lattice;
  double stiffnessScale = 1;  // bond stiffnesses and strengths x this
  double massScale = 1;       // particle masses x this (1 / packing fraction)
  LatticeElasticity before;   // the lattice with bonds of the nominal E
  LatticeElasticity after;    // ... and with the calibrated bonds (young along x, z ~ E)
};

LatticeCalibration calibrateLattice(Lattice lattice, const Material& nominal, const BondModel& model);

// Surface compensation, per bond: the mean over its two ends of f, where f = 2 at an end whose
// particle has no bond opposite to this one (a particle on a free surface; for hcp also no bond
// at its mirror image in the layer plane) and 1 otherwise. Under
// a uniform strain a bond and its opposite store the same energy (the strain enters through
// d (x) d), so the inward bond standing in for the missing outward one gives a surface particle
// the energy share of a particle inside, and the body the stiffness of the union of its cells.
// Without it a finite packing is softer than the bulk tensor by about 0.7 / (particles across).
std::vector<double> surfaceFactors(const System& S, Lattice lattice);

// Applies `cal` to material 0 of `S` in place: its particles' masses, every bond's kn, kt, kTwist,
// kBend, sigmaC, tauC (times the surface factor when `surface`), and the material's E, density
// and strengths (so the stable step and the default contact stiffness follow the bonds). Call
// on the whole scene at its rest state, before distribution. Returns the bonds compensated.
long applyLatticeCalibration(System& S, const LatticeCalibration& cal, bool surface = true);

}  // namespace kinema::bdem

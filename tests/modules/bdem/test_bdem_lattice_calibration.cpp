// Calibrated material (docs/modules/bdem.md, "Calibrated material"): with
// `material.calibration: lattice` a packing shows the Young's modulus and density it is given.
//
// Oracles:
//   - homogenisation: the simple cubic lattice along an axis carries one bond kn = E pi r^2 / 2r
//     per cell face (2r)^2, so E_x = pi/4 E exactly, with Poisson ratio 0; fcc and hcp are
//     isotropic within their close-packed layers (hexagonal symmetry), E(x) = E(y) = E(30 deg).
//   - a hanging column under its own weight (fixed at one end, gravity along its axis): the free
//     end moves sum_a m_a g (x_a - x_c) / (E A), the continuum's stretch under the same loads with
//     A the section the packing represents (particles x cell volume over its length), at two resolutions,
//     along x (in the layers) and z (across them), fcc; along x for hcp and cubic.
//   - mass per volume: the packing's mass over the box's volume is rho, to the box's coverage by
//     whole lattice cells (>= 0.9 here).
//   - cantilever: the static tip deflection under gravity against Euler-Bernoulli with the
//     nominal E, rho and section and the free length the packing represents (test_bdem_convergence
//     checks the first frequency on the explicit and the implicit path the same way).
// Uncalibrated, the same fcc column stretches 0.6 of the continuum's (the lattice is 1.6x stiffer
// than E) and the cantilever's frequency is 1.4x Euler-Bernoulli's: the tests would fail.
#include <gtest/gtest.h>

#include <cstdio>

#include "beam_test_util.hpp"

namespace kinema::bdem::test {
namespace {

constexpr double kTol = 0.05;

TEST(BdemLatticeCalibration, HomogenisedModuli) {
  Material m;
  m.E = 2.5e7;
  m.nu = 0.3;
  const BondModel model;
  const LatticeElasticity cubic = homogenise(Lattice::Cubic, 0.003, m, model);
  EXPECT_NEAR(cubic.young(Vec3::UnitX()) / m.E, std::numbers::pi / 4.0, 1e-12);
  EXPECT_NEAR(cubic.young(Vec3::UnitZ()) / m.E, std::numbers::pi / 4.0, 1e-12);
  EXPECT_NEAR(cubic.poisson(Vec3::UnitX(), Vec3::UnitY()), 0.0, 1e-12);
  EXPECT_NEAR(cubic.packingFraction, std::numbers::pi / 6.0, 1e-12);
  for (Lattice l : {Lattice::Fcc, Lattice::Hcp}) {
    const LatticeElasticity e = homogenise(l, 0.003, m, model);
    const double ex = e.young(Vec3::UnitX());
    EXPECT_NEAR(e.young(Vec3::UnitY()) / ex, 1.0, 1e-12) << toString(l);
    EXPECT_NEAR(e.young(Vec3(std::sqrt(3.0), 1.0, 0.0)) / ex, 1.0, 1e-12) << toString(l);
    EXPECT_NEAR(e.packingFraction, std::numbers::pi / (3.0 * std::sqrt(2.0)), 1e-12) << toString(l);
    // Independent of r.
    EXPECT_NEAR(homogenise(l, 0.05, m, model).young(Vec3::UnitX()) / ex, 1.0, 1e-12);
    const LatticeCalibration cal = calibrateLattice(l, m, model);
    EXPECT_NEAR(cal.after.young(Vec3::UnitX()) / m.E, 1.0, 0.03) << toString(l);
    EXPECT_NEAR(cal.after.young(Vec3::UnitZ()) / m.E, 1.0, 0.03) << toString(l);
    std::printf("[calibration] %s: E_x / E = %.4f, E_z / E = %.4f uncalibrated; bonds x %.4f, masses x %.4f; "
                "nu_xy %.3f, nu_xz %.3f\n",
                toString(l).c_str(), ex / m.E, e.young(Vec3::UnitZ()) / m.E, cal.stiffnessScale, cal.massScale,
                cal.after.poisson(Vec3::UnitX(), Vec3::UnitY()), cal.after.poisson(Vec3::UnitX(), Vec3::UnitZ()));
  }
}

// A column along `axis` (x or z), fixed over `clamp` at its low end, hanging under gravity
// pointing away from the clamp (tension), quasi-static by large implicit steps.
struct ColumnResult {
  std::size_t particles = 0;
  double stretch = 0, predicted = 0, massRatio = 0;
};

ColumnResult hangingColumn(Lattice lattice, int axis, double radius, bool calibrate) {
  const double L = 0.12, h = 0.024, clamp = 0.012, E = 1e5, rho = 1000, g = 9.81;
  Vec3 size(h, h, h);
  size[axis] = L;
  Rig rig;
  System& s = rig.s;
  s.materials[0].E = E;
  s.materials[0].density = rho;
  s.materials[0].sigmaC = s.materials[0].tauC = kUnbreakable;
  s.contact.enabled = false;
  packedBox(s, size, radius, lattice);
  s.gravity = Vec3::Zero();
  s.gravity[axis] = g;
  if (calibrate) applyLatticeCalibration(s, calibrateLattice(lattice, s.materials[0], s.model));
  for (std::size_t a = 0; a < s.P.size(); ++a) {
    s.P.pRef[a] = s.P.p[a];
    if (s.P.p[a][axis] < clamp) s.P.dof[a] = Dof::Fixed;
  }
  double mass = 0;
  for (double m : s.P.m) mass += m;
  rig.distribute();
  IntegratorOptions opt;
  opt.fracture = false;
  opt.friction = false;
  opt.newton.linear.preconditioner = "ic0";
  ImplicitStepper st(rig.s, *rig.domain, *rig.backend, opt);
  for (int n = 0; n < 6; ++n) st.step(5.0);  // w dt >> 1 for every mode: each step is a static solve
  ColumnResult res;
  res.particles = rig.s.P.size();
  const System& S = rig.s;
  double top = 0, lastFixed = -1e300;
  for (std::size_t a = 0; a < S.P.size(); ++a) {
    const double x = S.P.pRef[a][axis];
    top = std::max(top, x);
    if (S.P.dof[a] == Dof::Fixed) lastFixed = std::max(lastFixed, x);
  }
  // The end's displacement, and the continuum's for the same loads: N(x) = weight beyond x,
  // u_end = int N / (E A) = sum_a m_a g (x_a - x_c) / (E A), x_c the last fixed row (rigid up to its centre), A the
  // section the packing represents (its volume, mass / rho, over its length).
  const double xc = lastFixed;  // a fixed particle is rigid up to its centre
  double u = 0, moment = 0;
  int n = 0;
  for (std::size_t a = 0; a < S.P.size(); ++a) {
    if (S.P.pRef[a][axis] > top - 0.5 * radius) {
      u += S.P.p[a][axis] - S.P.pRef[a][axis];
      ++n;
    }
    if (S.P.dof[a] == Dof::Free) moment += S.P.m[a] * g * (S.P.pRef[a][axis] - xc);
  }
  const double cell = homogenise(lattice, radius, S.materials[0], S.model).volumePerParticle;
  const double A = static_cast<double>(S.P.size()) * cell / L;
  res.stretch = u / n;
  res.predicted = moment / (E * A);
  res.massRatio = mass / (rho * size.prod());
  return res;
}

TEST(BdemLatticeCalibration, HangingColumnShowsTheNominalModulus) {
  struct Case {
    Lattice lattice;
    int axis;
    double radius;
  };
  for (const Case& c : {Case{Lattice::Fcc, 0, 0.002}, Case{Lattice::Fcc, 0, 0.0015}, Case{Lattice::Fcc, 2, 0.002},
                        Case{Lattice::Hcp, 0, 0.002}, Case{Lattice::Cubic, 0, 0.002}}) {
    const ColumnResult cal = hangingColumn(c.lattice, c.axis, c.radius, true);
    std::printf("[calibration] %s column along %c, r = %.4f (%zu particles): stretch / continuum = %.4f, "
                "mass / (rho V) = %.4f\n",
                toString(c.lattice).c_str(), "xyz"[c.axis], c.radius, cal.particles, cal.stretch / cal.predicted,
                cal.massRatio);
    EXPECT_NEAR(cal.stretch / cal.predicted, 1.0, kTol) << toString(c.lattice) << " axis " << c.axis << " r " << c.radius;
    EXPECT_NEAR(cal.massRatio, 1.0, 0.1) << toString(c.lattice) << " axis " << c.axis << " r " << c.radius;
  }
  const ColumnResult raw = hangingColumn(Lattice::Fcc, 0, 0.002, false);
  std::printf("[calibration] fcc column uncalibrated: stretch / continuum = %.4f\n", raw.stretch / raw.predicted);
  EXPECT_LT(raw.stretch / raw.predicted, 0.8) << "the uncalibrated lattice should be visibly stiffer (the oracle's power)";
}

TEST(BdemLatticeCalibration, CantileverTipDeflection) {
  // L / h = 10.5 (shear adds ~1 % to Euler-Bernoulli), 7 fcc layers across the height. The
  // frequency on both paths is checked by test_bdem_convergence.
  BeamSpec b = BeamSpec::commensurate(0.001, 7, 63, 3);
  b.E = 1e6;
  b.gravity = Vec3(0, 0, -0.05);
  const System s0 = buildBeam(b);
  const double L = representedFreeLength(s0);
  // Static deflection: steps much longer than the period (every mode overdamped).
  const double f = b.eulerBernoulliFrequency(L);
  const BeamRun st = runBeam(s0, true, 20.0 / f, 120.0 / f);
  std::printf("[calibration] cantilever %zu particles: static tip deflection %.4e m, Euler-Bernoulli %.4e m "
              "(free length %.4f m)\n",
              s0.P.size(), st.tip.back(), b.eulerBernoulliTip(L), L);
  // The lattice's axial fibres are its layers: I = (n^2 - 1) / n^2 of the section's (n = 7), the
  // discretisation of the height, which vanishes as 1/n^2 (README decision 37).
  const double fibres = 48.0 / 49.0;
  EXPECT_NEAR(st.tip.back() * fibres / b.eulerBernoulliTip(L), 1.0, kTol);
  BeamSpec raw = b;
  raw.calibrate = false;
  const BeamRun stRaw = runBeam(buildBeam(raw), true, 20.0 / f, 120.0 / f);
  std::printf("[calibration] uncalibrated: tip deflection / Euler-Bernoulli %.4f\n",
              stRaw.tip.back() / b.eulerBernoulliTip(L));
}

}  // namespace
}  // namespace kinema::bdem::test

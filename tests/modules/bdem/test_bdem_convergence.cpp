// The implicit step's convergence test cannot accept an unconverged step (docs/modules/bdem.md,
// "Convergence"). A slender calibrated cantilever released from rest under gravity: its first
// bending frequency from the implicit path at dt = 1, 10, 100 and 1000 times the explicit stable
// step, with the default tolerance, against the explicit path's; implicit Euler may only
// dissipate, so the total energy may not rise.
//
// Before the relative force residual, the test on the position error (dt^2/m)|g|/r we used first
// vanished as dt^2: at small steps the predictor x_hat + dt^2 g passed it, Newton took 0
// iterations, no elastic force acted in those steps and the frequency fell by a third.
//
// Oracles: the explicit path's frequency (symplectic Euler at 0.2 T), itself within 5 % of
// Euler-Bernoulli's with the nominal E and rho (the lattice is calibrated); at 1000x, where
// implicit Euler's own dispersion is visible (its frequency is atan(w dt) / dt), the same 2 %
// band holds; at 1x, where a frequency would take 15,000 Newton solves, the tip's trajectory
// over the first eighth of a period against the explicit path's. Every step takes at least one
// Newton iteration (the elastic forces at the predictor are never below the tolerance).
#include <gtest/gtest.h>

#include <cstdio>

#include "beam_test_util.hpp"

namespace kinema::bdem::test {
namespace {

// A slender calibrated fcc cantilever (5 layers, L / h = 12, 488 particles): about 30 steps per
// period at 1000x the explicit step, so that implicit Euler's own dispersion (atan(w dt) / dt,
// 1.4 % low there) stays inside the band.
BeamSpec slenderBeam() {
  BeamSpec b = BeamSpec::commensurate(0.002, 5, 52, 3);
  b.E = 1e6;
  b.gravity = Vec3(0, 0, -0.05);  // tip deflection ~ 1e-3 of the length: linear
  return b;
}

TEST(BdemConvergence, FrequencyAndEnergyAtEveryStepSize) {
  const BeamSpec spec = slenderBeam();
  const System s0 = buildBeam(spec);
  const double dtExplicit = stableStep(s0);
  const double L = representedFreeLength(s0);
  const double fEB = spec.eulerBernoulliFrequency(L);
  const double tEnd = 0.6 / fEB;  // past the first deflection peak (half a period)
  const BeamRun ref = runBeam(s0, false, dtExplicit, tEnd);
  const double fRef = ref.frequency();
  std::printf("[convergence] %zu particles, explicit dt %.3e s, %d steps: f = %.4f Hz (Euler-Bernoulli %.4f, "
              "free length %.4f m)\n",
              s0.P.size(), dtExplicit, ref.steps, fRef, fEB, L);
  // The calibrated lattice on the explicit path (docs/modules/bdem.md, Calibrated material).
  EXPECT_NEAR(fRef / fEB, 1.0, 0.05);
  // 1x: a frequency needs half a period (15,000 Newton solves here); the first eighth of a period
  // is enough to see whether the elastic forces act: the tip follows the explicit path's.
  {
    const double t1 = 0.125 / fEB;
    const BeamRun run = runBeam(s0, true, dtExplicit, t1);
    double diff = 0, amp = 0;
    for (std::size_t k = 0; k < run.tip.size(); ++k) {
      diff = std::max(diff, std::abs(run.tip[k] - ref.tip[k]));
      amp = std::max(amp, std::abs(ref.tip[k]));
    }
    std::printf("[convergence] implicit dt =      1 x explicit, first eighth of a period: tip within %.2e of the "
                "explicit path's (largest tip %.3e m), %.2f Newton its / step, %d steps without Newton\n",
                diff / amp, amp, static_cast<double>(run.newtonIterations) / run.steps, run.stepsWithoutNewton);
    EXPECT_LE(diff, 0.02 * amp);
    EXPECT_LE(run.largestEnergyRise(), 0.005 * ref.kineticPeak);
    EXPECT_EQ(run.stepsWithoutNewton, 0);
  }
  for (double factor : {10.0, 100.0, 1000.0}) {
    const BeamRun run = runBeam(s0, true, factor * dtExplicit, factor < 1000 ? tEnd : 2 * tEnd);
    const double f = run.frequency();
    const double rise = run.largestEnergyRise();
    std::printf("[convergence] implicit dt = %6.0f x explicit: f = %.4f Hz (%.2f %% of explicit), %d steps, "
                "%.2f Newton its / step, %d steps without Newton, energy rise %.2e of the peak kinetic energy\n",
                factor, f, 100.0 * f / fRef, run.steps, static_cast<double>(run.newtonIterations) / run.steps,
                run.stepsWithoutNewton, rise / ref.kineticPeak);
    EXPECT_NEAR(f / fRef, 1.0, 0.02) << "dt = " << factor << " x explicit";
    if (factor == 10.0) {
      EXPECT_NEAR(f / fEB, 1.0, 0.05) << "the calibrated lattice on the implicit path";
    }
    EXPECT_LE(rise, 0.005 * ref.kineticPeak) << "implicit Euler gained energy at dt = " << factor << " x explicit";
    EXPECT_EQ(run.stepsWithoutNewton, 0) << "a step passed at the predictor at dt = " << factor << " x explicit";
  }
}

}  // namespace
}  // namespace kinema::bdem::test

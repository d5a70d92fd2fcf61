#pragma once
// Beams for the convergence and calibration tests: a generator's cantilever (optionally
// calibrated as the module does by default), run on one rank with the explicit or the implicit
// stepper, the tip's deflection and the total energy recorded every step, and Euler-Bernoulli's
// predictions with the nominal E, rho and section.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "integrator_test_util.hpp"
#include "modules/bdem/bond_energy.hpp"
#include "modules/bdem/explicit_stepper.hpp"
#include "modules/bdem/lattice_calibration.hpp"
#include "modules/bdem/scene_builder.hpp"

namespace kinema::bdem::test {

// A cantilever along x, bending in z under gravity. `commensurate` sizes the box from the fcc
// pitches so that the packing's cells fill its height exactly: `layers` close-packed layers
// (pitch 2 sqrt(2/3) r), two rows per layer (every ABC layer gets two rows in a width of 4.2 r),
// `cells` particles along x (pitch 2r) of which the first `clampCells` are clamped.
struct BeamSpec {
  double length = 0.1, height = 0.02, width = 0.02, radius = 0.0025, clamp = 0.01;
  double E = 1e7, density = 1000;
  Vec3 gravity = Vec3(0, 0, -9.81);
  Lattice lattice = Lattice::Fcc;
  bool calibrate = true;
  double freeLength() const { return length - clamp; }
  // Euler-Bernoulli with the nominal E, rho and section (w cancels in both): first cantilever
  // frequency [Hz] and static tip deflection under self-weight, for a free length L.
  double eulerBernoulliFrequency(double L) const {
    const double beta = 1.8751040687119611;
    return beta * beta / (2.0 * std::numbers::pi * L * L) * height * std::sqrt(E / (12.0 * density));
  }
  double eulerBernoulliTip(double L) const {
    return 1.5 * density * gravity.norm() * std::pow(L, 4) / (E * height * height);  // q L^4 / (8 E I)
  }
  static BeamSpec commensurate(double r, int layers, int cells, int clampCells) {
    BeamSpec b;
    b.radius = r;
    b.height = layers * 2.0 * std::sqrt(2.0 / 3.0) * r;
    b.width = 4.2 * r;
    b.length = 2.0 * r * cells;
    b.clamp = 2.0 * r * clampCells;
    return b;
  }
};

// The free length the packing represents: from the clamp's rigid edge (the mean over rows of the
// last fixed particle's centre: a fixed particle is rigid up to its centre) to the end of the
// cells (the mean over rows of the last centre + r). Rows are grouped by their rest (y, z).
inline double representedFreeLength(const System& s) {
  struct Row {
    double y, z, lastFixed, last;
  };
  std::vector<Row> rows;
  const double r = s.P.r[0];
  for (std::size_t a = 0; a < s.P.size(); ++a) {
    const Vec3& p = s.P.pRef[a];
    Row* row = nullptr;
    for (Row& w : rows)
      if (std::abs(w.y - p.y()) < 0.1 * r && std::abs(w.z - p.z()) < 0.1 * r) row = &w;
    if (!row) {
      rows.push_back({p.y(), p.z(), -1e300, -1e300});
      row = &rows.back();
    }
    row->last = std::max(row->last, p.x());
    if (s.P.dof[a] != Dof::Free) row->lastFixed = std::max(row->lastFixed, p.x());
  }
  double sum = 0;
  for (const Row& w : rows) sum += w.last + r - w.lastFixed;
  return sum / static_cast<double>(rows.size());
}

inline System buildBeam(const BeamSpec& b) {
  CantileverOptions o;
  o.beam = {b.length, b.height, b.width, b.radius};
  o.clampLength = b.clamp;
  o.body.lattice = b.lattice;
  o.body.material.E = b.E;
  o.body.material.density = b.density;
  o.body.gravity = b.gravity;
  System s = buildCantilever(o);
  s.contact.enabled = false;
  if (b.calibrate) applyLatticeCalibration(s, calibrateLattice(b.lattice, s.materials[0], s.model));
  return s;
}

// Kinetic + bond + gravity energy of the owned particles (one rank).
inline double totalEnergy(const System& s) {
  double e = 0;
  for (std::size_t a = 0; a < s.P.numOwned; ++a) {
    if (s.P.dof[a] != Dof::Free) continue;
    const Vec3 w = quat::omegaFromQdot(s.P.q[a], s.P.qdot[a]);
    e += 0.5 * s.P.m[a] * s.P.v[a].squaredNorm() + 0.5 * 0.4 * s.P.m[a] * s.P.r[a] * s.P.r[a] * w.squaredNorm();
    e -= s.P.m[a] * s.gravity.dot(s.P.p[a]);
  }
  for (const Bond& b : s.bonds) {
    const auto i = static_cast<std::size_t>(b.i), j = static_cast<std::size_t>(b.j);
    e += bondEnergy(b, s.model, s.P.p[i], s.P.q[i], s.P.p[j], s.P.q[j]).total();
  }
  return e;
}

inline double kineticEnergy(const System& s) {
  double e = 0;
  for (std::size_t a = 0; a < s.P.numOwned; ++a) e += 0.5 * s.P.m[a] * s.P.v[a].squaredNorm();
  return e;
}

// Mean deflection along -gravity of the particles in the last row (largest rest coordinate
// along the beam axis x).
inline double tipDeflection(const System& s) {
  double xmax = -std::numeric_limits<double>::infinity();
  for (std::size_t a = 0; a < s.P.numOwned; ++a) xmax = std::max(xmax, s.P.pRef[a].x());
  const Vec3 down = s.gravity.normalized();
  double sum = 0;
  int n = 0;
  for (std::size_t a = 0; a < s.P.numOwned; ++a)
    if (s.P.pRef[a].x() > xmax - 0.5 * s.P.r[a]) {
      sum += down.dot(s.P.p[a] - s.P.pRef[a]);
      ++n;
    }
  return sum / n;
}

struct BeamRun {
  double dt = 0;
  std::vector<double> t, tip, energy;
  double kineticPeak = 0;
  int steps = 0, newtonIterations = 0, stepsWithoutNewton = 0, unconverged = 0;
  // Time of the largest tip deflection (parabola through the sample and its neighbours).
  double firstPeakTime() const {
    const auto k = static_cast<std::size_t>(std::max_element(tip.begin(), tip.end()) - tip.begin());
    if (k == 0 || k + 1 >= tip.size()) return t[k];
    const double ym = tip[k - 1], y0 = tip[k], yp = tip[k + 1];
    const double den = ym - 2 * y0 + yp;
    return t[k] + (den < 0 ? 0.5 * (ym - yp) / den : 0.0) * (t[k + 1] - t[k]);
  }
  // Released from rest, the tip's first deflection peak is half a period.
  double frequency() const { return 0.5 / firstPeakTime(); }
  double largestEnergyRise() const {
    double rise = 0;
    for (double e : energy) rise = std::max(rise, e - energy.front());
    return rise;
  }
};

// Runs `s` from rest to tEnd with steps of dt (explicit: symplectic Euler; implicit: Alg. 3 with
// the module's default options and CG + ic0).
inline BeamRun runBeam(System s, bool implicit, double dt, double tEnd) {
  Rig rig;
  rig.s = std::move(s);
  rig.distribute();
  IntegratorOptions o;
  o.fracture = false;
  o.friction = false;
  o.newton.linear.preconditioner = "ic0";
  BeamRun run;
  run.dt = dt;
  const int steps = static_cast<int>(std::ceil(tEnd / dt - 1e-9));
  run.t.push_back(0);
  run.tip.push_back(0);
  run.energy.push_back(totalEnergy(rig.s));
  auto record = [&] {
    run.t.push_back(rig.s.time);
    run.tip.push_back(tipDeflection(rig.s));
    run.energy.push_back(totalEnergy(rig.s));
    run.kineticPeak = std::max(run.kineticPeak, kineticEnergy(rig.s));
  };
  if (implicit) {
    ImplicitStepper st(rig.s, *rig.domain, *rig.backend, o);
    for (int n = 0; n < steps; ++n) {
      const StepStats ss = st.step(dt);
      run.newtonIterations += ss.newtonIterations;
      run.stepsWithoutNewton += ss.newtonIterations == 0 ? 1 : 0;
      record();
    }
  } else {
    ExplicitStepper st(rig.s, *rig.domain, *rig.backend, o);
    for (int n = 0; n < steps; ++n) {
      st.step(dt);
      record();
    }
  }
  run.steps = steps;
  return run;
}

}  // namespace kinema::bdem::test

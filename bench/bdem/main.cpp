// bench_bdem: the measurements of issue 7 for the bdem module (paper Tables 1-2, Figs. 5-7,
// 11-12, §5.1), side by side in one run.
//
//  1. table1: the paper's Table 1 scenes (beam stretch, beam twist, beam drape at E = 1e9 and
//     1e6, chocolate bar, plate drop, woven yarn sheet) at sizes this machine runs in minutes, each
//     for a fixed simulated time with the implicit integrator (dt = the paper's dt_impl / T, from
//     Table 1 and §5.1) and the explicit baseline (dt = 0.2 T, stableStep): seconds per frame
//     side by side, the speedup, Newton and CG iterations per implicit step, and the final states
//     compared (RMS position difference / body size, bonds broken by each).
//  2. table2: three-point bending at the low / middle (and, with --table2-high, high) resolutions
//     of the generator (about 532 / 1.8K / 18K particles, same geometry): the fracture frame of
//     each (fragments.hpp: fractureSplit, the first frame whose largest fragment no longer spans
//     both ends), which must stay within 3 frames of each other (T-F5). Indenter 0.05 m/s, frames
//     of 1/600 s (fracture at about 23 frames; the generator's 0.01 m/s needs about 0.2 s).
//  3. fig6: mean Newton iterations per step against dt / T for two E (three-point bending, low).
//  4. fig7: the solver variants (newton, first_order, augmented_lagrangian, lagrange, penalty) on
//     one step of a bonded beam under twist and gravity: iterations and time to the same tolerance,
//     ranked by time.
//  5. linear: the first Newton system H_red y = -g_red of a large beam drape, solved by eigen (CG +
//     ic0, direct), petsc (CG + amg = GAMG with the rigid-body near-null space, CG + jacobi) and
//     trilinos (CG + amg = MueLu), at 1 rank (rank 0 alone on Comm::self()) and at all ranks: CG
//     iterations, setup and solve seconds, the 1-rank / all-rank ratio, and the distance of every
//     solution to eigen's direct one.
//
//   mpiexec -n 2 build/bin/bench_bdem [--quick] [--sections table1,table2,fig6,fig7,linear]
//       [--table2-high] [--markdown FILE] [--t2-speed V] [--t2-frame S] [--t2-frames N] [--t2-compression]
//       [--t2-res low,middle,high] [--linear-radius R] [--verbose-frames]
//
// Sections table1, fig6 and fig7 run on rank 0 alone (Comm::self(), eigen backend, as the paper's
// single-CPU timings); table2 and linear use every rank (petsc / trilinos). --quick (tiny sizes,
// few steps) is what the test suite runs; it exits with status 1 if a check fails.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <mpi.h>

#include "apps/builtins.hpp"
#include "framework/core/comm.hpp"
#include "framework/core/error.hpp"
#include "framework/core/mpi_context.hpp"
#include "framework/la/backend.hpp"
#include "framework/solvers/manifold_rigid.hpp"
#include "framework/solvers/newton.hpp"
#include "modules/bdem/domain.hpp"
#include "modules/bdem/explicit_stepper.hpp"
#include "modules/bdem/fragments.hpp"
#include "modules/bdem/grips.hpp"
#include "modules/bdem/implicit_stepper.hpp"
#include "modules/bdem/incremental_potential.hpp"
#include "modules/bdem/integrator_options.hpp"
#include "modules/bdem/scene_builder.hpp"
#include "bench/common/bench_util.hpp"
#include "bench/common/idle_barrier.hpp"

using namespace kinema;
using namespace kinema::bdem;

namespace {

using bench::fmt;
using bench::check;
using bench::failures;
using bench::progress;
using bench::splitList;
using bench::idleBarrier;
using bench::now;
std::string sci(double v) { return fmt("%.2e", v); }

std::ostringstream md;  // the report (rank 0), printed and optionally written as markdown
bool verboseFrames = false;
// Table 2 loading (overridable for calibration): indenter speed, frame length, frames run.
double t2Speed = 0.05, t2Frame = 1.0 / 600;
bool t2TensionOnly = true;
long t2Frames = 50;
double linearRadius = 0.005;  // section 5's beam drape particle radius (full mode)
std::vector<std::string> t2Res;


// ---- running a scene --------------------------------------------------------------------------

// A new Hessian pattern before every implicit step, as the module does by default
// (bdem.fresh_pattern, README decision 12); the sections before `speed` keep it across steps.
bool simulateFreshPattern = false;

struct SimResult {
  bool ok = true;
  std::string error;
  long particles = 0, bonds0 = 0, bondsBroken = 0, steps = 0;
  double seconds = 0;               // wall time of the steps (fracture checks excluded)
  double newton = 0, cg = 0;        // totals over implicit steps
  long unconverged = 0;
  long fractureFrame = -1;          // first frame end at which fractureSplit holds
  StepPhases phases;                // seconds by phase, summed over the steps (rank 0's)
  std::map<GlobalId, Vec3> p;       // final positions by scene id (every rank)
};

// Advances a copy of `scene` by `steps` steps of `dt` on `comm` with `backend`; with
// stepsPerFrame > 0 and fracture tracking, the fragments are computed at every frame end.
SimResult simulate(System s, const Comm& comm, const la::Backend& backend, const IntegratorOptions& opt, double dt,
                   long steps, long stepsPerFrame = 0, bool trackFracture = false, double maxSeconds = 1e30) {
  SimResult r;
  Domain domain(comm);
  r.bonds0 = static_cast<long>(s.bonds.size());
  domain.distribute(s, ghostReach(s, Comm::self(), opt.contactPadding, dt));
  r.particles = domain.globalParticles();
  std::unique_ptr<ImplicitStepper> imp;
  std::unique_ptr<ExplicitStepper> exp;
  if (opt.integrator == "implicit") imp = std::make_unique<ImplicitStepper>(s, domain, backend, opt);
  else exp = std::make_unique<ExplicitStepper>(s, domain, backend, opt);
  try {
    for (long k = 0; k < steps; ++k) {
      const double t0 = now();
      if (imp && simulateFreshPattern) imp->newton().resetPattern();  // as bdem.fresh_pattern (decision 12)
      const StepStats st = imp ? imp->step(dt) : exp->step(dt);
      r.seconds += now() - t0;
      ++r.steps;
      r.newton += st.newtonIterations;
      r.cg += st.linearIterations;
      r.unconverged += (imp && !st.converged) ? 1 : 0;
      r.phases += st.phases;
      if (trackFracture && stepsPerFrame > 0 && (k + 1) % stepsPerFrame == 0 && r.fractureFrame < 0) {
        std::vector<GlobalId> labels;
        const FragmentStats fs = computeFragments(s, comm, domain.globalParticles(), &labels);
        if (fractureSplit(s, comm, fs, labels)) r.fractureFrame = (k + 1) / stepsPerFrame;
        if (verboseFrames && comm.isRoot())
          progress("  frame " + std::to_string((k + 1) / stepsPerFrame) + ": bonds alive " +
                   std::to_string(s.aliveBonds()) + " (rank 0), fragments " + std::to_string(fs.count) + ", largest " +
                   std::to_string(fs.largest) + (r.fractureFrame >= 0 ? " SPLIT" : ""));
      }
      if (trackFracture && r.fractureFrame >= 0 && k + 1 >= (r.fractureFrame + 2) * stepsPerFrame) break;
      if (comm.max(r.seconds) > maxSeconds) break;
    }
  } catch (const std::exception& e) {
    r.ok = false;
    r.error = e.what();
  }
  r.bondsBroken = r.bonds0 - static_cast<long>(comm.sum(static_cast<std::int64_t>(s.aliveBonds())));
  std::vector<double> mine;
  const auto& ids = domain.sceneIds();
  for (std::size_t a = 0; a < s.P.numOwned; ++a) {
    mine.push_back(static_cast<double>(ids[a]));
    for (int k = 0; k < 3; ++k) mine.push_back(s.P.p[a][k]);
  }
  const std::vector<double> all = comm.allgatherv(mine);
  for (std::size_t k = 0; k + 3 < all.size(); k += 4)
    r.p[static_cast<GlobalId>(all[k])] = Vec3(all[k + 1], all[k + 2], all[k + 3]);
  return r;
}

double rmsDifference(const SimResult& a, const SimResult& b) {
  double s = 0;
  long n = 0;
  for (const auto& [id, p] : a.p) {
    auto it = b.p.find(id);
    if (it == b.p.end()) continue;
    s += (p - it->second).squaredNorm();
    ++n;
  }
  return n ? std::sqrt(s / static_cast<double>(n)) : NAN;
}

bool finiteState(const SimResult& r) {
  for (const auto& [id, p] : r.p)
    if (!p.allFinite()) return false;
  return true;
}

// Centre-of-mass height (equal masses assumed: same material and radius).
Vec3 centroid(const SimResult& r) {
  Vec3 c = Vec3::Zero();
  for (const auto& [id, p] : r.p) c += p;
  return r.p.empty() ? c : Vec3(c / static_cast<double>(r.p.size()));
}

IntegratorOptions implicitOptions(const std::string& type = "cg", const std::string& pc = "ic0") {
  IntegratorOptions o;
  o.integrator = "implicit";
  o.solver = "newton";
  o.tolerance = 1e-4;
  o.newton.linear.type = type;
  o.newton.linear.preconditioner = pc;
  o.newton.linear.maxIterations = 2000;
  o.newton.maxIterations = 100;
  // The paper's inexact Newton (Eq. 31), on the dimensionless measure of README decision 36; the module's
  // default (a fixed CG tolerance 1e-6) is the second set of table1 columns.
  o.newton.forcing = "eq31";
  o.newton.forcingOf = "measure";
  o.allowUnconverged = true;  // counted and reported instead
  return o;
}
IntegratorOptions explicitOptions() {
  IntegratorOptions o;
  o.integrator = "explicit";
  return o;
}

double periodOf(const System& s) { return characteristicPeriod(s, Comm::self()); }

// ---- 1. Table 1 ---------------------------------------------------------------------------------

struct Table1Scene {
  std::string name;
  System s;
  double E;
  double ratio;       // dt_implicit / T (from Table 1 and §5.1)
  double frame;       // 1/60 s (1x) or 1/480 s (0.125x)
  std::string motion; // "1x" / "0.125x"
  int implicitSteps;  // simulated time = implicitSteps * dt_implicit
  double size;        // body size for the RMS difference
  bool fractures;
  double paperSpeedup;
};

BodyOptions body(double E, double density, double sigma, const Vec3& g) {
  return BodyOptions{Lattice::Fcc, 0.0, 1, 5e-3, Material{E, 0.3, density, sigma, sigma}, g};
}

std::vector<Table1Scene> table1Scenes(bool quick) {
  std::vector<Table1Scene> v;
  const Vec3 g(0, 0, -9.81);
  // One beam geometry for stretch, twist and drape (the paper's beams are one beam at three
  // resolutions, §5.1), at a resolution this machine runs.
  const BeamGeometry beam = quick ? BeamGeometry{0.3, 0.04, 0.04, 0.01} : BeamGeometry{1.0, 0.1, 0.1, 0.0125};
  {
    BeamPullOptions o;
    o.beam = beam;
    o.gripLength = quick ? 0.02 : 0.05;
    o.body = body(1e7, 1000, kUnbreakable, Vec3::Zero());
    v.push_back({"Beam Stretch", buildBeamStretch(o), 1e7, 123, 1.0 / 60, "1x", quick ? 1 : 2, beam.length, false, 9.8});
    v.push_back({"Beam Twist", buildBeamTwist(o), 1e7, 11.5, 1.0 / 60, "1x", quick ? 2 : 11, beam.length, false, 2.3});
  }
  {
    BeamDrapeOptions o;
    o.beam = beam;
    o.supportLength = quick ? 0.02 : 0.05;
    o.body = body(1e9, 1000, kUnbreakable, g);
    v.push_back({"Beam Drape E=1e9", buildBeamDrape(o), 1e9, quick ? 50.0 : 941.0, 1.0 / 60, "1x", quick ? 2 : 1, beam.length, false, 3.1});
    o.body = body(1e6, 1000, kUnbreakable, g);
    v.push_back({"Beam Drape E=1e6", buildBeamDrape(o), 1e6, 10.9, 1.0 / 60, "1x", quick ? 2 : 7, beam.length, false, 2.1});
  }
  {
    ChocolateBarOptions o;
    if (quick) {
      o.length = 0.04, o.width = 0.02, o.thickness = 0.008, o.radius = 0.002, o.piecesX = 2, o.piecesY = 1;
      o.grooveDepth = 0.003, o.grooveHalfWidth = 0.003;
    } else {
      o.radius = 0.003;
    }
    o.gap = 0.0002;
    o.body = body(1e9, 1300, 5e4 * 10, g);  // Table 1: E = 1e9 (Table 2's chocolate is 1e8, sigma 5e4)
    v.push_back({"Chocolate", buildChocolateBar(o), 1e9, 20, 1.0 / 480, "0.125x", quick ? 2 : 12, o.length, true, 2.5});
  }
  {
    PlateDropOptions o;
    if (quick) o.plateRadius = 0.02, o.thickness = 0.006, o.radius = 0.002;
    else o.plateRadius = 0.06, o.thickness = 0.008, o.radius = 0.002;
    o.gap = 0.0002;
    v.push_back({"Plate", buildPlateDrop(o), 1e9, 20, 1.0 / 480, "0.125x", quick ? 2 : 12, 2 * o.plateRadius, true, 2.4});
  }
  {
    YarnSheetOptions o;
    o.yarnsX = o.yarnsY = quick ? 4 : 10;
    o.speed = quick ? 1.0 : 1.0;
    v.push_back({"Cloth (yarn sheet)", buildYarnSheet(o), 1e9, 9.9, 1.0 / 480, "0.125x", quick ? 2 : 24,
                 2 * o.radius * o.particlesPerCell * o.yarnsX, true, 3.3});
  }
  return v;
}

void table1(bool quick) {
  const Comm self = Comm::self();
  auto eigen = la::createBackend("eigen");
  md << "## 1. Table 1: implicit against explicit BDEM\n\n"
     << "Rank 0 alone (eigen backend, one thread for both integrators). Each scene runs for the same simulated "
        "time with both integrators: implicit dt = (paper's dt_impl / T) T (dt_impl from Table 1, T from §5.1), Newton "
        "on the manifold to the tolerance 1e-4 on the relative force residual, CG + ic0 (ssor where IC(0) breaks down, marked) with the Eq. 31 forcing; explicit dt = "
        "0.2 T (stableStep). s/frame = wall seconds / simulated time x frame length (1/60 s at 1x, 1/480 s at "
        "0.125x). RMS diff = RMS over particles of |p_impl - p_expl| / body size at the end. The last four columns: the "
        "same implicit run with a fixed CG tolerance 1e-6 instead of the Eq. 31 forcing.\n\n"
     << "| scene | N | E | T (s) | dt_impl/T | sim. time (frames) | expl. steps | impl. steps | s/frame expl. | "
        "s/frame impl. | speedup | paper | Newton/step | CG/step | unconv. steps | RMS diff / size | broken expl. / impl. | "
        "s/frame impl. rtol 1e-6 | speedup rtol 1e-6 | Newton/step rtol 1e-6 | CG/step rtol 1e-6 |\n"
     << "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (Table1Scene& sc : table1Scenes(quick)) {
    const double T = periodOf(sc.s);
    const double dtE = 0.2 * T;
    const double dtI = sc.ratio * T;
    const double simTime = sc.implicitSteps * dtI;
    const long stepsE = static_cast<long>(std::ceil(simTime / dtE - 1e-9));
    const double dtE2 = simTime / static_cast<double>(stepsE);  // same end time, dt <= 0.2 T
    progress("table1 " + sc.name + ": " + std::to_string(sc.s.P.size()) + " particles, " +
             std::to_string(stepsE) + " explicit steps");
    SimResult im = simulate(sc.s, self, *eigen, implicitOptions(), dtI, sc.implicitSteps);
    std::string pc = "ic0";
    if (!im.ok && im.error.find("ic0") != std::string::npos) {
      // IC(0) can break down on an SPD matrix that is not an M-matrix (contacts, large rotations):
      // the run is repeated with SSOR, which cannot.
      progress("  ic0 broke down (" + im.error.substr(0, 60) + "...), repeating with ssor");
      pc = "ssor";
      im = simulate(sc.s, self, *eigen, implicitOptions("cg", "ssor"), dtI, sc.implicitSteps);
    }
    // The same implicit run with a fixed CG tolerance instead of the Eq. 31 forcing (the module's
    // default: eta = min(0.5, sqrt(res)) is 0.5 over the first iterations of a large step, and
    // the loose solves cost more Newton iterations than they save CG iterations).
    IntegratorOptions tight = implicitOptions("cg", pc);
    tight.newton.forcing = "fixed";
    tight.newton.linear.rtol = 1e-6;
    SimResult it = simulate(sc.s, self, *eigen, tight, dtI, sc.implicitSteps);
    SimResult ex = simulate(sc.s, self, *eigen, explicitOptions(), dtE2, stepsE);
    const double frames = simTime / sc.frame;
    const double sfE = ex.seconds / frames, sfI = im.seconds / frames;
    const double rms = rmsDifference(im, ex) / sc.size;
    md << "| " << sc.name << (pc == "ic0" ? "" : " (CG + " + pc + ")") << " | " << im.particles << " | " << sci(sc.E) << " | " << sci(T) << " | " << fmt("%.1f", sc.ratio)
       << " | " << fmt("%.3g", frames) << " | " << ex.steps << " | " << im.steps << " | " << fmt("%.3g", sfE) << " | "
       << fmt("%.3g", sfI) << " | " << fmt("%.2f", sfE / std::max(1e-12, sfI)) << " | " << sc.paperSpeedup << " | "
       << fmt("%.1f", im.newton / std::max(1L, im.steps)) << " | " << fmt("%.1f", im.cg / std::max(1L, im.steps)) << " | "
       << im.unconverged << " | " << fmt("%.2e", rms) << " | " << ex.bondsBroken << " / " << im.bondsBroken << " | "
       << fmt("%.3g", it.seconds / frames) << " | " << fmt("%.2f", sfE / std::max(1e-12, it.seconds / frames)) << " | "
       << fmt("%.1f", it.newton / std::max(1L, it.steps)) << " | " << fmt("%.1f", it.cg / std::max(1L, it.steps)) << " |"
       << (im.ok && ex.ok ? "" : " error: " + (im.ok ? ex.error : im.error)) << "\n";
    check(im.ok && finiteState(im), sc.name + ": implicit run finishes with a finite state (" + im.error + ")");
    check(ex.ok && finiteState(ex), sc.name + ": explicit run finishes with a finite state (" + ex.error + ")");
    // Loose agreement: the bodies end in the same place (backward Euler damps, so not to the
    // explicit's oscillation; fracturing scenes compared by their centroids).
    if (!sc.fractures) check(rms < 0.05, sc.name + ": implicit and explicit final states within 5% of the size (" + fmt("%.3g", rms) + ")");
    else check((centroid(im) - centroid(ex)).norm() / sc.size < 0.05,
               sc.name + ": implicit and explicit centroids within 5% of the size");
    check(im.unconverged == 0, sc.name + ": every implicit step converged");
    check(it.ok && finiteState(it) && it.unconverged == 0, sc.name + ": the rtol 1e-6 implicit run converges (" + it.error + ")");
  }
  md << "\n";
}

// ---- 2. Table 2 ---------------------------------------------------------------------------------

// --quick runs on rank 0 alone (eigen): the thousands of collectives of a distributed run (one
// per CG iteration) cost a time slice each when ctest runs the ranks on an oversubscribed machine.
void table2(bool quick, bool high) {
  const Comm world = quick ? Comm::self() : Comm::world();
  auto petsc = la::createBackend(world.size() > 1 ? "petsc" : "eigen");
  const std::string pc = world.size() > 1 ? "jacobi" : "ic0";
  // Indenter 0.05 m/s (the generator's default 0.01 m/s splits the beam only after about 0.2 s, at a
  // deflection of about 2 mm); frames 10x shorter than the paper's 1/60 s so that fracture falls at
  // about 25 frames; two implicit steps per frame, the same dt at every resolution (dt/T grows as r
  // shrinks).
  const double frame = t2Frame;
  const int perFrame = 2;
  const double speed = t2Speed;
  const double dt = frame / perFrame;
  std::vector<std::string> res{"low", "middle"};
  if (high) res.push_back("high");
  if (!t2Res.empty()) res = t2Res;
  if (world.isRoot())
    md << "## 2. Table 2: three-point bending fracture frame across resolutions\n\n"
       << "All ranks (" << world.size() << ", " << petsc->name() << " backend, CG + " << pc
       << "). Same geometry (0.2 x 0.04 x 0.02 m beam, span 0.16 m, E = 1e7, sigma_c = tau_c = 3e4), fracture stress "
       << (t2TensionOnly ? "with tensile F_n only (tension_only)" : "with |F_n| as printed (compression counts)")
       << ", indenter at "
       << speed << " m/s; a frame is " << sci(frame) << " s (1/600 s: ten times shorter than the paper's 1/60 s, so "
          "that fracture falls at a few tens of frames), " << perFrame << " implicit step(s) per frame (dt = "
       << sci(dt)
       << " s at every resolution). Fracture frame: the first frame end at which the largest fragment no longer "
          "spans both ends of the beam (fragments.hpp fractureSplit).\n\n"
       << "| resolution | N | T (s) | dt/T | frames run | fracture frame | paper (ours) | bonds broken | Newton/step | "
          "CG/step | unconv. steps | s/frame |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  std::vector<long> frames;
  const std::map<std::string, int> paper{{"low", 23}, {"middle", 25}, {"high", 25}};
  for (const auto& r : res) {
    ThreePointBendingOptions o;
    o.resolution = r;
    o.indenterSpeed = speed;
    if (quick) o.particles = (r == "low") ? 150 : 300;
    System s = buildThreePointBending(o);
    // Tensile F_n only in sigma (Eq. 12, README decision 34): with compression counted, the penalty
    // contact under the indenter crushes bonds at the finer resolutions first and the split comes
    // at 27 steps of 1 ms (middle) against 40 (low); tension-only: 38 against 39.
    s.model.tensionOnly = t2TensionOnly;
    const double T = periodOf(s);
    const long maxFrames = quick ? 40 : t2Frames;
    auto opt = implicitOptions("cg", pc);
    if (world.isRoot()) progress("table2 " + r + ": " + std::to_string(s.P.size()) + " particles");
    SimResult sr = simulate(s, world, *petsc, opt, dt, maxFrames * perFrame, perFrame, true, quick ? 1e30 : 400);
    frames.push_back(sr.fractureFrame);
    if (world.isRoot())
      md << "| " << r << (quick ? " (quick: " + std::to_string(o.particles) + ")" : "") << " | " << sr.particles << " | "
         << sci(T) << " | " << fmt("%.1f", dt / T) << " | " << sr.steps / perFrame << " | "
         << (sr.fractureFrame >= 0 ? std::to_string(sr.fractureFrame) : "none") << " | " << paper.at(r) << " | "
         << sr.bondsBroken << " | " << fmt("%.1f", sr.newton / std::max(1L, sr.steps)) << " | "
         << fmt("%.1f", sr.cg / std::max(1L, sr.steps)) << " | " << sr.unconverged << " | "
         << fmt("%.3g", sr.seconds / std::max(1e-12, sr.steps * dt) * frame) << " |"
         << (sr.ok ? "" : " error: " + sr.error) << "\n";
    check(sr.ok, "table2 " + r + ": run finishes (" + sr.error + ")");
    check(sr.fractureFrame >= 0, "table2 " + r + ": the beam fractures");
  }
  const long lo = *std::min_element(frames.begin(), frames.end()), hi = *std::max_element(frames.begin(), frames.end());
  if (world.isRoot()) md << "\nSpread of the fracture frame: " << hi - lo << " frames (paper: 23 / 25 / 25, spread 2; T-F5 asks <= 3).\n\n";
  if (lo >= 0) check(hi - lo <= 3, "table2: fracture frames within 3 frames of each other");
}

// ---- 3. Fig. 6 -----------------------------------------------------------------------------------

void fig6(bool quick) {
  auto eigen = la::createBackend("eigen");
  const std::vector<double> ratios = quick ? std::vector<double>{5, 50} : std::vector<double>{5, 10, 20, 50, 100, 200};
  const std::vector<double> Es{1e7, 1e9};
  md << "## 3. Fig. 6: Newton iterations per step against dt / T\n\n"
     << "Three-point bending (" << (quick ? "150 particles" : "low resolution, 532 particles")
     << "), rank 0, eigen CG + ic0, tolerance 1e-6 on the relative force residual, fracture on, indenter at 0.05 m/s x sqrt(E / 1e7) and strengths x E / 1e7 (the same loading "
        "per T and the same critical strain for both E). Every run covers the same simulated time, 3 steps of the largest "
        "dt. Cells: mean Newton iterations per step (mean CG iterations per step).\n\n| E | ";
  for (double r : ratios) md << "dt = " << r << " T | ";
  md << "\n| --- |";
  for (std::size_t k = 0; k < ratios.size(); ++k) md << " --- |";
  md << "\n";
  for (double E : Es) {
    ThreePointBendingOptions o;
    if (quick) o.particles = 150;
    o.body.material.E = E;
    o.body.material.sigmaC = o.body.material.tauC = 3e4 * E / 1e7;  // same critical strain
    o.indenterSpeed = 0.05 * std::sqrt(E / 1e7);                     // same indentation per T
    System s = buildThreePointBending(o);
    const double T = periodOf(s);
    const double simTime = 3 * ratios.back() * T;
    md << "| " << sci(E) << " |";
    std::vector<double> its;
    for (double r : ratios) {
      IntegratorOptions opt = implicitOptions();
      opt.tolerance = 1e-6;
      SimResult sr = simulate(s, Comm::self(), *eigen, opt, r * T, std::lround(simTime / (r * T)));
      const double it = sr.newton / std::max(1L, sr.steps);
      its.push_back(it);
      md << " " << fmt("%.1f", it) << " (" << fmt("%.0f", sr.cg / std::max(1L, sr.steps)) << ")"
         << (sr.unconverged ? " [" + std::to_string(sr.unconverged) + " unconv.]" : "") << (sr.ok ? "" : " error") << " |";
      check(sr.ok, "fig6 E = " + sci(E) + " dt = " + fmt("%g", r) + " T runs (" + sr.error + ")");
    }
    md << "\n";
    check(its.back() >= its.front(), "fig6 E = " + sci(E) + ": Newton iterations grow with dt / T (T-P4)");
  }
  md << "\n";
}

// ---- 4. Fig. 7 -----------------------------------------------------------------------------------

void fig7(bool quick) {
  auto eigen = la::createBackend("eigen");
  BeamPullOptions o;
  o.beam = quick ? BeamGeometry{0.1, 0.02, 0.02, 0.004} : BeamGeometry{0.2, 0.03, 0.03, 0.004};
  o.gripLength = 0.01;
  o.angularSpeed = 20.0;
  o.body = body(1e7, 1000, kUnbreakable, Vec3(0, 0, -9.81));
  System s = buildBeamTwist(o);
  // Grip 0 is fixed: the beam bends under gravity while grip 1 twists it.
  const double T = periodOf(s);
  const double dt = 20 * T;
  md << "## 4. Fig. 7: solver variants on one step\n\n"
     << "Beam " << o.beam.length << " x " << o.beam.width << " x " << o.beam.height << " m, r = " << o.beam.radius
     << " (" << s.P.size() << " particles), one end fixed, the other twisted at " << o.angularSpeed
     << " rad/s, gravity (bending and twist); one step of dt = 20 T from rest; every variant to the same dimensionless "
        "tolerance 1e-6 (README decision 36; constrained forms also |C| <= 1e-8), rank 0, eigen (CG + ic0; lagrange: direct KKT). "
        "Ranked by time.\n\n"
     << "| rank | solver | converged | iterations | outer | CG iterations | seconds | max \\|C\\| | final energy |\n"
     << "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  struct Row {
    std::string solver;
    StepStats st{};
    bool ok = true;
    std::string err;
  };
  std::vector<Row> rows;
  // Two extra manifold-Newton rows isolate what costs it iterations against lagrange's exact KKT
  // Newton: the per-element PSD projection (§5.2) and the inexact CG of Eq. 31.
  const std::vector<std::pair<std::string, std::string>> variants{
      {"newton", "newton"},
      {"newton, no PSD projection", "newton"},
      {"newton, CG rtol 1e-10 (fixed forcing)", "newton"},
      {"first_order", "first_order"},
      {"augmented_lagrangian", "augmented_lagrangian"},
      {"lagrange", "lagrange"},
      {"penalty", "penalty"}};
  for (const auto& [label, v] : variants) {
    IntegratorOptions opt = implicitOptions();
    opt.solver = v;
    if (label == "newton, no PSD projection") opt.newton.psdProjection = false;
    if (label == "newton, CG rtol 1e-10 (fixed forcing)") {
      opt.newton.forcing = "fixed";
      opt.newton.linear.rtol = 1e-10;
    }
    opt.tolerance = 1e-6;
    opt.maxFirstOrderIterations = quick ? 5000 : 20000;
    System c = s;
    Domain domain(Comm::self());
    domain.distribute(c, ghostReach(c, Comm::self(), opt.contactPadding, dt));
    Row row;
    row.solver = label;
    row.ok = true;
    try {
      ImplicitStepper st(c, domain, *eigen, opt);
      row.st = st.step(dt);
    } catch (const std::exception& e) {
      row.ok = false;
      row.err = e.what();
    }
    rows.push_back(row);
  }
  std::vector<Row> ranked = rows;
  std::stable_sort(ranked.begin(), ranked.end(), [](const Row& a, const Row& b) {
    const bool ca = a.ok && a.st.converged, cb = b.ok && b.st.converged;
    if (ca != cb) return ca;
    return a.st.seconds < b.st.seconds;
  });
  int k = 0;
  for (const Row& r : ranked)
    md << "| " << ++k << " | " << r.solver << " | " << (r.ok ? (r.st.converged ? "yes" : "no (" + std::string(name(r.st.reason)) + ")") : "error") << " | "
       << r.st.newtonIterations << " | " << r.st.outerIterations << " | " << r.st.linearIterations << " | "
       << fmt("%.3g", r.st.seconds) << " | " << fmt("%.1e", r.st.constraintViolation) << " | " << fmt("%.6e", r.st.energy)
       << " |" << (r.ok ? "" : " " + r.err) << "\n";
  md << "\n";
  const double e0 = rows[0].st.energy;
  for (const Row& r : rows) {
    // Penalty may fail (the paper: "failed to converge or converged very slowly"); so may
    // first_order since the test is the relative force residual (measured: 200,000 gradient steps
    // do not bring it to 1e-6 on this step); the two extra newton rows are diagnostics (without
    // the PSD projection the direction may not descend).
    const bool required = r.solver != "penalty" && r.solver != "first_order" && r.solver.find(',') == std::string::npos;
    if (required) check(r.ok && r.st.converged, "fig7: " + r.solver + " converges (" + r.err + name(r.st.reason) + ")");
    if (r.ok && r.st.converged)
      check(std::abs(r.st.energy - e0) <= 1e-6 * std::max(1.0, std::abs(e0)) + 1e-9,
            "fig7: " + r.solver + " reaches newton's energy (" + fmt("%.9e", r.st.energy) + " vs " + fmt("%.9e", e0) + ")");
  }
}

// ---- 5. linear solve -------------------------------------------------------------------------------

struct LinearConfig {
  std::string backend, type, pc;
};

struct LinearRun {
  bool ok = true;
  std::string error;
  int iterations = 0;
  double setup = 0, solve = 0, assemble = 0, residual = 0;
  bool converged = false;
  std::map<GlobalId, Eigen::Matrix<double, 6, 1>> y;  // by scene id (every rank)
  long unknowns = 0;
};

// The first Newton system of one implicit step of `scene` on `comm`, solved with each config.
std::vector<LinearRun> linearSolves(const System& scene, const Comm& comm, double dt, const std::string& backendName,
                                    const std::vector<LinearConfig>& cfgs, double rtol) {
  std::vector<LinearRun> out;
  auto backend = la::createBackend(backendName);
  System s = scene;
  IntegratorOptions opt = implicitOptions();
  Domain domain(comm);
  domain.distribute(s, ghostReach(s, Comm::self(), opt.contactPadding, dt));
  domain.refreshGhosts(s, ghostReach(s, comm, opt.contactPadding, dt));
  IncrementalPotential phi(s, comm, opt);
  phi.beginStep(dt);
  applyPrescribedMotion(s, s.time + dt);
  solvers::RigidManifold manifold;
  auto x = backend->createVector(domain.pointMap());
  phi.gather(*x);
  x->updateGhosts();
  auto tmap = manifold.tangentMap(domain.pointMap());
  auto g = backend->createVector(tmap);
  phi.gradient(*x, *g);
  auto rhs = backend->createVector(tmap);
  rhs->copy(*g);
  rhs->scale(-1.0);
  const double t0 = now();
  auto assembler = backend->createAssembler(tmap, tmap);
  solvers::NewtonOptions no;
  solvers::NewtonStats ns;
  assembler->begin();
  {
    solvers::ReducedHessian H(*assembler, no, ns);
    phi.hessian(*x, H);
  }
  la::MatrixPtr A = assembler->end();
  A->setNearNullSpace(phi.nearNullSpace(*x, *backend, tmap));
  const double assemble = comm.max(now() - t0);
  if (comm.isRoot()) progress("  linear " + backendName + ": assembled in " + fmt("%.3g", assemble) + " s");
  for (const auto& c : cfgs) {
    if (c.backend != backendName) continue;
    LinearRun r;
    r.assemble = assemble;
    r.unknowns = 6 * domain.globalParticles();
    try {
      la::LinearSolverOptions lo;
      lo.type = c.type;
      lo.preconditioner = c.pc;
      lo.rtol = rtol;
      lo.maxIterations = 5000;
      auto solver = backend->createLinearSolver(lo);
      comm.barrier();
      double t1 = now();
      solver->setOperator(A);
      r.setup = comm.max(now() - t1);
      auto y = backend->createVector(tmap);
      y->set(0.0);
      comm.barrier();
      t1 = now();
      const la::SolverStats st = solver->solve(*rhs, *y);
      r.solve = comm.max(now() - t1);
      r.iterations = st.iterations;
      r.converged = st.converged;
      r.residual = st.finalResidual / std::max(1e-300, st.rhsNorm);
      std::vector<double> mine;
      const auto& ids = domain.sceneIds();
      la::Vector::ConstView yv = y->constView();
      for (std::size_t a = 0; a < s.P.numOwned; ++a) {
        mine.push_back(static_cast<double>(ids[a]));
        for (int k = 0; k < 6; ++k) mine.push_back(yv[static_cast<la::LocalIndex>(6 * a + k)]);
      }
      const std::vector<double> all = comm.allgatherv(mine);
      for (std::size_t k = 0; k + 6 < all.size(); k += 7) {
        Eigen::Matrix<double, 6, 1> b;
        for (int i = 0; i < 6; ++i) b[i] = all[k + 1 + i];
        r.y[static_cast<GlobalId>(all[k])] = b;
      }
    } catch (const std::exception& e) {
      r.ok = false;
      r.error = e.what();
    }
    if (comm.isRoot())
      progress("  linear " + backendName + " " + c.type + " + " + c.pc + " at " + std::to_string(comm.size()) +
               " rank(s): " + std::to_string(r.iterations) + " iterations, " + fmt("%.3g", r.setup) + " + " +
               fmt("%.3g", r.solve) + " s" + (r.ok ? "" : " " + r.error));
    out.push_back(r);
  }
  return out;
}

double relDiff(const LinearRun& a, const LinearRun& b) {
  double d = 0, n = 0;
  for (const auto& [id, v] : a.y) {
    auto it = b.y.find(id);
    if (it == b.y.end()) return NAN;
    d += (v - it->second).squaredNorm();
    n += v.squaredNorm();
  }
  return std::sqrt(d / std::max(1e-300, n));
}

void linear(bool quick) {
  const Comm world = Comm::world();
  BeamDrapeOptions o;
  o.beam = quick ? BeamGeometry{0.3, 0.04, 0.04, 0.008} : BeamGeometry{1.0, 0.1, 0.1, linearRadius};
  o.supportLength = quick ? 0.02 : 0.03;
  o.body = body(1e7, 1000, kUnbreakable, Vec3(0, 0, -9.81));
  const System s = buildBeamDrape(o);
  const double T = periodOf(s);
  const double dt = 50 * T;
  const double rtol = 1e-8;
  const std::vector<LinearConfig> cfgs{{"eigen", "direct", "direct"}, {"eigen", "cg", "ic0"},  {"eigen", "cg", "jacobi"},
                                       {"petsc", "cg", "amg"},        {"petsc", "cg", "jacobi"}, {"trilinos", "cg", "amg"},
                                       {"trilinos", "cg", "jacobi"}};
  if (world.isRoot()) progress("linear: " + std::to_string(s.P.size()) + " particles");
  // 1 rank: rank 0 alone; the others wait.
  std::map<std::string, LinearRun> one, all;
  auto key = [](const LinearConfig& c) { return c.backend + " " + c.type + " + " + c.pc; };
  if (world.isRoot())
    for (const std::string b : {"eigen", "petsc", "trilinos"}) {
      auto runs = linearSolves(s, Comm::self(), dt, b, cfgs, rtol);
      std::size_t k = 0;
      for (const auto& c : cfgs)
        if (c.backend == b) one[key(c)] = runs[k++];
    }
  idleBarrier(world);
  if (world.size() > 1)
    for (const std::string b : {"petsc", "trilinos"}) {
      auto runs = linearSolves(s, world, dt, b, cfgs, rtol);
      std::size_t k = 0;
      for (const auto& c : cfgs)
        if (c.backend == b) all[key(c)] = runs[k++];
    }
  if (!world.isRoot()) return;
  const LinearRun& ref = one[key(cfgs[0])];
  md << "## 5. The Newton linear solve per backend\n\n"
     << "The first Newton system H_red y = -g_red (6 unknowns per particle, Eqs. 28-29) of one implicit step of dt = 50 T "
        "of a clamped beam drape ("
     << o.beam.length << " x " << o.beam.width << " x " << o.beam.height << " m, r = " << o.beam.radius << ", E = 1e7, "
     << s.P.size() << " particles, " << 6 * s.P.size() << " unknowns; assembly "
     << fmt("%.3g", ref.assemble) << " s at 1 rank), solved to rtol = " << sci(rtol)
     << " from y = 0. 1 rank: rank 0 alone (Comm::self()); " << world.size()
     << " ranks: the world communicator. Setup = setOperator (factorisation / AMG hierarchy), solve = the Krylov "
        "iterations. Diff = ||y - y_direct|| / ||y_direct|| against eigen's direct solve.\n\n"
     << "| backend | solver | iterations 1 rank | setup + solve 1 rank (s) | iterations " << world.size()
     << " ranks | setup + solve " << world.size() << " ranks (s) | 1 rank / " << world.size()
     << " ranks | diff 1 rank | diff " << world.size() << " ranks |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& c : cfgs) {
    const std::string k = key(c);
    const LinearRun& a = one[k];
    const bool hasAll = all.count(k) > 0;
    const LinearRun& b = hasAll ? all[k] : a;
    md << "| " << c.backend << " | " << c.type << " + " << c.pc << " | " << (a.ok ? std::to_string(a.iterations) : "error")
       << " | " << fmt("%.3g", a.setup) << " + " << fmt("%.3g", a.solve) << " | "
       << (hasAll ? (b.ok ? std::to_string(b.iterations) : "error") : "-") << " | "
       << (hasAll ? fmt("%.3g", b.setup) + " + " + fmt("%.3g", b.solve) : "-") << " | "
       << (hasAll ? fmt("%.2f", (a.setup + a.solve) / std::max(1e-12, b.setup + b.solve)) : "-") << " | "
       << fmt("%.1e", relDiff(a, ref)) << " | " << (hasAll ? fmt("%.1e", relDiff(b, ref)) : "-") << " |"
       << (a.ok ? "" : " " + a.error) << (hasAll && !b.ok ? " " + b.error : "") << "\n";
    check(a.ok && a.converged, k + " converges at 1 rank (" + a.error + ")");
    check(a.ok && relDiff(a, ref) < 1e-4, k + ": 1-rank solution equals the direct one to the solver tolerance");
    if (hasAll) {
      check(b.ok && b.converged, k + " converges at all ranks (" + b.error + ")");
      check(b.ok && relDiff(b, a) < 1e-4, k + ": 1-rank and all-rank solutions agree to the solver tolerance");
    }
  }
  md << "\n";
}

// ---- 6. speed: seconds per particle-step at the paper's sizes (issue 14) ------------------------

// Table 1 of the paper (Lu et al., "Implicit Bonded Discrete Element Method with Manifold
// Optimization"): N, E, the two step sizes, the frame length and both seconds per frame.
struct PaperRow {
  std::string name;
  double N, E, dtExpl, dtImpl, frame, sfExpl, sfImpl;
  double T() const { return dtExpl / 0.2; }                         // explicit dt = 0.2 T
  double ratio() const { return dtImpl / T(); }                     // implicit dt / T
  double implStepSeconds() const { return sfImpl / (frame / dtImpl); }
  double explStepSeconds() const { return sfExpl / (frame / dtExpl); }
  double implMicros() const { return 1e6 * implStepSeconds() / N; }  // per particle-step
  double explMicros() const { return 1e6 * explStepSeconds() / N; }
};

const std::vector<PaperRow>& paperTable1() {
  static const std::vector<PaperRow> rows{
      {"Beam Stretch", 19e3, 1e7, 2.6e-5, 0.016, 1.0 / 60, 34.6, 3.52},
      {"Beam Twist", 19e3, 1e7, 2.6e-5, 0.0015, 1.0 / 60, 34.6, 14.76},
      {"Beam Drape E=1e9", 64e3, 1e9, 1.7e-6, 0.008, 1.0 / 60, 2230.9, 711.7},
      {"Beam Drape E=1e6", 124e3, 1e6, 4.4e-5, 0.0024, 1.0 / 60, 255.2, 121.9},
      {"Chocolate", 58e3, 1e9, 4.4e-7, 4.4e-5, 1.0 / 480, 857.8, 343.8},
      {"Plate", 219e3, 1e9, 3.5e-7, 3.5e-5, 1.0 / 480, 4564.6, 1911.8},
      {"Cloth", 165e3, 1e9, 3.5e-7, 1.74e-5, 1.0 / 480, 1299.6, 394.2}};
  return rows;
}

// The scene of a Table 1 row with about `target` particles: the table1 section's geometry, the
// particle radius (the yarn count for the cloth) scaled by (target / N)^(1/3) from a first build.
System speedScene(const std::string& name, double target) {
  const Vec3 g(0, 0, -9.81);
  auto build = [&](double r) -> System {
    const BeamGeometry beam{1.0, 0.1, 0.1, r};
    if (name == "Beam Stretch" || name == "Beam Twist") {
      BeamPullOptions o;
      o.beam = beam;
      o.gripLength = std::max(0.05, 2.5 * r);
      o.body = body(1e7, 1000, kUnbreakable, Vec3::Zero());
      return name == "Beam Stretch" ? buildBeamStretch(o) : buildBeamTwist(o);
    }
    if (name == "Beam Drape E=1e9" || name == "Beam Drape E=1e6") {
      BeamDrapeOptions o;
      o.beam = beam;
      o.supportLength = std::max(0.05, 2.5 * r);
      o.body = body(name == "Beam Drape E=1e9" ? 1e9 : 1e6, 1000, kUnbreakable, g);
      return buildBeamDrape(o);
    }
    if (name == "Chocolate") {
      ChocolateBarOptions o;
      o.radius = r;
      o.gap = 0.0;  // touching the floor: the few measured steps are impact steps, not free flight
      o.body = body(1e9, 1300, 5e5, g);
      return buildChocolateBar(o);
    }
    if (name == "Plate") {
      PlateDropOptions o;
      o.plateRadius = 0.06, o.thickness = 0.008, o.radius = r, o.gap = 0.0;  // touching, as the chocolate
      return buildPlateDrop(o);
    }
    YarnSheetOptions o;  // cloth: r is the yarn count here
    o.yarnsX = o.yarnsY = std::max(2, static_cast<int>(std::lround(r)));
    o.speed = 1.0;
    return buildYarnSheet(o);
  };
  const bool cloth = name == "Cloth";
  // First guesses from the table1 sizes: beam r = 12.5 mm -> 880, chocolate 3 mm -> 795, plate
  // 2 mm -> 1630, cloth 10 x 10 yarns -> 820 particles.
  double r = cloth ? 10.0 * std::sqrt(target / 820.0)
                   : (name == "Chocolate" ? 0.003 * std::cbrt(795.0 / target)
                                          : name == "Plate" ? 0.002 * std::cbrt(1630.0 / target)
                                                            : 0.0125 * std::cbrt(880.0 / target));
  System s = build(r);
  const double n = static_cast<double>(s.P.size());
  if (std::abs(n / target - 1.0) > 0.05) {
    r = cloth ? r * std::sqrt(target / n) : r * std::cbrt(n / target);
    s = build(r);
  }
  return s;
}

std::string loadAverage() {
  std::ifstream f("/proc/loadavg");
  double a = 0;
  f >> a;
  return f ? fmt("%.2f", a) : std::string("?");
}

std::string speedBackend = "petsc", speedPc, speedComparePc, speedReuse = "full";
bool speedFreshPattern = false;  // the module default (bdem.fresh_pattern false)
double speedScale = 1.0;
int speedImplSteps = 2, speedExplSteps = 20;
std::vector<std::string> speedScenes;

// The preconditioner of a scene's implicit runs: --speed-pc for every scene, else IC(0) for the
// cloth (a sheet of yarns: GAMG's aggregates of the thin sheet make each CG iteration about six
// times dearer than IC(0)'s at more iterations, docs/modules/bdem.md "Choosing the preconditioner")
// and AMG for the solids.
std::string speedPcFor(const std::string& scene) {
  if (!speedPc.empty()) return speedPc;
  return scene == "Cloth" ? "ic0" : "amg";
}

IntegratorOptions speedImplicitOptions(const std::string& pc) {
  IntegratorOptions o = implicitOptions("cg", pc);
  o.newton.forcing = "fixed";  // the module's defaults (decision 27): CG to 1e-6
  o.newton.linear.rtol = 1e-6;
  o.newton.linear.reusePreconditioner = speedReuse;
  return o;
}

void speed(bool quick) {
  const Comm world = Comm::world(), self = Comm::self();
  auto backend = la::createBackend(speedBackend);
  const double scale = quick ? 0.002 : speedScale;
  const int stepsI = quick ? 1 : speedImplSteps, stepsE = quick ? 3 : speedExplSteps;
  simulateFreshPattern = speedFreshPattern;
  if (world.isRoot())
    md << "## 6. Speed of the implicit path at the paper's sizes\n\n"
       << "Each Table 1 scene at " << fmt("%.3g", scale) << " x the paper's particle count (geometry of section 1, "
          "particle radius scaled), implicit dt = the paper's dt_impl / T times T, explicit dt = 0.2 T. Implicit: "
       << speedBackend << " CG + the preconditioner of column pc (AMG = GAMG with the rigid-body near-null space), "
          "reuse_preconditioner " << speedReuse
       << (speedFreshPattern ? ", a fresh Hessian pattern every step (bdem.fresh_pattern)"
                             : ", the Hessian pattern kept across steps (bdem.fresh_pattern false)")
       << ", Newton to the relative force residual 1e-4 with CG to 1e-6 (the module's defaults), " << stepsI
       << " step(s) from rest; explicit: " << stepsE
       << " steps. us/p-step = wall microseconds per particle and step; per frame = per-step cost x steps per frame "
          "(frame / dt, as the paper's table). Paper figures: Table 1, per step = s/frame / steps per frame. "
          "1 rank = rank 0 alone (Comm::self()); "
       << world.size() << " ranks = all ranks. Load = the 1-minute load average when the scene started.\n\n"
       << "| scene | pc | N paper | N | dt_impl/T | Newton/step | CG/step | impl. us/p-step 1 rank | paper impl. | ours / paper | "
          "expl. us/p-step 1 rank | paper expl. | impl/expl per step | impl/expl per frame | paper impl/expl per frame | "
          "CG/step " << world.size() << " ranks | impl. us/p-step " << world.size() << " ranks | expl. us/p-step " << world.size() << " ranks | impl/expl per frame "
       << world.size() << " ranks | load |\n"
       << "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  // --speed-compare-pc: each scene's 1-rank implicit steps again with another preconditioner, in the
  // same run (the ratio is the figure; the load changes less between two runs a minute apart).
  std::ostringstream compare;
  if (!speedComparePc.empty())
    compare << "1-rank implicit steps with the scene's preconditioner (column pc above) and with " << speedComparePc
            << " (same steps, same run):\n\n"
            << "| scene | N | pc | CG/step | us/p-step | " << speedComparePc << " CG/step | " << speedComparePc
            << " us/p-step | " << speedComparePc << " / pc |\n"
            << "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  std::ostringstream phases;
  phases << "Phases of the 1-rank implicit steps (share of the step time): assemble = Hessian assembly (element loop, "
            "PSD projection, matrix fill), energy + gradient = Newton's f(x_0) and g_red, setup = preconditioner set-up, "
            "Krylov = CG, line search = retractions and trial energies, contact = ghosts, predictor and candidate "
            "search, fracture + friction; other = the rest (state copies, diagnostics energy).\n\n"
         << "| scene | s/step | assemble | energy + gradient | setup | Krylov | line search | contact | fracture + friction | other |\n"
         << "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const PaperRow& row : paperTable1()) {
    if (!speedScenes.empty() && std::find(speedScenes.begin(), speedScenes.end(), row.name) == speedScenes.end())
      continue;
    const std::string load = loadAverage();
    const System s = speedScene(row.name, std::max(100.0, scale * row.N));
    const double n = static_cast<double>(s.P.size());
    const double T = periodOf(s), dtI = row.ratio() * T, dtE = 0.2 * T;
    const std::string pc = speedPcFor(row.name);
    if (world.isRoot())
      progress("speed " + row.name + ": " + std::to_string(s.P.size()) + " particles, CG + " + pc + ", load " + load);
    SimResult im1, ex1, imN, exN, imC;
    if (world.isRoot()) {
      im1 = simulate(s, self, *backend, speedImplicitOptions(pc), dtI, stepsI);
      progress("  1 rank implicit " + fmt("%.3g", im1.seconds / std::max(1L, im1.steps)) + " s/step" +
               (im1.ok ? "" : " " + im1.error));
      ex1 = simulate(s, self, *backend, explicitOptions(), dtE, stepsE);
      if (!speedComparePc.empty()) imC = simulate(s, self, *backend, speedImplicitOptions(speedComparePc), dtI, stepsI);
    }
    idleBarrier(world);
    const bool multi = world.size() > 1 && (!quick || row.name == "Beam Stretch");
    if (multi) {
      imN = simulate(s, world, *backend, speedImplicitOptions(pc), dtI, stepsI);
      exN = simulate(s, world, *backend, explicitOptions(), dtE, stepsE);
    }
    if (!world.isRoot()) continue;
    auto micros = [&](const SimResult& r) { return r.steps > 0 ? 1e6 * r.seconds / static_cast<double>(r.steps) / n : NAN; };
    const double i1 = micros(im1), e1 = micros(ex1);
    // per frame: (c_I frame / dt_I) / (c_E frame / dt_E) = (c_I / c_E) (dt_E / dt_I)
    const double perFrame1 = i1 / e1 * dtE / dtI;
    const double paperFrame = row.sfImpl / row.sfExpl;
    md << "| " << row.name << " | " << pc << " | " << fmt("%.0f", row.N) << " | " << s.P.size() << " | " << fmt("%.1f", row.ratio())
       << " | " << fmt("%.1f", im1.newton / std::max(1L, im1.steps)) << " | " << fmt("%.0f", im1.cg / std::max(1L, im1.steps))
       << " | " << fmt("%.1f", i1) << " | " << fmt("%.1f", row.implMicros()) << " | " << fmt("%.2f", i1 / row.implMicros())
       << " | " << fmt("%.2f", e1) << " | " << fmt("%.2f", row.explMicros()) << " | " << fmt("%.0f", i1 / e1) << " | "
       << fmt("%.3f", perFrame1) << " | " << fmt("%.3f", paperFrame) << " | ";
    if (multi) {
      const double iN = micros(imN), eN = micros(exN);
      md << fmt("%.0f", imN.cg / std::max(1L, imN.steps)) << " | " << fmt("%.1f", iN) << " | " << fmt("%.2f", eN) << " | " << fmt("%.3f", iN / eN * dtE / dtI);
    } else {
      md << "- | - | - | -";
    }
    md << " | " << load << " |" << (im1.ok ? "" : " error: " + im1.error) << "\n";
    const StepPhases& ph = im1.phases;
    const double st = std::max(1e-300, ph.step);
    auto pct = [&](double v) { return fmt("%.0f%%", 100.0 * v / st); };
    phases << "| " << row.name << " | " << fmt("%.3g", ph.step / std::max(1L, im1.steps)) << " | "
           << pct(ph.newton.assemble) << " | " << pct(ph.newton.energy + ph.newton.gradient) << " | "
           << pct(ph.newton.preconditioner) << " | " << pct(ph.newton.krylov) << " | " << pct(ph.newton.lineSearch)
           << " | " << pct(ph.contact) << " | " << pct(ph.fracture + ph.friction) << " | " << pct(ph.step - ph.sum())
           << " |\n";
    if (!speedComparePc.empty()) {
      const double c1 = micros(imC);
      compare << "| " << row.name << " | " << s.P.size() << " | " << pc << " | "
              << fmt("%.0f", im1.cg / std::max(1L, im1.steps)) << " | " << fmt("%.1f", i1) << " | "
              << fmt("%.0f", imC.cg / std::max(1L, imC.steps)) << " | " << fmt("%.1f", c1) << " | "
              << fmt("%.2f", c1 / i1) << " |" << (imC.ok ? "" : " error: " + imC.error) << "\n";
      check(imC.ok && finiteState(imC), "speed " + row.name + ": the 1-rank implicit run with " + speedComparePc +
                                            " finishes (" + imC.error + ")");
    }
    check(im1.ok && finiteState(im1), "speed " + row.name + ": the 1-rank implicit run finishes (" + im1.error + ")");
    check(ex1.ok && finiteState(ex1), "speed " + row.name + ": the 1-rank explicit run finishes (" + ex1.error + ")");
    check(ph.sum() <= ph.step * (1 + 1e-12), "speed " + row.name + ": the phases sum to at most the step time");
    if (multi) check(imN.ok && exN.ok, "speed " + row.name + ": the all-rank runs finish (" + imN.error + exN.error + ")");
  }
  if (world.isRoot()) md << "\n" << phases.str() << "\n" << (speedComparePc.empty() ? "" : compare.str() + "\n");
  simulateFreshPattern = false;
}

}  // namespace

int main(int argc, char** argv) {
  MpiContext mpi(&argc, &argv);
  registerBuiltins();
  Comm world = Comm::world();
  bool quick = false, high = false;
  std::vector<std::string> sections{"table1", "table2", "fig6", "fig7", "linear", "speed"};
  std::string markdown;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--quick") quick = true;
    else if (a == "--sections") sections = splitList(next());
    else if (a == "--table2-high") high = true;
    else if (a == "--markdown") markdown = next();
    else if (a == "--verbose-frames") verboseFrames = true;
    else if (a == "--t2-speed") t2Speed = std::stod(next());
    else if (a == "--t2-compression") t2TensionOnly = false;
    else if (a == "--t2-frame") t2Frame = std::stod(next());
    else if (a == "--t2-frames") t2Frames = std::stol(next());
    else if (a == "--t2-res") t2Res = splitList(next());
    else if (a == "--linear-radius") linearRadius = std::stod(next());
    else if (a == "--speed-scale") speedScale = std::stod(next());
    else if (a == "--speed-scenes") speedScenes = splitList(next());
    else if (a == "--speed-steps") speedImplSteps = std::stoi(next());
    else if (a == "--speed-explicit-steps") speedExplSteps = std::stoi(next());
    else if (a == "--speed-reuse") speedReuse = next();
    else if (a == "--speed-fresh-pattern") speedFreshPattern = true;
    else if (a == "--speed-backend") speedBackend = next();
    else if (a == "--speed-pc") speedPc = next();
    else if (a == "--speed-compare-pc") speedComparePc = next();
    else {
      if (world.isRoot())
        std::cerr << "usage: bench_bdem [--quick] [--sections table1,table2,fig6,fig7,linear] [--table2-high] "
                     "[--markdown FILE]\n"
                     "       [--t2-speed V] [--t2-frame S] [--t2-frames N] [--t2-compression] [--t2-res low,middle,high] "
                     "[--linear-radius R] [--verbose-frames]\n"
                     "       [--speed-scale F] [--speed-scenes \"Beam Stretch,Plate,...\"] [--speed-steps N] "
                     "[--speed-explicit-steps N] [--speed-reuse none|interpolation|full] [--speed-fresh-pattern] [--speed-backend B] "
                     "[--speed-pc P] [--speed-compare-pc P]\n";
      return 64;
    }
  }
  // The quick mode runs the preconditioner comparison too (with jacobi), so that its code cannot rot.
  if (quick && speedComparePc.empty()) speedComparePc = "jacobi";
  auto has = [&](const char* s) { return std::find(sections.begin(), sections.end(), s) != sections.end(); };
  // PETSc and Trilinos initialise lazily and collectively on the world communicator at their first
  // backend creation: create them on every rank here, before rank 0 creates them alone (section 5's
  // 1-rank solves), which would otherwise wait forever for the other ranks.
  for (const std::string b : {"petsc", "trilinos"})
    if (la::backends().has(b)) la::createBackend(b);
  const double t0 = now();
  if (world.isRoot()) md << "# bench_bdem" << (quick ? " --quick" : "") << " (" << world.size() << " ranks)\n\n";
  auto timed = [&](const char* name, const std::function<void()>& f) {
    const double t = now();
    f();
    idleBarrier(world);
    if (world.isRoot()) progress(std::string(name) + " done in " + fmt("%.1f", now() - t) + " s");
  };
  if (has("table1")) timed("table1", [&] { if (world.isRoot()) table1(quick); });
  if (has("fig6")) timed("fig6", [&] { if (world.isRoot()) fig6(quick); });
  if (has("fig7")) timed("fig7", [&] { if (world.isRoot()) fig7(quick); });
  if (has("table2")) timed("table2", [&] { if (!quick || world.isRoot()) table2(quick, high); });
  if (has("linear")) timed("linear", [&] { linear(quick); });
  if (has("speed")) timed("speed", [&] { speed(quick); });
  if (world.isRoot()) {
    md << "Total wall time " << fmt("%.1f", now() - t0) << " s.\n";
    std::cout << md.str();
    if (!markdown.empty()) std::ofstream(markdown) << md.str();
    if (failures) std::cout << failures << " check(s) failed\n";
  }
  return world.any(failures > 0) ? 1 : 0;
}

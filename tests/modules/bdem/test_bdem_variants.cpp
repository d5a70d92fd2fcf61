// Solver variants and the explicit baseline on small bonded beams (README decision 43: T-OPT,
// T-EXP): the manifold Newton against Riemannian gradient descent (Alg. 1), the penalty
// (Eq. 36), augmented Lagrangian (Eq. 38) and Lagrange-multiplier (Eq. 37) formulations on the
// same bending + twisting beam with the same dimensionless tolerance; and the explicit BDEM
// baseline (§6.4, README decision 32) against the implicit integrator on a beam stretch and twist.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "framework/core/error.hpp"
#include "integrator_test_util.hpp"
#include "modules/bdem/constrained_formulations.hpp"
#include "modules/bdem/explicit_stepper.hpp"
#include "modules/bdem/grips.hpp"
#include "test_util.hpp"

namespace kinema::bdem::test {
namespace {

// A bonded FCC beam along x of length L (cross-section h x h, r = 0.01): the particles within
// 1.5 r of x = 0 are fixed, those within 1.5 r of the far end follow grip 0 (centred on the end).
double beam(System& s, double L, double h, double E, const Grip& grip) {
  const double r = 0.01;
  s.materials[0].E = E;
  s.materials[0].sigmaC = s.materials[0].tauC = 1e300;
  s.gravity = Vec3::Zero();
  packedBox(s, Vec3(L, h, h), r, Lattice::Fcc);
  double xmax = 0;
  for (const Vec3& p : s.P.p) xmax = std::max(xmax, p.x());
  Grip g = grip;
  g.centre = Vec3(xmax, 0.5 * h, 0.5 * h);
  s.grips.push_back(g);
  for (std::size_t a = 0; a < s.P.size(); ++a) {
    if (s.P.p[a].x() < 1.5 * r) s.P.dof[a] = Dof::Fixed;
    if (s.P.p[a].x() > xmax - 0.5 * r) {
      s.P.dof[a] = Dof::Grip;
      s.P.grip[a] = 0;
    }
  }
  return xmax;
}

struct VariantRun {
  int iterations = 0, linear = 0, trials = 0, outer = 0;
  bool converged = true;
  double seconds = 0, maxViolation = 0;
  std::vector<Vec3> p;
};

VariantRun runVariant(const std::string& solver, int steps, double dt, const std::string& linear = "direct") {
  Rig rig;
  Grip g;
  g.velocity = Vec3(0, 0, -0.2);           // bend
  g.angularVelocity = Vec3(8.0, 0, 0);    // twist
  beam(rig.s, 0.16, 0.04, 1e6, g);
  rig.distribute();
  IntegratorOptions o;
  o.solver = solver;
  o.tolerance = 1e-6;
  o.allowUnconverged = true;
  o.newton.linear.type = linear;
  o.newton.maxIterations = 200;
  o.maxFirstOrderIterations = 20000;
  if (std::getenv("TOPT_NOPSD")) o.newton.psdProjection = false;
  o.constraintTolerance = 1e-10;
  ImplicitStepper st(rig.s, *rig.domain, *rig.backend, o);
  VariantRun run;
  const auto t0 = std::chrono::steady_clock::now();
  for (int n = 0; n < steps; ++n) {
    const StepStats ss = st.step(dt);
    run.iterations += ss.newtonIterations;
    run.linear += ss.linearIterations;
    run.trials += ss.lineSearchTrials;
    run.outer += ss.outerIterations;
    run.converged = run.converged && ss.converged;
    run.maxViolation = std::max(run.maxViolation, ss.constraintViolation);
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (std::size_t a = 0; a < rig.s.P.size(); ++a) run.p.push_back(rig.s.P.p[rig.local(a)]);
  return run;
}

TEST(BdemVariants, FigSevenRanking) {  // T-OPT
  const int steps = std::getenv("TOPT_STEPS") ? std::atoi(std::getenv("TOPT_STEPS")) : 3;
  const double dt = std::getenv("TOPT_DT") ? std::atof(std::getenv("TOPT_DT")) : 5e-3;
  std::map<std::string, VariantRun> runs;
  for (const char* v : {"newton", "first_order", "penalty", "augmented_lagrangian", "lagrange"}) runs[v] = runVariant(v, steps, dt);
  runs["newton (CG, Eq. 31)"] = runVariant("newton", steps, dt, "cg");
  std::printf("[T-OPT] %d steps of dt = %.0e, tolerance 1e-6 (relative force residual)\n", steps, dt);
  std::printf("[T-OPT] %-22s %10s %8s %8s %6s %10s %10s %9s %12s\n", "solver", "iterations", "linear", "trials", "outer",
              "converged", "seconds", "max|C|", "max dx vs N");
  const VariantRun& ref = runs["newton"];
  for (const auto& [name, r] : runs) {
    double dx = 0;
    for (std::size_t a = 0; a < r.p.size(); ++a) dx = std::max(dx, (r.p[a] - ref.p[a]).norm());
    std::printf("[T-OPT] %-22s %10d %8d %8d %6d %10s %10.4f %9.1e %12.2e\n", name.c_str(), r.iterations, r.linear,
                r.trials, r.outer, r.converged ? "yes" : "no", r.seconds, r.maxViolation, dx);
  }
  EXPECT_TRUE(ref.converged);
  EXPECT_GT(ref.iterations, steps);
  // Second-order manifold < first-order manifold (iterations), as in the paper's Fig. 7.
  EXPECT_LT(ref.iterations, runs["first_order"].iterations);
  // The converged variants reach the same state (same minimiser, tolerance-level differences).
  for (const char* v : {"first_order", "augmented_lagrangian", "lagrange"}) {
    const VariantRun& r = runs[v];
    if (!r.converged) continue;
    double dx = 0;
    for (std::size_t a = 0; a < r.p.size(); ++a) dx = std::max(dx, (r.p[a] - ref.p[a]).norm());
    EXPECT_LT(dx, 1e-4) << v;
  }
  // Penalty (Eq. 36) satisfies C(q) = 0 only to O(1/kappa): its violation exceeds the augmented
  // Lagrangian's, which drives C to the constraint tolerance. (Paper: penalty slowest or not
  // converging, Lagrange slower than first order; with exact KKT Newton and the default kappa this
  // is not reproduced on this beam: see the table and the module README.)
  const VariantRun& pen = runs["penalty"];
  const VariantRun& al = runs["augmented_lagrangian"];
  EXPECT_TRUE(al.converged);
  EXPECT_GT(pen.maxViolation, 10 * al.maxViolation);
  EXPECT_LE(al.maxViolation, 1e-10);
}

// ---------------------------------------------------------------------------------------------
TEST(BdemVariants, ExplicitAgreesWithImplicitOnStretchAndTwist) {  // T-EXP
  Grip g;
  g.velocity = Vec3(0.05, 0, 0);           // stretch
  g.angularVelocity = Vec3(10.0, 0, 0);    // twist
  g.tStop = 0.04;
  const double tEnd = 0.06;
  Rig imp, exp;
  const double L = beam(imp.s, 0.2, 0.04, 1e7, g);
  beam(exp.s, 0.2, 0.04, 1e7, g);
  imp.distribute();
  exp.distribute();
  IntegratorOptions o = tightOptions(1e-8);
  o.newton.linear.type = "cg";
  ImplicitStepper is(imp.s, *imp.domain, *imp.backend, o);
  ExplicitStepper es(exp.s, *exp.domain, *exp.backend, o);
  const double dtE = stableStep(exp.s);
  const int nE = static_cast<int>(std::ceil(tEnd / dtE));
  const double dtI = 1e-3;
  const int nI = static_cast<int>(std::lround(tEnd / dtI));
  int newton = 0;
  for (int n = 0; n < nI; ++n) newton += is.step(dtI).newtonIterations;
  for (int n = 0; n < nE; ++n) es.step(tEnd / nE);
  double sum = 0, sumDisp = 0;
  const std::size_t N = imp.s.P.size();
  for (std::size_t k = 0; k < N; ++k) {
    const std::size_t a = imp.local(k), b = exp.local(k);
    sum += (imp.s.P.p[a] - exp.s.P.p[b]).squaredNorm();
    sumDisp += (imp.s.P.p[a] - imp.s.P.pRef[a]).squaredNorm();
  }
  const double rms = std::sqrt(sum / static_cast<double>(N)), rmsDisp = std::sqrt(sumDisp / static_cast<double>(N));
  std::printf("[T-EXP] %zu particles, L = %.3f: implicit %d steps (dt %.0e, %d Newton its), explicit %d steps "
              "(dt %.2e = 0.2 T): RMS difference %.3e = %.3f%% of L, %.2f%% of the RMS displacement %.3e\n",
              N, L, nI, dtI, newton, nE, tEnd / nE, rms, 100 * rms / L, 100 * rms / rmsDisp, rmsDisp);
  EXPECT_LT(rms, 0.01 * L);
  EXPECT_LT(rms, 0.2 * rmsDisp);  // and small against the motion itself
}

TEST(BdemVariants, StableStepFormula) {  // T-TS closed form T = r sqrt(2 rho / (3 E))
  System s;
  s.materials[0].E = 1e7;
  s.materials[0].density = 1000;
  addSphere(s, Vec3::Zero(), 0.01);
  addSphere(s, Vec3(1, 0, 0), 0.005);
  s.P.numOwned = 2;
  EXPECT_NEAR(stableStep(s), 0.2 * 0.005 * std::sqrt(2.0 * 1000 / 3e7), 1e-18);
}

TEST(BdemVariants, LagrangeIsSerialAndVariantNamesChecked) {
  Rig rig;
  Grip g;
  beam(rig.s, 0.08, 0.04, 1e6, g);
  rig.distribute();
  IntegratorOptions o;
  o.solver = "lagrange";
  o.kktSolver = "cg_typo";
  ImplicitStepper st(rig.s, *rig.domain, *rig.backend, o);
  EXPECT_FALSE(kinema::test::messageOf<Error>([&] { st.step(1e-3); }).empty());
}

// The Lagrange formulation solves its KKT system unpreconditioned with kKktRtol and
// bdem.kkt_solver: the user's linear options it replaces are reported at set-up, and nothing is
// said when they already agree.
TEST(BdemVariants, LagrangeReportsTheLinearOptionsItReplaces) {
  Rig rig;
  Grip g;
  beam(rig.s, 0.08, 0.04, 1e6, g);
  rig.distribute();
  auto setUpOutput = [&](const IntegratorOptions& o) {
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    ImplicitStepper st(rig.s, *rig.domain, *rig.backend, o);
    return testing::internal::GetCapturedStdout() + testing::internal::GetCapturedStderr();
  };
  IntegratorOptions o;
  o.solver = "lagrange";
  o.newton.linear.preconditioner = "jacobi";
  o.newton.linear.rtol = 1e-6;
  std::string out = setUpOutput(o);
  if (Comm::world().isRoot()) {
    EXPECT_NE(out.find("bdem.kkt_solver = direct"), std::string::npos) << out;
    EXPECT_NE(out.find("preconditioner = jacobi"), std::string::npos) << out;
    EXPECT_NE(out.find("are not used"), std::string::npos) << out;
  }
  o.newton.linear.type = o.kktSolver;
  o.newton.linear.preconditioner = "none";
  o.newton.linear.rtol = kKktRtol;
  EXPECT_EQ(setUpOutput(o).find("are not used"), std::string::npos);
  o.solver = "newton";  // the other solvers use the user's options as given
  o.newton.linear.preconditioner = "jacobi";
  EXPECT_EQ(setUpOutput(o).find("are not used"), std::string::npos);
}

}  // namespace
}  // namespace kinema::bdem::test

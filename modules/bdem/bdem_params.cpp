#include "modules/bdem/bdem_params.hpp"

#include "framework/core/error.hpp"
#include "framework/solvers/newton_params.hpp"
#include "modules/bdem/scene_params.hpp"

namespace kinema::bdem {

void declareBdemParams(ParamSchema& s) {
  const IntegratorOptions d;
  s.addChoice("bdem.integrator", d.integrator, {"implicit", "explicit"},
              "implicit: Eq. 6 minimised on the quaternion manifold each step (Alg. 3); explicit: the "
              "symplectic-Euler BDEM baseline the paper compares against (§6.4, Table 1; README decision 32)");
  s.addChoice("bdem.solver", d.solver, {"newton", "first_order", "penalty", "lagrange", "augmented_lagrangian"},
              "implicit solver variant (§6.2, Fig. 7): newton = second-order manifold (Alg. 2-3), "
              "first_order = Riemannian gradient descent (Alg. 1), penalty (Eq. 36), lagrange (Eq. 37), "
              "augmented_lagrangian (Eq. 38)");
  s.addReal("bdem.tolerance", d.tolerance, Range::positive(),
            "convergence test of each implicit step: the largest residual force on a particle (torques / r) "
            "over the step's force scale (mean summed magnitude of the inertial, gravity, bond and contact "
            "forces on a particle) <= tolerance; independent of dt (docs/modules/bdem.md, Convergence)");
  s.addBool("bdem.allow_unconverged", d.allowUnconverged,
            "accept a step whose solve hit its iteration cap (warned at the first, counted in the summary) instead "
            "of stopping the run with an error");
  s.addReal("bdem.penalty_kappa", d.penaltyKappa, Range::positive(),
            "penalty / augmented Lagrangian weight kappa of Eqs. 36, 38, relative to (8/5) m r^2 / dt^2");
  s.addInt("bdem.max_outer_iterations", d.maxOuterIterations, Range::atLeast(1),
           "augmented Lagrangian: multiplier updates per step");
  s.addInt("bdem.max_first_order_iterations", d.maxFirstOrderIterations, Range::atLeast(1),
           "first_order (Alg. 1): gradient steps per time step");
  s.addReal("bdem.constraint_tolerance", d.constraintTolerance, Range::positive(),
            "penalty / lagrange / augmented_lagrangian: largest |q^T q - 1| accepted at convergence");
  s.addChoice("bdem.kkt_solver", d.kktSolver, {"direct", "gmres", "minres"},
              "lagrange (Eq. 37): linear solver of the saddle-point KKT system");
  solvers::NewtonOptions nd = d.newton;
  solvers::declareNewtonParams(s, "bdem.newton", nd);

  s.addReal("bdem.dt", 0.0, Range::nonNegative(),
            "time step [s]; 0: 0.2 T with T = min r sqrt(2 rho / (3 E)), the explicit stable step (§5.1, Eq. 30)");
  s.addInt("bdem.steps", 0, Range::atLeast(0), "runner steps (each `substeps` time steps); 0: from end_time");
  s.addReal("bdem.end_time", 0.0, Range::nonNegative(), "simulated time to reach when bdem.steps is 0 [s]");
  s.addInt("bdem.substeps", 1, Range::closed(1, 100000000),
           "time steps per runner step: one diagnostics row, frame and checkpoint opportunity per runner step "
           "(e.g. the explicit baseline's many small steps per frame)");
  s.addInt("bdem.fragments_every", 1, Range::atLeast(0),
           "count fragments (connected components of the alive-bond graph, gathered to rank 0) every this many "
           "runner steps; 0: never (-1 in the diagnostics)");

  s.addBool("bdem.fresh_pattern", true,
            "rebuild the Newton Hessian's sparsity pattern at every implicit step, so the matrix depends on the "
            "current state only and a restart reproduces the run bitwise on every backend; false: keep it until "
            "bonds break (cheaper assembly)");
  s.addChoice("bdem.model.shear_form", "consistent", {"paper", "consistent"},
              "shear energy (Eq. 9; README decisions 13-14): paper = 1/2 kt theta^2 as printed, consistent = "
              "1/2 kt (l0 theta)^2 (units of energy)");
  s.addChoice("bdem.model.rot_measure", "full_angle", {"paper", "full_angle"},
              "bend/twist measure (Eqs. 10-11; README decision 14): paper = vec(conj(q_j) q_i), a half angle; "
              "full_angle = twice that, the relative rotation angle");
  s.addBool("bdem.model.tension_only", false,
            "fracture (Eq. 12; README decisions 19, 34): count only tensile normal forces in sigma (paper: |F_n|)");

  s.addBool("bdem.contact.enabled", true, "element-element and element-obstacle penalty contact (Eqs. 32-33)");
  s.addReal("bdem.contact.k_ec", 0.0, Range::nonNegative(),
            "element-element penalty stiffness k_ec of Eq. 32 [N/m]; 0: E_max r_max (§5.4)");
  s.addReal("bdem.contact.k_c", 0.0, Range::nonNegative(),
            "element-obstacle penalty stiffness k_c of Eq. 33 [N/m]; 0: E_max r_max (§5.4)");
  s.addReal("bdem.contact.mu_s", 0.0, Range::nonNegative(), "sliding friction coefficient mu_s of Eq. 34 (pairs)");
  s.addReal("bdem.contact.mu_r", 0.0, Range::nonNegative(), "rolling friction coefficient mu_r of Eq. 35");
  s.addBool("bdem.contact.rolling_r3", false,
            "Eq. 35 as printed (r^3, dimensionally inconsistent) instead of r (README decision 31)");
  s.addReal("bdem.contact.padding", d.contactPadding, Range::nonNegative(),
            "contact candidates within (r_i + r_j)(1 + padding) + 2 max|v| dt; also sets the ghost layer width");
  s.addBool("bdem.fracture", d.fracture, "break bonds over the Eq. 12-13 thresholds after each step (Alg. 3 line 20)");
  s.addBool("bdem.friction", d.friction, "explicit friction velocity correction after each step (Eqs. 34-35)");

  declareSceneParams(s, "bdem.scene");
  declareParticleSetParams(s);
}

BdemParams readBdemParams(const Config& c) {
  BdemParams p;
  IntegratorOptions& o = p.integrator;
  o.integrator = c.getString("bdem.integrator");
  o.solver = c.getString("bdem.solver");
  o.tolerance = c.getReal("bdem.tolerance");
  o.allowUnconverged = c.getBool("bdem.allow_unconverged");
  o.penaltyKappa = c.getReal("bdem.penalty_kappa");
  o.maxOuterIterations = static_cast<int>(c.getInt("bdem.max_outer_iterations"));
  o.maxFirstOrderIterations = static_cast<int>(c.getInt("bdem.max_first_order_iterations"));
  o.constraintTolerance = c.getReal("bdem.constraint_tolerance");
  o.kktSolver = c.getString("bdem.kkt_solver");
  o.newton = solvers::readNewtonOptions(c, "bdem.newton");
  o.fracture = c.getBool("bdem.fracture");
  o.friction = c.getBool("bdem.friction");
  o.contactPadding = c.getReal("bdem.contact.padding");
  if (o.integrator == "explicit" && c.isSet("bdem.solver") && o.solver != "newton")
    throw InputError(str(c.where("bdem.solver"), ": bdem.solver: '", o.solver,
                         "' is an implicit solver variant; bdem.integrator is explicit"));

  p.dt = c.getReal("bdem.dt");
  p.steps = static_cast<long>(c.getInt("bdem.steps"));
  p.endTime = c.getReal("bdem.end_time");
  p.substeps = static_cast<int>(c.getInt("bdem.substeps"));
  p.fragmentsEvery = static_cast<int>(c.getInt("bdem.fragments_every"));
  p.freshPattern = c.getBool("bdem.fresh_pattern");
  if (p.steps == 0 && p.endTime == 0.0)
    throw InputError(str(c.where("bdem.steps"), ": bdem.steps and bdem.end_time are both 0; set one of them"));

  p.model.shear = parseShearForm(c.getString("bdem.model.shear_form"));
  p.model.rot = parseRotMeasure(c.getString("bdem.model.rot_measure"));
  p.model.tensionOnly = c.getBool("bdem.model.tension_only");

  p.contact.enabled = c.getBool("bdem.contact.enabled");
  p.contact.kec = c.getReal("bdem.contact.k_ec");
  p.contact.kc = c.getReal("bdem.contact.k_c");
  p.contact.muS = c.getReal("bdem.contact.mu_s");
  p.contact.muR = c.getReal("bdem.contact.mu_r");
  p.contact.rollingR3 = c.getBool("bdem.contact.rolling_r3");
  p.kecSet = c.isSet("bdem.contact.k_ec");
  p.kcSet = c.isSet("bdem.contact.k_c");
  p.muSSet = c.isSet("bdem.contact.mu_s");
  p.muRSet = c.isSet("bdem.contact.mu_r");
  p.rollingSet = c.isSet("bdem.contact.rolling_r3");
  return p;
}

void applyModelParams(const BdemParams& p, System& s) {
  s.model = p.model;
  s.contact.enabled = p.contact.enabled;
  if (p.kecSet) s.contact.kec = p.contact.kec;
  if (p.kcSet) s.contact.kc = p.contact.kc;
  if (p.muSSet) s.contact.muS = p.contact.muS;
  if (p.muRSet) s.contact.muR = p.contact.muR;
  if (p.rollingSet) s.contact.rollingR3 = p.contact.rollingR3;
}

}  // namespace kinema::bdem

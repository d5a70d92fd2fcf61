// The bdem module's parameters bound once (framework/core/param_binding.hpp; docs/writing-a-module.md
// §2): each `bdem.*` key with its default, range, help line and the field of BdemParams it fills.
#include "modules/bdem/bdem_params.hpp"

#include "framework/core/error.hpp"
#include "framework/core/param_binding.hpp"
#include "framework/solvers/newton_params.hpp"
#include "modules/bdem/scene_params.hpp"

namespace kinema::bdem {

namespace {

using P = BdemParams;

template <class T>
auto integrator(T IntegratorOptions::*member) {
  return field(&P::integrator, member);
}
template <class T>
auto contact(T ContactParams::*member) {
  return field(&P::contact, member);
}

// A contact key that overrides the scene's value only where the scene sets it: the value and
// whether it was set (applyModelParams).
template <class T>
void overriding(ParamBindings<P>& r, std::string key, T ContactParams::*value, bool P::*set, Range range,
                std::string help) {
  r.custom(
      std::move(key),
      [value, range, help](ParamSchema& s, const std::string& k, const P& d) -> ParamSpec& {
        if constexpr (std::is_same_v<T, bool>)
          return s.addBool(k, d.contact.*value, help);
        else
          return s.addReal(k, d.contact.*value, range, help);
      },
      [value, set](const Config& c, const std::string& k, P& o) {
        if constexpr (std::is_same_v<T, bool>)
          o.contact.*value = c.getBool(k);
        else
          o.contact.*value = c.getReal(k);
        o.*set = c.isSet(k);
      });
}

// The keys before `bdem.newton.*` (declared and read by solvers::newtonBindings()), and those
// after it: `kinema help` lists them in this order.
const ParamBindings<P>& solverBindings() {
  static const ParamBindings<P> b = [] {
    using O = IntegratorOptions;
    ParamBindings<P> r;
    r.choice("integrator", integrator(&O::integrator), {"implicit", "explicit"},
             "implicit: Eq. 6 minimised on the quaternion manifold each step (Alg. 3); explicit: the "
             "symplectic-Euler BDEM baseline the paper compares against (§6.4, Table 1; README decision 32)");
    r.choice("solver", integrator(&O::solver), {"newton", "first_order", "penalty", "lagrange", "augmented_lagrangian"},
             "implicit solver variant (§6.2, Fig. 7): newton = second-order manifold (Alg. 2-3), "
             "first_order = Riemannian gradient descent (Alg. 1), penalty (Eq. 36), lagrange (Eq. 37), "
             "augmented_lagrangian (Eq. 38)");
    r.real("tolerance", integrator(&O::tolerance), Range::positive(),
           "convergence test of each implicit step: the largest residual force on a particle (torques / r) "
           "over the step's force scale (mean summed magnitude of the inertial, gravity, bond and contact "
           "forces on a particle) <= tolerance; independent of dt (docs/modules/bdem.md, Convergence)");
    r.boolean("allow_unconverged", integrator(&O::allowUnconverged),
              "accept a step whose solve hit its iteration cap (warned at the first, counted in the summary) instead "
              "of stopping the run with an error");
    r.real("penalty_kappa", integrator(&O::penaltyKappa), Range::positive(),
           "penalty / augmented Lagrangian weight kappa of Eqs. 36, 38, relative to (8/5) m r^2 / dt^2");
    r.integer("max_outer_iterations", integrator(&O::maxOuterIterations), Range::atLeast(1),
              "augmented Lagrangian: multiplier updates per step");
    r.integer("max_first_order_iterations", integrator(&O::maxFirstOrderIterations), Range::atLeast(1),
              "first_order (Alg. 1): gradient steps per time step");
    r.real("constraint_tolerance", integrator(&O::constraintTolerance), Range::positive(),
           "penalty / lagrange / augmented_lagrangian: largest |q^T q - 1| accepted at convergence");
    r.choice("kkt_solver", integrator(&O::kktSolver), {"direct", "gmres", "minres"},
             "lagrange (Eq. 37): linear solver of the saddle-point KKT system, unpreconditioned with rtol 1e-10 "
             "(bdem.newton.linear.type, preconditioner and rtol are not used; reported at set-up)");
    return r;
  }();
  return b;
}

const ParamBindings<P>& runBindings() {
  static const ParamBindings<P> b = [] {
    using O = IntegratorOptions;
    ParamBindings<P> r;
    r.real("dt", &P::dt, Range::nonNegative(),
           "time step [s]; 0: 0.2 T with T = min r sqrt(2 rho / (3 E)), the explicit stable step (§5.1, Eq. 30)");
    r.integer("steps", &P::steps, Range::atLeast(0), "runner steps (each `substeps` time steps); 0: from end_time");
    r.real("end_time", &P::endTime, Range::nonNegative(), "simulated time to reach when bdem.steps is 0 [s]");
    r.integer("substeps", &P::substeps, Range::closed(1, 100000000),
              "time steps per runner step: one diagnostics row, frame and checkpoint opportunity per runner step "
              "(e.g. the explicit baseline's many small steps per frame)");
    r.integer("fragments_every", &P::fragmentsEvery, Range::atLeast(0),
              "count fragments (connected components of the alive-bond graph, gathered to rank 0) every this many "
              "runner steps; 0: never (-1 in the diagnostics)");

    r.boolean("fresh_pattern", &P::freshPattern,
              "rebuild the Newton Hessian's sparsity pattern at every implicit step, so the matrix depends on the "
              "current state only; false: keep it until bonds break or a block outside it arrives (cheaper; with "
              "newton.linear.reuse_preconditioner full the AMG set-up is kept across steps too). Either way it is "
              "renewed after each checkpoint, so a restart reproduces the run bitwise on every backend");
    r.choiceOf("model.shear_form", field(&P::model, &BondModel::shear),
               {{"paper", ShearForm::Paper}, {"consistent", ShearForm::Consistent}},
               "shear energy (Eq. 9; README decisions 13-14): paper = 1/2 kt theta^2 as printed, consistent = "
               "1/2 kt (l0 theta)^2 (units of energy)");
    r.choiceOf("model.rot_measure", field(&P::model, &BondModel::rot),
               {{"paper", RotMeasure::Paper}, {"full_angle", RotMeasure::FullAngle}},
               "bend/twist measure (Eqs. 10-11; README decision 14): paper = vec(conj(q_j) q_i), a half angle; "
               "full_angle = twice that, the relative rotation angle");
    r.boolean("model.tension_only", field(&P::model, &BondModel::tensionOnly),
              "fracture (Eq. 12; README decisions 19, 34): count only tensile normal forces in sigma (paper: |F_n|)");

    r.boolean("contact.enabled", contact(&ContactParams::enabled),
              "element-element and element-obstacle penalty contact (Eqs. 32-33)");
    overriding(r, "contact.k_ec", &ContactParams::kec, &P::kecSet, Range::nonNegative(),
               "element-element penalty stiffness k_ec of Eq. 32 [N/m]; 0: E_max r_max (§5.4)");
    overriding(r, "contact.k_c", &ContactParams::kc, &P::kcSet, Range::nonNegative(),
               "element-obstacle penalty stiffness k_c of Eq. 33 [N/m]; 0: E_max r_max (§5.4)");
    overriding(r, "contact.mu_s", &ContactParams::muS, &P::muSSet, Range::nonNegative(),
               "sliding friction coefficient mu_s of Eq. 34 (pairs)");
    overriding(r, "contact.mu_r", &ContactParams::muR, &P::muRSet, Range::nonNegative(),
               "rolling friction coefficient mu_r of Eq. 35");
    overriding(r, "contact.rolling_r3", &ContactParams::rollingR3, &P::rollingSet, Range::any(),
               "Eq. 35 as printed (r^3, dimensionally inconsistent) instead of r (README decision 31)");
    r.real("contact.padding", integrator(&O::contactPadding), Range::nonNegative(),
           "contact candidates within (r_i + r_j)(1 + padding) + 2 max|v| dt; also sets the ghost layer width");
    r.boolean("fracture", integrator(&O::fracture),
              "break bonds over the Eq. 12-13 thresholds after each step (Alg. 3 line 20)");
    r.boolean("friction", integrator(&O::friction), "explicit friction velocity correction after each step (Eqs. 34-35)");
    return r;
  }();
  return b;
}

constexpr const char* kPrefix = "bdem";

}  // namespace

void declareBdemParams(ParamSchema& s) {
  const BdemParams d;
  solverBindings().declare(s, kPrefix, d);
  solvers::newtonBindings().declare(s, str(kPrefix, ".newton"), d.integrator.newton);
  runBindings().declare(s, kPrefix, d);
  declareSceneParams(s, kSceneGroup);
  declareParticleSetParams(s);
}

BdemParams readBdemParams(const Config& c) {
  BdemParams p;
  solverBindings().readInto(c, kPrefix, p);
  p.integrator.newton = solvers::newtonBindings().read(c, str(kPrefix, ".newton"));
  runBindings().readInto(c, kPrefix, p);
  // Cross-key checks, after every key is read (the keys named for the message only).
  const IntegratorOptions& o = p.integrator;
  if (o.integrator == "explicit" && c.isSet("bdem.solver") && o.solver != "newton")
    throw InputError(str(c.where("bdem.solver"), ": bdem.solver: '", o.solver,
                         "' is an implicit solver variant; bdem.integrator is explicit"));
  if (p.steps == 0 && p.endTime == 0.0)
    throw InputError(str(c.where("bdem.steps"), ": bdem.steps and bdem.end_time are both 0; set one of them"));
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

#include "modules/avi/avi_params.hpp"

#include <algorithm>
#include <cmath>

#include "framework/core/error.hpp"
#include "framework/core/param_binding.hpp"
#include "modules/avi/penalty_layer.hpp"
#include "modules/avi/scene_params.hpp"

namespace kinema::avi {

namespace {

constexpr long kMaxSteps = 100000000;  // frames of one run (diagnostics rows)

// "file:line: " of a key the user set, or "" for a default.
std::string at(const Config& c, const std::string& key) {
  const std::string w = c.where(key);
  return w.empty() ? "" : w + ": ";
}

}  // namespace

namespace {

// Every `avi.*` key but `avi.scene.*`, bound once to the field it fills.
const ParamBindings<AviParams>& bindings() {
  static const ParamBindings<AviParams> b = [] {
    using P = AviParams;
    using E = EngineOptions;
    ParamBindings<P> r;
    r.real("end_time", &P::endTime, Range::positive(), "simulated time to reach (scene units, e.g. s)");
    r.real("frame_dt", &P::frameDt, Range::positive(),
           "interval between common times: one runner step, one diagnostics row (energy, momentum, layers, "
           "event rates measured at n frame_dt without disturbing the state, README decision 58), one frame / checkpoint "
           "opportunity; the last step ends exactly at end_time");

    r.real("integrator.c_safe", field(&P::engine, &E::cSafe), Range::leftOpen(0.0, 1.0),
           "layer step safety C_safe: layer l of a pair ticks with h_l = C_safe sqrt(m_min / (4 k)) l^-3/2 "
           "(README decision 5), m_min the smallest free vertex mass of the pair; h_1 omega_1 <= C_safe");
    r.real("integrator.restitution", field(&P::engine, &E::restitution),
           Range::closed(0.0, 1.0),
           "coefficient of restitution e (the paper's §7.1): penalty ticks scale their impulse by e while the pair "
           "separates, by 1 while it approaches; 1 = conservative");
    r.real("integrator.friction", field(&P::engine, &E::friction), Range::nonNegative(),
           "Coulomb kinetic friction coefficient mu (the paper's §7.2): every non-zero penalty kick adds a tangential "
           "impulse min(mu J_n, m_t |v_t|) against the sliding velocity, per layer; no static friction");
    r.real("integrator.tau_min_factor", field(&P::engine, &E::tauMinFactor),
           Range::positive(),
           "minimum useful certificate lifetime tau_min = tau_min_factor h_j, h_j the step of the guarded layer "
           "(the paper's §6; README decision 4, ESTABLISH): a shorter-lived separating slab activates the layer instead");
    r.integer("integrator.max_layer", field(&P::engine, &E::maxLayer), Range::closed(1, 1000000),
              "deepest penalty layer allowed; a pair needing a deeper one stops the run with an error (energy out "
              "of bounds: B(d) ~ (4/3) k eta^4 / d^2 exceeds any finite energy only as d -> 0)");
    r.choice("integrator.mode", &P::mode, {"certificates", "brute_force"},
             "certificates: layers activated and retired by separating-slab certificates (the paper's §6; README decision 4); "
             "brute_force: layers 1..brute_force_layers of every candidate pair always on the queue, no "
             "certificates (the reference of tests C1 / C2, README decision 58)");
    r.integer("integrator.brute_force_layers", field(&P::engine, &E::bruteForceLayers),
              Range::closed(1, 1000000),
              "brute_force mode: layers per candidate pair kept on the queue (must cover the deepest layer the "
              "scene reaches, or contact is lost)");
    r.boolean("integrator.debug_invariant", field(&P::engine, &E::debugInvariant),
              "check the certificate invariant of README decision 4 (every layer queued or guarded by a valid certificate) "
              "after every event (test C3, README decision 58); slow, for tests");
    r.boolean("integrator.restart_clocks", field(&P::engine, &E::restartClocks),
              "NEGATIVE TEST ONLY (the paper's §8.1, third experiment; test E2): an activated layer ticks first at the activation time "
              "instead of on its lattice j h_l; violates clock integrity and makes the energy grow");
    r.real("integrator.uniform_step", field(&P::engine, &E::uniformStep),
           Range::nonNegative(),
           "> 0: every potential (material, gravity and every penalty layer) uses this one step: the "
           "synchronous variational integrator (leapfrog) baseline; 0: each its own step (AVI)");
    r.boolean("integrator.dyadic_steps", &P::dyadicSteps,
              "round every step down to dyadic_base 2^-m (README decision 57, step 1), at every rank count, so a "
              "run gives the same result at 1, 2 or 3 ranks; false keeps the steps as they are (1 rank only)");
    r.real("integrator.dyadic_base", field(&P::engine, &E::dyadicBase),
           Range::nonNegative(),
           "base of the dyadic steps: > 0 this value; 0 the largest step of the run (material, gravity or "
           "layer 1 of the heaviest vertex; uniform_step if set), logged at setup");

    r.choice("broad_phase.method", field(&P::engine, &E::broadPhase), {"hash", "all"},
             "candidate pairs (README decisions 26 and 32): hash = spatial hash of the primitives' boxes grown by the "
             "margin (framework/geometry; a documented alternative to the paper's BVH + separation lists), "
             "all = every pair (tiny scenes, tests)");
    r.real("broad_phase.margin", field(&P::engine, &E::margin), Range::nonNegative(),
           "broad-phase margin delta: pairs within 2 eta + delta are candidates, valid until some vertex has "
           "moved delta / 2 since the last rebuild; 0 = 2 eta");
    r.choice("domain.partition", field(&P::engine, &E::partition), {"bisection", "scene_order"},
             "placement of objects and contact clusters on ranks at every epoch start (more than one rank; README "
             "decision 57, step 2), both balanced by vertex count: bisection = recursive coordinate bisection of "
             "their centroids (compact regions, few pairs across ranks), scene_order = contiguous in scene order");
    r.boolean("domain.cert_lookahead", field(&P::engine, &E::certLookahead),
              "more than one rank: certificates of pairs at a rank boundary run inside windows, which end no later "
              "than the first tick of the layer each could activate (README decision 53); false: every such "
              "certificate expiry ends a window (same result, more synchronisations)");
    r.then([](P& p) { p.engine.bruteForce = p.mode == "brute_force"; });
    return r;
  }();
  return b;
}

}  // namespace

void declareAviParams(ParamSchema& s) {
  bindings().declare(s, "avi");
  declareSceneParams(s, kSceneGroup);
}

AviParams readAviParams(const Config& c) {
  AviParams p = bindings().read(c, "avi");
  const EngineOptions& o = p.engine;
  if (!p.dyadicSteps && c.isSet("avi.integrator.dyadic_base"))
    throw InputError(str(c.where("avi.integrator.dyadic_base"),
                         "avi.integrator.dyadic_base is set but avi.integrator.dyadic_steps is false"));

  // Cross-key checks: each names the key the user set and where.
  if (!o.bruteForce && c.isSet("avi.integrator.brute_force_layers"))
    throw InputError(str(at(c, "avi.integrator.brute_force_layers"),
                         "avi.integrator.brute_force_layers is set but avi.integrator.mode is certificates; set "
                         "avi.integrator.mode: brute_force or remove it"));
  if (o.bruteForce && o.bruteForceLayers > o.maxLayer)
    throw InputError(str(at(c, "avi.integrator.brute_force_layers"), "avi.integrator.brute_force_layers = ",
                         o.bruteForceLayers, " exceeds avi.integrator.max_layer = ", o.maxLayer));
  if (o.bruteForce && o.restartClocks)
    throw InputError(str(at(c, "avi.integrator.restart_clocks"),
                         "avi.integrator.restart_clocks needs avi.integrator.mode: certificates (in brute_force "
                         "mode no layer is ever activated, so there is no clock to restart)"));
  const double frames = p.endTime / p.frameDt;
  if (!(frames <= static_cast<double>(kMaxSteps)))
    throw InputError(str(at(c, c.isSet("avi.frame_dt") ? "avi.frame_dt" : "avi.end_time"), "avi.end_time / avi.frame_dt = ",
                         p.endTime, " / ", p.frameDt, " gives ", frames, " runner steps, more than ", kMaxSteps,
                         "; raise avi.frame_dt"));
  // The 1e-9 slack keeps end_time = N frame_dt at N steps despite rounding (1 / 0.01 = 100.000...01).
  p.steps = std::max(1L, static_cast<long>(std::ceil(frames - 1e-9)));
  return p;
}

double frameTime(const AviParams& p, long n) {
  return n >= p.steps ? p.endTime : static_cast<double>(n) * p.frameDt;
}

double defaultDyadicBase(const Scene& scene, const EngineOptions& o, double frameDt) {
  if (o.uniformStep > 0) return o.uniformStep;
  double base = 0.0;
  for (const ForceElement& e : scene.forces) base = std::max(base, e.h);
  double mMax = 0.0;
  for (int a = 0; a < scene.vertices.size(); ++a)
    if (!scene.vertices.scripted(a)) mMax = std::max(mMax, scene.vertices.mass[static_cast<std::size_t>(a)]);
  if (mMax > 0 && scene.k > 0) base = std::max(base, layerStep(o.cSafe, mMax, scene.k, 1));
  return base > 0 && std::isfinite(base) ? base : frameDt;
}

}  // namespace kinema::avi

// The bdem module's parameters (modules/bdem/bdem_params.hpp, particle_sets.hpp), each bound once
// to the field it fills: the defaults are the structs', every key reaches its field, the contact
// keys override a scene's values only where the scene sets them, the cross-key checks name the
// key, and the particle-set trees are read with their keys.
#include <gtest/gtest.h>

#include <string>

#include "framework/core/error.hpp"
#include "modules/bdem/bdem_params.hpp"
#include "modules/bdem/particle_sets.hpp"

using namespace kinema;
using namespace kinema::bdem;

namespace {

const ParamSchema& schema() {
  static const ParamSchema s = [] {
    ParamSchema r;
    declareBdemParams(r);
    return r;
  }();
  return s;
}

// A config validated against the bdem schema (which it keeps by reference).
Config validated(const std::string& yaml) {
  Config c = Config::fromString(yaml, "scene.yaml");
  c.validate(schema());
  return c;
}

std::string inputErrorOf(const std::string& yaml) {
  try {
    readBdemParams(validated(yaml));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(BdemParams, DefaultsAreTheStructs) {
  const BdemParams p = readBdemParams(validated("bdem: {steps: 3}\n"));
  const BdemParams d;
  EXPECT_EQ(p.integrator.integrator, d.integrator.integrator);
  EXPECT_EQ(p.integrator.solver, d.integrator.solver);
  EXPECT_EQ(p.integrator.tolerance, d.integrator.tolerance);
  EXPECT_EQ(p.integrator.penaltyKappa, d.integrator.penaltyKappa);
  EXPECT_EQ(p.integrator.maxOuterIterations, d.integrator.maxOuterIterations);
  EXPECT_EQ(p.integrator.contactPadding, d.integrator.contactPadding);
  EXPECT_EQ(p.integrator.kktSolver, d.integrator.kktSolver);
  EXPECT_EQ(p.integrator.newton.forcing, d.integrator.newton.forcing);
  EXPECT_EQ(p.integrator.newton.linear.rtol, d.integrator.newton.linear.rtol);
  EXPECT_EQ(p.steps, 3);
  EXPECT_EQ(p.substeps, d.substeps);
  EXPECT_EQ(p.fragmentsEvery, d.fragmentsEvery);
  EXPECT_EQ(p.freshPattern, d.freshPattern);
  EXPECT_EQ(p.model.shear, d.model.shear);
  EXPECT_EQ(p.model.rot, d.model.rot);
  EXPECT_EQ(p.contact.enabled, d.contact.enabled);
  EXPECT_FALSE(p.kecSet || p.kcSet || p.muSSet || p.muRSet || p.rollingSet);
}

TEST(BdemParams, EveryKeyFillsItsField) {
  const BdemParams p = readBdemParams(validated(R"(bdem:
  integrator: explicit
  tolerance: 2.0e-4
  allow_unconverged: true
  penalty_kappa: 10
  max_outer_iterations: 7
  max_first_order_iterations: 9
  constraint_tolerance: 1.0e-6
  kkt_solver: gmres
  newton: {max_iterations: 11}
  dt: 1.0e-4
  end_time: 0.5
  substeps: 4
  fragments_every: 0
  fresh_pattern: true
  model: {shear_form: paper, rot_measure: paper, tension_only: true}
  contact: {enabled: false, padding: 0.25}
  fracture: false
  friction: false
)"));
  const IntegratorOptions& o = p.integrator;
  EXPECT_EQ(o.integrator, "explicit");
  EXPECT_EQ(o.tolerance, 2.0e-4);
  EXPECT_TRUE(o.allowUnconverged);
  EXPECT_EQ(o.penaltyKappa, 10.0);
  EXPECT_EQ(o.maxOuterIterations, 7);
  EXPECT_EQ(o.maxFirstOrderIterations, 9);
  EXPECT_EQ(o.constraintTolerance, 1.0e-6);
  EXPECT_EQ(o.kktSolver, "gmres");
  EXPECT_EQ(o.newton.maxIterations, 11);
  EXPECT_EQ(o.contactPadding, 0.25);
  EXPECT_FALSE(o.fracture);
  EXPECT_FALSE(o.friction);
  EXPECT_EQ(p.dt, 1.0e-4);
  EXPECT_EQ(p.steps, 0);
  EXPECT_EQ(p.endTime, 0.5);
  EXPECT_EQ(p.substeps, 4);
  EXPECT_EQ(p.fragmentsEvery, 0);
  EXPECT_TRUE(p.freshPattern);
  EXPECT_EQ(p.model.shear, ShearForm::Paper);
  EXPECT_EQ(p.model.rot, RotMeasure::Paper);
  EXPECT_TRUE(p.model.tensionOnly);
  EXPECT_FALSE(p.contact.enabled);
}

TEST(BdemParams, ContactKeysOverrideOnlyWhereSet) {
  const BdemParams p = readBdemParams(validated("bdem: {steps: 1, contact: {k_c: 5, rolling_r3: false}}\n"));
  EXPECT_TRUE(p.kcSet);
  EXPECT_TRUE(p.rollingSet);
  EXPECT_FALSE(p.kecSet || p.muSSet || p.muRSet);
  System s;
  s.contact.kec = 7.0;
  s.contact.kc = 1.0;
  s.contact.muS = 0.3;
  s.contact.muR = 0.1;
  s.contact.rollingR3 = true;
  applyModelParams(p, s);
  EXPECT_EQ(s.contact.kec, 7.0);  // the scene's
  EXPECT_EQ(s.contact.kc, 5.0);   // the scene file's
  EXPECT_EQ(s.contact.muS, 0.3);
  EXPECT_EQ(s.contact.muR, 0.1);
  EXPECT_FALSE(s.contact.rollingR3);
}

TEST(BdemParams, CrossKeyChecksNameTheKey) {
  std::string e = inputErrorOf("bdem: {integrator: implicit}\n");
  EXPECT_NE(e.find("bdem.steps and bdem.end_time are both 0"), std::string::npos) << e;
  e = inputErrorOf("bdem: {steps: 1, integrator: explicit, solver: penalty}\n");
  EXPECT_NE(e.find("scene.yaml:1"), std::string::npos) << e;
  EXPECT_NE(e.find("bdem.solver: 'penalty' is an implicit solver variant"), std::string::npos) << e;
  EXPECT_EQ(inputErrorOf("bdem: {steps: 1, integrator: explicit, solver: newton}\n"), "");
}

TEST(BdemParams, ParticleSetTreesWithTheirKeys) {
  const SceneTrees t = readSceneTrees(validated("bdem: {steps: 1, sets: {tip: {face: x_max}}, probes: [tip]}\n"));
  EXPECT_EQ(t.sets.key, "bdem.sets");
  EXPECT_TRUE(t.sets.node.IsMap());
  EXPECT_EQ(t.probes.key, "bdem.probes");
  ASSERT_TRUE(t.probes.node.IsSequence());
  EXPECT_EQ(t.probes.node[0].Scalar(), "tip");
  EXPECT_EQ(t.loads.key, "bdem.loads");
  EXPECT_TRUE(!t.loads.node || t.loads.node.IsNull());
  EXPECT_EQ(t.supports.key, "bdem.supports");
}

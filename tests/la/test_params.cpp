// The parameter helpers: linear solver options under a prefix, and the backend choice.
#include <gtest/gtest.h>

#include <algorithm>

#include "framework/core/param_binding.hpp"
#include "framework/la/backend.hpp"
#include "framework/la/linear_solver_params.hpp"
#include "framework/la/preconditioner.hpp"
#include "la_test_util.hpp"

namespace kinema::test {
namespace {

TEST(LinearSolverParams, DefaultsAndOverrides) {
  ParamSchema schema;
  la::LinearSolverOptions defaults;
  defaults.type = "minres";
  defaults.rtol = 1e-6;
  la::linearSolverBindings().declare(schema, "poisson.solver", defaults);
  for (const char* k : {"type", "preconditioner", "rtol", "atol", "max_iterations", "restart"}) {
    const ParamSpec* s = schema.find(std::string("poisson.solver.") + k);
    ASSERT_NE(s, nullptr) << k;
    EXPECT_FALSE(s->help.empty()) << k;
  }

  Config c = Config::fromString("poisson:\n  solver:\n    type: gmres\n    preconditioner: ssor\n"
                                "    rtol: 1.0e-9\n    restart: 50\n");
  c.validate(schema);
  la::LinearSolverOptions o = la::linearSolverBindings().read(c, "poisson.solver");
  EXPECT_EQ(o.type, "gmres");
  EXPECT_EQ(o.preconditioner, "ssor");
  EXPECT_DOUBLE_EQ(o.rtol, 1e-9);
  EXPECT_EQ(o.atol, defaults.atol);
  EXPECT_EQ(o.maxIterations, defaults.maxIterations);
  EXPECT_EQ(o.restart, 50);
  EXPECT_EQ(o.prefix, "poisson_solver_");

  Config d = Config::fromString("{}");
  d.validate(schema);
  la::LinearSolverOptions od = la::linearSolverBindings().read(d, "poisson.solver");
  EXPECT_EQ(od.type, "minres");
  EXPECT_DOUBLE_EQ(od.rtol, 1e-6);
  EXPECT_EQ(od.preconditioner, defaults.preconditioner);
}

TEST(LinearSolverParams, RejectsBadValues) {
  ParamSchema schema;
  la::linearSolverBindings().declare(schema, "s");
  for (const char* yaml : {"s: {type: bicg}", "s: {rtol: 1.5}", "s: {rtol: -1.0e-3}", "s: {atol: -1.0}",
                           "s: {max_iterations: 0}", "s: {restart: 0}"}) {
    Config c = Config::fromString(yaml);
    EXPECT_THROW(c.validate(schema), InputError) << yaml;
  }
}

// `check` must refuse what `run` refuses at its first solve: a preconditioner the backend lacks.
TEST(LinearSolverParams, PreconditionerOfferedByTheScenesBackend) {
  registerBuiltins();
  ParamSchema schema;
  la::declareBackendParams(schema);
  la::linearSolverBindings().declare(schema, "m.solver");
  la::linearSolverBindings().declare(schema, "m.other");
  auto check = [&](const std::string& yaml) {
    Config c = Config::fromString(yaml, "scene.yaml");
    c.validate(schema);
    la::checkLinearSolverChoices(c, schema);
  };
  EXPECT_NO_THROW(check("backend: {name: eigen}\nm: {solver: {preconditioner: ic0}}\n"));
  EXPECT_NO_THROW(check("backend: {name: eigen}\nm: {solver: {preconditioner: none}}\n"));
  EXPECT_NO_THROW(check("backend: {name: petsc}\nm: {solver: {preconditioner: amg}}\n"));
  try {
    check("backend: {name: eigen}\nm:\n  solver: {preconditioner: amg}\n  other: {preconditioner: amg}\n");
    ADD_FAILURE() << "amg on eigen was accepted";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("scene.yaml:3"), std::string::npos) << m;
    EXPECT_NE(m.find("m.solver.preconditioner: 'amg' is not a preconditioner of the eigen backend"), std::string::npos) << m;
    EXPECT_NE(m.find("the petsc, trilinos backends offer it"), std::string::npos) << m;
    EXPECT_NE(m.find("m.other.preconditioner: 'amg'"), std::string::npos) << m;  // every problem at once
    EXPECT_NE(m.find("it offers: none, jacobi, ic0, ssor, direct"), std::string::npos) << m;
  }
}

// The preconditioner is a choice of every name a registered backend or the framework offers: a
// name no backend knows is refused by validation, naming the key, before the backend is asked.
TEST(LinearSolverParams, PreconditionerIsAChoiceOfTheRegistries) {
  registerBuiltins();
  const std::vector<std::string> names = la::preconditionerNames();
  EXPECT_EQ(names.front(), "none");
  for (const auto& [backend, entry] : la::backends().entries())
    for (const auto& pc : entry.nativePreconditioners)
      EXPECT_NE(std::find(names.begin(), names.end(), pc), names.end()) << backend << " " << pc;
  for (const auto& [pc, entry] : la::customPreconditioners().entries()) {
    const bool offered = std::find(names.begin(), names.end(), pc) != names.end();
    // For any operator: offered to every linear solver; a module's, for its own operator: not.
    EXPECT_EQ(offered, entry.forOperator.empty()) << pc;
  }

  ParamSchema schema;
  la::declareBackendParams(schema);
  la::linearSolverBindings().declare(schema, "m.solver");
  const ParamSpec* spec = schema.find("m.solver.preconditioner");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->type, ParamType::choice);
  EXPECT_EQ(spec->choices, names);
  for (const char* yaml : {"m: {solver: {preconditioner: ilu}}\n", "m: {solver: {preconditioner: jacobbi}}\n"}) {
    Config c = Config::fromString(yaml, "scene.yaml");
    try {
      c.validate(schema);
      ADD_FAILURE() << yaml << " was accepted";
    } catch (const InputError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("m.solver.preconditioner"), std::string::npos) << m;
      EXPECT_NE(m.find("is not one of none|"), std::string::npos) << m;
    }
  }
  Config typo = Config::fromString("m: {solver: {preconditioner: jacobbi}}\n", "scene.yaml");
  EXPECT_NE(messageOf([&] { typo.validate(schema); }).find("did you mean 'jacobi'"), std::string::npos);
}

TEST(LinearSolverParams, OneBindingNestsUnderAnotherStructsKey) {
  struct Outer {
    int n = 3;
    la::LinearSolverOptions solver;
  };
  ParamBindings<Outer> b;
  b.integer("n", &Outer::n, Range::atLeast(1), "n");
  b.nested("solver", &Outer::solver, la::linearSolverBindings());
  ParamSchema schema;
  b.declare(schema, "m");
  Config c = Config::fromString("m: {solver: {type: gmres, native: {petsc: '-ksp_view'}}}\n");
  c.validate(schema);
  const Outer o = b.read(c, "m");
  EXPECT_EQ(o.solver.type, "gmres");
  EXPECT_EQ(o.solver.prefix, "m_solver_");
  ASSERT_EQ(o.solver.native.count("petsc"), 1u);
  EXPECT_NE(o.solver.native.at("petsc").find("-ksp_view"), std::string::npos);
}

TEST(BackendParams, ChoiceOfRegisteredBackends) {
  registerBuiltins();
  ParamSchema schema;
  la::declareBackendParams(schema);
  const ParamSpec* s = schema.find("backend.name");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->choices, la::backends().names());
  if (la::backends().has("eigen")) {
    EXPECT_EQ(s->defaultString(), "eigen");
    Config c = Config::fromString("{}");
    c.validate(schema);
    EXPECT_EQ(la::createBackend(c)->name(), "eigen");
  }
  Config bad = Config::fromString("backend: {name: nosuchbackend}");
  EXPECT_THROW(bad.validate(schema), InputError);
  EXPECT_THROW((void)la::backends().get("nosuchbackend"), InputError);
  for (const std::string& n : la::backends().names()) EXPECT_EQ(makeBackend(n)->name(), n);
}

}  // namespace
}  // namespace kinema::test

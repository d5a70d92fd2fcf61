// The parameter helpers: linear solver options under a prefix, and the backend choice.
#include <gtest/gtest.h>

#include "framework/la/linear_solver_params.hpp"
#include "la_test_util.hpp"

namespace kinema::test {
namespace {

TEST(LinearSolverParams, DefaultsAndOverrides) {
  ParamSchema schema;
  la::LinearSolverOptions defaults;
  defaults.type = "minres";
  defaults.rtol = 1e-6;
  la::declareLinearSolverParams(schema, "poisson.solver", defaults);
  for (const char* k : {"type", "preconditioner", "rtol", "atol", "max_iterations", "restart"}) {
    const ParamSpec* s = schema.find(std::string("poisson.solver.") + k);
    ASSERT_NE(s, nullptr) << k;
    EXPECT_FALSE(s->help.empty()) << k;
  }

  Config c = Config::fromString("poisson:\n  solver:\n    type: gmres\n    preconditioner: ssor\n"
                                "    rtol: 1.0e-9\n    restart: 50\n");
  c.validate(schema);
  la::LinearSolverOptions o = la::readLinearSolverOptions(c, "poisson.solver");
  EXPECT_EQ(o.type, "gmres");
  EXPECT_EQ(o.preconditioner, "ssor");
  EXPECT_DOUBLE_EQ(o.rtol, 1e-9);
  EXPECT_EQ(o.atol, defaults.atol);
  EXPECT_EQ(o.maxIterations, defaults.maxIterations);
  EXPECT_EQ(o.restart, 50);
  EXPECT_EQ(o.prefix, "poisson_solver_");

  Config d = Config::fromString("{}");
  d.validate(schema);
  la::LinearSolverOptions od = la::readLinearSolverOptions(d, "poisson.solver");
  EXPECT_EQ(od.type, "minres");
  EXPECT_DOUBLE_EQ(od.rtol, 1e-6);
  EXPECT_EQ(od.preconditioner, defaults.preconditioner);
}

TEST(LinearSolverParams, RejectsBadValues) {
  ParamSchema schema;
  la::declareLinearSolverParams(schema, "s");
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
  la::declareLinearSolverParams(schema, "m.solver");
  la::declareLinearSolverParams(schema, "m.other");
  auto check = [&](const std::string& yaml) {
    Config c = Config::fromString(yaml, "scene.yaml");
    c.validate(schema);
    la::checkLinearSolverChoices(c, schema);
  };
  EXPECT_NO_THROW(check("backend: {name: eigen}\nm: {solver: {preconditioner: ic0}}\n"));
  EXPECT_NO_THROW(check("backend: {name: eigen}\nm: {solver: {preconditioner: none}}\n"));
  EXPECT_NO_THROW(check("backend: {name: petsc}\nm: {solver: {preconditioner: amg}}\n"));
  try {
    check("backend: {name: eigen}\nm:\n  solver: {preconditioner: amg}\n  other: {preconditioner: ilu}\n");
    ADD_FAILURE() << "amg on eigen and an unknown name were accepted";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("scene.yaml:3"), std::string::npos) << m;
    EXPECT_NE(m.find("m.solver.preconditioner: 'amg' is not a preconditioner of the eigen backend"), std::string::npos) << m;
    EXPECT_NE(m.find("the petsc, trilinos backends offer it"), std::string::npos) << m;
    EXPECT_NE(m.find("m.other.preconditioner: 'ilu'"), std::string::npos) << m;  // every problem at once
    EXPECT_NE(m.find("it offers: none, jacobi, ic0, ssor, direct"), std::string::npos) << m;
  }
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

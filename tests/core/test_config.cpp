// Config: YAML + --set overrides validated against a schema, with file:line messages.
#include <gtest/gtest.h>

#include <fstream>

#include "framework/core/config.hpp"
#include "framework/core/error.hpp"
#include "test_util.hpp"

using namespace kinema;

namespace {

ParamSchema demoSchema() {
  ParamSchema s;
  s.addChoice("module", "poisson", {"poisson", "der"}, "the module").required = true;
  s.addInt("poisson.n", 16, Range::closed(2, 4096), "cells per direction");
  s.addReal("poisson.solver.rtol", 1e-8, Range::leftOpen(0, 1), "relative tolerance");
  s.addBool("output.overwrite", false, "replace an earlier run");
  s.addString("output.directory", "", "where results go");
  s.addChoice("poisson.solution", "exponential", {"exponential", "sine"}, "solution");
  s.addRealList("gravity", {0, 0, -9.81}, 3, "gravity vector");
  s.addTree("backend.petsc", "native PETSc options");
  s.addReal("strength", 1.0, Range::positive(), "breaking strength").infiniteMeans("unbreakable");
  s.addReal("speed", 1.0, Range::atLeast(0), "initial speed");
  return s;
}

std::string errorOf(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  ParamSchema schema = demoSchema();
  try {
    Config c = Config::fromString(yaml, "scene.yaml");
    for (const auto& s : sets) c.set(s);
    c.validate(schema);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Config, YamlTextReadsBackTheSameTree) {
  // What a pass-through tree becomes on its way to framework/la: quoted scalars stay strings.
  const YAML::Node n = YAML::Load("{belos: {a: '7', b: 7, c: \"x y\", d: [1, 2.5], e: ~}}");
  const YAML::Node back = YAML::Load(yamlText(n));
  EXPECT_EQ(back["belos"]["a"].Tag(), "!");
  EXPECT_EQ(back["belos"]["a"].Scalar(), "7");
  EXPECT_NE(back["belos"]["b"].Tag(), "!");
  EXPECT_EQ(back["belos"]["b"].Scalar(), "7");
  EXPECT_EQ(back["belos"]["c"].Scalar(), "x y");
  EXPECT_EQ(back["belos"]["d"][1].Scalar(), "2.5");
  EXPECT_TRUE(back["belos"]["e"].IsNull());
  EXPECT_EQ(YAML::Load(yamlText(YAML::Load("-ksp_rtol 1e-9 -pc_type gamg"))).Scalar(), "-ksp_rtol 1e-9 -pc_type gamg");
}

}  // namespace

TEST(Config, DefaultsAndGivenValues) {
  ParamSchema schema = demoSchema();
  Config c = Config::fromString("module: poisson\npoisson:\n  n: 32\n", "scene.yaml");
  c.validate(schema);
  EXPECT_EQ(c.getInt("poisson.n"), 32);
  EXPECT_DOUBLE_EQ(c.getReal("poisson.solver.rtol"), 1e-8);
  EXPECT_FALSE(c.getBool("output.overwrite"));
  EXPECT_EQ(c.getString("poisson.solution"), "exponential");
  EXPECT_EQ(c.getRealList("gravity"), (std::vector<double>{0, 0, -9.81}));
  EXPECT_TRUE(c.isSet("poisson.n"));
  EXPECT_FALSE(c.isSet("poisson.solver.rtol"));
}

TEST(Config, SetOverridesFileAndCreatesGroups) {
  ParamSchema schema = demoSchema();
  Config c = Config::fromString("module: poisson\npoisson:\n  n: 32\n", "scene.yaml");
  c.set("poisson.n=64");
  c.set("poisson.solver.rtol=1e-12");
  c.set("gravity=[0, -1, 0]");
  c.validate(schema);
  EXPECT_EQ(c.getInt("poisson.n"), 64);
  EXPECT_DOUBLE_EQ(c.getReal("poisson.solver.rtol"), 1e-12);
  EXPECT_EQ(c.getRealList("gravity"), (std::vector<double>{0, -1, 0}));
}

TEST(Config, UnknownKeyNamesFileLineAndSuggests) {
  std::string e = errorOf("module: poisson\npoisson:\n  nn: 32\n");
  EXPECT_NE(e.find("scene.yaml:3: poisson.nn: unknown key"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'poisson.n'"), std::string::npos) << e;
}

TEST(Config, UnknownGroupSuggestsGroup) {
  std::string e = errorOf("module: poisson\npoison:\n  n: 32\n");
  EXPECT_NE(e.find("scene.yaml:2: poison: unknown key"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'poisson'"), std::string::npos) << e;
}

TEST(Config, FarOffKeyGetsNoSuggestion) {
  std::string e = errorOf("module: poisson\nzzzzzzzzzz: 1\n");
  EXPECT_NE(e.find("zzzzzzzzzz: unknown key"), std::string::npos) << e;
  EXPECT_EQ(e.find("did you mean"), std::string::npos) << e;
}

TEST(Config, WrongTypes) {
  EXPECT_NE(errorOf("module: poisson\npoisson: {n: abc}\n").find("poisson.n: expected an integer, got 'abc'"),
            std::string::npos);
  EXPECT_NE(errorOf("module: poisson\npoisson: {n: 3.5}\n").find("expected an integer"), std::string::npos);
  EXPECT_NE(errorOf("module: poisson\noutput: {overwrite: maybe}\n").find("expected true or false"),
            std::string::npos);
  EXPECT_NE(errorOf("module: poisson\npoisson: {solver: {rtol: [1]}}\n").find("expected real, got a list"),
            std::string::npos);
  EXPECT_NE(errorOf("module: poisson\npoisson: 5\n").find("poisson: is a group of parameters and must be a map"),
            std::string::npos);
  EXPECT_NE(errorOf("module: poisson\ngravity: [0, 1]\n").find("expected 3 values, got 2"), std::string::npos);
  EXPECT_NE(errorOf("module: poisson\npoisson: {n: }\n").find("poisson.n: has no value"), std::string::npos);
}

TEST(Config, OutOfRangeAndNaN) {
  std::string e = errorOf("module: poisson\npoisson:\n  n: 1\n");
  EXPECT_NE(e.find("scene.yaml:3: poisson.n: 1 is out of range [2, 4096]"), std::string::npos) << e;
  e = errorOf("module: poisson\npoisson: {solver: {rtol: 0}}\n");
  EXPECT_NE(e.find("poisson.solver.rtol: 0 is out of range (0, 1]"), std::string::npos) << e;
  e = errorOf("module: poisson\npoisson: {solver: {rtol: .nan}}\n");
  EXPECT_NE(e.find("poisson.solver.rtol: is NaN"), std::string::npos) << e;
}

TEST(Config, BadChoiceSuggests) {
  std::string e = errorOf("module: poisson\npoisson: {solution: sin}\n");
  EXPECT_NE(e.find("'sin' is not one of exponential|sine; did you mean 'sine'?"), std::string::npos) << e;
}

TEST(Config, OverrideErrorsNameTheOverride) {
  std::string e = errorOf("module: poisson\n", {"poisson.n=0"});
  EXPECT_NE(e.find("--set poisson.n=0: poisson.n: 0 is out of range"), std::string::npos) << e;
  e = errorOf("module: poisson\n", {"poisson.nx=4"});
  EXPECT_NE(e.find("--set poisson.nx=4: poisson.nx: unknown key; did you mean 'poisson.n'?"),
            std::string::npos) << e;
  EXPECT_THROW(Config::fromString("module: poisson").set("novalue"), InputError);
}

TEST(Config, EveryProblemIsReported) {
  std::string e = errorOf("module: poisson\npoisson: {n: 0, solution: x}\nbogus: 1\n");
  EXPECT_NE(e.find("3 problems"), std::string::npos) << e;
}

TEST(Config, MissingRequiredKey) {
  std::string e = errorOf("poisson: {n: 4}\n");
  EXPECT_NE(e.find("module: missing required key"), std::string::npos) << e;
}

TEST(Config, PassThroughTreeIsNotChecked) {
  ParamSchema schema = demoSchema();
  Config c = Config::fromString("module: poisson\nbackend:\n  petsc:\n    options: \"-ksp_monitor\"\n    anything: {x: 1}\n");
  c.validate(schema);
  EXPECT_EQ(c.tree("backend.petsc")["options"].as<std::string>(), "-ksp_monitor");
  // The same tree as text, and entry by entry, for layers that take plain strings.
  const std::optional<std::string> text = c.treeText("backend.petsc");
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(Config::fromString(*text).root()["anything"]["x"].as<int>(), 1) << *text;
  const std::map<std::string, std::string> entries = c.treeEntries("backend.petsc");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries.at("options"), "\"-ksp_monitor\"");  // quoted: it reads back as a string
  EXPECT_EQ(Config::fromString(entries.at("anything")).root()["x"].as<int>(), 1);
}

TEST(Config, AbsentPassThroughTreeHasNoText) {
  ParamSchema schema = demoSchema();
  Config c = Config::fromString("module: poisson\n");
  c.validate(schema);
  EXPECT_FALSE(c.treeText("backend.petsc").has_value());
  EXPECT_TRUE(c.treeEntries("backend.petsc").empty());
}

TEST(Config, UnreadableYamlNamesLine) {
  std::string e = errorOf("module: poisson\npoisson: {n: 3\nfoo: [\n");
  EXPECT_NE(e.find("scene.yaml:"), std::string::npos) << e;
  EXPECT_NE(e.find("unreadable YAML"), std::string::npos) << e;
}

TEST(Config, MissingFileAndNonMapRoot) {
  try {
    Config::loadFile("/nonexistent/scene.yaml");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/scene.yaml: no such scene file"), std::string::npos);
  }
  EXPECT_THROW(Config::fromString("- a\n- b\n", "list.yaml"), InputError);
}

TEST(Config, ShorthandExpands) {
  ParamSchema schema;
  schema.addChoice("backend.name", "eigen", {"eigen", "petsc"}, "backend");
  Config c = Config::fromString("backend: petsc\n");
  c.expandShorthand("backend", "name");
  c.validate(schema);
  EXPECT_EQ(c.getString("backend.name"), "petsc");
}

TEST(Config, ResolvedYamlRoundTrips) {
  ParamSchema schema = demoSchema();
  Config c = Config::fromString("module: poisson\npoisson: {n: 40}\n", "a.yaml");
  c.set("output.directory=out/x");
  c.validate(schema);
  // The resolved text must itself validate to the same values, defaults made explicit.
  Config again = Config::fromString(c.resolvedYaml(), "resolved.yaml");
  again.validate(schema);
  EXPECT_EQ(again.getInt("poisson.n"), 40);
  EXPECT_EQ(again.getString("output.directory"), "out/x");
  EXPECT_TRUE(again.isSet("poisson.solver.rtol"));
  EXPECT_DOUBLE_EQ(again.getReal("poisson.solver.rtol"), 1e-8);
}

TEST(Config, ReadingUndeclaredOrMistypedKeyIsAProgrammingError) {
  ParamSchema schema = demoSchema();
  Config c = Config::fromString("module: poisson\n");
  c.validate(schema);
  EXPECT_THROW(c.getInt("poisson.m"), Error);
  EXPECT_THROW(c.getReal("poisson.n"), Error);
}

// A repeated key or section would be read as only one of its values (yaml-cpp keeps both pairs):
// both places are named.
TEST(Config, RepeatedKeyIsAnErrorNamingBothLines) {
  const std::string e = errorOf("module: poisson\npoisson:\n  n: 8\n  n: 32\n");
  EXPECT_NE(e.find("scene.yaml:4: poisson.n: is given twice (first at scene.yaml:3)"), std::string::npos) << e;
}

TEST(Config, RepeatedSectionIsAnErrorNamingBothLines) {
  const std::string e = errorOf("module: poisson\npoisson:\n  n: 8\noutput:\n  overwrite: true\npoisson:\n  solution: sine\n");
  EXPECT_NE(e.find("scene.yaml:6: poisson: is given twice (first at scene.yaml:2)"), std::string::npos) << e;
}

// Infinity passes only where the key says what it means.
TEST(Config, InfinityOnlyWhereItMeansSomething) {
  EXPECT_EQ(errorOf("module: poisson\nstrength: .inf\n"), "");
  const std::string e = errorOf("module: poisson\nspeed: .inf\n");
  EXPECT_NE(e.find("scene.yaml:2: speed: .inf is infinite; this key takes finite values only (range >= 0)"),
            std::string::npos) << e;
  const std::string big = errorOf("module: poisson\n", {"speed=1e999"});
  EXPECT_NE(big.find("is infinite"), std::string::npos) << big;
  const std::string list = errorOf("module: poisson\ngravity: [0, 0, -.inf]\n");
  EXPECT_NE(list.find("gravity: list entry '-.inf' is infinite"), std::string::npos) << list;
  ParamSchema schema = demoSchema();
  EXPECT_NE(schema.describe("strength").find(".inf: unbreakable"), std::string::npos) << schema.describe("strength");
}

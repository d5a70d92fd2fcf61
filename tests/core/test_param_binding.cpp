// ParamBindings: one call binds key, default, range, help and field; declaring and reading come
// from the same list.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/core/config.hpp"
#include "framework/core/error.hpp"
#include "framework/core/param_binding.hpp"

using namespace kinema;

namespace {

enum class Search { none, armijo };

struct Inner {
  double rtol = 1e-6;
  int maxIt = 50;
};

struct Opts {
  double tol = 1e-4;
  long steps = 10;
  std::size_t count = 3;
  bool verbose = false;
  std::string name = "x";
  std::string method = "cg";
  Search search = Search::armijo;
  bool brute = false;
  std::vector<double> g{0, 0, -9.81};
  struct {
    double mu = 0.5;
  } box;
  double strength = 2.0;
  double derived = 0;  // not bound: box.mu * tol
  Inner inner;
};

const ParamBindings<Inner>& innerBindings() {
  static const ParamBindings<Inner> b = [] {
    ParamBindings<Inner> r;
    r.real("rtol", &Inner::rtol, Range::leftOpen(0, 1), "relative tolerance");
    r.integer("max_it", &Inner::maxIt, Range::atLeast(1), "iterations at most");
    return r;
  }();
  return b;
}

const ParamBindings<Opts>& bindings() {
  static const ParamBindings<Opts> b = [] {
    ParamBindings<Opts> r;
    r.real("tol", &Opts::tol, Range::positive(), "tolerance");
    r.integer("steps", &Opts::steps, Range::closed(1, 1000), "steps");
    r.integer("count", &Opts::count, Range::atLeast(0), "count");
    r.boolean("verbose", &Opts::verbose, "talk");
    r.string("name", &Opts::name, "a name");
    r.choice("method", &Opts::method, {"cg", "gmres"}, "Krylov method");
    r.choiceOf("search", &Opts::search, {{"none", Search::none}, {"armijo", Search::armijo}}, "line search");
    r.choiceOf("mode", &Opts::brute, {{"certificates", false}, {"brute_force", true}}, "mode");
    r.realList("gravity", &Opts::g, 3, "gravity");
    r.real("box.mu", [](Opts& o) -> double& { return o.box.mu; }, Range::nonNegative(), "box half-width");
    r.real("strength", &Opts::strength, Range::positive(), "strength").infiniteMeans("unbreakable");
    r.nested("linear", &Opts::inner, innerBindings());
    r.then([](Opts& o) { o.derived = o.box.mu * o.tol; });
    return r;
  }();
  return b;
}

Config validated(const std::string& yaml, const ParamSchema& schema) {
  Config c = Config::fromString(yaml, "scene.yaml");
  c.validate(schema);
  return c;
}

}  // namespace

TEST(ParamBinding, DeclaresWithTheDefaultsFieldValues) {
  ParamSchema s;
  bindings().declare(s, "m");
  ASSERT_NE(s.find("m.tol"), nullptr);
  EXPECT_EQ(std::get<double>(s.find("m.tol")->defaultValue), 1e-4);
  EXPECT_EQ(std::get<long long>(s.find("m.steps")->defaultValue), 10);
  EXPECT_EQ(s.find("m.steps")->rangeString(), "[1, 1000]");
  EXPECT_EQ(std::get<std::string>(s.find("m.search")->defaultValue), "armijo");
  EXPECT_EQ(std::get<std::string>(s.find("m.mode")->defaultValue), "certificates");
  EXPECT_EQ(s.find("m.mode")->choices, (std::vector<std::string>{"certificates", "brute_force"}));
  EXPECT_EQ(std::get<double>(s.find("m.box.mu")->defaultValue), 0.5);
  EXPECT_EQ(s.find("m.strength")->infinity, "unbreakable");
  EXPECT_EQ(s.find("m.tol")->infinity, "");
  ASSERT_NE(s.find("m.linear.max_it"), nullptr);
  EXPECT_EQ(std::get<long long>(s.find("m.linear.max_it")->defaultValue), 50);
  EXPECT_EQ(s.find("m.linear.rtol")->help, "relative tolerance");

  // Other defaults: the declared defaults follow them.
  Opts other;
  other.tol = 0.25;
  other.search = Search::none;
  other.inner.maxIt = 7;
  ParamSchema s2;
  bindings().declare(s2, "", other);
  EXPECT_EQ(std::get<double>(s2.find("tol")->defaultValue), 0.25);
  EXPECT_EQ(std::get<std::string>(s2.find("search")->defaultValue), "none");
  EXPECT_EQ(std::get<long long>(s2.find("linear.max_it")->defaultValue), 7);
}

TEST(ParamBinding, ReadsEveryFieldFromTheValidatedConfig) {
  ParamSchema s;
  bindings().declare(s, "m");
  Config c = validated(
      "m:\n  tol: 0.5\n  steps: 7\n  count: 12\n  verbose: true\n  name: hello\n  method: gmres\n  search: none\n"
      "  mode: brute_force\n  gravity: [1, 2, 3]\n  box: {mu: 2}\n  strength: .inf\n  linear: {rtol: 0.125, max_it: 9}\n",
      s);
  const Opts o = bindings().read(c, "m");
  EXPECT_EQ(o.tol, 0.5);
  EXPECT_EQ(o.steps, 7);
  EXPECT_EQ(o.count, 12u);
  EXPECT_TRUE(o.verbose);
  EXPECT_EQ(o.name, "hello");
  EXPECT_EQ(o.method, "gmres");
  EXPECT_EQ(o.search, Search::none);
  EXPECT_TRUE(o.brute);
  EXPECT_EQ(o.g, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(o.box.mu, 2.0);
  EXPECT_TRUE(std::isinf(o.strength));
  EXPECT_EQ(o.inner.rtol, 0.125);
  EXPECT_EQ(o.inner.maxIt, 9);
  EXPECT_EQ(o.derived, 1.0);  // then(): after the fields it uses were read
}

TEST(ParamBinding, UnsetKeysReadTheirDefaults) {
  ParamSchema s;
  bindings().declare(s, "m");
  const Opts o = bindings().read(validated("m: {}\n", s), "m");
  const Opts d;
  EXPECT_EQ(o.tol, d.tol);
  EXPECT_EQ(o.steps, d.steps);
  EXPECT_EQ(o.search, d.search);
  EXPECT_EQ(o.inner.maxIt, d.inner.maxIt);
  EXPECT_EQ(o.derived, d.box.mu * d.tol);
}

TEST(ParamBinding, ValidationUsesTheBoundRangeAndChoices) {
  ParamSchema s;
  bindings().declare(s, "m");
  EXPECT_THROW(validated("m: {steps: 0}\n", s), InputError);
  EXPECT_THROW(validated("m: {search: wolfe}\n", s), InputError);
  EXPECT_THROW(validated("m: {tol: .inf}\n", s), InputError);  // no infinite meaning declared
  EXPECT_THROW(validated("m: {linear: {rtol: 2}}\n", s), InputError);
}

TEST(ParamBinding, AKeyBoundTwiceOrADefaultWithoutANameIsRefused) {
  ParamBindings<Opts> b;
  b.real("tol", &Opts::tol, Range::positive(), "tolerance");
  EXPECT_THROW(b.real("tol", &Opts::strength, Range::positive(), "again"), Error);
  EXPECT_EQ(b.keys(), (std::vector<std::string>{"tol"}));

  ParamBindings<Opts> named;
  named.choiceOf("search", &Opts::search, {{"none", Search::none}}, "only none");
  ParamSchema s;
  EXPECT_THROW(named.declare(s, "m"), Error);  // the default armijo has no name
}

namespace {

std::vector<std::string>& registeredNames() {
  static std::vector<std::string> names{"alpha", "beta"};
  return names;
}

struct Late {
  std::string kind = "alpha";
  std::string who = "me";
  YAML::Node extra;
  std::string prefix;  // derived from the prefix read under
};

const ParamBindings<Late>& lateBindings() {
  static const ParamBindings<Late> b = [] {
    ParamBindings<Late> r;
    r.choiceFrom("kind", &Late::kind, [] { return registeredNames(); }, "a registered name");
    r.string("who", &Late::who, "who").required();
    r.tree("extra", &Late::extra, "passed through");
    r.thenWithPrefix([](Late& l, const std::string& prefix) { l.prefix = prefix; });
    return r;
  }();
  return b;
}

}  // namespace

TEST(ParamBinding, ChoicesFromARegistryAreAskedForWhenDeclared) {
  ParamSchema before;
  lateBindings().declare(before, "m");
  EXPECT_EQ(before.find("m.kind")->choices, (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_THROW(validated("m: {kind: gamma, who: x}\n", before), InputError);

  registeredNames().push_back("gamma");  // registered after the bindings were built (a plugin)
  ParamSchema after;
  lateBindings().declare(after, "m");
  EXPECT_EQ(after.find("m.kind")->type, ParamType::choice);
  EXPECT_EQ(lateBindings().read(validated("m: {kind: gamma, who: x}\n", after), "m").kind, "gamma");
  try {
    validated("m: {kind: gamam, who: x}\n", after);
    ADD_FAILURE() << "a typo of a registered name was accepted";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("m.kind"), std::string::npos) << m;
    EXPECT_NE(m.find("did you mean 'gamma'"), std::string::npos) << m;
  }
  registeredNames().pop_back();
}

TEST(ParamBinding, RequiredTreesAndFieldsDerivedFromThePrefix) {
  ParamSchema s;
  lateBindings().declare(s, "m.sub");
  EXPECT_TRUE(s.find("m.sub.who")->required);
  EXPECT_FALSE(s.find("m.sub.kind")->required);
  EXPECT_EQ(s.find("m.sub.extra")->type, ParamType::tree);
  EXPECT_THROW(validated("m: {sub: {kind: beta}}\n", s), InputError);  // who is required

  const Late l = lateBindings().read(validated("m: {sub: {who: you, extra: {a: 1, b: [2, 3]}}}\n", s), "m.sub");
  EXPECT_EQ(l.who, "you");
  ASSERT_TRUE(l.extra.IsMap());
  EXPECT_EQ(l.extra["a"].as<int>(), 1);
  EXPECT_EQ(l.prefix, "m.sub");
  const Late none = lateBindings().read(validated("m: {sub: {who: you}}\n", s), "m.sub");
  EXPECT_FALSE(none.extra.IsDefined() && !none.extra.IsNull());
}

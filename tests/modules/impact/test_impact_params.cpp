// The impact parameters: defaults round-trip into the option structs, values are read back,
// out-of-range and unknown values are InputErrors naming the key.
#include <gtest/gtest.h>

#include "framework/core/error.hpp"
#include "modules/impact/impact_params.hpp"

namespace kinema::impact {
namespace {

TEST(ImpactParams, DefaultsAndValuesRoundTrip) {
  ParamSchema schema;
  impactBindings().declare(schema, "impact");
  auto c = Config::fromString("impact:\n  operator: gs-cyclic\n  epsilon: 1.0e-8\n  arithmetic: exact\n"
                              "  restitution: 0.5\n  friction:\n    mu: 0.3\n");
  c.validate(schema);
  const ImpactParams p = impactBindings().read(c, "impact");
  EXPECT_EQ(p.op, "gs-cyclic");
  EXPECT_EQ(p.resolver.epsilon, 1e-8);
  EXPECT_EQ(p.resolver.arithmetic, Arithmetic::Exact);
  EXPECT_EQ(p.restitution, 0.5);
  EXPECT_EQ(p.friction.mu, 0.3);
  EXPECT_EQ(p.resolver.maxIterations, ResolverOptions{}.maxIterations);
  EXPECT_EQ(p.operatorOptions.qpTolerance, OperatorOptions{}.qpTolerance);
  EXPECT_TRUE(makeImpactOperator(p.op, p.operatorOptions) != nullptr);

  auto d = Config::fromString("impact: {}\n");
  d.validate(schema);
  const ImpactParams q = impactBindings().read(d, "impact");
  EXPECT_EQ(q.op, "gr");
  EXPECT_EQ(q.resolver.arithmetic, Arithmetic::Relaxed);  // the default mode
  EXPECT_EQ(q.resolver.epsilon, 1e-10);
}

TEST(ImpactParams, BadValuesAreInputErrors) {
  ParamSchema schema;
  impactBindings().declare(schema, "impact");
  for (const char* bad : {"impact:\n  restitution: 1.5\n", "impact:\n  operator: gs-lexicografic\n",
                          "impact:\n  epsilon: -1\n", "impact:\n  epsilonn: 1\n"}) {
    auto c = Config::fromString(bad);
    EXPECT_THROW(c.validate(schema), InputError) << bad;
  }
}

}  // namespace
}  // namespace kinema::impact

// The LP interface (framework/solvers/linear_program, lp_solver, lp_clp, lp_params): textbook LPs
// with known optima and duals, infeasible and unbounded problems, degenerate (cycling) examples, an
// iteration limit, invalid input, the parameter schema, and a 2000-variable random LP
// cross-checked against its explicitly built dual.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "framework/core/config.hpp"
#include "framework/core/error.hpp"
#include "framework/solvers/linear_program.hpp"
#include "framework/solvers/lp_clp.hpp"
#include "framework/solvers/lp_params.hpp"
#include "framework/solvers/lp_solver.hpp"

using namespace kinema;
using namespace kinema::solvers;

namespace {

constexpr double inf = LinearProgram::inf;

LpOptions withAlgorithm(const std::string& algorithm) {
  LpOptions o;
  o.algorithm = algorithm;
  return o;
}

class LpBothAlgorithms : public ::testing::TestWithParam<std::string> {
 protected:
  LpResult solve(const LinearProgram& lp) {
    auto solver = makeLpSolver(withAlgorithm(GetParam()));
    LpResult r = solver->solve(lp);
    EXPECT_EQ(static_cast<int>(r.x.size()), lp.numVariables());
    return r;
  }
};

}  // namespace

// Wyndor Glass (Hillier & Lieberman): max 3x + 5y, x <= 4, 2y <= 12, 3x + 2y <= 18, x, y >= 0.
// Optimum 36 at (2, 6); shadow prices (0, 3/2, 1).
TEST_P(LpBothAlgorithms, ProductionProblemMaximise) {
  LinearProgram lp(LpSense::maximize);
  const int x = lp.addVariable(0, inf, 3, "x");
  const int y = lp.addVariable(0, inf, 5, "y");
  lp.addRow({x}, {1}, -inf, 4, "plant 1");
  lp.addRow({y}, {2}, -inf, 12, "plant 2");
  lp.addRow({x, y}, {3, 2}, -inf, 18, "plant 3");
  const LpResult r = solve(lp);
  ASSERT_EQ(r.status, LpStatus::optimal) << r.message;
  EXPECT_NEAR(r.objective, 36.0, 1e-9);
  EXPECT_NEAR(r.x[x], 2.0, 1e-9);
  EXPECT_NEAR(r.x[y], 6.0, 1e-9);
  EXPECT_NEAR(r.duals[0], 0.0, 1e-9);
  EXPECT_NEAR(r.duals[1], 1.5, 1e-9);
  EXPECT_NEAR(r.duals[2], 1.0, 1e-9);
  EXPECT_NEAR(r.rowActivity[2], 18.0, 1e-9);
  EXPECT_NEAR(r.reducedCosts[x], 0.0, 1e-9);
  EXPECT_NEAR(r.reducedCosts[y], 0.0, 1e-9);
}

// Diet: min 2a + 3b, a + 2b >= 4 (protein), 3a + b >= 6 (energy), a, b >= 0.
// Optimum 34/5 at (8/5, 6/5); duals (7/5, 1/5).
TEST_P(LpBothAlgorithms, DietProblem) {
  LinearProgram lp;
  lp.addVariable(0, inf, 2, "a");
  lp.addVariable(0, inf, 3, "b");
  lp.addRow({0, 1}, {1, 2}, 4, inf, "protein");
  lp.addRow({0, 1}, {3, 1}, 6, inf, "energy");
  const LpResult r = solve(lp);
  ASSERT_EQ(r.status, LpStatus::optimal) << r.message;
  EXPECT_NEAR(r.objective, 34.0 / 5, 1e-9);
  EXPECT_NEAR(r.x[0], 8.0 / 5, 1e-9);
  EXPECT_NEAR(r.x[1], 6.0 / 5, 1e-9);
  EXPECT_NEAR(r.duals[0], 7.0 / 5, 1e-9);
  EXPECT_NEAR(r.duals[1], 1.0 / 5, 1e-9);
}

// Balanced transport, equality rows: supplies (20, 30), demands (10, 25, 15), costs
// [[2, 4, 5], [3, 1, 7]]. Unique optimum 125 with flows [[5, 0, 15], [5, 25, 0]].
TEST_P(LpBothAlgorithms, TransportEqualityConstrained) {
  const double cost[2][3] = {{2, 4, 5}, {3, 1, 7}};
  const double supply[2] = {20, 30}, demand[3] = {10, 25, 15};
  LinearProgram lp;
  for (int s = 0; s < 2; ++s)
    for (int t = 0; t < 3; ++t) lp.addVariable(0, inf, cost[s][t]);
  for (int s = 0; s < 2; ++s) lp.addRow({3 * s, 3 * s + 1, 3 * s + 2}, {1, 1, 1}, supply[s], supply[s]);
  for (int t = 0; t < 3; ++t) lp.addRow({t, 3 + t}, {1, 1}, demand[t], demand[t]);
  const LpResult r = solve(lp);
  ASSERT_EQ(r.status, LpStatus::optimal) << r.message;
  EXPECT_NEAR(r.objective, 125.0, 1e-9);
  const double expected[6] = {5, 0, 15, 5, 25, 0};
  for (int j = 0; j < 6; ++j) EXPECT_NEAR(r.x[j], expected[j], 1e-9) << "flow " << j;
  // Reduced costs of the two non-basic cells are the textbook 4 and 1 (up to the free shift of
  // the equality duals, which cancels in c - A^T y).
  EXPECT_NEAR(r.reducedCosts[1], 4.0, 1e-9);
  EXPECT_NEAR(r.reducedCosts[5], 1.0, 1e-9);
}

// Free variables with a finite optimum: min t s.t. t >= x - 3, t >= 3 - x (x, t free): 0 at x = 3.
TEST_P(LpBothAlgorithms, FreeVariablesAbsoluteValue) {
  LinearProgram lp;
  const int x = lp.addVariable(-inf, inf, 0, "x");
  const int t = lp.addVariable(-inf, inf, 1, "t");
  lp.addRow({t, x}, {1, -1}, -3, inf);
  lp.addRow({t, x}, {1, 1}, 3, inf);
  const LpResult r = solve(lp);
  ASSERT_EQ(r.status, LpStatus::optimal) << r.message;
  EXPECT_NEAR(r.objective, 0.0, 1e-9);
  EXPECT_NEAR(r.x[x], 3.0, 1e-9);
}

TEST_P(LpBothAlgorithms, InfeasibleRows) {
  LinearProgram lp;
  lp.addVariable(0, inf, 1);
  lp.addVariable(0, inf, 1);
  lp.addRow({0, 1}, {1, 1}, -inf, 1);
  lp.addRow({0, 1}, {1, 1}, 2, inf);
  const LpResult r = solve(lp);
  EXPECT_EQ(r.status, LpStatus::infeasible) << r.message;
}

TEST_P(LpBothAlgorithms, InfeasibleRowAgainstBounds) {
  LinearProgram lp(LpSense::maximize);
  lp.addVariable(0, 2, 1, "x");
  lp.addVariable(-1, 1, 1, "y");
  lp.addRow({0, 1}, {1, 1}, 3.5, 10);  // x + y <= 3 by the bounds
  const LpResult r = solve(lp);
  EXPECT_EQ(r.status, LpStatus::infeasible) << r.message;
}

// max x + y, x - y <= 1, x, y >= 0: unbounded along (1, 1).
TEST_P(LpBothAlgorithms, UnboundedPrimal) {
  LinearProgram lp(LpSense::maximize);
  lp.addVariable(0, inf, 1);
  lp.addVariable(0, inf, 1);
  lp.addRow({0, 1}, {1, -1}, -inf, 1);
  const LpResult r = solve(lp);
  EXPECT_EQ(r.status, LpStatus::unbounded) << r.message;
}

// min x s.t. x - y = 0 with x, y free: unbounded below.
TEST_P(LpBothAlgorithms, UnboundedWithFreeVariables) {
  LinearProgram lp;
  lp.addVariable(-inf, inf, 1, "x");
  lp.addVariable(-inf, inf, 0, "y");
  lp.addRow({0, 1}, {1, -1}, 0, 0);
  const LpResult r = solve(lp);
  EXPECT_EQ(r.status, LpStatus::unbounded) << r.message;
}

// Both primal infeasible and with an unbounded direction (x): Clp may report either; the
// interface documents that `unbounded` means "no finite optimum" when feasibility is unproven.
TEST_P(LpBothAlgorithms, InfeasibleWithUnboundedDirection) {
  LinearProgram lp;
  lp.addVariable(0, inf, -1, "x");
  lp.addVariable(0, 1, 0, "y");
  lp.addRow({1}, {1}, 2, inf);
  const LpResult r = solve(lp);
  EXPECT_TRUE(r.status == LpStatus::infeasible || r.status == LpStatus::unbounded) << r.message;
  std::printf("[lp] %s: infeasible + unbounded direction -> %s (%s)\n", GetParam().c_str(),
              toString(r.status).c_str(), r.message.c_str());
}

// Beale's (1955) cycling example: min -3/4 x4 + 150 x5 - 1/50 x6 + 6 x7,
// 1/4 x4 - 60 x5 - 1/25 x6 + 9 x7 <= 0, 1/2 x4 - 90 x5 - 1/50 x6 + 3 x7 <= 0, x6 <= 1, x >= 0.
// The origin is a degenerate vertex; the optimum is -1/20 at x4 = 1/25, x6 = 1.
TEST_P(LpBothAlgorithms, DegenerateBeale) {
  LinearProgram lp;
  lp.addVariable(0, inf, -0.75);
  lp.addVariable(0, inf, 150);
  lp.addVariable(0, inf, -0.02);
  lp.addVariable(0, inf, 6);
  lp.addRow({0, 1, 2, 3}, {0.25, -60, -1.0 / 25, 9}, -inf, 0);
  lp.addRow({0, 1, 2, 3}, {0.5, -90, -1.0 / 50, 3}, -inf, 0);
  lp.addRow({2}, {1}, -inf, 1);
  const LpResult r = solve(lp);
  ASSERT_EQ(r.status, LpStatus::optimal) << r.message;
  EXPECT_NEAR(r.objective, -0.05, 1e-10);
  EXPECT_NEAR(r.x[0], 0.04, 1e-10);
  EXPECT_NEAR(r.x[2], 1.0, 1e-10);
}

// Chvátal's cycling example (Linear Programming, ch. 3): max 10x1 - 57x2 - 9x3 - 24x4,
// 0.5x1 - 5.5x2 - 2.5x3 + 9x4 <= 0, 0.5x1 - 1.5x2 - 0.5x3 + x4 <= 0, x1 <= 1, x >= 0: optimum 1.
TEST_P(LpBothAlgorithms, DegenerateChvatalMaximise) {
  LinearProgram lp(LpSense::maximize);
  const double c[4] = {10, -57, -9, -24};
  for (double cj : c) lp.addVariable(0, inf, cj);
  lp.addRow({0, 1, 2, 3}, {0.5, -5.5, -2.5, 9}, -inf, 0);
  lp.addRow({0, 1, 2, 3}, {0.5, -1.5, -0.5, 1}, -inf, 0);
  lp.addRow({0}, {1}, -inf, 1);
  const LpResult r = solve(lp);
  ASSERT_EQ(r.status, LpStatus::optimal) << r.message;
  EXPECT_NEAR(r.objective, 1.0, 1e-10);
  EXPECT_NEAR(r.x[0], 1.0, 1e-10);
  EXPECT_NEAR(r.x[2], 1.0, 1e-10);
}

// Klee-Minty cube, n = 6: max sum 10^(n-j) x_j, 2 sum_{j<i} 10^(i-j) x_j + x_i <= 100^(i-1).
// Optimum 100^(n-1) at x = (0, ..., 0, 100^(n-1)).
TEST_P(LpBothAlgorithms, KleeMinty) {
  const int n = 6;
  LinearProgram lp(LpSense::maximize);
  for (int j = 1; j <= n; ++j) lp.addVariable(0, inf, std::pow(10.0, n - j));
  for (int i = 1; i <= n; ++i) {
    std::vector<int> idx;
    std::vector<double> val;
    for (int j = 1; j < i; ++j) {
      idx.push_back(j - 1);
      val.push_back(2 * std::pow(10.0, i - j));
    }
    idx.push_back(i - 1);
    val.push_back(1);
    lp.addRow(idx, val, -inf, std::pow(100.0, i - 1));
  }
  const LpResult r = solve(lp);
  ASSERT_EQ(r.status, LpStatus::optimal) << r.message;
  EXPECT_NEAR(r.objective, std::pow(100.0, n - 1), 1e-9 * std::pow(100.0, n - 1));
  EXPECT_NEAR(r.x[n - 1], std::pow(100.0, n - 1), 1e-9 * std::pow(100.0, n - 1));
}

// Only bounds, no rows: min x - y with x in [1, 2], y in [-3, 5]: -4.
TEST_P(LpBothAlgorithms, BoundsOnly) {
  LinearProgram lp;
  lp.addVariable(1, 2, 1);
  lp.addVariable(-3, 5, -1);
  const LpResult r = solve(lp);
  ASSERT_EQ(r.status, LpStatus::optimal) << r.message;
  EXPECT_NEAR(r.objective, -4.0, 1e-12);
  EXPECT_NEAR(r.reducedCosts[0], 1.0, 1e-12);
  EXPECT_NEAR(r.reducedCosts[1], -1.0, 1e-12);
}

// LP-1 of the impact spec (2.6) for three unit normals in the plane that positively span it
// (so Gordan's alternative (b) holds and t* = 0), and for two normals in a half-plane (t* > 0).
TEST_P(LpBothAlgorithms, ImpactLinealityLp1) {
  auto lp1 = [&](const std::vector<std::array<double, 2>>& normals) {
    LinearProgram lp(LpSense::maximize);
    lp.addVariables(2, -1, 1);  // w, box -1 <= w_k <= 1 (S = I)
    const int t = lp.addVariable(-inf, 1, 1, "t");
    for (const auto& n : normals) lp.addRow({0, 1, t}, {n[0], n[1], -1}, 0, inf);
    return solve(lp);
  };
  const double c = std::sqrt(3.0) / 2;
  const LpResult locked = lp1({{1, 0}, {-0.5, c}, {-0.5, -c}});
  ASSERT_EQ(locked.status, LpStatus::optimal) << locked.message;
  EXPECT_NEAR(locked.objective, 0.0, 1e-9);
  const LpResult free = lp1({{1, 0}, {0, 1}});
  ASSERT_EQ(free.status, LpStatus::optimal) << free.message;
  EXPECT_NEAR(free.objective, 1.0, 1e-9);  // w = (1, 1), t = min(1, 1) = 1
}

// Verification must not accept a wrong point: the building blocks used by the solver.
TEST(LinearProgram, ViolationMeasures) {
  LinearProgram lp;
  lp.addVariable(0, inf, 2, "a");
  lp.addVariable(0, inf, 3, "b");
  lp.addRow({0, 1}, {1, 2}, 4, inf, "protein");
  lp.addRow({0, 1}, {3, 1}, 6, inf, "energy");
  EXPECT_EQ(lp.primalViolation({1.6, 1.2}), 0.0);
  std::string where;
  EXPECT_NEAR(lp.primalViolation({2.0, 0.5}, &where), 0.25, 1e-15);
  EXPECT_EQ(where, "row 0 ('protein')");
  EXPECT_GT(lp.primalViolation({-1.0, 10.0}, &where), 0.5);
  EXPECT_EQ(where, "variable 0 ('a')");
  // Correct multipliers pass, wrong-signed or inconsistent ones fail.
  EXPECT_LT(lp.dualViolation({1.6, 1.2}, {1.4, 0.2}, {0, 0}, 1e-9), 1e-12);
  EXPECT_GT(lp.dualViolation({1.6, 1.2}, {-1.4, 0.2}, {0, 0}, 1e-9), 0.1);
  EXPECT_GT(lp.dualViolation({4.0, 0.0}, {2.0, 0.0}, {0, -1}, 1e-9, &where), 0.1);
  EXPECT_GT(lp.dualViolation({1.6, 1.2}, {1.4, 0.2}, {0.5, 0}, 1e-9), 0.1);
  EXPECT_NEAR(lp.objectiveValue({1.6, 1.2}), 6.8, 1e-12);
}

TEST(LinearProgram, InvalidInputNamesVariableOrRow) {
  LinearProgram lp;
  lp.addVariable(0, 1, 1, "w");
  lp.addVariable(0, 1, 1);
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no InputError");
  };
  EXPECT_NE(message([&] { lp.addVariable(2, 1, 0, "speed"); }).find("variable 2 ('speed'): lower bound 2 > upper bound 1"),
            std::string::npos);
  EXPECT_NE(message([&] { lp.addVariable(NAN, 1); }).find("variable 2: bound is NaN"), std::string::npos);
  EXPECT_NE(message([&] { lp.addVariable(0, 1, NAN); }).find("objective coefficient is nan"), std::string::npos);
  EXPECT_NE(message([&] { lp.addVariable(inf, inf); }).find("lower bound is +inf"), std::string::npos);
  EXPECT_NE(message([&] { lp.setBounds(0, 3, -3); }).find("variable 0 ('w'): lower bound 3 > upper bound -3"),
            std::string::npos);
  EXPECT_NE(message([&] { lp.setBounds(7, 0, 1); }).find("variable index 7 out of range"), std::string::npos);
  EXPECT_NE(message([&] { lp.addRow({0, 1}, {1, 1}, 5, 4, "cap"); }).find("row 0 ('cap'): lower bound 5 > upper bound 4"),
            std::string::npos);
  EXPECT_NE(message([&] { lp.addRow({0, 1}, {1, NAN}, 0, 1); }).find("row 0: coefficient of variable 1 is nan"),
            std::string::npos);
  EXPECT_NE(message([&] { lp.addRow({0, 1}, {1, 1}, NAN, 1); }).find("row 0: bound is NaN"), std::string::npos);
  EXPECT_NE(message([&] { lp.addRow({0, 2}, {1, 1}, 0, 1); }).find("row 0: variable index 2 out of range [0, 2)"),
            std::string::npos);
  EXPECT_NE(message([&] { lp.addRow({0, 0}, {1, 1}, 0, 1); }).find("variable 0 ('w') appears twice"),
            std::string::npos);
  EXPECT_NE(message([&] { lp.addRow({0}, {1, 1}, 0, 1); }).find("1 indices but 2 values"), std::string::npos);
  EXPECT_EQ(lp.numVariables(), 2);  // failed additions leave the LP unchanged
  EXPECT_EQ(lp.numRows(), 0);
  EXPECT_THROW(makeLpSolver(withAlgorithm("barrier")), InputError);
}

TEST(LpSolver, IterationLimitIsReported) {
  LpOptions o;
  o.maxIterations = 1;
  LinearProgram lp(LpSense::maximize);
  const int n = 6;
  for (int j = 1; j <= n; ++j) lp.addVariable(0, inf, std::pow(10.0, n - j));
  for (int i = 1; i <= n; ++i) {
    std::vector<int> idx;
    std::vector<double> val;
    for (int j = 1; j <= i; ++j) {
      idx.push_back(j - 1);
      val.push_back(j == i ? 1.0 : 2 * std::pow(10.0, i - j));
    }
    lp.addRow(idx, val, -inf, std::pow(100.0, i - 1));
  }
  for (const std::string alg : {"dual", "primal"}) {
    o.algorithm = alg;
    const LpResult r = makeLpSolver(o)->solve(lp);
    EXPECT_EQ(r.status, LpStatus::iteration_limit) << alg << ": " << r.message;
  }
}

TEST(LpSolver, NoVariables) {
  LinearProgram lp;
  lp.addRow({}, {}, -1, 1);
  EXPECT_EQ(makeLpSolver()->solve(lp).status, LpStatus::optimal);
  lp.addRow({}, {}, 1, 2);
  EXPECT_EQ(makeLpSolver()->solve(lp).status, LpStatus::infeasible);
}

TEST(LpParams, DeclareAndRead) {
  ParamSchema schema;
  lpBindings().declare(schema, "impact.lp");
  Config config = Config::fromString("impact:\n  lp:\n    algorithm: primal\n    max_iterations: 50\n");
  config.validate(schema);
  const LpOptions o = lpBindings().read(config, "impact.lp");
  EXPECT_EQ(o.algorithm, "primal");
  EXPECT_EQ(o.maxIterations, 50);
  EXPECT_EQ(o.feasibilityTolerance, LpOptions{}.feasibilityTolerance);
  EXPECT_EQ(makeLpSolver(o)->name(), "clp-primal");
  Config bad = Config::fromString("impact:\n  lp:\n    algorithm: barrier\n    feasibility_tolerance: -1\n");
  EXPECT_THROW(bad.validate(schema), InputError);
}

INSTANTIATE_TEST_SUITE_P(Clp, LpBothAlgorithms, ::testing::Values("dual", "primal"),
                         [](const auto& info) { return info.param; });

// A 2000-variable random sparse LP, feasible and bounded by construction, solved together with its
// explicitly built dual. Primal: min c^T x, rl <= A x <= ru, l <= x <= u. Dual (p, q, r, s >= 0):
//   max rl^T p - ru^T q + l^T r - u^T s   s.t.  A^T (p - q) + r - s = c,
// a multiplier being fixed at 0 where its bound is infinite.
TEST_P(LpBothAlgorithms, RandomLpAgainstItsDual) {
  const int n = 2000, m = 1200, perRow = 12;
  std::mt19937 rng(20261121);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> column(0, n - 1);

  LinearProgram primal;
  std::vector<double> x0(n);
  for (int j = 0; j < n; ++j) {
    const double l = -1.0 - 4.0 * unit(rng), u = 1.0 + 4.0 * unit(rng);
    x0[j] = l + (u - l) * unit(rng);
    primal.addVariable(l, u, normal(rng));
  }
  std::vector<std::vector<std::pair<int, double>>> cols(n);  // A by columns, for the dual
  for (int i = 0; i < m; ++i) {
    std::vector<int> idx;
    while (static_cast<int>(idx.size()) < perRow) {
      const int j = column(rng);
      if (std::find(idx.begin(), idx.end(), j) == idx.end()) idx.push_back(j);
    }
    std::vector<double> val(perRow);
    double act = 0.0;
    for (int k = 0; k < perRow; ++k) {
      val[k] = normal(rng);
      act += val[k] * x0[idx[k]];
      cols[idx[k]].push_back({i, val[k]});
    }
    // Row bounds around the activity of x0: two-sided, one-sided, or an equality.
    const int kind = i % 4;
    const double lo = kind == 3 ? act : (kind == 2 ? -inf : act - 0.5 * unit(rng));
    const double up = kind == 3 ? act : (kind == 1 ? inf : act + 0.5 * unit(rng));
    primal.addRow(idx, val, lo, up);
  }

  LinearProgram dual(LpSense::maximize);
  auto multiplier = [&](double bound, double sign) {
    return std::isfinite(bound) ? dual.addVariable(0, inf, sign * bound) : dual.addVariable(0, 0, 0);
  };
  std::vector<int> p(m), q(m), r(n), s(n);
  for (int i = 0; i < m; ++i) {
    p[i] = multiplier(primal.rowLower()[i], 1.0);
    q[i] = multiplier(primal.rowUpper()[i], -1.0);
  }
  for (int j = 0; j < n; ++j) {
    r[j] = multiplier(primal.lower()[j], 1.0);
    s[j] = multiplier(primal.upper()[j], -1.0);
  }
  for (int j = 0; j < n; ++j) {
    std::vector<int> idx;
    std::vector<double> val;
    for (const auto& [i, a] : cols[j]) {
      idx.insert(idx.end(), {p[i], q[i]});
      val.insert(val.end(), {a, -a});
    }
    idx.insert(idx.end(), {r[j], s[j]});
    val.insert(val.end(), {1.0, -1.0});
    dual.addRow(idx, val, primal.cost()[j], primal.cost()[j]);
  }

  auto solver = makeLpSolver(withAlgorithm(GetParam()));
  const LpResult P = solver->solve(primal);
  const LpResult D = solver->solve(dual);
  ASSERT_EQ(P.status, LpStatus::optimal) << P.message;
  ASSERT_EQ(D.status, LpStatus::optimal) << D.message;
  const double scale = std::max(1.0, std::abs(P.objective));

  // Strong duality.
  const double gap = std::abs(P.objective - D.objective) / scale;
  EXPECT_LT(gap, 1e-7) << "primal " << P.objective << " dual " << D.objective;

  // The primal's own multipliers: d = c - A^T y, complementary slackness, and the dual objective
  // they give equals the primal objective.
  const double tol = 1e-7;
  std::vector<double> aty(n, 0.0);
  for (int j = 0; j < n; ++j)
    for (const auto& [i, a] : cols[j]) aty[j] += a * P.duals[i];
  double dualObjective = 0.0, worstCs = 0.0, worstConsistency = 0.0;
  auto term = [&](double mult, double value, double lo, double up) {
    // min: a positive multiplier belongs to an active lower bound, a negative one to an upper.
    if (mult > 0) {
      EXPECT_TRUE(std::isfinite(lo));
      worstCs = std::max(worstCs, std::abs(mult) * std::abs(value - lo));
      return mult * lo;
    }
    if (mult < 0) {
      EXPECT_TRUE(std::isfinite(up));
      worstCs = std::max(worstCs, std::abs(mult) * std::abs(value - up));
      return mult * up;
    }
    return 0.0;
  };
  for (int i = 0; i < m; ++i)
    dualObjective += term(P.duals[i], P.rowActivity[i], primal.rowLower()[i], primal.rowUpper()[i]);
  for (int j = 0; j < n; ++j) {
    worstConsistency = std::max(worstConsistency, std::abs(P.reducedCosts[j] - (primal.cost()[j] - aty[j])));
    dualObjective += term(P.reducedCosts[j], P.x[j], primal.lower()[j], primal.upper()[j]);
  }
  EXPECT_LT(worstConsistency, tol);
  EXPECT_LT(worstCs, tol * scale);
  EXPECT_LT(std::abs(dualObjective - P.objective) / scale, 1e-7);

  // The dual LP's row multipliers are a primal solution (x = duals of the dual, up to sign).
  std::vector<double> xFromDual(D.duals);
  EXPECT_LT(primal.primalViolation(xFromDual), 1e-7);
  EXPECT_LT(std::abs(primal.objectiveValue(xFromDual) - P.objective) / scale, 1e-7);

  std::printf("[lp] %s: primal %d vars x %d rows (%d nnz): %d iterations, %.3f s, objective %.12g\n"
              "[lp] %s: dual   %d vars x %d rows (%d nnz): %d iterations, %.3f s, objective %.12g\n"
              "[lp] relative duality gap %.3e, |c^T x - b^T y|/|f| with the primal's duals %.3e (%.17g), "
              "max CS product %.3e, primal violation %.3e, dual violation %.3e\n",
              GetParam().c_str(), n, m, primal.numNonzeros(), P.iterations, P.seconds, P.objective,
              GetParam().c_str(), dual.numVariables(), dual.numRows(), dual.numNonzeros(), D.iterations,
              D.seconds, D.objective, gap, std::abs(dualObjective - P.objective) / scale, dualObjective, worstCs,
              P.primalViolation, P.dualViolation);
}

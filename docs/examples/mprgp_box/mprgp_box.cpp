// MPRGP (framework/solvers/mprgp.hpp, docs/solvers/mprgp.md) on three box-constrained QPs
//   min 1/2 x^T A x - b^T x  subject to  l <= x <= u
// whose answers are known, on the backend named by the first argument (default eigen). Exits 0
// when every answer matches, 1 otherwise.
//   1. A diagonal: the minimiser is x_i = clamp(b_i / a_i, l_i, u_i), independently per index.
//   2. A 2x2 problem solved by hand (below).
//   3. A 1D membrane over an obstacle, A = tridiag(-1, 2, -1): no closed form, so the answer is
//      checked by the KKT conditions, which a strictly convex QP's minimiser alone satisfies.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>

#include "framework/core/comm.hpp"
#include "framework/core/error.hpp"
#include "framework/core/mpi_context.hpp"
#include "apps/builtins.hpp"
#include "framework/core/registry.hpp"
#include "framework/la/backend.hpp"
#include "framework/la/index_map.hpp"
#include "framework/la/matrix_assembler.hpp"
#include "framework/solvers/mprgp.hpp"

using namespace kinema;

namespace {

int failures = 0;

void check(bool ok, const std::string& what, kinema::Comm comm) {
  if (comm.rank() == 0) std::printf("  %-64s %s\n", what.c_str(), ok ? "ok" : "FAILED");
  if (!ok) ++failures;
}

struct Qp {
  la::IndexMapPtr map;
  la::MatrixPtr A;
  std::unique_ptr<la::Vector> b, l, u, x;
};

// Assembles A (entry(i, j) for |i - j| <= 1) and fills b, l, u from functions of the global index.
Qp build(const la::Backend& backend, Comm comm, la::GlobalIndex n,
         const std::function<double(la::GlobalIndex, la::GlobalIndex)>& entry,
         const std::function<double(la::GlobalIndex)>& bf, const std::function<double(la::GlobalIndex)>& lf,
         const std::function<double(la::GlobalIndex)>& uf) {
  Qp q;
  q.map = la::IndexMap::uniform(comm, n);
  backend.requireUsable(*q.map);
  auto assembler = backend.createAssembler(q.map, q.map);
  assembler->begin();
  for (la::GlobalIndex i = q.map->ownedBegin(); i < q.map->ownedEnd(); ++i)
    for (la::GlobalIndex j = std::max<la::GlobalIndex>(0, i - 1); j <= std::min(n - 1, i + 1); ++j)
      if (const double a = entry(i, j); a != 0.0) assembler->addScalar(i, j, a);
  q.A = assembler->end();
  q.b = backend.createVector(q.map);
  q.l = backend.createVector(q.map);
  q.u = backend.createVector(q.map);
  q.x = backend.createVector(q.map);
  {
    auto b = q.b->view(), l = q.l->view(), u = q.u->view();
    for (la::GlobalIndex i = q.map->ownedBegin(); i < q.map->ownedEnd(); ++i) {
      const auto k = i - q.map->ownedBegin();
      b[k] = bf(i), l[k] = lf(i), u[k] = uf(i);
    }
  }
  q.x->set(0.0);
  return q;
}

solvers::MprgpStats solve(Qp& q, double rtol) {
  solvers::MprgpOptions options;
  options.rtol = rtol;
  solvers::Mprgp mprgp(options);
  mprgp.setOperator(q.A);
  return mprgp.solve(*q.b, *q.l, *q.u, *q.x);
}

}  // namespace

int main(int argc, char** argv) {
  MpiContext mpi(&argc, &argv);
  const Comm world = Comm::world();
  try {
    registerBuiltins();
    const std::string backendName = argc > 1 ? argv[1] : "eigen";
    auto backend = la::createBackend(backendName);
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (world.rank() == 0) std::printf("MPRGP on the %s backend, %d rank(s)\n", backendName.c_str(), world.size());

    // 1. Diagonal Hessian a_i = 1 + (i mod 7), b_i = sin(i), box [-0.2, 0.3] on most indices, one-sided
    //    or free on others: x_i = clamp(b_i / a_i, l_i, u_i).
    {
      const la::GlobalIndex n = 1000;
      auto a = [](la::GlobalIndex i) { return 1.0 + static_cast<double>(i % 7); };
      auto bf = [](la::GlobalIndex i) { return std::sin(static_cast<double>(i)); };
      auto lf = [](la::GlobalIndex i) { return i % 5 == 0 ? -inf : -0.2; };
      auto uf = [](la::GlobalIndex i) { return i % 11 == 0 ? inf : 0.3; };
      Qp q = build(*backend, world, n, [&](la::GlobalIndex i, la::GlobalIndex j) { return i == j ? a(i) : 0.0; },
                   bf, lf, uf);
      const auto stats = solve(q, 1e-12);
      double err = 0.0;
      {
        auto x = q.x->constView();
        for (la::GlobalIndex i = q.map->ownedBegin(); i < q.map->ownedEnd(); ++i)
          err = std::max(err, std::abs(x[i - q.map->ownedBegin()] - std::clamp(bf(i) / a(i), lf(i), uf(i))));
      }
      err = world.max(err);
      if (world.rank() == 0)
        std::printf("diagonal, n = %lld: %d iterations, max |x - clamp(b/a, l, u)| = %.3e\n",
                    static_cast<long long>(n), stats.iterations, err);
      check(stats.converged, "diagonal: converged", world);
      check(err < 1e-10, "diagonal: x_i = clamp(b_i / a_i, l_i, u_i)", world);
    }

    // 2. By hand: A = [2 1; 1 2], b = (4, -4), box [0, 1]^2. Unconstrained minimiser A^{-1} b = (4, -4),
    //    outside the box. Try x2 = 0 (its lower bound): then min over x1 of x1^2 - 4 x1 gives 2, so
    //    x1 = 1 (its upper bound). At x = (1, 0) the gradient A x - b = (-2, 5): negative at an upper
    //    bound and positive at a lower bound, so (1, 0) is the minimiser (objective 1 - 4 = -3).
    //    On Comm::self(): every rank solves it (any backend).
    {
      const double A[2][2] = {{2, 1}, {1, 2}}, bv[2] = {4, -4};
      Qp q = build(*backend, Comm::self(), 2, [&](la::GlobalIndex i, la::GlobalIndex j) { return A[i][j]; },
                   [&](la::GlobalIndex i) { return bv[i]; }, [](la::GlobalIndex) { return 0.0; },
                   [](la::GlobalIndex) { return 1.0; });
      const auto stats = solve(q, 1e-14);
      auto x = q.x->constView();
      const double e = std::max(std::abs(x[0] - 1.0), std::abs(x[1] - 0.0));
      if (world.rank() == 0)
        std::printf("2x2 by hand: %d iterations, x = (%.15g, %.15g), expected (1, 0)\n", stats.iterations, x[0], x[1]);
      check(world.max(e) < 1e-12, "2x2: x = (1, 0)", world);
    }

    // 3. Membrane over an obstacle: n interior points of (0, 1), A = tridiag(-1, 2, -1) / h and
    //    b_i = -10 h (-u'' = -10, u(0) = u(1) = 0, scaled by h; unconstrained u = 5 x (x - 1) sinks to
    //    -1.25), bounded below by the obstacle l(x) = -0.2 - 0.5 (x - 0.5)^2 and not above: the middle
    //    of the membrane rests on the obstacle, its ends do not.
    {
      const la::GlobalIndex n = 200;
      const double h = 1.0 / static_cast<double>(n + 1);
      auto xi = [&](la::GlobalIndex i) { return static_cast<double>(i + 1) * h; };
      auto lf = [&](la::GlobalIndex i) { return -0.2 - 0.5 * (xi(i) - 0.5) * (xi(i) - 0.5); };
      Qp q = build(*backend, world, n,
                   [&](la::GlobalIndex i, la::GlobalIndex j) { return (i == j ? 2.0 : -1.0) / h; },
                   [&](la::GlobalIndex) { return -10.0 * h; }, lf, [&](la::GlobalIndex) { return inf; });
      const auto stats = solve(q, 1e-12);
      // KKT: g = A x - b; g = 0 where x is off the obstacle, g >= 0 where it touches it.
      auto g = q.b->clone();
      q.A->apply(*q.x, *g);
      g->axpy(-1.0, *q.b);
      const double scale = q.b->normInf();
      double freeRes = 0.0, minContactForce = inf, infeasibility = 0.0;
      std::int64_t contacts = 0;
      {
        auto x = q.x->constView();
        auto gv = g->constView();
        for (la::GlobalIndex i = q.map->ownedBegin(); i < q.map->ownedEnd(); ++i) {
          const auto k = i - q.map->ownedBegin();
          infeasibility = std::max(infeasibility, lf(i) - x[k]);
          if (x[k] == lf(i)) {
            ++contacts;
            minContactForce = std::min(minContactForce, gv[k]);
          } else {
            freeRes = std::max(freeRes, std::abs(gv[k]));
          }
        }
      }
      freeRes = world.max(freeRes);
      minContactForce = world.min(minContactForce);
      infeasibility = world.max(infeasibility);
      contacts = world.sum(contacts);
      if (world.rank() == 0)
        std::printf("obstacle, n = %lld: %d iterations, %lld points in contact, free |g| <= %.3e, "
                    "contact g >= %.3e\n",
                    static_cast<long long>(n), stats.iterations, static_cast<long long>(contacts), freeRes, minContactForce);
      check(stats.converged, "obstacle: converged", world);
      check(infeasibility <= 0.0, "obstacle: every point on or above the obstacle", world);
      check(contacts > 0 && contacts < n, "obstacle: some but not all points in contact", world);
      check(freeRes <= 1e-9 * scale, "obstacle: KKT, gradient zero off the obstacle", world);
      check(minContactForce >= -1e-9 * scale, "obstacle: KKT, gradient >= 0 in contact", world);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mprgp_box: %s\n", e.what());
    return 2;
  }
  if (world.rank() == 0) std::printf(failures == 0 ? "all checks passed\n" : "%d check(s) FAILED\n", failures);
  return failures == 0 ? 0 : 1;
}

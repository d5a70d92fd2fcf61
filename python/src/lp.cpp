// kinema.solve_lp: a LinearProgram (framework/solvers/linear_program.hpp) from numpy arrays,
// solved by the framework's LP solver (Clp behind framework/solvers/lp_solver.hpp) with its
// independent verification: the status is always explicit, never a silent wrong answer.
//     minimize (or maximize)  c^T x
//     subject to              row_lower <= A x <= row_upper,   lower <= x <= upper
#include <pybind11/stl.h>

#include <limits>

#include "framework/solvers/linear_program.hpp"
#include "framework/solvers/lp_solver.hpp"
#include "python/src/bindings.hpp"

namespace kinema::python {
namespace {

using Dense = py::array_t<double, py::array::c_style | py::array::forcecast>;
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> vec(const std::optional<Dense>& a, py::ssize_t n, double fill, const char* what) {
  if (!a) return std::vector<double>(static_cast<std::size_t>(n), fill);
  if (a->ndim() != 1 || a->shape(0) != n) throw InputError(str("solve_lp: ", what, " must have ", n, " entries"));
  return {a->data(), a->data() + n};
}

py::array_t<double> out(const std::vector<double>& v) { return toArray(v.data(), {static_cast<py::ssize_t>(v.size())}); }

py::dict solve(const Dense& c, const std::optional<Dense>& A, const std::optional<Dense>& rowLower,
               const std::optional<Dense>& rowUpper, const std::optional<Dense>& lower,
               const std::optional<Dense>& upper, bool maximize, const std::string& algorithm) {
  if (c.ndim() != 1) throw InputError("solve_lp: c must be a vector (one cost per variable)");
  const py::ssize_t n = c.shape(0);
  py::ssize_t m = 0;
  if (A) {
    if (A->ndim() != 2 || A->shape(1) != n)
      throw InputError(str("solve_lp: A must be a matrix with ", n, " columns (one per variable)"));
    m = A->shape(0);
  }
  const auto rl = vec(rowLower, m, -kInf, "row_lower"), ru = vec(rowUpper, m, kInf, "row_upper");
  const auto l = vec(lower, n, 0.0, "lower"), u = vec(upper, n, kInf, "upper");

  solvers::LinearProgram lp(maximize ? solvers::LpSense::maximize : solvers::LpSense::minimize);
  for (py::ssize_t j = 0; j < n; ++j) lp.addVariable(l[j], u[j], c.data()[j]);
  for (py::ssize_t i = 0; i < m; ++i) {
    std::vector<int> idx;
    std::vector<double> val;
    for (py::ssize_t j = 0; j < n; ++j)
      if (const double a = A->data()[i * n + j]; a != 0.0) {
        idx.push_back(static_cast<int>(j));
        val.push_back(a);
      }
    lp.addRow(idx, val, rl[i], ru[i]);
  }
  solvers::LpOptions options;
  options.algorithm = algorithm;
  auto solver = solvers::makeLpSolver(options);
  solvers::LpResult r;
  {
    py::gil_scoped_release release;
    r = solver->solve(lp);
  }
  py::dict d;
  d["status"] = solvers::toString(r.status);
  d["optimal"] = r.optimal();
  d["objective"] = r.objective;
  d["x"] = out(r.x);
  d["row_activity"] = out(r.rowActivity);
  d["duals"] = out(r.duals);
  d["reduced_costs"] = out(r.reducedCosts);
  d["iterations"] = r.iterations;
  d["primal_violation"] = r.primalViolation;
  d["dual_violation"] = r.dualViolation;
  d["message"] = r.message;
  d["seconds"] = r.seconds;
  return d;
}

}  // namespace

void bindLp(py::module_& m) {
  m.def("solve_lp", &solve, py::arg("c"), py::arg("A") = py::none(), py::arg("row_lower") = py::none(),
        py::arg("row_upper") = py::none(), py::arg("lower") = py::none(), py::arg("upper") = py::none(),
        py::arg("maximize") = false, py::arg("algorithm") = "dual",
        R"(Solves min (or max) c^T x s.t. row_lower <= A x <= row_upper, lower <= x <= upper.

c: (n,); A: (m, n) dense (zeros are not stored) or None; row_lower / row_upper: (m,), -inf / inf
where unbounded (None: unbounded); lower / upper: (n,) (None: lower 0, upper inf, the usual
x >= 0). An equality row has row_lower == row_upper. algorithm: dual | primal (simplex).
Returns a dict: status (optimal, infeasible, unbounded, numerical_trouble, iteration_limit),
optimal, objective, x, row_activity, duals, reduced_costs, iterations, primal_violation,
dual_violation, message, seconds. Sign conventions of the duals: docs/solvers/lp.md.)");
}

}  // namespace kinema::python

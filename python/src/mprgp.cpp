// kinema.mprgp: the framework's MPRGP (framework/solvers/mprgp.hpp) on a dense box-constrained QP
//   min 1/2 x^T A x - b^T x  subject to  lower <= x <= upper
// given as numpy arrays, solved on one rank (MPI_COMM_SELF) with a backend's vectors and matrix.
#include <pybind11/stl.h>

#include <limits>

#include "framework/core/comm.hpp"
#include "framework/la/backend.hpp"
#include "framework/la/index_map.hpp"
#include "framework/la/matrix_assembler.hpp"
#include "framework/solvers/mprgp.hpp"
#include "python/src/bindings.hpp"

namespace kinema::python {
namespace {

using Dense = py::array_t<double, py::array::c_style | py::array::forcecast>;
constexpr double kInf = std::numeric_limits<double>::infinity();

la::VectorPtr upload(const la::Backend& backend, const la::IndexMapPtr& map, const double* values) {
  auto v = backend.createVector(map);
  auto view = v->view();
  for (la::LocalIndex i = 0; i < v->ownedSize(); ++i) view[i] = values[i];
  return v;
}

// A bound argument: None = unbounded (fill), else n values (+-inf allowed).
std::vector<double> bound(const std::optional<Dense>& a, py::ssize_t n, double fill, const char* what) {
  if (!a) return std::vector<double>(static_cast<std::size_t>(n), fill);
  if (a->ndim() != 1 || a->shape(0) != n)
    throw InputError(str("mprgp: ", what, " must have ", n, " entries (one per row of A)"));
  return {a->data(), a->data() + n};
}

py::dict solve(const Dense& A, const Dense& b, const std::optional<Dense>& lower, const std::optional<Dense>& upper,
               const std::optional<Dense>& x0, double rtol, double atol, int maxIterations,
               const std::string& preconditioner, const std::string& backendName) {
  if (A.ndim() != 2 || A.shape(0) != A.shape(1))
    throw InputError(str("mprgp: A must be a square matrix; got ", A.ndim(), " dimensions"));
  const py::ssize_t n = A.shape(0);
  if (b.ndim() != 1 || b.shape(0) != n) throw InputError(str("mprgp: b must have ", n, " entries (one per row of A)"));
  const auto l = bound(lower, n, -kInf, "lower"), u = bound(upper, n, kInf, "upper");
  const auto start = bound(x0, n, 0.0, "x0");
  ensureMpi();

  la::BackendPtr backend = la::createBackend(backendName);
  auto map = la::IndexMap::uniform(Comm::self(), n);
  auto assembler = backend->createAssembler(map, map);
  assembler->begin();
  const double* a = A.data();
  for (py::ssize_t i = 0; i < n; ++i)
    for (py::ssize_t j = 0; j < n; ++j)
      if (a[i * n + j] != 0.0) assembler->addScalar(i, j, a[i * n + j]);
  std::shared_ptr<la::Matrix> matrix = assembler->end();
  auto bv = upload(*backend, map, b.data()), lv = upload(*backend, map, l.data()), uv = upload(*backend, map, u.data());
  auto xv = upload(*backend, map, start.data());

  solvers::MprgpOptions options;
  options.rtol = rtol;
  options.atol = atol;
  options.maxIterations = maxIterations;
  solvers::Mprgp mprgp(options);
  mprgp.setOperator(matrix);
  if (preconditioner != "none") mprgp.setPreconditioner(backend->createPreconditioner(preconditioner));
  solvers::MprgpStats st;
  {
    py::gil_scoped_release release;
    st = mprgp.solve(*bv, *lv, *uv, *xv);
  }
  py::array_t<double> x(n);
  {
    auto view = std::as_const(*xv).view();
    for (py::ssize_t i = 0; i < n; ++i) x.mutable_at(i) = view[static_cast<la::LocalIndex>(i)];
  }
  py::dict r;
  r["x"] = x;
  r["iterations"] = st.iterations;
  r["converged"] = st.converged;
  r["reason"] = std::string(name(st.reason));
  r["cg_steps"] = st.cgSteps;
  r["expansion_steps"] = st.expansionSteps;
  r["proportioning_steps"] = st.proportioningSteps;
  r["matvecs"] = st.matvecs;
  r["projected_gradient"] = st.finalProjectedGradient;
  r["initial_projected_gradient"] = st.initialProjectedGradient;
  r["seconds"] = st.seconds;
  return r;
}

}  // namespace

void bindMprgp(py::module_& m) {
  m.def("mprgp", &solve, py::arg("A"), py::arg("b"), py::arg("lower") = py::none(), py::arg("upper") = py::none(),
        py::arg("x0") = py::none(), py::arg("rtol") = 1e-8, py::arg("atol") = 0.0, py::arg("max_iterations") = 10000,
        py::arg("preconditioner") = "none", py::arg("backend") = "eigen",
        R"(Solves min 1/2 x^T A x - b^T x subject to lower <= x <= upper with MPRGP.

A: (n, n) symmetric positive definite (dense; zeros are not stored); b: (n,); lower, upper:
(n,) with -inf / inf where unbounded (None: unbounded); x0: the initial guess (projected onto the
box). Stops when the projected gradient is below max(atol, rtol * its initial value). Returns a
dict: x, iterations, converged, reason, cg_steps, expansion_steps, proportioning_steps, matvecs,
projected_gradient, initial_projected_gradient, seconds.)");
}

}  // namespace kinema::python

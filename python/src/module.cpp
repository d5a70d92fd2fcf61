// The `_kinema` extension module: the C++ side of the `kinema` Python package (docs/python.md).
// Registration happens at import, as in the CLI: the built-in modules and backends, then the
// plugins named by the environment (framework/core/plugins.hpp).
#include <pybind11/stl.h>

#include "framework/core/plugins.hpp"
#include "apps/builtins.hpp"
#include "framework/core/registry.hpp"
#include "framework/core/version.hpp"
#include "framework/la/backend.hpp"
#include "framework/run/module.hpp"
#include "python/src/bindings.hpp"

namespace kinema::python {

py::array_t<double> toArray(const double* data, std::vector<py::ssize_t> shape) {
  py::array_t<double> a(shape);
  std::copy(data, data + a.size(), a.mutable_data());
  return a;
}

}  // namespace kinema::python

PYBIND11_MODULE(_kinema, m) {
  namespace kp = kinema::python;
  namespace py = pybind11;
  m.doc() = "Kinema: contact, impact, fracture and rod mechanics (docs/python.md)";
  m.attr("__version__") = KINEMA_VERSION_STRING;
  kp::bindErrors(m);  // first: the calls below may already throw
  kp::bindMpi(m);
  kinema::registerBuiltins();
  kinema::plugins::loadFromEnvironment();
  m.def(
      "load_plugins",
      [](const std::string& path) { return kinema::plugins::loadPath(path, "kinema.load_plugins"); },
      py::arg("path"),
      "Loads plugin files or directories (colon-separated), as --plugin-path; returns the files loaded.");
  m.def("modules", [] { return kinema::run::modules().names(); }, "Names of the registered modules.");
  m.def("backends", [] { return kinema::la::backends().names(); }, "Names of the registered backends.");
  kp::bindSimulation(m);
  kp::bindFrames(m);
  kp::bindMprgp(m);
  kp::bindLp(m);
  kp::bindImpact(m);
}

// Kinema's two error kinds as Python exceptions with the same messages (the full text the CLI
// prints, context lines included): kinema.Error (a RuntimeError) for failures while running and
// kinema.InputError for bad input. InputError derives from both kinema.Error (as in C++) and
// ValueError (what Python code expects for a bad argument).
#include "framework/core/error.hpp"
#include "python/src/bindings.hpp"

namespace kinema::python {

void bindErrors(py::module_& m) {
  // Created once and kept for the life of the interpreter (the translator below refers to them).
  static PyObject* error = PyErr_NewExceptionWithDoc(
      "kinema.Error", "A Kinema run or solver failed (kinema::Error); the message is the CLI's.",
      PyExc_RuntimeError, nullptr);
  py::tuple inputBases = py::make_tuple(py::handle(error), py::handle(PyExc_ValueError));
  static PyObject* inputError = PyErr_NewExceptionWithDoc(
      "kinema.InputError", "Bad input: scene, overrides, arguments or files (kinema::InputError).",
      inputBases.ptr(), nullptr);
  m.attr("Error") = py::handle(error);
  m.attr("InputError") = py::handle(inputError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      PyErr_SetString(inputError, e.what());
    } catch (const Error& e) {
      PyErr_SetString(error, e.what());
    }
  });
}

}  // namespace kinema::python

#pragma once
// The pieces of the `_kinema` extension, each defined in its own file and called from module.cpp.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <vector>

#include "framework/core/error.hpp"

namespace kinema::python {

namespace py = pybind11;

// mpi.cpp: MPI started on first use (as the CLI does), finalised at interpreter exit or, when
// mpi4py owns MPI, inside its MPI_Finalize.
void ensureMpi();
void bindMpi(py::module_& m);
// errors.cpp: kinema::InputError -> kinema.InputError (ValueError), kinema::Error -> kinema.Error.
void bindErrors(py::module_& m);
// simulation.cpp: the steppable run (framework/run/session.hpp).
void bindSimulation(py::module_& m);
// frames.cpp: frames.h5 and its diagnostics through the framework's HDF5 reader.
void bindFrames(py::module_& m);
// mprgp.cpp, lp.cpp, impact.cpp: the solvers on numpy arrays.
void bindMprgp(py::module_& m);
void bindLp(py::module_& m);
void bindImpact(py::module_& m);

// A float64 array of `shape` holding a copy of `data`.
py::array_t<double> toArray(const double* data, std::vector<py::ssize_t> shape);

}  // namespace kinema::python

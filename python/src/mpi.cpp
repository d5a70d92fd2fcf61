// MPI for the Python package, started as the CLI starts it (framework/core/mpi_context.hpp): at
// import under an MPI launcher (mpiexec: every rank initialises at once), else only when a
// Simulation or solver needs it, so `import kinema` stays fast. If mpi4py (or anyone) initialised
// MPI first, it is used as it is.
//
// Finalisation: the MpiContext runs the finalisers of the libraries that registered with it
// (PETSc, Kokkos) and then MPI_Finalize if this package initialised MPI. It must run before
// MPI_Finalize whoever calls that, so it is hooked twice: an attribute on MPI_COMM_SELF, whose
// delete callback MPI_Finalize calls first thing (when mpi4py owns MPI and finalises it at exit),
// and Python's atexit (kinema/__init__.py calls _finalize) when this package owns MPI.
#include <mpi.h>

#include <memory>

#include "framework/core/comm.hpp"
#include "framework/core/mpi_context.hpp"
#include "python/src/bindings.hpp"

namespace kinema::python {
namespace {

std::unique_ptr<MpiContext>& context() {
  static std::unique_ptr<MpiContext> c;
  return c;
}
bool g_hooked = false;

int onCommSelfDelete(MPI_Comm, int, void*, void*) {
  context().reset();  // MPI_Finalize is already running: the context does not call it again
  return MPI_SUCCESS;
}

// Once MPI is up: make sure MPI_Finalize (by whoever) runs our finalisers first.
void hookFinalize() {
  if (g_hooked || !MpiContext::mpiActive()) return;
  int key = MPI_KEYVAL_INVALID;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, onCommSelfDelete, &key, nullptr);
  MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
  g_hooked = true;
}

}  // namespace

void ensureMpi() {
  MpiContext::ensureMpi();
  hookFinalize();
}

void bindMpi(py::module_& m) {
  // Lazy, as `kinema check`: under a launcher MPI starts now, else at first use.
  context() = std::make_unique<MpiContext>(nullptr, nullptr, MpiContext::Init::lazy);
  hookFinalize();
  m.def("_finalize", [] { context().reset(); }, "Finalises MPI if this package started it (atexit).");
  m.def(
      "mpi_rank",
      [] {
        ensureMpi();
        return Comm::world().rank();
      },
      "This process's rank in MPI_COMM_WORLD (starts MPI if needed).");
  m.def(
      "mpi_size",
      [] {
        ensureMpi();
        return Comm::world().size();
      },
      "The number of ranks in MPI_COMM_WORLD (starts MPI if needed).");
}

}  // namespace kinema::python

#pragma once
// Owns MPI for the process: initialises it (unless someone already did) and, at destruction, runs
// the finalisers libraries registered (PETSc, Tpetra, ... in reverse order of initialisation)
// before MPI_Finalize. One process without mpiexec works too (MPI singleton).
//
// Initialisation may be deferred (`Init::lazy`): a process started without an MPI launcher then
// initialises MPI only when something needs it (ensureLibrary, or ensureMpi), so commands that
// never touch MPI (kinema --version, help, check on the eigen backend) do not pay for it
// (Open MPI's singleton start-up spawns a helper process: about half a second).
#include <functional>
#include <string>

#include "framework/core/comm.hpp"

namespace kinema {

class MpiContext {
 public:
  enum class Init { now, lazy };
  // `lazy` defers MPI_Init until ensureMpi() unless this process runs under an MPI launcher
  // (mpiexec, mpirun, srun), where every rank initialises at once as usual.
  MpiContext(int* argc, char*** argv, Init init = Init::now);
  ~MpiContext();
  MpiContext(const MpiContext&) = delete;
  MpiContext& operator=(const MpiContext&) = delete;

  Comm world() const { return Comm::world(); }

  // Initialises a library once per process (`init` runs now if `name` was not seen yet) and
  // registers its finaliser; finalisers run last-in first-out before MPI_Finalize.
  static void ensureLibrary(const std::string& name, const std::function<void()>& init,
                            std::function<void()> finalize);
  static bool libraryInitialised(const std::string& name);

  // Initialises MPI now if nobody did yet (a deferred MpiContext, or none at all).
  static void ensureMpi();
  // Whether MPI is initialised and not finalised.
  static bool mpiActive();
  // True when this process started under an MPI launcher (its environment says so).
  static bool underLauncher();
  // This process's rank in MPI_COMM_WORLD: from MPI when active, else from the launcher's
  // environment (0 without a launcher). Safe before MPI_Init.
  static int worldRank();

  // Aborts every rank (used when one rank fails and the others could hang in a collective).
  [[noreturn]] static void abort(int code);
};

}  // namespace kinema

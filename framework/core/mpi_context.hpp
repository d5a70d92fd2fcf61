#pragma once
// Owns MPI for the process: initialises it (unless someone already did) and, at destruction, runs
// the finalisers libraries registered (PETSc, Tpetra, ... in reverse order of initialisation)
// before MPI_Finalize. One process without mpiexec works too (MPI singleton).
#include <functional>
#include <string>

#include "framework/core/comm.hpp"

namespace kinema {

class MpiContext {
 public:
  MpiContext(int* argc, char*** argv);
  ~MpiContext();
  MpiContext(const MpiContext&) = delete;
  MpiContext& operator=(const MpiContext&) = delete;

  Comm world() const { return Comm::world(); }

  // Initialises a library once per process (`init` runs now if `name` was not seen yet) and
  // registers its finaliser; finalisers run last-in first-out before MPI_Finalize.
  static void ensureLibrary(const std::string& name, const std::function<void()>& init,
                            std::function<void()> finalize);
  static bool libraryInitialised(const std::string& name);

  // Aborts every rank (used when one rank fails and the others could hang in a collective).
  [[noreturn]] static void abort(int code);

 private:
  bool ownsMpi_ = false;
};

}  // namespace kinema

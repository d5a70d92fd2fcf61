#pragma once
// Shared plumbing of the PETSc backend: library start-up, conversion of PETSc error codes into
// kinema::Error (KINEMA_PETSC_CHECK), exceptions thrown inside PETSc callbacks (shell matrices and
// preconditioners) carried across PETSc's C frames, the 32-bit index check, and a private
// options database per solver.
#include <petscsys.h>

#include <exception>
#include <string>

#include "framework/core/error.hpp"
#include "framework/la/vector.hpp"

namespace kinema::la::petsc {

// Initialises PETSc once per process after MPI (MpiContext::ensureLibrary), with PETSc's error
// printing replaced by a handler that keeps the message for the exception KINEMA_PETSC_CHECK throws.
void ensureInitialised();
// True while PETSc objects may still be destroyed (initialised and not yet finalised).
bool alive();

// Throws kinema::Error with PETSc's message and the call site if `ierr` is non-zero. An exception
// stashed by a callback (see CallbackGuard) is rethrown instead: it is the real cause.
void check(PetscErrorCode ierr, const char* call, const char* file, int line);
#define KINEMA_PETSC_CHECK(call) ::kinema::la::petsc::check((call), #call, __FILE__, __LINE__)
// The message PETSc gave for the last error (cleared by the call).
std::string takeLastError();

// Runs framework code inside a PETSc callback: an exception is stored (to be rethrown by check()
// once PETSc has unwound) and turned into a PETSc error code.
template <class F>
PetscErrorCode callbackGuard(F&& f) noexcept;
void stashException(std::exception_ptr e) noexcept;

// The PETSc index of a map: throws an InputError if its global size exceeds PETSc's 32-bit range.
void requireIndexRange(const IndexMap& map);
inline PetscInt idx(GlobalIndex i) { return static_cast<PetscInt>(i); }

// "eigen" for kinema::la::eigen::EigenVector, the dynamic type's name otherwise.
std::string backendOf(const Vector& v);

// A private PETSc options database: a copy of the global one (PETSC_OPTIONS from the environment)
// plus strings inserted under an options prefix. Pushed as PETSc's default while the solver sets
// up and solves, so sub-solvers PETSc creates on the fly (block Jacobi blocks, multigrid levels,
// factorisations) read it too, and options given to one solver never reach another.
class OptionsDb {
 public:
  OptionsDb();
  ~OptionsDb();
  OptionsDb(const OptionsDb&) = delete;
  OptionsDb& operator=(const OptionsDb&) = delete;
  PetscOptions raw() const { return db_; }
  // Inserts `options` (e.g. "-ksp_type gmres -pc_type hypre") under `prefix`; a malformed string
  // throws an InputError naming `source` (where the user wrote it).
  void insert(const std::string& prefix, const std::string& options, const std::string& source);
  bool has(const std::string& prefix, const std::string& name) const;

  // RAII: this database is PETSc's default for the scope (re-entrant).
  class Scope {
   public:
    explicit Scope(const OptionsDb& db);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    const OptionsDb& db_;
    bool pushed_ = false;
  };

 private:
  PetscOptions db_ = nullptr;
  mutable int depth_ = 0;
};

// Checks that a malformed options string is rejected (InputError naming `source`).
void validateOptions(const std::string& options, const std::string& source);

template <class F>
PetscErrorCode callbackGuard(F&& f) noexcept {
  try {
    f();
    return 0;
  } catch (...) {
    stashException(std::current_exception());
    return PETSC_ERR_LIB;
  }
}

}  // namespace kinema::la::petsc

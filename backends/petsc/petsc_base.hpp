#pragma once
// Shared plumbing of the PETSc backend: library start-up, conversion of PETSc error codes into
// kinema::Error (KINEMA_PETSC_CHECK), exceptions thrown inside PETSc callbacks (shell matrices and
// preconditioners) carried across PETSc's C frames, the 32-bit index check, and a private
// options database per solver.
#include <petscsys.h>

#include <exception>
#include <string>
#include <vector>

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
//
// The options of every database that `track`s them are followed from insertion to destruction:
// whether PETSc read them (see beginOptionsReport).
class OptionsDb {
 public:
  explicit OptionsDb(bool track = true);
  ~OptionsDb();
  OptionsDb(const OptionsDb&) = delete;
  OptionsDb& operator=(const OptionsDb&) = delete;
  PetscOptions raw() const { return db_; }
  // Inserts `options` (e.g. "-ksp_type gmres -pc_type hypre") under `prefix`; a malformed string
  // throws an InputError naming `source` (where the user wrote it). A source "the ... defaults"
  // marks Kinema's own defaults, which the report of unused options leaves out.
  void insert(const std::string& prefix, const std::string& options, const std::string& source);
  bool has(const std::string& prefix, const std::string& name) const;
  // Adds to the report which of this database's options PETSc has read so far.
  void recordUse() const;

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
  struct Tracked {
    std::string source;   // where the user wrote it: backend.petsc.options, PETSC_OPTIONS, ...
    std::string written;  // the name as written, without the dash
    std::string full;     // the name in the database: options prefix + written
  };
  PetscOptions db_ = nullptr;
  mutable int depth_ = 0;
  bool track_ = true;
  std::vector<Tracked> tracked_;
};

// The report of options PETSc never used: a backend begins it when it is made and ends it when it
// is destroyed (after the run's solvers); when the last backend ends it, one warning (rank 0)
// names every option from backend.petsc.options, a solver's native.petsc or PETSC_OPTIONS that no
// options database has read (PetscOptionsLeftGet): misspelt options, or options of solvers the
// run did not create. A run that creates no solver (kinema check) reports nothing.
void beginOptionsReport();
void endOptionsReport() noexcept;

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

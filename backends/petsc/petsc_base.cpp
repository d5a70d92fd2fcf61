#include "backends/petsc/petsc_base.hpp"

#include <cxxabi.h>

#include <cctype>
#include <vector>

#include <cstdlib>
#include <memory>
#include <typeinfo>

#include "framework/core/mpi_context.hpp"

namespace kinema::la::petsc {

namespace {

thread_local std::string lastError;
thread_local std::exception_ptr stashed;

// PETSc calls this for every error, first where it is raised (PETSC_ERROR_INITIAL), then once per
// frame it passes through (PETSC_ERROR_REPEAT). Keep the original message and place; print nothing:
// the message reaches the user in the exception.
PetscErrorCode keepMessage(MPI_Comm, int line, const char* fun, const char* file, PetscErrorCode n,
                           PetscErrorType p, const char* mess, void*) {
  if (p == PETSC_ERROR_INITIAL) {
    const char* generic = nullptr;
    PetscErrorMessage(n, &generic, nullptr);
    std::string m = mess ? mess : "";
    while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
    lastError = str(generic ? generic : "PETSc error", m.empty() ? "" : ": ", m, " [", fun ? fun : "?",
                    "() at ", file ? file : "?", ":", line, "]");
  }
  return n;
}

}  // namespace

void ensureInitialised() {
  MpiContext::ensureLibrary(
      "petsc",
      [] {
        PetscBool already = PETSC_FALSE;
        PetscInitialized(&already);
        if (already) return;
        // MPI is up already (the app's or the test's MpiContext), so PETSc neither initialises
        // nor finalises it.
        if (PetscInitializeNoArguments() != 0) throw Error("PetscInitializeNoArguments failed");
        PetscPushErrorHandler(keepMessage, nullptr);
        // Crashes should reach the user (or the debugger) as they are, not as PETSc's abort.
        PetscPopSignalHandler();
      },
      [] {
        PetscBool finalized = PETSC_FALSE;
        PetscFinalized(&finalized);
        if (finalized) return;
        PetscPopErrorHandler();
        PetscFinalize();
      });
}

bool alive() { return PetscInitializeCalled && !PetscFinalizeCalled; }

std::string takeLastError() {
  std::string m = std::move(lastError);
  lastError.clear();
  return m;
}

void stashException(std::exception_ptr e) noexcept {
  if (!stashed) stashed = std::move(e);
}

void check(PetscErrorCode ierr, const char* call, const char* file, int line) {
  if (ierr == 0) return;
  if (stashed) {
    std::exception_ptr e = std::move(stashed);
    stashed = nullptr;
    lastError.clear();
    std::rethrow_exception(e);
  }
  std::string m = takeLastError();
  if (m.empty()) {
    const char* generic = nullptr;
    PetscErrorMessage(ierr, &generic, nullptr);
    m = generic ? generic : "unknown error";
  }
  throw Error(str("PETSc error ", static_cast<int>(ierr), ": ", m, "\n  in ", call, " (", file, ":", line,
                  ")"));
}

void requireIndexRange(const IndexMap& map) {
  if (map.globalSize() <= static_cast<GlobalIndex>(PETSC_MAX_INT)) return;
  throw InputError(str("the petsc backend uses 32-bit indices (Debian's PETSc); this map has ",
                       map.globalSize(),
                       " global entries; use the trilinos backend (64-bit) or a smaller problem"));
}

std::string backendOf(const Vector& v) {
  const char* mangled = typeid(v).name();
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(mangled, nullptr, nullptr, &status),
                                           std::free);
  std::string name = (status == 0 && d) ? d.get() : mangled;
  const std::string ns = "kinema::la::";
  if (name.rfind(ns, 0) == 0) {
    const std::size_t end = name.find("::", ns.size());
    if (end != std::string::npos) return name.substr(ns.size(), end - ns.size());
  }
  return name;
}

OptionsDb::OptionsDb() {
  KINEMA_PETSC_CHECK(PetscOptionsCreate(&db_));
  // Options PETSc read at start-up (the PETSC_OPTIONS environment variable) apply here too.
  char* global = nullptr;
  KINEMA_PETSC_CHECK(PetscOptionsGetAll(nullptr, &global));
  if (global && *global) {
    const PetscErrorCode ierr = PetscOptionsInsertString(db_, global);
    PetscFree(global);
    KINEMA_PETSC_CHECK(ierr);
  } else {
    PetscFree(global);
  }
}

OptionsDb::~OptionsDb() {
  if (db_ && alive()) PetscOptionsDestroy(&db_);
}

namespace {

// PETSc's PetscOptionsInsertString silently drops what it cannot parse (a value without an option,
// a second value), which would hide typos, so the syntax is checked here first: tokens split at
// white space (double quotes group), each option "-name" (letters, digits, underscores) followed
// by at most one value; a value may itself start with '-' when it is a number ("-1e-3").
void checkSyntax(const std::string& options, const std::string& source) {
  auto fail = [&](const std::string& why) {
    throw InputError(str("malformed PETSc options in ", source, ": \"", options, "\": ", why,
                         "; expected options like \"-ksp_type gmres -pc_type hypre -ksp_rtol 1e-8\""));
  };
  auto isKey = [](const std::string& t) {
    if (t.size() < 2 || t[0] != '-') return false;
    const char c = t[1];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return false;  // a negative number
    return true;
  };
  std::vector<std::string> tokens;
  std::size_t i = 0;
  while (i < options.size()) {
    if (std::isspace(static_cast<unsigned char>(options[i]))) {
      ++i;
      continue;
    }
    std::string t;
    while (i < options.size() && !std::isspace(static_cast<unsigned char>(options[i]))) {
      if (options[i] == '"') {
        const std::size_t close = options.find('"', i + 1);
        if (close == std::string::npos) fail("a double quote is not closed");
        t += options.substr(i + 1, close - i - 1);
        i = close + 1;
      } else {
        t += options[i++];
      }
    }
    tokens.push_back(t);
  }
  bool haveKey = false, haveValue = false;
  for (const std::string& t : tokens) {
    if (isKey(t)) {
      for (std::size_t k = 1; k < t.size(); ++k)
        if (!(std::isalnum(static_cast<unsigned char>(t[k])) || t[k] == '_'))
          fail(str("'", t, "' is not an option name (a dash, then letters, digits and underscores)"));
      haveKey = true;
      haveValue = false;
    } else if (!haveKey) {
      fail(str("'", t, "' is not an option (options start with a dash, e.g. -", t, ")"));
    } else if (haveValue) {
      fail(str("'", t, "' is a second value after an option that takes one"));
    } else {
      haveValue = true;
    }
  }
}

}  // namespace

void OptionsDb::insert(const std::string& prefix, const std::string& options, const std::string& source) {
  if (options.find_first_not_of(" \t\n\r") == std::string::npos) return;
  checkSyntax(options, source);
  const bool push = !prefix.empty();
  PetscErrorCode ierr = push ? PetscOptionsPrefixPush(db_, prefix.c_str()) : 0;
  if (ierr == 0) {
    ierr = PetscOptionsInsertString(db_, options.c_str());
    if (push) PetscOptionsPrefixPop(db_);
  }
  if (ierr != 0) {
    std::string m = takeLastError();
    throw InputError(str("malformed PETSc options in ", source, ": \"", options, "\" (", m,
                         "); expected options like \"-ksp_type gmres -pc_type hypre\"",
                         prefix.empty() ? "" : str(", which apply under the prefix '", prefix, "'")));
  }
}

bool OptionsDb::has(const std::string& prefix, const std::string& name) const {
  PetscBool set = PETSC_FALSE;
  KINEMA_PETSC_CHECK(PetscOptionsHasName(db_, prefix.empty() ? nullptr : prefix.c_str(), name.c_str(), &set));
  return set == PETSC_TRUE;
}

OptionsDb::Scope::Scope(const OptionsDb& db) : db_(db) {
  if (db_.depth_ == 0) {
    KINEMA_PETSC_CHECK(PetscOptionsPush(db_.db_));
    pushed_ = true;
  }
  ++db_.depth_;
}

OptionsDb::Scope::~Scope() {
  --db_.depth_;
  if (pushed_ && alive()) PetscOptionsPop();
}

void validateOptions(const std::string& options, const std::string& source) {
  OptionsDb scratch;
  scratch.insert("", options, source);
}

}  // namespace kinema::la::petsc

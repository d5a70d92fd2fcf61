#include "backends/petsc/petsc_base.hpp"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <typeinfo>
#include <utility>
#include <vector>

#include "framework/core/log.hpp"
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

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The options the user passed to PETSc (backend.petsc.options, a solver's native.petsc, the
// PETSC_OPTIONS environment variable) and whether any options database used them, i.e. whether
// PETSc ever read them (PetscOptionsLeftGet). One warning at the end of the run names those it
// never read: misspelt options, or options for a solver or preconditioner the run did not create.
struct OptionsUse {
  std::mutex mutex;
  std::map<std::pair<std::string, std::string>, bool> used;  // (source, "-name" as written) -> used
  std::set<const OptionsDb*> live;
  std::set<std::string> prefixes;  // the solvers' options prefixes, for the hint
  int backends = 0;
};

OptionsUse& optionsUse() {
  static OptionsUse u;
  return u;
}

constexpr const char* kGlobalSource = "PETSC_OPTIONS";

// The names PETSc has not read in `db` (nullptr: the global database), lower case, without a dash.
std::set<std::string> optionsLeft(PetscOptions db) {
  std::set<std::string> left;
  PetscInt n = 0;
  char** names = nullptr;
  char** values = nullptr;
  if (PetscOptionsLeftGet(db, &n, &names, &values) != 0) return left;
  for (PetscInt i = 0; i < n; ++i) {
    std::string name = names[i] ? names[i] : "";
    if (!name.empty() && name[0] == '-') name.erase(0, 1);
    left.insert(lower(name));
  }
  PetscOptionsLeftRestore(db, &n, &names, &values);
  return left;
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

OptionsDb::OptionsDb(bool track) : track_(track) {
  KINEMA_PETSC_CHECK(PetscOptionsCreate(&db_));
  // Options PETSc read at start-up (the PETSC_OPTIONS environment variable) apply here too.
  char* global = nullptr;
  KINEMA_PETSC_CHECK(PetscOptionsGetAll(nullptr, &global));
  if (global && *global) {
    const std::string text = global;
    const PetscErrorCode ierr = PetscOptionsInsertString(db_, global);
    PetscFree(global);
    KINEMA_PETSC_CHECK(ierr);
    if (track_) {
      // The names in PETSc's own listing ("-name value -name2 ..."); a dash before a digit or a
      // point starts a negative number, not a name.
      std::istringstream words(text);
      for (std::string w; words >> w;)
        if (w.size() > 1 && w[0] == '-' && !std::isdigit(static_cast<unsigned char>(w[1])) && w[1] != '.')
          tracked_.push_back({kGlobalSource, w.substr(1), w.substr(1)});
    }
  } else {
    PetscFree(global);
  }
  if (track_) {
    OptionsUse& u = optionsUse();
    std::lock_guard<std::mutex> lock(u.mutex);
    u.live.insert(this);
  }
}

OptionsDb::~OptionsDb() {
  if (track_) {
    OptionsUse& u = optionsUse();
    std::lock_guard<std::mutex> lock(u.mutex);
    try {
      recordUse();
    } catch (...) {
    }
    u.live.erase(this);
  }
  if (db_ && alive()) PetscOptionsDestroy(&db_);
}

namespace {

// PETSc's PetscOptionsInsertString silently drops what it cannot parse (a value without an option,
// a second value), which would hide typos, so the syntax is checked here first: tokens split at
// white space (double quotes group), each option "-name" (letters, digits, underscores) followed
// by at most one value; a value may itself start with '-' when it is a number ("-1e-3"). Returns
// the option names, without their dash.
std::vector<std::string> checkSyntax(const std::string& options, const std::string& source) {
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
  std::vector<std::string> names;
  for (const std::string& t : tokens) {
    if (isKey(t)) {
      for (std::size_t k = 1; k < t.size(); ++k)
        if (!(std::isalnum(static_cast<unsigned char>(t[k])) || t[k] == '_'))
          fail(str("'", t, "' is not an option name (a dash, then letters, digits and underscores)"));
      names.push_back(t.substr(1));
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
  return names;
}

}  // namespace

void OptionsDb::recordUse() const {
  if (!db_ || tracked_.empty() || !alive()) return;
  const std::set<std::string> left = optionsLeft(db_);
  OptionsUse& u = optionsUse();
  for (const Tracked& t : tracked_) {
    bool& used = u.used[{t.source, "-" + t.written}];
    used = used || !left.count(lower(t.full));
  }
}

void beginOptionsReport() {
  OptionsUse& u = optionsUse();
  std::lock_guard<std::mutex> lock(u.mutex);
  ++u.backends;
}

void endOptionsReport() noexcept {
  try {
    OptionsUse& u = optionsUse();
    std::lock_guard<std::mutex> lock(u.mutex);
    if (--u.backends > 0) return;
    if (u.used.empty()) {
      u.prefixes.clear();
      return;
    }
    // Databases still alive (solvers that outlive the backend) count as they stand now; options of
    // the environment may also have been read by the global database.
    for (const OptionsDb* db : u.live) db->recordUse();
    if (alive()) {
      const std::set<std::string> globalLeft = optionsLeft(nullptr);
      for (auto& [key, used] : u.used)
        if (key.first == kGlobalSource && !globalLeft.count(lower(key.second.substr(1)))) used = true;
    }
    std::string unused;
    bool global = false;
    for (const auto& [key, used] : u.used)
      if (!used) {
        unused += str(unused.empty() ? "" : ", ", key.second, " (", key.first, ")");
        global = global || key.first == kGlobalSource;
      }
    std::string prefixes, example;
    for (const std::string& p : u.prefixes) {
      prefixes += str(prefixes.empty() ? "" : ", ", p);
      if (example.empty()) example = str("-", p, "ksp_monitor");
    }
    u.used.clear();
    u.prefixes.clear();
    if (unused.empty()) return;
    // Kinema adds a solver's prefix to backend.petsc.options; PETSC_OPTIONS must carry it.
    const std::string hint = global && !prefixes.empty()
                                 ? str("; options in PETSC_OPTIONS need a solver's options prefix (this run's: ",
                                       prefixes, "), e.g. ", example)
                                 : std::string();
    log::warn("PETSc never used these options (misspelt, or for a solver or preconditioner this run did not "
              "create): ",
              unused, hint);
  } catch (...) {
    // A report must not turn the end of a run into a failure.
  }
}

void OptionsDb::insert(const std::string& prefix, const std::string& options, const std::string& source) {
  if (track_ && !prefix.empty()) {
    OptionsUse& u = optionsUse();
    std::lock_guard<std::mutex> lock(u.mutex);
    u.prefixes.insert(prefix);
  }
  if (options.find_first_not_of(" \t\n\r") == std::string::npos) return;
  const std::vector<std::string> names = checkSyntax(options, source);
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
  // PETSc keeps an option given under a prefix as prefix + name (without the name's dash).
  // Kinema's own defaults (a source "the ... defaults", e.g. the ic0 sub-preconditioner options)
  // are not the user's: a default a solver does not need is no mistake to report.
  const bool defaults = source.rfind("the ", 0) == 0 && source.size() >= 9 &&
                        source.compare(source.size() - 9, 9, " defaults") == 0;
  if (track_ && !defaults)
    for (const std::string& n : names) tracked_.push_back({source, n, prefix + n});
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
  OptionsDb scratch(/*track=*/false);  // a syntax check reads nothing: no report of unused options
  scratch.insert("", options, source);
}

}  // namespace kinema::la::petsc

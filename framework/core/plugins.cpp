#include "framework/core/plugins.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <system_error>

#include "framework/core/error.hpp"
#include "framework/core/registry.hpp"
#include "framework/core/version.hpp"

namespace fs = std::filesystem;

namespace kinema {

namespace {

std::string& currentOrigin() {
  static std::string origin = kBuiltinOrigin;
  return origin;
}

// While a plugin registers, what the registries add comes from that plugin; restored even when the
// registration throws (a name clash), so later built-in registrations are not misattributed.
class OriginScope {
 public:
  explicit OriginScope(std::string origin) : saved_(std::move(currentOrigin())) {
    currentOrigin() = std::move(origin);
  }
  ~OriginScope() { currentOrigin() = std::move(saved_); }
  OriginScope(const OriginScope&) = delete;
  OriginScope& operator=(const OriginScope&) = delete;

 private:
  std::string saved_;
};

}  // namespace

const std::string& registrationOrigin() { return currentOrigin(); }

namespace plugins {

namespace {

using VersionFn = const char* (*)();
using RegisterFn = void (*)();

constexpr const char* kHowToBuild =
    "build plugins with kinema_add_module(<name> PLUGIN ...) or kinema_add_backend(<name> PLUGIN ...)";

std::vector<std::string>& loadedFiles() {
  static std::vector<std::string> files;
  return files;
}

// Canonical paths (links resolved) of every file loadFile has taken, loaded or refused after
// dlopen: one file is registered once, however it is named.
std::set<std::string>& seen() {
  static std::set<std::string> s;
  return s;
}

std::string dlError() {
  const char* e = dlerror();
  return e ? e : "unknown dlopen error";
}

bool isPluginName(const std::string& file) {
  auto starts = [&](const char* p) { return file.rfind(p, 0) == 0; };
  return (starts("libkinema_module_") || starts("libkinema_backend_")) && file.size() > 3 &&
         file.compare(file.size() - 3, 3, ".so") == 0;
}

// Loads one plugin file; false if it was skipped (loaded before, or a library of this program found
// while scanning a directory).
bool loadFile(const fs::path& file, const std::string& source, bool fromDirectory) {
  const std::string path = file.string();
  const std::string where = str(source, ": plugin ", path);
  std::error_code ec;
  const std::string canonical = fs::canonical(file, ec).string();
  if (ec) throw InputError(str(where, ": ", ec.message()));
  if (seen().count(canonical)) return false;

  // A library already in the process that is not a plugin is one this program links (a built-in
  // module or backend, e.g. when the plugin path names the installation's lib directory): a
  // directory scan passes over it; named on its own, it is refused below like any non-plugin.
  if (void* resident = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
    const bool plugin = dlsym(resident, "kinema_plugin_register") != nullptr;
    dlclose(resident);  // RTLD_NOLOAD took a reference
    if (!plugin) {
      if (fromDirectory) return false;
      throw InputError(str(where, ": not a Kinema plugin: it is a library this program is already linked with "
                                  "(a built-in module or backend); ", kHowToBuild));
    }
  }

  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) throw InputError(str(where, ": cannot be loaded: ", dlError()));
  auto refuse = [&](const std::string& why) {
    dlclose(handle);
    throw InputError(str(where, ": ", why));
  };
  auto version = reinterpret_cast<VersionFn>(dlsym(handle, "kinema_plugin_version"));
  if (!version) refuse(str("not a Kinema plugin: it does not export kinema_plugin_version(); ", kHowToBuild));
  auto registration = reinterpret_cast<RegisterFn>(dlsym(handle, "kinema_plugin_register"));
  if (!registration) refuse(str("not a Kinema plugin: it does not export kinema_plugin_register(); ", kHowToBuild));
  // The plugin uses this process's framework library directly (classes, registries), so it must
  // have been compiled against the same headers: the same version, nothing looser.
  const char* built = version();
  if (!built || std::string(built) != KINEMA_VERSION_STRING)
    refuse(str("built against Kinema ", built ? built : "(null)", ", but this is Kinema ", KINEMA_VERSION_STRING,
               "; rebuild the plugin against this installation"));

  // From here the library stays loaded: what it registers points into its code.
  seen().insert(canonical);
  try {
    OriginScope origin(path);
    registration();
  } catch (InputError& e) {
    e.addContext(str("while registering plugin ", path, " (from ", source, ")"));
    throw;
  } catch (const std::exception& e) {
    throw InputError(str(where, ": kinema_plugin_register() failed: ", e.what()));
  }
  loadedFiles().push_back(path);
  return true;
}

}  // namespace

std::vector<std::string> loadPath(const std::string& path, const std::string& source, const std::string& base) {
  std::vector<std::string> out;
  std::stringstream entries(path);
  for (std::string entry; std::getline(entries, entry, ':');) {
    if (entry.empty()) continue;  // "a::b", a trailing ':'
    fs::path p(entry);
    if (p.is_relative() && !base.empty()) p = fs::path(base) / p;
    p = fs::absolute(p).lexically_normal();
    std::error_code ec;
    const fs::file_status st = fs::status(p, ec);
    if (!fs::exists(st))
      throw InputError(str(source, ": plugin ", p.string(), ": no such file or directory",
                           p.string() == entry ? "" : str(" (from '", entry, "')")));
    if (!fs::is_directory(st)) {
      if (loadFile(p, source, false)) out.push_back(p.string());
      continue;
    }
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(p, ec))
      if (isPluginName(e.path().filename().string()) && fs::is_regular_file(e.path())) files.push_back(e.path());
    if (ec) throw InputError(str(source, ": plugin directory ", p.string(), ": ", ec.message()));
    if (files.empty())
      throw InputError(str(source, ": plugin directory ", p.string(),
                           " holds no plugin (no libkinema_module_*.so or libkinema_backend_*.so)"));
    std::sort(files.begin(), files.end());  // the same order on every rank and every run
    for (const auto& f : files)
      if (loadFile(f, source, true)) out.push_back(f.string());
  }
  return out;
}

std::vector<std::string> loadFromEnvironment() {
  const char* path = std::getenv(kPathVariable);
  if (!path || !*path) return {};
  return loadPath(path, kPathVariable);
}

const std::vector<std::string>& loaded() { return loadedFiles(); }

}  // namespace plugins
}  // namespace kinema

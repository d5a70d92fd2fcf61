#pragma once
// Plugins: modules and backends built out of tree as shared libraries and loaded at run time.
//
// A plugin is a library made by kinema_add_module(<name> PLUGIN ...) or kinema_add_backend(<name>
// PLUGIN ...) (cmake/KinemaTargets.cmake): it exports `kinema_plugin_version()` (the Kinema version
// it was built against) and `kinema_plugin_register()`, which calls the same registration function
// an in-tree module or backend has. Loading one: dlopen(RTLD_NOW | RTLD_GLOBAL), the version must
// equal this build's KINEMA_VERSION_STRING (the plugin shares this process's framework library and
// its classes' layouts), then kinema_plugin_register() runs with the registries recording the
// plugin's absolute path as the origin of what it adds (`kinema list` shows it).
//
// A plugin path is colon-separated like PATH: a directory entry loads every libkinema_module_*.so
// and libkinema_backend_*.so in it (in name order), a file entry is loaded as given. The plugin
// path comes from the environment (KINEMA_PLUGIN_PATH), the command line (--plugin-path) and the
// scene (run.plugin_path); every rank reads the same ones and loads the same files, before any
// registry lookup. Every failure is an InputError naming the file, where the path came from and why.
#include <string>
#include <vector>

namespace kinema::plugins {

// The environment variable read by loadFromEnvironment().
inline constexpr const char* kPathVariable = "KINEMA_PLUGIN_PATH";

// Loads every plugin `path` names. `source` says where the path came from, for messages
// ("KINEMA_PLUGIN_PATH", "--plugin-path", "scene.yaml:4: run.plugin_path"); relative entries are
// taken relative to `base` (empty: the working directory). A file already loaded (the same file,
// by any path or link) is skipped. Returns the files loaded by this call (absolute paths).
std::vector<std::string> loadPath(const std::string& path, const std::string& source, const std::string& base = "");

// loadPath(getenv(KINEMA_PLUGIN_PATH), "KINEMA_PLUGIN_PATH"); nothing if it is unset or empty.
std::vector<std::string> loadFromEnvironment();

// Every plugin loaded by this process so far, in load order (absolute paths).
const std::vector<std::string>& loaded();

}  // namespace kinema::plugins

#pragma once
// Loading a scene: YAML file + command-line overrides -> a Config validated against the schema of
// the framework, the backends and the scene's module. Everything here happens before any work
// and before any file is written.
#include <optional>
#include <string>
#include <vector>

#include "framework/core/config.hpp"
#include "framework/core/param_binding.hpp"
#include "framework/la/backend.hpp"

namespace kinema::run {

struct SceneOptions {
  std::string path;                  // the scene file
  std::vector<std::string> sets;     // --set key=value, in order
  std::optional<std::string> backend;  // --backend NAME (same as --set backend.name=NAME)
  std::optional<std::string> output;   // --output DIR (same as --set output.directory=DIR)
  std::optional<std::string> restart;  // --restart CHECKPOINT (same as --set run.restart=...)
  bool overwrite = false;              // --overwrite (same as --set output.overwrite=true)
  std::string program = "kinema";      // the program as the user typed it (argv[0]), for restart commands
};

// Parameters every scene has: module, backend.*, output.*, run.*, each bound once with default,
// range, help and the field it fills (framework/core/param_binding.hpp).
struct OutputParams {
  std::string directory;  // empty: out/<scene file name without .yaml>
  long frameEvery = 1;
  bool overwrite = false;
};
struct RunParams {
  long checkpointEvery = 0;
  double checkpointWall = 600.0;
  long checkpointKeep = 2;
  std::string restart;
  YAML::Node restartAllow;  // undefined where not given
  long failAtStep = 0;
  std::string failKind = "error";
  std::string maxMemory = "auto";
  double maxWall = 0.0;
  double progressSeconds = 5.0;
  std::string pluginPath;
  std::string logLevel = "info";
  bool logAllRanks = false;
};
struct FrameworkParams {
  std::string module;        // declared with the first registered module as its default
  la::BackendParams backend;  // backend.name (la::backendBindings(); each backend declares its own keys)
  OutputParams output;
  RunParams run;
};
// `module` (a required choice of the registered modules), `output.*` and `run.*`.
const ParamBindings<FrameworkParams>& moduleBindings();
const ParamBindings<OutputParams>& outputBindings();
const ParamBindings<RunParams>& runBindings();

void declareFrameworkParams(ParamSchema& schema);
// The framework's parameters from a validated config.
FrameworkParams readFrameworkParams(const Config& config);
// The full schema for one module (framework + backends + the module's own).
ParamSchema schemaFor(const std::string& module);
// Reads, overrides and validates. Throws InputError naming file, line and key.
Config loadScene(const SceneOptions& options, ParamSchema& schema);
// The same for a scene already parsed (e.g. from text or a Python dict): the overrides of
// `options` (not its path), the scene's run.plugin_path relative to `pluginBase` (empty: the
// working directory), then validation against the module's schema, left in `schema`.
Config loadScene(Config config, const SceneOptions& options, ParamSchema& schema, const std::string& pluginBase);

}  // namespace kinema::run

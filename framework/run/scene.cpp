#include "framework/run/scene.hpp"

#include <filesystem>

#include "framework/core/plugins.hpp"
#include "framework/la/backend.hpp"
#include "framework/la/linear_solver_params.hpp"
#include "framework/run/module.hpp"

namespace kinema::run {

namespace {
// Keys the command-line overrides and the plugin look-up name as well as the bindings below.
constexpr const char* kModule = "module";
constexpr const char* kOutput = "output";
constexpr const char* kRun = "run";
constexpr const char* kDirectory = "directory";
constexpr const char* kOverwrite = "overwrite";
constexpr const char* kRestart = "restart";
constexpr const char* kPluginPath = "plugin_path";

std::string key(const char* group, const char* name) { return std::string(group) + "." + name; }

std::vector<std::string> moduleChoices() {
  auto names = modules().names();
  return names.empty() ? std::vector<std::string>{"none"} : names;
}
}  // namespace

const ParamBindings<FrameworkParams>& moduleBindings() {
  static const ParamBindings<FrameworkParams> b = [] {
    ParamBindings<FrameworkParams> r;
    r.choiceFrom(kModule, &FrameworkParams::module, moduleChoices,
                 "the module that runs this scene (kinema list shows them)")
        .required();
    return r;
  }();
  return b;
}

const ParamBindings<OutputParams>& outputBindings() {
  static const ParamBindings<OutputParams> b = [] {
    using O = OutputParams;
    ParamBindings<O> r;
    r.string(kDirectory, &O::directory, "where results go; empty = out/<scene file name without .yaml>");
    r.integer("frame_every", &O::frameEvery, Range::atLeast(0),
              "write a frame every this many steps (0 = only the last step)");
    r.boolean(kOverwrite, &O::overwrite, "replace the results of an earlier run in the output directory");
    return r;
  }();
  return b;
}

const ParamBindings<RunParams>& runBindings() {
  static const ParamBindings<RunParams> b = [] {
    using O = RunParams;
    ParamBindings<O> r;
    r.integer("checkpoint_every", &O::checkpointEvery, Range::atLeast(0),
              "also write a checkpoint every this many steps (0 = not by step count; checkpoints are "
              "written by wall time, see run.checkpoint_wall, at the last step and when a signal stops the run)");
    r.real("checkpoint_wall", &O::checkpointWall, Range::atLeast(0),
           "write a checkpoint when this many seconds of wall time passed since the last one "
           "(0 = not by time); the interval grows to 20 times the last checkpoint's duration, so "
           "checkpoints take under 5% of the run");
    r.integer("checkpoint_keep", &O::checkpointKeep, Range::atLeast(1),
              "how many most recent checkpoints to keep on disk, counted over the whole run (after a "
              "restart, the earlier segment's checkpoints count too)");
    r.string(kRestart, &O::restart,
             "continue from this checkpoint file (written by an earlier run of the same scene); "
             "'latest' = the newest checkpoint in the output directory");
    r.tree("restart_allow", &O::restartAllow,
           "parameters a restart may change on purpose, beyond the built-in list (run.*, output.*, backend.*, "
           "the step count or end time, solver settings and tolerances): a key, a group or a list of them, "
           "e.g. [impact.resolver, bdem.dt]; any other change since the checkpoint stops the restart");
    r.integer("fail_at_step", &O::failAtStep, Range::atLeast(0),
              "rehearse a crash: stop with an error at the start of this step (0 = never); "
              "for testing restart workflows");
    r.choice("fail_kind", &O::failKind, {"error", "out_of_memory"},
             "what run.fail_at_step rehearses: a Kinema error, or running out of memory (std::bad_alloc)");
    r.string("max_memory", &O::maxMemory,
             "the most memory the whole run may use, summed over its ranks: bytes with a unit (64GiB, 500MB, "
             "2e9); auto = the available memory (MemAvailable) of the machines the ranks run on; none = no limit. "
             "A scene whose estimate is larger is refused before any work (docs/reliability.md, Limits)");
    r.real("max_wall", &O::maxWall, Range::atLeast(0),
           "refuse, before any work, a scene whose estimated wall time (a lower bound from its size and "
           "steps) exceeds this many seconds (0 = no limit; docs/reliability.md, Limits)");
    r.real("progress_seconds", &O::progressSeconds, Range::positive(),
           "print a progress line on rank 0 at most this often");
    r.string(kPluginPath, &O::pluginPath,
             "plugins to load before the module is looked up: files, or directories whose "
             "libkinema_module_*.so and libkinema_backend_*.so are all loaded, colon-separated, relative "
             "to the scene file; in addition to KINEMA_PLUGIN_PATH and --plugin-path "
             "(docs/user-guide.md, Plugins)");
    r.choice("log_level", &O::logLevel, {"quiet", "error", "warn", "info", "debug"}, "how much the run prints");
    r.boolean("log_all_ranks", &O::logAllRanks, "every rank prints its own log lines, not just rank 0");
    return r;
  }();
  return b;
}

void declareFrameworkParams(ParamSchema& schema) {
  FrameworkParams d;
  d.module = moduleChoices().front();
  moduleBindings().declare(schema, "", d);
  la::declareBackendParams(schema);
  outputBindings().declare(schema, kOutput, d.output);
  runBindings().declare(schema, kRun, d.run);
}

FrameworkParams readFrameworkParams(const Config& config) {
  FrameworkParams p = moduleBindings().read(config, "");
  p.backend = la::readBackendParams(config);
  p.output = outputBindings().read(config, kOutput);
  p.run = runBindings().read(config, kRun);
  return p;
}

ParamSchema schemaFor(const std::string& module) {
  ParamSchema schema;
  declareFrameworkParams(schema);
  modules().get(module).declare(schema);
  return schema;
}

Config loadScene(const SceneOptions& options, ParamSchema& schema) {
  Config config = Config::loadFile(options.path);
  std::error_code ec;
  const std::filesystem::path scene(config.source());
  return loadScene(std::move(config), options, schema,
                   std::filesystem::is_regular_file(scene, ec) ? scene.parent_path().string() : "");
}

Config loadScene(Config config, const SceneOptions& options, ParamSchema& schema, const std::string& pluginBase) {
  config.expandShorthand(la::backendGroup(), la::backendBindings().keys().front());  // `backend: petsc`: backend.name
  for (const auto& s : options.sets) config.set(s);
  if (options.backend) config.setString(la::backendNameKey(), *options.backend, "--backend " + *options.backend);
  if (options.output) config.setString(key(kOutput, kDirectory), *options.output, "--output " + *options.output);
  if (options.restart) config.setString(key(kRun, kRestart), *options.restart, "--restart " + *options.restart);
  if (options.overwrite) config.setValue(key(kOutput, kOverwrite), "true", "--overwrite");

  // The scene's plugins first: its module (or backend) may be one of theirs. Read raw, before
  // validation, since the schema to validate against depends on what they register.
  const std::string pluginKey = key(kRun, kPluginPath);
  if (auto plugins = config.rawScalar(pluginKey); plugins && !plugins->empty())
    plugins::loadPath(*plugins, config.where(pluginKey) + ": " + pluginKey, pluginBase);

  auto module = config.rawScalar(kModule);
  if (!module) {
    std::string at = config.where(kModule);
    throw InputError((at.empty() ? config.source() : at) + ": " + kModule +
                     ": missing required key; one of: " + modules().joinedNames());
  }
  try {
    schema = schemaFor(*module);
  } catch (InputError& e) {
    throw InputError(config.where(kModule) + ": " + kModule + ": " + e.message());
  }
  config.validate(schema);
  la::checkLinearSolverChoices(config, schema);  // a preconditioner the backend lacks: refused here, not at step 1
  return config;
}

}  // namespace kinema::run

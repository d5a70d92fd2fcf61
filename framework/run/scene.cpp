#include "framework/run/scene.hpp"

#include <filesystem>

#include "framework/core/plugins.hpp"
#include "framework/la/backend.hpp"
#include "framework/la/linear_solver_params.hpp"
#include "framework/run/module.hpp"

namespace kinema::run {

void declareFrameworkParams(ParamSchema& schema) {
  auto names = modules().names();
  schema.addChoice("module", names.empty() ? "none" : names.front(),
                   names.empty() ? std::vector<std::string>{"none"} : names,
                   "the module that runs this scene (kinema list shows them)")
      .required = true;
  la::declareBackendParams(schema);
  schema.addString("output.directory", "",
                   "where results go; empty = out/<scene file name without .yaml>");
  schema.addInt("output.frame_every", 1, Range::atLeast(0),
                "write a frame every this many steps (0 = only the last step)");
  schema.addBool("output.overwrite", false,
                 "replace the results of an earlier run in the output directory");
  schema.addInt("run.checkpoint_every", 0, Range::atLeast(0),
                "also write a checkpoint every this many steps (0 = not by step count; checkpoints are "
                "written by wall time, see run.checkpoint_wall, at the last step and when a signal stops the run)");
  schema.addReal("run.checkpoint_wall", 600.0, Range::atLeast(0),
                 "write a checkpoint when this many seconds of wall time passed since the last one "
                 "(0 = not by time); the interval grows to 20 times the last checkpoint's duration, so "
                 "checkpoints take under 5% of the run");
  schema.addInt("run.checkpoint_keep", 2, Range::atLeast(1),
                "how many most recent checkpoints to keep on disk, counted over the whole run (after a "
                "restart, the earlier segment's checkpoints count too)");
  schema.addString("run.restart", "",
                   "continue from this checkpoint file (written by an earlier run of the same scene); "
                   "'latest' = the newest checkpoint in the output directory");
  schema.addTree("run.restart_allow",
                 "parameters a restart may change on purpose, beyond the built-in list (run.*, output.*, backend.*, "
                 "the step count or end time, solver settings and tolerances): a key, a group or a list of them, "
                 "e.g. [impact.resolver, bdem.dt]; any other change since the checkpoint stops the restart");
  schema.addInt("run.fail_at_step", 0, Range::atLeast(0),
                "rehearse a crash: stop with an error at the start of this step (0 = never); "
                "for testing restart workflows");
  schema.addChoice("run.fail_kind", "error", {"error", "out_of_memory"},
                   "what run.fail_at_step rehearses: a Kinema error, or running out of memory (std::bad_alloc)");
  schema.addString("run.max_memory", "auto",
                   "the most memory the whole run may use, summed over its ranks: bytes with a unit (64GiB, 500MB, "
                   "2e9); auto = the available memory (MemAvailable) of the machines the ranks run on; none = no limit. "
                   "A scene whose estimate is larger is refused before any work (docs/reliability.md, Limits)");
  schema.addReal("run.max_wall", 0.0, Range::atLeast(0),
                 "refuse, before any work, a scene whose estimated wall time (a lower bound from its size and "
                 "steps) exceeds this many seconds (0 = no limit; docs/reliability.md, Limits)");
  schema.addReal("run.progress_seconds", 5.0, Range::positive(),
                 "print a progress line on rank 0 at most this often");
  schema.addString("run.plugin_path", "",
                   "plugins to load before the module is looked up: files, or directories whose "
                   "libkinema_module_*.so and libkinema_backend_*.so are all loaded, colon-separated, relative "
                   "to the scene file; in addition to KINEMA_PLUGIN_PATH and --plugin-path "
                   "(docs/user-guide.md, Plugins)");
  schema.addChoice("run.log_level", "info", {"quiet", "error", "warn", "info", "debug"},
                   "how much the run prints");
  schema.addBool("run.log_all_ranks", false, "every rank prints its own log lines, not just rank 0");
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
  config.expandShorthand("backend", "name");  // `backend: petsc` is short for backend.name
  for (const auto& s : options.sets) config.set(s);
  if (options.backend) config.setString("backend.name", *options.backend, "--backend " + *options.backend);
  if (options.output) config.setString("output.directory", *options.output, "--output " + *options.output);
  if (options.restart) config.setString("run.restart", *options.restart, "--restart " + *options.restart);
  if (options.overwrite) config.setValue("output.overwrite", "true", "--overwrite");

  // The scene's plugins first: its module (or backend) may be one of theirs. Read raw, before
  // validation, since the schema to validate against depends on what they register.
  if (auto plugins = config.rawScalar("run.plugin_path"); plugins && !plugins->empty())
    plugins::loadPath(*plugins, config.where("run.plugin_path") + ": run.plugin_path", pluginBase);

  auto module = config.rawScalar("module");
  if (!module) {
    std::string at = config.where("module");
    throw InputError((at.empty() ? config.source() : at) +
                     ": module: missing required key; one of: " + modules().joinedNames());
  }
  try {
    schema = schemaFor(*module);
  } catch (InputError& e) {
    throw InputError(config.where("module") + ": module: " + e.message());
  }
  config.validate(schema);
  la::checkLinearSolverChoices(config, schema);  // a preconditioner the backend lacks: refused here, not at step 1
  return config;
}

}  // namespace kinema::run

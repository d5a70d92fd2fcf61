#include "apps/kinema/commands.hpp"

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <utility>

#include "framework/core/error.hpp"
#include "framework/core/log.hpp"
#include "framework/core/strings.hpp"
#include "framework/core/mpi_context.hpp"
#include "framework/la/backend.hpp"
#include "framework/run/module.hpp"
#include "framework/run/lifecycle.hpp"
#include "framework/run/runner.hpp"
#include "framework/run/session.hpp"

namespace kinema::app {

std::string usage() {
  return "usage:\n"
         "  kinema run SCENE.yaml [--backend NAME] [--set key=value]... [--output DIR]\n"
         "                        [--restart CHECKPOINT.h5|latest] [--overwrite]\n"
         "  kinema check SCENE.yaml [same options] [--quick]   everything run checks before its first step\n"
         "                                           (set-up included; --quick: the scene and options only), nothing written\n"
         "  kinema help [MODULE]                      every parameter: default, range, help\n"
         "  kinema help KEY                           one parameter (e.g. bdem.dt, or dt for every *.dt)\n"
         "  kinema list                               registered modules, backends, solvers\n"
         "  kinema --version\n"
         "Each command also takes --plugin-path DIR|FILE[:...]: plugins (out-of-tree modules and backends)\n"
         "to load, as does the environment variable KINEMA_PLUGIN_PATH and a scene's run.plugin_path.\n"
         "Runs under MPI as `mpiexec -n 4 kinema run ...`. Exit status: 0 done, 1 failed, 2 bad input,\n"
         "64 usage, 75 stopped by SIGINT/SIGTERM/SIGUSR1 after a checkpoint (the restart command is\n"
         "printed and in status.yaml).\n";
}

std::vector<std::string> takePluginPaths(const std::vector<std::string>& args, std::vector<std::string>& paths) {
  static const std::set<std::string> takesValue{"--set", "--backend", "--output", "--restart"};
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--plugin-path") {
      paths.push_back(i + 1 < args.size() ? args[++i] : "");
    } else if (a.rfind("--plugin-path=", 0) == 0) {
      paths.push_back(a.substr(14));
    } else {
      rest.push_back(a);
      if (takesValue.count(a) && i + 1 < args.size()) rest.push_back(args[++i]);
    }
  }
  return rest;
}

namespace {

run::SceneOptions parseSceneArgs(const std::vector<std::string>& args, const char* command) {
  run::SceneOptions opts;
  auto value = [&](std::size_t& i, const std::string& flag) -> std::string {
    if (i + 1 >= args.size()) throw InputError(str(flag, " needs a value\n", usage()));
    return args[++i];
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--set") opts.sets.push_back(value(i, a));
    else if (a.rfind("--set=", 0) == 0) opts.sets.push_back(a.substr(6));
    else if (a == "--backend") opts.backend = value(i, a);
    else if (a.rfind("--backend=", 0) == 0) opts.backend = a.substr(10);
    else if (a == "--output") opts.output = value(i, a);
    else if (a.rfind("--output=", 0) == 0) opts.output = a.substr(9);
    else if (a == "--restart") opts.restart = value(i, a);
    else if (a.rfind("--restart=", 0) == 0) opts.restart = a.substr(10);
    else if (a == "--overwrite") opts.overwrite = true;
    else if (a.rfind("-", 0) == 0) throw InputError(str("unknown option '", a, "'\n", usage()));
    else if (opts.path.empty()) opts.path = a;
    else throw InputError(str("kinema ", command, " takes one scene file; got '", opts.path, "' and '", a, "'"));
  }
  if (opts.path.empty()) throw InputError(str("kinema ", command, " needs a scene file\n", usage()));
  return opts;
}

}  // namespace

int cmdRun(const std::vector<std::string>& args, const std::string& program) {
  run::SceneOptions opts = parseSceneArgs(args, "run");
  opts.program = program;
  run::RunResult result = run::runScene(opts);
  return result.interrupted ? run::kExitInterrupted : 0;
}

int cmdCheck(const std::vector<std::string>& args) {
  // --quick: the scene, its options and the backend's choices only, without MPI or the module's
  // set-up (milliseconds); by default everything `run` checks before its first step.
  std::vector<std::string> rest;
  bool quick = false;
  for (const auto& a : args) {
    if (a == "--quick")
      quick = true;
    else
      rest.push_back(a);
  }
  auto opts = parseSceneArgs(rest, "check");
  run::Session::Checked checked;
  if (!quick) {
    MpiContext::ensureMpi();
    checked = run::Session::check(opts);  // nothing is written
  } else {
    ParamSchema schema;
    Config c = run::loadScene(opts, schema);
    la::createBackend(c);  // the backend must be usable too
    checked = {c.resolvedYaml(), c.getString("module"), c.source(), run::outputDirectoryFor(c)};
  }
  if (MpiContext::worldRank() == 0) std::cout << checked.resolvedYaml;
  log::info(checked.source, ": OK (module ", checked.module, ", output to ", checked.outputDir, ")");
  return 0;
}

namespace {

// Every parameter key a scene may hold: the framework's and every module's, with the module that
// declares it ("" for the framework's). One schema per module, as `kinema help MODULE` prints it.
struct KeyIndex {
  ParamSchema framework;
  std::map<std::string, ParamSchema> modules;

  KeyIndex() {
    run::declareFrameworkParams(framework);
    for (const auto& name : run::modules().names()) modules.emplace(name, run::schemaFor(name));
  }
  // The schema that would hold `key`: its module's (which includes the framework's keys), or the
  // framework's when the first component of the key names no module.
  const ParamSchema& schemaOf(const std::string& key) const {
    auto it = modules.find(key.substr(0, key.find('.')));
    return it == modules.end() ? framework : it->second;
  }
  // Every key and module name, once.
  std::set<std::string> names() const {
    std::set<std::string> out;
    for (const auto& s : framework.specs()) out.insert(s.key);
    for (const auto& [name, schema] : modules) {
      out.insert(name);
      for (const auto& s : schema.specs()) out.insert(s.key);
    }
    return out;
  }
};

// One parameter: its type, default, range or choices, and help line.
void printKey(const ParamSpec& s) {
  std::cout << s.key << "\n  type     " << typeName(s.type) << "\n";
  if (s.required) std::cout << "  default  none: required\n";
  else if (s.type != ParamType::tree) std::cout << "  default  " << s.defaultString() << "\n";
  const std::string r = s.rangeString();
  if (s.type == ParamType::tree) std::cout << "  range    a subtree passed through unchecked\n";
  else if (!r.empty()) std::cout << "  " << (s.type == ParamType::choice ? "choices  " : "range    ") << r << "\n";
  else std::cout << "  range    any\n";
  std::cout << "  help     " << s.help << "\n";
  if (s.type != ParamType::tree)
    std::cout << "set it in the scene or with --set " << s.key << "=" << (s.required ? "VALUE" : s.defaultString())
              << "\n";
}

// `kinema help KEY`: one key, the keys of a group, the keys whose last component is KEY ("dt"),
// or an InputError naming the closest keys and modules.
int helpForKey(const std::string& key) {
  const KeyIndex index;
  const ParamSchema& schema = index.schemaOf(key);
  if (const ParamSpec* s = schema.find(key)) {
    printKey(*s);
    return 0;
  }
  if (schema.isGroup(key)) {
    std::cout << "parameters under " << key << ":\n" << schema.describe(key);
    return 0;
  }
  if (const ParamSpec* tree = schema.enclosingTree(key)) {
    std::cout << key << " is inside " << tree->key << ", passed through unchecked to the backend\n";
    printKey(*tree);
    return 0;
  }
  const std::set<std::string> names = index.names();
  std::vector<std::string> endings;
  for (const std::string& n : names)
    if (n.size() > key.size() + 1 && n.compare(n.size() - key.size() - 1, std::string::npos, "." + key) == 0)
      endings.push_back(n);
  if (!endings.empty()) {
    for (const std::string& n : endings) printKey(*index.schemaOf(n).find(n));
    return 0;
  }
  // The closest names: the schema's own suggestion first, then up to three more within a third of
  // the name's length (at least 2 edits).
  std::vector<std::string> closest;
  if (std::string c = schema.closest(key); !c.empty()) closest.push_back(c);
  std::vector<std::pair<std::size_t, std::string>> ranked;
  for (const std::string& n : names) ranked.emplace_back(editDistance(key, n), n);
  std::sort(ranked.begin(), ranked.end());
  const std::size_t limit = std::max<std::size_t>(2, key.size() / 3);
  for (const auto& [d, n] : ranked) {
    if (d > limit || closest.size() >= 4) break;
    if (std::find(closest.begin(), closest.end(), n) == closest.end()) closest.push_back(n);
  }
  std::string msg = "unknown module or parameter '" + key + "'";
  if (!closest.empty()) {
    msg += "; did you mean ";
    for (std::size_t k = 0; k < closest.size(); ++k)
      msg += (k == 0 ? "" : k + 1 == closest.size() ? " or " : ", ") + ("'" + closest[k] + "'");
    msg += "?";
  }
  const std::string module = key.substr(0, key.find('.'));
  if (index.modules.count(module))
    msg += " (kinema help " + module + " lists its parameters)";
  else
    msg += " (modules: " + run::modules().joinedNames() + ")";
  throw InputError(msg);
}

}  // namespace

int cmdHelp(const std::vector<std::string>& args) {
  if (MpiContext::worldRank() != 0) return 0;
  if (args.empty()) {
    std::cout << "Kinema: contact, impact, fracture and rod mechanics on Eigen, PETSc or Trilinos.\n\n"
              << usage() << "\nmodules (kinema help MODULE for their parameters, kinema help KEY for one):\n";
    for (const auto& [name, e] : run::modules().entries()) std::cout << "  " << name << "  " << e.help << "\n";
    ParamSchema schema;
    run::declareFrameworkParams(schema);
    std::cout << "\nparameters of every scene:\n" << schema.describe();
    return 0;
  }
  if (args.size() > 1) throw InputError("kinema help takes one module name or parameter key");
  if (!run::modules().has(args[0])) return helpForKey(args[0]);
  const auto& entry = run::modules().get(args[0]);
  ParamSchema schema = run::schemaFor(args[0]);
  std::cout << "module " << entry.name << ": " << entry.help << "\n\nparameters:\n"
            << schema.describe(entry.name) << "\nparameters of every scene:\n";
  ParamSchema common;
  run::declareFrameworkParams(common);
  std::cout << common.describe();
  return 0;
}

int cmdList() {
  if (MpiContext::worldRank() != 0) return 0;
  // Where each one comes from: built in, or the plugin file that registered it.
  auto origin = [](const std::string& o) { return o == kBuiltinOrigin ? " [built-in]" : " [plugin " + o + "]"; };
  std::cout << "modules:\n";
  for (const auto& [name, e] : run::modules().entries())
    std::cout << "  " << name << "  " << e.help << origin(run::modules().origin(name)) << "\n";
  std::cout << "backends:\n";
  for (const auto& [name, e] : la::backends().entries()) {
    std::cout << "  " << name << "  " << e.help << (e.distributed ? " [MPI-distributed]" : " [one rank]")
              << origin(la::backends().origin(name)) << "\n";
  }
  // From the registry entries: no backend is created, so PETSc and Kokkos are not started.
  for (const auto& [name, e] : la::backends().entries()) {
    std::cout << "  " << name << " solvers: " << joinNames(e.solverTypes) << "\n  " << name
              << " preconditioners: " << joinNames(e.nativePreconditioners) << "\n";
  }
  std::vector<std::string> framework{"none"};
  for (const auto& n : la::anyOperatorPreconditioners()) framework.push_back(n);
  std::cout << "framework preconditioners (every backend): " << joinNames(framework) << "\n";
  // A module's preconditioners for its own operators: reached by the module, not offered to solvers.
  bool header = false;
  for (const auto& [name, e] : la::customPreconditioners().entries()) {
    if (e.forOperator.empty()) continue;
    if (!header) std::cout << "module preconditioners (each for its module's own operator only):\n";
    header = true;
    std::cout << "  " << name << "  " << e.help << " [for " << e.forOperator << "]"
              << origin(la::customPreconditioners().origin(name)) << "\n";
  }
  return 0;
}

}  // namespace kinema::app

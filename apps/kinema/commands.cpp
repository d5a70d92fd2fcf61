#include "apps/kinema/commands.hpp"

#include <iostream>

#include "framework/core/error.hpp"
#include "framework/core/log.hpp"
#include "framework/core/mpi_context.hpp"
#include "framework/la/backend.hpp"
#include "framework/run/module.hpp"
#include "framework/run/lifecycle.hpp"
#include "framework/run/runner.hpp"

namespace kinema::app {

std::string usage() {
  return "usage:\n"
         "  kinema run SCENE.yaml [--backend NAME] [--set key=value]... [--output DIR]\n"
         "                        [--restart CHECKPOINT.h5|latest] [--overwrite]\n"
         "  kinema check SCENE.yaml [same options]   validate the scene, print the resolved config\n"
         "  kinema help [MODULE]                      every parameter: default, range, help\n"
         "  kinema list                               registered modules, backends, solvers\n"
         "  kinema --version\n"
         "Runs under MPI as `mpiexec -n 4 kinema run ...`. Exit status: 0 done, 1 failed, 2 bad input,\n"
         "64 usage, 75 stopped by SIGINT/SIGTERM/SIGUSR1 after a checkpoint (the restart command is\n"
         "printed and in status.yaml).\n";
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
  auto opts = parseSceneArgs(args, "check");
  ParamSchema schema;
  Config config = run::loadScene(opts, schema);
  la::createBackend(config);  // the backend must be usable too
  if (MpiContext::worldRank() == 0) std::cout << config.resolvedYaml();
  log::info(config.source(), ": OK (module ", config.getString("module"), ", output to ",
            run::outputDirectoryFor(config), ")");
  return 0;
}

int cmdHelp(const std::vector<std::string>& args) {
  if (MpiContext::worldRank() != 0) return 0;
  if (args.empty()) {
    std::cout << "Kinema: contact, impact, fracture and rod mechanics on Eigen, PETSc or Trilinos.\n\n"
              << usage() << "\nmodules (kinema help MODULE for their parameters):\n";
    for (const auto& [name, e] : run::modules().entries()) std::cout << "  " << name << "  " << e.help << "\n";
    ParamSchema schema;
    run::declareFrameworkParams(schema);
    std::cout << "\nparameters of every scene:\n" << schema.describe();
    return 0;
  }
  if (args.size() > 1) throw InputError("kinema help takes at most one module name");
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
  std::cout << "modules:\n";
  for (const auto& [name, e] : run::modules().entries()) std::cout << "  " << name << "  " << e.help << "\n";
  std::cout << "backends:\n";
  for (const auto& [name, e] : la::backends().entries()) {
    std::cout << "  " << name << "  " << e.help << (e.distributed ? " [MPI-distributed]" : " [one rank]") << "\n";
  }
  // Solver types and native preconditioners need a backend object; make one of each.
  for (const auto& name : la::backends().names()) {
    auto b = la::createBackend(name);
    std::string solvers, pcs;
    for (const auto& s : b->solverTypes()) solvers += (solvers.empty() ? "" : ", ") + s;
    for (const auto& p : b->nativePreconditioners()) pcs += (pcs.empty() ? "" : ", ") + p;
    std::cout << "  " << name << " solvers: " << solvers << "\n  " << name << " preconditioners: " << pcs << "\n";
  }
  std::cout << "framework preconditioners (every backend): none";
  for (const auto& n : la::customPreconditioners().names()) std::cout << ", " << n;
  std::cout << "\n";
  return 0;
}

}  // namespace kinema::app

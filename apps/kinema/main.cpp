// kinema: reads a scene, builds its module on a backend, runs it, writes the output.
// Exit status: 0 success, 1 failure while running, 2 bad input (scene, options, files), 64 usage,
// 75 stopped by SIGINT, SIGTERM or SIGUSR1 after writing a checkpoint (continue it with the printed
// command; docs/user-guide.md).
//
// The arguments are read before MPI is initialised: only `run` initialises it at once; --version,
// help and check (and list, up to the first backend that needs MPI) start without it, in a few
// milliseconds, unless the process runs under mpiexec.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "apps/kinema/commands.hpp"
#include "framework/core/error.hpp"
#include "framework/core/log.hpp"
#include "framework/core/mpi_context.hpp"
#include "framework/core/plugins.hpp"
#include "apps/builtins.hpp"
#include "framework/core/registry.hpp"
#include "framework/core/version.hpp"

int main(int argc, char** argv) {
  // --plugin-path is taken out wherever it stands (before or after the command), so that every
  // command sees the plugins' modules and backends and parses only its own options.
  std::vector<std::string> pluginPaths;
  const std::vector<std::string> args =
      kinema::app::takePluginPaths(std::vector<std::string>(argv + 1, argv + argc), pluginPaths);
  const std::string program = argc > 0 ? argv[0] : "kinema";
  const bool run = !args.empty() && args[0] == "run";
  kinema::MpiContext mpi(&argc, &argv, run ? kinema::MpiContext::Init::now : kinema::MpiContext::Init::lazy);
  const bool root = kinema::MpiContext::worldRank() == 0;
  try {
    if (args.empty() || args[0] == "-h" || args[0] == "--help") {
      if (root) std::cout << kinema::app::usage();
      return args.empty() ? 64 : 0;
    }
    if (args[0] == "--version") {
      if (root) std::cout << "kinema " << KINEMA_VERSION_STRING << "\n";
      return 0;
    }
    kinema::registerBuiltins();
    // Plugins before any registry lookup, the same files on every rank: the environment's, then
    // the command line's (a scene's run.plugin_path is loaded when the scene is read).
    kinema::plugins::loadFromEnvironment();
    for (const auto& p : pluginPaths) {
      if (p.empty())
        throw kinema::InputError("--plugin-path needs a value: plugin files and directories, colon-separated");
      kinema::plugins::loadPath(p, "--plugin-path");
    }
    const std::string cmd = args[0];
    std::vector<std::string> rest(args.begin() + 1, args.end());
    if (cmd == "run") return kinema::app::cmdRun(rest, program);
    if (cmd == "check") return kinema::app::cmdCheck(rest);
    if (cmd == "help") return kinema::app::cmdHelp(rest);
    if (cmd == "list") {
      if (!rest.empty())
        throw kinema::InputError(
            kinema::str("kinema list takes no arguments besides --plugin-path; got '", rest[0], "'"));
      return kinema::app::cmdList();
    }
    kinema::log::error("unknown command '", cmd, "'\n", kinema::app::usage());
    return 64;
  } catch (const kinema::InputError& e) {
    // Input is read identically on every rank, so every rank gets here: print once, exit cleanly.
    kinema::log::error(e.what());
    return 2;
  } catch (const kinema::Error& e) {
    if (e.everyRank()) {
      // Raised by every rank at the same point (a collective check): print once, exit together.
      kinema::log::error(e.what());
      return 1;
    }
    kinema::log::writeAnyRank(kinema::log::Level::error, e.what());
    if (kinema::MpiContext::mpiActive() && kinema::Comm::world().size() > 1) kinema::MpiContext::abort(1);
    return 1;
  } catch (const std::exception& e) {
    // A failure on one rank may leave the others waiting in a collective: report it from the
    // rank that saw it and take the whole job down.
    kinema::log::writeAnyRank(kinema::log::Level::error, e.what());
    if (kinema::MpiContext::mpiActive() && kinema::Comm::world().size() > 1) kinema::MpiContext::abort(1);
    return 1;
  }
}

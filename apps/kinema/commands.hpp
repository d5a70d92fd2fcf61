#pragma once
// The subcommands of the kinema CLI.
#include <string>
#include <vector>

namespace kinema::app {

// `program`: argv[0], repeated in the restart command an interrupted or failed run prints.
int cmdRun(const std::vector<std::string>& args, const std::string& program);
int cmdCheck(const std::vector<std::string>& args);
int cmdHelp(const std::vector<std::string>& args);
int cmdList();
std::string usage();

}  // namespace kinema::app

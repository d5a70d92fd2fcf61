#pragma once
// The subcommands of the kinema CLI.
#include <string>
#include <vector>

namespace kinema::app {

int cmdRun(const std::vector<std::string>& args);
int cmdCheck(const std::vector<std::string>& args);
int cmdHelp(const std::vector<std::string>& args);
int cmdList();
std::string usage();

}  // namespace kinema::app

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

// `args` without its --plugin-path options (`--plugin-path P` or `--plugin-path=P`, before or after
// the command), whose values are appended to `paths` in order ("" for one given without a value).
// The values of the options that take one (--set, --backend, --output, --restart) are not looked at.
std::vector<std::string> takePluginPaths(const std::vector<std::string>& args, std::vector<std::string>& paths);

}  // namespace kinema::app

#pragma once
// What a restart checks before it continues a run: the checkpoint's fingerprint (every parameter
// of the scene after defaults and overrides, as `key=value` lines) against the scene's. A key whose
// value differs stops the restart with an InputError listing each key and both values, unless it
// is on the allow list: the built-in one (run.*, output.*, backend.*, the step count or end time,
// solver settings and tolerances, diagnostics-only keys) plus the keys and groups of
// run.restart_allow. docs/user-guide.md, "Checkpoints and restart".
#include <map>
#include <string>
#include <vector>

#include "framework/core/config.hpp"

namespace kinema::io {
class CheckpointReader;
}

namespace kinema::run {

// The root attribute of a checkpoint that holds the fingerprint.
inline constexpr const char* kFingerprintName = "runner_fingerprint";

// Every parameter of `schema` with its effective value as text (reals in their shortest exact form).
std::map<std::string, std::string> resolvedValues(const Config& config, const ParamSchema& schema);
// `key=value` lines (newlines and backslashes in values escaped), and back.
std::string fingerprintText(const std::map<std::string, std::string>& values);
std::map<std::string, std::string> parseFingerprint(const std::string& text);

// Keys and groups a restart may change without run.restart_allow.
const std::vector<std::string>& builtinRestartAllow();
// The built-in list plus run.restart_allow (a key, a group, or a list of them; each must exist).
std::vector<std::string> restartAllowList(const Config& config, const ParamSchema& schema);
bool allowedToChange(const std::string& key, const std::vector<std::string>& allow);

// Compares the fingerprint of checkpoint `in` with the scene's; throws an InputError naming every
// key that differs and is not allowed. A checkpoint without a fingerprint (written before them)
// only gets a warning.
void checkFingerprint(const io::CheckpointReader& in, const Config& config, const ParamSchema& schema);

}  // namespace kinema::run

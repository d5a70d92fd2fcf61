#include "framework/run/restart_guard.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "framework/core/error.hpp"
#include "framework/core/log.hpp"
#include "framework/core/strings.hpp"
#include "framework/io/checkpoint.hpp"

namespace kinema::run {

namespace {

// The shortest %g text that reads back as the same double (0.004, not 0.0040000000000000001).
std::string shortestReal(double x) {
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

std::string flowYaml(const YAML::Node& node) {
  YAML::Emitter em;
  em.SetMapFormat(YAML::Flow);
  em.SetSeqFormat(YAML::Flow);
  em << node;
  return em.c_str();
}

}  // namespace

std::map<std::string, std::string> resolvedValues(const Config& config, const ParamSchema& schema) {
  std::map<std::string, std::string> values;
  for (const ParamSpec& spec : schema.specs()) {
    const std::string& key = spec.key;
    std::string v;
    switch (spec.type) {
      case ParamType::boolean: v = config.getBool(key) ? "true" : "false"; break;
      case ParamType::integer: v = std::to_string(config.getInt(key)); break;
      case ParamType::real: v = shortestReal(config.getReal(key)); break;
      case ParamType::string:
      case ParamType::choice: v = config.getString(key); break;
      case ParamType::realList: {
        v = "[";
        for (double x : config.getRealList(key)) v += (v.size() > 1 ? ", " : "") + shortestReal(x);
        v += "]";
        break;
      }
      case ParamType::tree: {
        YAML::Node t = config.tree(key);
        v = t.IsDefined() && !t.IsNull() ? flowYaml(t) : "";
        break;
      }
    }
    values[key] = v;
  }
  return values;
}

std::string fingerprintText(const std::map<std::string, std::string>& values) {
  std::string out;
  for (const auto& [key, value] : values) {
    out += key + "=";
    for (char c : value) {
      if (c == '\\') out += "\\\\";
      else if (c == '\n') out += "\\n";
      else out += c;
    }
    out += "\n";
  }
  return out;
}

std::map<std::string, std::string> parseFingerprint(const std::string& text) {
  std::map<std::string, std::string> values;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string value;
    for (std::size_t i = eq + 1; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) {
        value += line[i + 1] == 'n' ? '\n' : line[i + 1];
        ++i;
      } else {
        value += line[i];
      }
    }
    values[line.substr(0, eq)] = value;
  }
  return values;
}

// What may change on restart without asking. The state a checkpoint holds does not depend on
// these: where and how often output and checkpoints go, logging, the backend (checkpoints are
// stored in global order, independent of backend and rank count), how far the run goes, and the
// settings and tolerances of the solvers (a new tolerance applies from the restart on).
const std::vector<std::string>& builtinRestartAllow() {
  static const std::vector<std::string> list = {
      // the framework's own groups
      "run", "output", "backend",
      // the step count or end time of each module
      "poisson.levels", "impact.sim.steps", "bdem.steps", "bdem.end_time", "avi.end_time", "der.simulate.frames",
      // solver settings and tolerances
      "poisson.solver", "bdem.tolerance", "bdem.allow_unconverged", "bdem.max_outer_iterations",
      "bdem.max_first_order_iterations", "bdem.constraint_tolerance", "bdem.kkt_solver", "bdem.newton",
      "impact.resolver.max_iterations", "impact.resolver.qp_tolerance", "impact.resolver.mprgp_tolerance",
      "impact.resolver.qp_max_iterations", "impact.resolver.polish_max_size", "der.optimize.mprgp",
      "der.optimize.line_search", "der.simulate.newton_rtol",
      // diagnostics and output only
      "bdem.fragments_every", "bdem.probes", "avi.integrator.debug_invariant",
      "impact.resolver.lineality.certificate", "der.optimize.equilibrium_tolerance",
      "der.optimize.write_strand_file"};
  return list;
}

bool allowedToChange(const std::string& key, const std::vector<std::string>& allow) {
  for (const std::string& a : allow)
    if (key == a || (key.size() > a.size() && key.compare(0, a.size(), a) == 0 && key[a.size()] == '.')) return true;
  return false;
}

std::vector<std::string> restartAllowList(const Config& config, const ParamSchema& schema) {
  std::vector<std::string> list = builtinRestartAllow();
  YAML::Node node = config.tree("run.restart_allow");
  if (!node.IsDefined() || node.IsNull()) return list;
  const std::string at = config.where("run.restart_allow");
  std::vector<std::string> entries;
  auto addScalar = [&](const std::string& text) {
    // A scalar may hold several entries, separated by commas or spaces.
    std::string item;
    for (char c : text + ",") {
      if (c == ',' || c == ' ') {
        if (!item.empty()) entries.push_back(item);
        item.clear();
      } else {
        item += c;
      }
    }
  };
  if (node.IsScalar()) {
    addScalar(node.Scalar());
  } else if (node.IsSequence()) {
    for (const auto& item : node) {
      if (!item.IsScalar())
        throw InputError(at + ": run.restart_allow: every entry must be a key or a group, e.g. [impact.resolver, bdem.dt]");
      addScalar(item.Scalar());
    }
  } else {
    throw InputError(at + ": run.restart_allow: a key, a group or a list of them, e.g. [impact.resolver, bdem.dt]");
  }
  for (std::string e : entries) {
    if (e.size() > 2 && e.compare(e.size() - 2, 2, ".*") == 0) e.resize(e.size() - 2);
    if (!schema.find(e) && !schema.isGroup(e)) {
      std::string near = schema.closest(e);
      throw InputError(at + ": run.restart_allow: '" + e + "' is not a parameter or a group of this scene" +
                       (near.empty() ? "" : "; did you mean '" + near + "'?"));
    }
    list.push_back(e);
  }
  return list;
}

void checkFingerprint(const io::CheckpointReader& in, const Config& config, const ParamSchema& schema) {
  if (!in.has(kFingerprintName)) {
    log::warn("checkpoint ", in.path(), " was written before checkpoints carried a fingerprint of the scene ",
              "and checksums of their arrays: neither its parameters nor its contents are checked; make sure ",
              "the scene is the one it was written with");
    return;
  }
  const auto stored = parseFingerprint(in.readString(kFingerprintName));
  const auto now = resolvedValues(config, schema);
  const std::vector<std::string> allow = restartAllowList(config, schema);
  std::string changed;
  std::vector<std::string> unknownKeys;
  for (const auto& [key, value] : now) {
    auto it = stored.find(key);
    if (it == stored.end()) {
      unknownKeys.push_back(key);
      continue;
    }
    if (it->second == value || allowedToChange(key, allow)) continue;
    const std::string where = config.where(key);
    changed += "\n  " + key + ": checkpoint " + (it->second.empty() ? "(unset)" : it->second) + ", scene " +
               (value.empty() ? "(unset)" : value) + (where.empty() ? " (default)" : " (" + where + ")");
  }
  if (!unknownKeys.empty())
    log::warn("checkpoint ", in.path(), " has no value for ", joinNames(unknownKeys),
              " (written by another version of kinema): not checked");
  if (!changed.empty())
    throw InputError("run.restart: checkpoint " + in.path() +
                     " was written with other values of parameters that shape the state:" + changed +
                     "\nrestart with the checkpoint's values, start a new run, or, to change them on purpose, "
                     "name them (or their group) in run.restart_allow");
}

}  // namespace kinema::run

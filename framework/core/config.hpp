#pragma once
// A scene's configuration: a YAML file plus `--set a.b=c` overrides, validated against the
// ParamSchema before any work. Every problem is reported as `file:line: key: what is wrong`
// (overrides as `--set key=value: key: ...`); an unknown key gets the closest valid key.
#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "framework/core/params.hpp"

namespace kinema {

// YAML text that reads back as the same node: quoted scalars stay quoted (so they stay strings),
// explicit tags are kept. How a pass-through subtree reaches a layer that takes plain strings
// (the native options of framework/la).
std::string yamlText(const YAML::Node& node);

class Config {
 public:
  // Reads a YAML file; a missing file or unreadable YAML is an InputError naming file and line.
  static Config loadFile(const std::string& path);
  // Parses YAML text; `sourceName` is used in messages in place of a file name.
  static Config fromString(const std::string& yaml, const std::string& sourceName = "<string>");

  // Applies "a.b=c" (the value is parsed as YAML: numbers, booleans, [lists], strings).
  void set(const std::string& assignment);
  // Sets one key from YAML text; `origin` names where it came from in messages.
  void setValue(const std::string& key, const std::string& yamlValue, const std::string& origin);
  // Sets one key to a string, taken literally (paths, names).
  void setString(const std::string& key, const std::string& value, const std::string& origin);
  // `key: scalar` becomes `key: {field: scalar}` (e.g. `backend: petsc` -> `backend.name: petsc`).
  void expandShorthand(const std::string& key, const std::string& field);

  // A scalar as the user wrote it, before validation (e.g. `module`), with no default.
  std::optional<std::string> rawScalar(const std::string& key) const;
  // "file:line" (or "--set ...") of a key, "" if the key is not present.
  std::string where(const std::string& key) const;

  // Checks every key against `schema`: unknown keys, wrong types, out-of-range values, missing
  // required keys. Throws one InputError listing every problem. On success the typed getters below
  // answer with the given value or the declared default.
  void validate(const ParamSchema& schema);
  bool validated() const { return schema_ != nullptr; }

  bool getBool(const std::string& key) const;
  long long getInt(const std::string& key) const;
  double getReal(const std::string& key) const;
  const std::string& getString(const std::string& key) const;  // string and choice
  const std::vector<double>& getRealList(const std::string& key) const;
  // A pass-through subtree (ParamType::tree); an undefined node if the user gave none.
  YAML::Node tree(const std::string& key) const;
  // The same subtree as YAML text (yamlText), for layers that take plain strings (framework/la, the
  // backends' settings); nullopt if the user gave none.
  std::optional<std::string> treeText(const std::string& key) const;
  // A subtree that is a map, entry by entry: {key: YAML text of its value}; empty if the user gave
  // none or it is not a map (LinearSolverOptions::native, by backend name).
  std::map<std::string, std::string> treeEntries(const std::string& key) const;
  // True if the user (file or --set) gave this key.
  bool isSet(const std::string& key) const;

  // Every declared parameter with its effective value, plus pass-through trees, as YAML.
  std::string resolvedYaml() const;
  const std::string& source() const { return source_; }
  const YAML::Node& root() const { return root_; }

 private:
  Config(YAML::Node root, std::string source);
  YAML::Node lookup(const std::string& key) const;
  void setNode(const std::string& key, const YAML::Node& value, const std::string& origin);
  std::string locate(const std::string& key, const YAML::Node& node) const;
  const ParamSpec& specFor(const std::string& key, ParamType expected) const;

  YAML::Node root_;
  std::string source_;
  std::map<std::string, std::string> overrideOrigin_;  // key -> "--set key=value"
  const ParamSchema* schema_ = nullptr;
  std::map<std::string, ParamValue> values_;
};

std::vector<std::string> splitKey(const std::string& key);

}  // namespace kinema

#pragma once
// String-keyed registries. Each layer owns the registry of its own things (la: backends and
// framework-written preconditioners; run: modules); this is the shared mechanism: add by name,
// look up by name with a "did you mean" for typos, list with one line of help each, and where each
// entry came from (built in, or the plugin file that registered it: framework/core/plugins.hpp).
#include <map>
#include <string>
#include <vector>

#include "framework/core/error.hpp"
#include "framework/core/strings.hpp"
#include "framework/core/params.hpp"

namespace kinema {

// Where the entries added now come from: "built-in", or the absolute path of the plugin whose
// kinema_plugin_register() is running (set by framework/core/plugins.cpp around that call). The
// registry records it itself, so a registration function is the same in tree and out of tree.
const std::string& registrationOrigin();
inline constexpr const char* kBuiltinOrigin = "built-in";

// Entry must have `std::string name, help;`.
template <class Entry>
class NamedRegistry {
 public:
  explicit NamedRegistry(std::string kind) : kind_(std::move(kind)) {}

  void add(Entry entry) {
    const std::string& origin = registrationOrigin();
    KINEMA_CHECK(!entry.name.empty(), kind_, " registered with an empty name (", origin, ")");
    if (auto it = origins_.find(entry.name); it != origins_.end()) {
      // Two built-ins with one name is a bug of the build; a plugin taking a name is the user's
      // input (the plugin path), so it is an InputError naming both files.
      auto by = [](const std::string& o) { return o == kBuiltinOrigin ? o : "by " + o; };
      const std::string msg = str(kind_, " '", entry.name, "' registered ", by(origin), " is already registered (",
                                  by(it->second), "); rename one of them or leave one off the plugin path");
      if (origin == kBuiltinOrigin) KINEMA_CHECK(false, msg);
      throw InputError(msg);
    }
    std::string name = entry.name;
    origins_.emplace(name, origin);
    entries_.emplace(std::move(name), std::move(entry));
  }
  // "built-in" or the absolute path of the plugin that registered `name` (which must be registered).
  const std::string& origin(const std::string& name) const {
    auto it = origins_.find(name);
    KINEMA_CHECK(it != origins_.end(), kind_, " '", name, "' is not registered");
    return it->second;
  }
  bool has(const std::string& name) const { return entries_.count(name) > 0; }
  // The entry, or an InputError naming the registered ones and the closest.
  const Entry& get(const std::string& name) const {
    auto it = entries_.find(name);
    if (it != entries_.end()) return it->second;
    std::string msg = "unknown " + kind_ + " '" + name + "'";
    std::string best;
    std::size_t bestD = std::string::npos;
    for (const auto& [n, e] : entries_)
      if (editDistance(name, n) < bestD) bestD = editDistance(name, n), best = n;
    if (!best.empty() && bestD <= std::max<std::size_t>(2, name.size() / 3))
      msg += "; did you mean '" + best + "'?";
    msg += " (registered: " + joinedNames() + ")";
    throw InputError(msg);
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [n, e] : entries_) out.push_back(n);
    return out;
  }
  std::string joinedNames() const {
    return joinNamesBy(entries_, [](const auto& entry) -> const std::string& { return entry.first; }, "none");
  }
  const std::map<std::string, Entry>& entries() const { return entries_; }
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
  std::map<std::string, Entry> entries_;
  std::map<std::string, std::string> origins_;
};

}  // namespace kinema

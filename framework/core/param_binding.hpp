#pragma once
// Parameters bound once: one call names a key, its range or choices, its help line and the C++
// field it fills. The field's value in a defaults object is the declared default, so the schema
// (`kinema help`, validation) and the reading of the validated config come from the same list and
// cannot drift apart (docs/architecture.md, "Parameters").
//
//   ParamBindings<NewtonOptions> b;
//   b.integer("max_iterations", &NewtonOptions::maxIterations, Range::atLeast(1), "Newton iterations at most");
//   b.choiceOf("line_search", &NewtonOptions::lineSearch, {{"none", LineSearch::none}, {"armijo", LineSearch::armijo}},
//              "line search on the merit function");
//   b.declare(schema, "bdem.newton", NewtonOptions{});        // when the module builds its schema
//   NewtonOptions o = b.read(config, "bdem.newton");         // after config.validate(schema)
//
// A field is a pointer to member or a callable `T& (Options&)` (for a field of a member struct:
// `field(&Options::bounds, &Bounds::mu)`, or any `[](Options& o) -> double& {...}`). Fields derived from others are computed by
// `then` (or `thenWithPrefix`, from the prefix too), after every bound field is read. Choices that
// come from a registry (`choiceFrom`) are asked for each time the schema is declared.
#include <deque>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "framework/core/config.hpp"
#include "framework/core/error.hpp"
#include "framework/core/params.hpp"

namespace kinema {

// An accessor of a member of a member struct, e.g. field(&OptimizerOptions::bounds, &Bounds::mu).
template <class Outer, class Sub, class T>
auto field(Sub Outer::*sub, T Sub::*member) {
  return [sub, member](Outer& o) -> T& { return (o.*sub).*member; };
}

template <class Options>
class ParamBindings {
 public:
  // The type a field accessor F gives access to.
  template <class F>
  using FieldType = std::decay_t<std::invoke_result_t<const F&, Options&>>;

  // One bound key. The setters refine its declaration (they are applied when it is declared).
  class Binding {
   public:
    // What an infinite value means for this key (ParamSpec::infiniteMeans).
    Binding& infiniteMeans(std::string meaning) {
      infinity_ = std::move(meaning);
      return *this;
    }
    // The field keeps its value unless the user gave the key (file or --set): for keys whose
    // default is the caller's (a generator's own material, say) and the declared one only shown.
    Binding& onlyWhenSet() {
      onlyWhenSet_ = true;
      return *this;
    }
    // The key must be given (ParamSpec::required): validation refuses a config without it.
    Binding& required() {
      required_ = true;
      return *this;
    }
    const std::string& key() const { return key_; }

   private:
    friend class ParamBindings;
    std::string key_;
    bool onlyWhenSet_ = false;
    bool required_ = false;
    std::function<ParamSpec&(ParamSchema&, const std::string&, Options&)> declare_;
    std::function<void(const Config&, const std::string&, Options&)> read_;
    std::string infinity_;
  };

  template <class F>
  Binding& real(std::string key, F field, Range range, std::string help) {
    return add(std::move(key),
               [field, range, help](ParamSchema& s, const std::string& k, Options& d) -> ParamSpec& {
                 return s.addReal(k, static_cast<double>(get(field, d)), range, help);
               },
               [field](const Config& c, const std::string& k, Options& o) { get(field, o) = c.getReal(k); });
  }

  // An integral field (int, long, std::size_t, ...); the range is checked before the cast.
  template <class F>
  Binding& integer(std::string key, F field, Range range, std::string help) {
    return add(std::move(key),
               [field, range, help](ParamSchema& s, const std::string& k, Options& d) -> ParamSpec& {
                 return s.addInt(k, static_cast<long long>(get(field, d)), range, help);
               },
               [field](const Config& c, const std::string& k, Options& o) {
                 using T = std::remove_reference_t<decltype(get(field, o))>;
                 static_assert(std::is_integral_v<T>, "ParamBindings::integer binds an integral field");
                 get(field, o) = static_cast<T>(c.getInt(k));
               });
  }

  template <class F>
  Binding& boolean(std::string key, F field, std::string help) {
    return add(std::move(key),
               [field, help](ParamSchema& s, const std::string& k, Options& d) -> ParamSpec& {
                 return s.addBool(k, static_cast<bool>(get(field, d)), help);
               },
               [field](const Config& c, const std::string& k, Options& o) { get(field, o) = c.getBool(k); });
  }

  template <class F>
  Binding& string(std::string key, F field, std::string help) {
    return add(std::move(key),
               [field, help](ParamSchema& s, const std::string& k, Options& d) -> ParamSpec& {
                 return s.addString(k, get(field, d), help);
               },
               [field](const Config& c, const std::string& k, Options& o) { get(field, o) = c.getString(k); });
  }

  // A string field restricted to `choices` (validated before any work).
  template <class F>
  Binding& choice(std::string key, F field, std::vector<std::string> choices, std::string help) {
    return add(std::move(key),
               [field, choices, help](ParamSchema& s, const std::string& k, Options& d) -> ParamSpec& {
                 return s.addChoice(k, get(field, d), choices, help);
               },
               [field](const Config& c, const std::string& k, Options& o) { get(field, o) = c.getString(k); });
  }

  // A string field whose choices are asked for when the schema is declared, not when the key is
  // bound: the names of a registry (modules, backends, preconditioners) that plugins may still add
  // to after the bindings were built.
  template <class F>
  Binding& choiceFrom(std::string key, F field, std::function<std::vector<std::string>()> choices,
                      std::string help) {
    return add(std::move(key),
               [field, choices, help](ParamSchema& s, const std::string& k, Options& d) -> ParamSpec& {
                 return s.addChoice(k, get(field, d), choices(), help);
               },
               [field](const Config& c, const std::string& k, Options& o) { get(field, o) = c.getString(k); });
  }

  // A field of any type (an enum, a flag) chosen by name: `names` pairs each choice with its value.
  template <class F>
  Binding& choiceOf(std::string key, F field, std::vector<std::pair<std::string, FieldType<F>>> names,
                    std::string help) {
    std::vector<std::string> choices;
    for (const auto& n : names) choices.push_back(n.first);
    return add(std::move(key),
               [field, names, choices, help](ParamSchema& s, const std::string& k, Options& d) -> ParamSpec& {
                 const auto& value = get(field, d);
                 for (const auto& n : names)
                   if (n.second == value) return s.addChoice(k, n.first, choices, help);
                 throw Error("parameter " + k + ": the default value has no name among its choices");
               },
               [field, names](const Config& c, const std::string& k, Options& o) {
                 const std::string& name = c.getString(k);
                 for (const auto& n : names)
                   if (n.first == name) {
                     get(field, o) = n.second;
                     return;
                   }
                 throw Error("parameter " + k + ": '" + name + "' is not one of its choices");
               });
  }

  template <class F>
  Binding& realList(std::string key, F field, int size, std::string help) {
    return add(std::move(key),
               [field, size, help](ParamSchema& s, const std::string& k, Options& d) -> ParamSpec& {
                 return s.addRealList(k, get(field, d), size, help);
               },
               [field](const Config& c, const std::string& k, Options& o) { get(field, o) = c.getRealList(k); });
  }

  // A pass-through subtree (ParamType::tree, not validated) read as its YAML node (the config's
  // own, not a copy): undefined where the user gave none.
  template <class F>
  Binding& tree(std::string key, F field, std::string help) {
    return add(std::move(key),
               [help](ParamSchema& s, const std::string& k, Options&) -> ParamSpec& { return s.addTree(k, help); },
               [field](const Config& c, const std::string& k, Options& o) {
                 get(field, o).reset(c.tree(k));  // rebinds: `=` would write into a node copies share
               });
  }

  // A key whose field needs a conversion (e.g. a list into a vector type): `declare` adds its spec
  // from the defaults, `read` fills the field from the validated config; both get the full key.
  Binding& custom(std::string key, std::function<ParamSpec&(ParamSchema&, const std::string&, const Options&)> declare,
                  std::function<void(const Config&, const std::string&, Options&)> read) {
    return add(std::move(key),
               [declare](ParamSchema& s, const std::string& k, Options& d) -> ParamSpec& { return declare(s, k, d); },
               std::move(read));
  }

  // Another options struct's bindings under `key.` (e.g. a Newton solver's linear solver); an
  // empty key puts them beside this struct's own keys. `sub` is
  // kept by reference: bindings live as function-local statics.
  template <class F, class Sub>
  void nested(std::string key, F field, const ParamBindings<Sub>& sub) {
    order_.push_back({true, nested_.size()});
    nested_.push_back(Nested{std::move(key),
                             [field, &sub](ParamSchema& s, const std::string& p, Options& d) {
                               sub.declare(s, p, get(field, d));
                             },
                             [field, &sub](const Config& c, const std::string& p, Options& o) {
                               sub.readInto(c, p, get(field, o));
                             }});
  }

  // Runs after every bound field is read, in the order given: fields derived from others.
  void then(std::function<void(Options&)> derive) {
    derived_.push_back([derive = std::move(derive)](Options& o, const std::string&) { derive(o); });
  }
  // The same for a field derived from the prefix the struct is read under (e.g. a solver's
  // native option prefix "poisson_solver_" from "poisson.solver").
  void thenWithPrefix(std::function<void(Options&, const std::string& prefix)> derive) {
    derived_.push_back(std::move(derive));
  }

  // Declares every bound key under `prefix` with the defaults' field values.
  void declare(ParamSchema& schema, const std::string& prefix, const Options& defaults = Options{}) const {
    Options d = defaults;
    for (const auto& [isNested, i] : order_) {  // in the order bound: `kinema help` lists them so
      if (isNested) {
        nested_[i].declare(schema, join(prefix, nested_[i].key), d);
        continue;
      }
      const Binding& b = bindings_[i];
      ParamSpec& spec = b.declare_(schema, join(prefix, b.key_), d);
      if (!b.infinity_.empty()) spec.infiniteMeans(b.infinity_);
      if (b.required_) spec.required = true;
    }
  }

  // Fills `out` from a validated config (fields that are not bound keep their values).
  void readInto(const Config& config, const std::string& prefix, Options& out) const {
    for (const Binding& b : bindings_) {
      const std::string key = join(prefix, b.key_);
      if (!b.onlyWhenSet_ || config.isSet(key)) b.read_(config, key, out);
    }
    for (const Nested& n : nested_) n.read(config, join(prefix, n.key), out);
    for (const auto& derive : derived_) derive(out, prefix);
  }

  Options read(const Config& config, const std::string& prefix, Options start = Options{}) const {
    readInto(config, prefix, start);
    return start;
  }

  // The bound keys, relative to the prefix (nested structs' keys are not listed).
  std::vector<std::string> keys() const {
    std::vector<std::string> k;
    for (const Binding& b : bindings_) k.push_back(b.key_);
    return k;
  }

 private:
  struct Nested {
    std::string key;
    std::function<void(ParamSchema&, const std::string&, Options&)> declare;
    std::function<void(const Config&, const std::string&, Options&)> read;
  };

  template <class F>
  static decltype(auto) get(const F& field, Options& o) {
    return std::invoke(field, o);
  }

  static std::string join(const std::string& prefix, const std::string& key) {
    if (key.empty()) return prefix;  // nested("", ...): the sub-struct's keys sit beside ours
    return prefix.empty() ? key : prefix + "." + key;
  }

  template <class D, class R>
  Binding& add(std::string key, D declare, R read) {
    for (const Binding& b : bindings_)
      if (b.key_ == key) throw Error("parameter " + key + " is bound twice");
    order_.push_back({false, bindings_.size()});
    Binding& b = bindings_.emplace_back();
    b.key_ = std::move(key);
    b.declare_ = std::move(declare);
    b.read_ = std::move(read);
    return b;
  }

  std::deque<Binding> bindings_;  // a deque: a returned Binding& stays valid as others are added
  std::vector<Nested> nested_;
  std::vector<std::pair<bool, std::size_t>> order_;  // (nested?, index) in the order bound
  std::vector<std::function<void(Options&, const std::string&)>> derived_;
};

}  // namespace kinema

#pragma once
// Native Trilinos options written as YAML: Teuchos parameter lists for Belos, Ifpack2, MueLu and
// Amesos2. Backend-wide lists come from `backend.trilinos.<package>` and apply to every solver;
// a solver's own `native: {trilinos: {<package>: ...}}` is applied on top, for that solver only.
//
// Conversion: a map becomes a sublist; a scalar becomes an int if it is integral, a double if it
// is real, a bool for true/false, otherwise a string; a sequence of scalars becomes a
// Teuchos::Array of the widest of those types. When the package publishes its valid parameters,
// ints given for double parameters are widened (a YAML `1` for a tolerance).
#include <yaml-cpp/yaml.h>

#include <Teuchos_ParameterList.hpp>

#include <array>
#include <exception>
#include <string>

namespace kinema::la::trilinos {

enum class Package { belos = 0, ifpack2 = 1, muelu = 2, amesos2 = 3 };
const char* packageName(Package p);

// Throws an InputError naming `where` (e.g. "backend.trilinos.belos") for a YAML value that has
// no parameter-list form (null, nested sequences, a sequence of maps).
Teuchos::ParameterList yamlToParameterList(const YAML::Node& yaml, const std::string& where);

// Ints in `user` where `valid` has a double become doubles (recursively into sublists).
void widenToValidTypes(Teuchos::ParameterList& user, const Teuchos::ParameterList& valid);

struct NativeOptions {
  std::array<Teuchos::ParameterList, 4> backendWide;  // backend.trilinos.<package>
  std::array<Teuchos::ParameterList, 4> solverOnly;   // <solver>.native.trilinos.<package>

  // backend-wide, then the solver's own on top.
  Teuchos::ParameterList merged(Package p) const;
  // Where a parameter came from: the solver's own list if it has it, else the backend's.
  std::string origin(Package p, const std::string& param) const;
};

// `backendTrilinos` is the node of `backend.trilinos` (may be undefined), `solverNative` the
// node of LinearSolverOptions::native["trilinos"] (may be undefined).
NativeOptions readNativeOptions(const YAML::Node& backendTrilinos, const YAML::Node& solverNative);

// Unknown names in `user` (recursively) against `valid`: an InputError naming the origin
// (backend.trilinos.<package> or native.trilinos.<package>), the parameter and the closest valid
// name. `what` names the consumer ("Belos solver 'PSEUDOBLOCK CG'").
void checkNames(const NativeOptions& o, Package p, const Teuchos::ParameterList& user,
                const Teuchos::ParameterList& valid, const std::string& what);

// Turns an exception a package threw while reading its parameters into an InputError naming the
// origin and, when the message has it, the parameter.
[[noreturn]] void rethrowAsInputError(const std::exception& e, const NativeOptions& o, Package p,
                                      const std::string& what);

}  // namespace kinema::la::trilinos

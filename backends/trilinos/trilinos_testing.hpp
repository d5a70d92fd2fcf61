#pragma once
// What the tests of the Trilinos backend can see without Trilinos headers on their include path.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace kinema::la::trilinos {

// The Teuchos::ParameterList a YAML map converts to (see trilinos_params.hpp), flattened to one
// line per parameter, "path/to/name (type) = value", in the list's order. Types: int, double,
// bool, string, Array(int), Array(double), Array(string). Throws an InputError naming `where`.
std::vector<std::string> describeConvertedParameters(const YAML::Node& yaml, const std::string& where);

}  // namespace kinema::la::trilinos

#pragma once
// Scene parameters of the avi module (the paper's §8): `<prefix>.generator` picks one of
// sceneGenerators(), `<prefix>.<generator>.<arg>` are its arguments (each with default, range and
// help), and shared keys (eta, k, gravity, material steps / safety) override the generator's
// paper values only where the scene sets them. Relative mesh paths resolve against the scene
// file's directory.
#include <string>
#include <vector>

#include "framework/core/config.hpp"
#include "framework/core/params.hpp"
#include "modules/avi/scene.hpp"

namespace kinema::avi {

// "spring_on_plane", "balls_2d", "balls_3d", "sphere_plate", "sphere_wedge", "cloth_spikes",
// "trash_compactor", "rod_knot", "two_shells" (free, for momentum), "particles_free" (free,
// for momentum), "mesh" (OBJ files).
const std::vector<std::string>& sceneGenerators();

void declareSceneParams(ParamSchema& schema, const std::string& prefix);

// The vertex count of a generator whose scene can be too large to build for an estimate
// (cloth_spikes), from its arguments alone; < 0 for the others, which the estimate builds
// (avi_estimate.cpp).
double countedVertices(const Config& config, const std::string& prefix);

// Builds and validates the scene the config describes. Bad arguments are InputErrors naming
// `file:line: <prefix>.<generator>.<arg>`.
Scene buildScene(const Config& config, const std::string& prefix);

}  // namespace kinema::avi

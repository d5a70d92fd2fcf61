#pragma once
// Scene parameters (the paper's scenes, §6.3-6.4): `<prefix>.generator` picks a generator of
// scene_builder.hpp, `<prefix>.<generator>.<arg>` are its arguments, and a few keys are shared by
// all generators:
//   lattice, jitter, seed, bond_delta     packing and bond creation (§3.4; README decision 23)
//   material.{E, nu, density, sigma_c, tau_c, calibration}, gravity
// The material and gravity keys override the generator's own values only when the scene sets them
// (each generator has the values of its paper scene: e.g. E = 1e7 for three-point bending, 1e8
// for the chocolate, 1e9 for the plate; gravity off for stretch / twist / yarn / two spheres).
// The schema's defaults for them are three-point bending's. Relative paths (mesh.path,
// chocolate_bar.mesh) are resolved against the scene file's directory.
#include <string>
#include <vector>

#include "framework/core/config.hpp"
#include "framework/core/params.hpp"
#include "modules/bdem/system.hpp"

namespace kinema::bdem {

const std::vector<std::string>& sceneGenerators();
// Whether the generator packs a lattice (the bodies `material.calibration` applies to).
bool packedGenerator(const std::string& generator);

void declareSceneParams(ParamSchema& schema, const std::string& prefix);
// bdem.sets, bdem.loads, bdem.supports, bdem.probes (particle_sets.hpp).
void declareParticleSetParams(ParamSchema& schema);

// Builds the scene the (validated) config describes. Bad arguments are InputErrors naming
// `file:line: <prefix>.<generator>.<arg>`.
System buildScene(const Config& config, const std::string& prefix);

// The particles the scene will have, from its (validated) parameters alone, before anything is
// built (the resource estimate, framework/run/limits.hpp); < 0 when a file or a mesh packed at a
// given radius must be read first.
double sceneParticleCount(const Config& config, const std::string& prefix);

// `path` as written in the scene; relative paths are taken relative to the scene file's directory
// (when the config came from a file), else to the working directory.
std::string resolveScenePath(const Config& config, const std::string& path);

}  // namespace kinema::bdem

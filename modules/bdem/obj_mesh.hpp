#pragma once
// Closed triangle meshes from Wavefront OBJ files, for packing arbitrary solids (paper
// §3.4). The reader lives in the framework (framework/geometry/tri_mesh.hpp, shared with
// the avi module); this header keeps the bdem names.
#include "framework/geometry/tri_mesh.hpp"

namespace kinema::bdem {

using geometry::TriMesh;
using geometry::checkClosed;
using geometry::checkSurface;
using geometry::parseObj;
using geometry::readObj;

}  // namespace kinema::bdem

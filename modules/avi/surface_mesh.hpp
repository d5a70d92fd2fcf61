#pragma once
// Topology of triangle surface meshes (geometry::TriMesh, framework/geometry/tri_mesh.hpp) for
// thin shells and cloth (the paper's §8): the unique edges, the interior edges with
// their two flaps (the hinge stencils of the discrete-shell bending), the boundary, and the
// lumped vertex areas (one third of every incident triangle, so masses sum to density * area).
#include <Eigen/Core>
#include <string>
#include <vector>

#include "framework/geometry/tri_mesh.hpp"

namespace kinema::avi {

// An interior edge (a, b) with its flaps: c in the triangle (a, b, c) (in that cyclic order) and
// d in the other triangle, which holds the edge as (b, a, d) when the two triangles are
// consistently oriented. This is the stencil of makeHinge (force_element.hpp).
struct HingeStencil {
  int a = 0, b = 0, c = 0, d = 0;
};

// Every edge once, as (min, max), sorted.
std::vector<Eigen::Vector2i> meshEdges(const std::vector<Eigen::Vector3i>& faces);
// Edges of exactly one triangle, sorted as (min, max).
std::vector<Eigen::Vector2i> boundaryEdges(const std::vector<Eigen::Vector3i>& faces);
// Interior edges (exactly two triangles) with their flaps, in the order of meshEdges(). Throws
// InputError (naming `source` and the edge) for an edge shared by more than two triangles.
std::vector<HingeStencil> meshHinges(const std::vector<Eigen::Vector3i>& faces, const std::string& source = "mesh");
// True if every edge is shared by exactly two triangles.
bool isClosed(const std::vector<Eigen::Vector3i>& faces);
// True if every interior edge is traversed in opposite directions by its two triangles.
bool consistentlyOriented(const std::vector<Eigen::Vector3i>& faces);

double triangleArea(const Eigen::Vector3d& a, const Eigen::Vector3d& b, const Eigen::Vector3d& c);
double surfaceArea(const geometry::TriMesh& mesh);
// Lumped (barycentric) vertex areas: each triangle gives a third of its area to each corner.
std::vector<double> vertexAreas(const geometry::TriMesh& mesh);

// Appends `part` to `mesh` (faces re-indexed).
void appendMesh(geometry::TriMesh& mesh, const geometry::TriMesh& part);
// Rotates by R, then translates: x <- R x + t.
void rigidTransform(geometry::TriMesh& mesh, const Eigen::Matrix3d& R, const Eigen::Vector3d& t);

}  // namespace kinema::avi

#pragma once
// Generators of triangle surface meshes for the avi scenes (the paper's §8). Every
// generator returns a geometry::TriMesh with consistently oriented triangles (closed ones
// outward) and throws InputError on bad sizes. Counts:
//   gridMesh(nx, ny)            (nx + 1)(ny + 1) vertices, 2 nx ny triangles (open)
//   icosphere(nu)               10 nu^2 + 2 vertices, 20 nu^2 triangles, 30 nu^2 edges (closed)
//   discMesh(rings)             1 + 3 rings (rings + 1) vertices, 6 rings^2 triangles (open)
//   prismShell(s, n)            3 s (n + 1) + 2 vertices, 6 s n + 6 s triangles (closed)
//   spikeMesh                   7 vertices, 6 sliver triangles (open at the base)
//   torusMesh(nMajor, nMinor)   nMajor nMinor vertices, 2 nMajor nMinor triangles (closed)
//   platonicSolid               tetrahedron 4 / 4, cube 8 / 12, octahedron 6 / 8,
//                               icosahedron 12 / 20, dodecahedron 32 / 60 (pentagons fanned
//                               from a centre vertex) vertices / triangles (closed)
//   wallTube                    8 vertices, 8 triangles: four rectangular walls sharing corners
#include <string>

#include "framework/geometry/tri_mesh.hpp"

namespace kinema::avi {

// Rectangle [0, lx] x [0, ly] at z = 0 (normal +z), nx x ny cells, each split along alternating
// diagonals (no preferred shear direction).
geometry::TriMesh gridMesh(double lx, double ly, int nx, int ny);

// Geodesic sphere of frequency nu about the origin: every icosahedron face split into nu^2
// triangles, vertices projected onto the sphere (the paper's §8.5: nu = 3 gives the paper's 92 vertices).
geometry::TriMesh icosphere(double radius, int nu);

// Disc of `radius` at z = 0 (normal +z): a centre vertex and rings i = 1..rings of 6 i vertices.
geometry::TriMesh discMesh(double radius, int rings);

// Closed thin-shell triangular prism (the paper's §8.5 wedge): isosceles cross section in the xz plane with
// base from x = -base/2 to base/2 at z = 0 and apex (0, height), extruded along y over [0, length].
// Each side of the cross section is split into `sideDivisions` pieces, the length into `segments`;
// the two end caps are fans from a centre vertex.
geometry::TriMesh prismShell(double base, double height, double length, int segments, int sideDivisions);

// Thin spike (the paper's §8.6, Fig. 11): a regular hexagonal pyramid of the given height, apex at
// (0, 0, height), base hexagon at z = 0 (not closed), whose six isosceles side triangles have the
// apex angle `apexAngleDeg`: base side s = 2 H sin(a/2) / sqrt(1 - 4 sin^2(a/2)).
geometry::TriMesh spikeMesh(double height, double apexAngleDeg);

// Torus about the z axis: tube centre radius R, tube radius r.
geometry::TriMesh torusMesh(double R, double r, int nMajor, int nMinor);

// "tetrahedron", "cube", "octahedron", "icosahedron", "dodecahedron", centred at the origin, with
// circumradius `radius`.
geometry::TriMesh platonicSolid(const std::string& name, double radius);

// Four vertical walls of the box [x0, x1] x [y0, y1] x [0, height] as one mesh (open top and
// bottom); normals point into the box. Vertex order: bottom corners (x0,y0), (x1,y0), (x1,y1),
// (x0,y1), then the top corners in the same order.
geometry::TriMesh wallTube(double x0, double x1, double y0, double y1, double height);

}  // namespace kinema::avi

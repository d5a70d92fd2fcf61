// Scene::validate (scene.hpp): consistency of a built scene, and no penalty layer active at t = 0.
#include "modules/avi/scene.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <utility>

#include "framework/core/error.hpp"
#include "framework/geometry/primitive_distance.hpp"
#include "framework/geometry/spatial_hash.hpp"

namespace kinema::avi {

namespace {

bool finite(const Vec3& x) { return x.allFinite(); }

int kindSize(ForceKind k) {
  switch (k) {
    case ForceKind::Spring: return 2;
    case ForceKind::Cst: return 3;
    case ForceKind::Hinge: return 4;
    case ForceKind::RodBend: return 3;
    case ForceKind::Gravity: return 1;
  }
  return 0;
}

const char* kindName(ForceKind k) {
  switch (k) {
    case ForceKind::Spring: return "spring";
    case ForceKind::Cst: return "CST";
    case ForceKind::Hinge: return "hinge";
    case ForceKind::RodBend: return "rod bend";
    case ForceKind::Gravity: return "gravity";
  }
  return "?";
}

// A contact primitive: 1 (point), 2 (edge) or 3 (triangle) vertices.
struct Prim {
  int n = 0;
  int v[3] = {-1, -1, -1};
  int index = 0;  // index in its own list
};

// The names a validation error gives a vertex: its index and its object.
std::string objectName(const Scene& sc, int a) {
  const int o = sc.vertices.object[static_cast<std::size_t>(a)];
  return o >= 0 && o < static_cast<int>(sc.objects.size()) ? sc.objects[static_cast<std::size_t>(o)].name : str(o);
}
std::string vertexName(const Scene& sc, int a) { return str("vertex ", a, " (object '", objectName(sc, a), "')"); }
[[noreturn]] void fail(const Scene& sc, const std::string& what) {
  throw InputError(str("avi scene '", sc.name, "': ", what));
}

// Array sizes, finite values, positive masses, object ranges, 2D scenes in the plane.
void checkSizesAndValues(const Scene& sc) {
  const Vertices& V = sc.vertices;
  const int n = V.size();
  const int dim = sc.dim;
  auto fail = [&](const std::string& what) { avi::fail(sc, what); };
  auto vertexName = [&](int a) { return avi::vertexName(sc, a); };
  const auto& objects = sc.objects;
  const auto& isolated = sc.isolated;
  if (dim != 2 && dim != 3) fail(str("dim is ", dim, " (2 or 3)"));
  const std::size_t N = static_cast<std::size_t>(n);
  if (V.v.size() != N || V.t.size() != N || V.mass.size() != N || V.minv.size() != N || V.object.size() != N)
    fail(str("vertex arrays have different sizes (x ", V.x.size(), ", v ", V.v.size(), ", t ", V.t.size(), ", mass ",
             V.mass.size(), ", minv ", V.minv.size(), ", object ", V.object.size(), ")"));
  if (isolated.size() != N) fail(str("isolated has ", isolated.size(), " entries for ", n, " vertices"));
  for (int a = 0; a < n; ++a) {
    if (!finite(V.x[a])) fail(str(vertexName(a), " has a NaN or infinite position"));
    if (!finite(V.v[a])) fail(str(vertexName(a), " has a NaN or infinite velocity"));
    if (!std::isfinite(V.t[a])) fail(str(vertexName(a), " has a non-finite time"));
    if (!(V.mass[a] > 0.0) || !std::isfinite(V.mass[a])) fail(str(vertexName(a), " has mass ", V.mass[a], " (need > 0)"));
    if (!(V.minv[a] >= 0.0) || !std::isfinite(V.minv[a]))
      fail(str(vertexName(a), " has inverse mass ", V.minv[a], " (need >= 0; 0 = scripted)"));
    if (!objects.empty() && (V.object[a] < 0 || V.object[a] >= static_cast<int>(objects.size())))
      fail(str("vertex ", a, " belongs to object ", V.object[a], " but there are ", objects.size(), " objects"));
    if (dim == 2 && (V.x[a].z() != 0.0 || V.v[a].z() != 0.0))
      fail(str(vertexName(a), ": a 2D scene needs z = 0 and v_z = 0 (x_z = ", V.x[a].z(), ", v_z = ", V.v[a].z(), ")"));
  }
  for (std::size_t o = 0; o < objects.size(); ++o) {
    const ObjectInfo& ob = objects[o];
    if (ob.firstVertex < 0 || ob.numVertices < 0 || ob.firstVertex + ob.numVertices > n)
      fail(str("object ", o, " ('", ob.name, "') covers vertices [", ob.firstVertex, ", ",
               ob.firstVertex + ob.numVertices, ") outside [0, ", n, ")"));
  }
}

// Potentials, contact and draw primitives, planes and scripts name existing vertices and are well formed.
void checkElements(const Scene& sc) {
  const Vertices& V = sc.vertices;
  const int n = V.size();
  const int dim = sc.dim;
  auto fail = [&](const std::string& what) { avi::fail(sc, what); };
  auto vertexName = [&](int a) { return avi::vertexName(sc, a); };
  const auto& forces = sc.forces;
  const auto& contactPoints = sc.contactPoints;
  const auto& contactEdges = sc.contactEdges;
  const auto& contactTriangles = sc.contactTriangles;
  const auto& drawTriangles = sc.drawTriangles;
  const auto& drawEdges = sc.drawEdges;
  const auto& planes = sc.planes;
  const auto& scripts = sc.scripts;
  const double eta = sc.eta, k = sc.k;
  auto checkIndex = [&](int a, const std::string& where) {
    if (a < 0 || a >= n) fail(str(where, " refers to vertex ", a, " (the scene has ", n, ")"));
  };
  for (std::size_t i = 0; i < forces.size(); ++i) {
    const ForceElement& e = forces[i];
    const std::string where = str(kindName(e.kind), " potential ", i);
    if (e.n != kindSize(e.kind)) fail(str(where, " has ", int(e.n), " stencil vertices (need ", kindSize(e.kind), ")"));
    for (int a = 0; a < e.n; ++a) {
      checkIndex(e.v[a], where);
      for (int b = 0; b < a; ++b)
        if (e.v[a] == e.v[b]) fail(str(where, " repeats vertex ", e.v[a], " in its stencil"));
    }
    if (!(e.h > 0.0) || !std::isfinite(e.h)) fail(str(where, " (vertices from ", e.v[0], ") has step h = ", e.h, " (need > 0)"));
    if (e.j < 1) fail(str(where, " has clock index j = ", e.j, " (need >= 1)"));
  }
  for (std::int32_t a : contactPoints) checkIndex(a, "a contact point");
  for (std::size_t i = 0; i < contactEdges.size(); ++i) {
    for (int k = 0; k < 2; ++k) checkIndex(contactEdges[i][k], str("contact edge ", i));
    if (contactEdges[i][0] == contactEdges[i][1]) fail(str("contact edge ", i, " has equal ends ", contactEdges[i][0]));
  }
  for (std::size_t i = 0; i < contactTriangles.size(); ++i) {
    const Eigen::Vector3i& t = contactTriangles[i];
    for (int k = 0; k < 3; ++k) checkIndex(t[k], str("contact triangle ", i));
    if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) fail(str("contact triangle ", i, " repeats a vertex"));
  }
  if (dim == 2 && !contactTriangles.empty()) fail(str("a 2D scene has ", contactTriangles.size(), " contact triangles"));
  for (std::size_t i = 0; i < drawTriangles.size(); ++i)
    for (int k = 0; k < 3; ++k) checkIndex(drawTriangles[i][k], str("draw triangle ", i));
  for (std::size_t i = 0; i < drawEdges.size(); ++i)
    for (int k = 0; k < 2; ++k) checkIndex(drawEdges[i][k], str("draw edge ", i));
  for (std::size_t p = 0; p < planes.size(); ++p) {
    if (!finite(planes[p].normal) || std::abs(planes[p].normal.norm() - 1.0) > 1e-12 || !std::isfinite(planes[p].offset))
      fail(str("plane ", p, " needs a unit normal and a finite offset"));
    if (dim == 2 && planes[p].normal.z() != 0.0) fail(str("plane ", p, " of a 2D scene has a normal with z != 0"));
  }
  for (const Script& s : scripts) {
    if (s.times.size() != s.velocities.size() || s.times.empty())
      fail(str("script '", s.name, "' has ", s.times.size(), " times and ", s.velocities.size(), " velocities"));
    for (std::size_t k = 0; k < s.times.size(); ++k) {
      if (!std::isfinite(s.times[k]) || s.times[k] < 0.0 || (k > 0 && !(s.times[k] > s.times[k - 1])))
        fail(str("script '", s.name, "': times must be >= 0 and increasing (entry ", k, " is ", s.times[k], ")"));
      if (!finite(s.velocities[k]) || (dim == 2 && s.velocities[k].z() != 0.0))
        fail(str("script '", s.name, "': velocity ", k, " is not finite or has v_z != 0 in 2D"));
    }
    for (std::int32_t a : s.vertices) {
      checkIndex(a, str("script '", s.name, "'"));
      if (!V.scripted(a)) fail(str("script '", s.name, "' moves ", vertexName(a), ", which is not scripted (minv != 0)"));
    }
  }
  if (!(eta > 0.0) || !std::isfinite(eta)) fail(str("eta = ", eta, " (need > 0)"));
  if (!(k > 0.0) || !std::isfinite(k)) fail(str("k = ", k, " (need > 0)"));
}

// The contact primitives: points, then edges, then triangles.
std::vector<Prim> contactPrims(const Scene& sc) {
  const auto& contactPoints = sc.contactPoints;
  const auto& contactEdges = sc.contactEdges;
  const auto& contactTriangles = sc.contactTriangles;
  std::vector<Prim> prims;
  prims.reserve(contactPoints.size() + contactEdges.size() + contactTriangles.size());
  for (std::size_t i = 0; i < contactPoints.size(); ++i) prims.push_back({1, {contactPoints[i], -1, -1}, int(i)});
  for (std::size_t i = 0; i < contactEdges.size(); ++i)
    prims.push_back({2, {contactEdges[i][0], contactEdges[i][1], -1}, int(i)});
  for (std::size_t i = 0; i < contactTriangles.size(); ++i)
    prims.push_back({3, {contactTriangles[i][0], contactTriangles[i][1], contactTriangles[i][2]}, int(i)});
  return prims;
}

// A primitive as a separation error names it.
std::string describePrim(const Scene& sc, const Prim& p) {
  if (p.n == 1) return str("point ", vertexName(sc, p.v[0]));
  if (p.n == 2)
    return str("edge ", p.index, " (vertices ", p.v[0], " ", p.v[1], ", object '", objectName(sc, p.v[0]), "')");
  return str("triangle ", p.index, " (vertices ", p.v[0], " ", p.v[1], " ", p.v[2], ", object '",
             objectName(sc, p.v[0]), "')");
}

// Whether every vertex of p and q is scripted.
bool allScripted(const Vertices& V, const Prim& p, const Prim& q) {
  for (int i = 0; i < p.n; ++i)
    if (!V.scripted(p.v[i])) return false;
  for (int i = 0; i < q.n; ++i)
    if (!V.scripted(q.v[i])) return false;
  return true;
}

// Whether p and q have a vertex in common.
bool sharesVertex(const Prim& p, const Prim& q) {
  for (int i = 0; i < p.n; ++i)
    for (int j = 0; j < q.n; ++j)
      if (p.v[i] == q.v[j]) return true;
  return false;
}

// Pair kinds formed by the engine (scene.hpp).
bool formedPair(const Scene& sc, const Prim& p, const Prim& q) {
  const auto& isolated = sc.isolated;
  if (p.n > q.n) return false;  // called with p.n <= q.n
  if (p.n == 1 && q.n == 1) return isolated[p.v[0]] && isolated[q.v[0]];
  if (sc.dim == 3) return (p.n == 1 && q.n == 3) || (p.n == 2 && q.n == 2);
  return p.n == 1 && q.n == 2;
}

// Distance between p and q (p.n <= q.n) at the scene's positions.
double primDistance(const Vertices& V, const Prim& p, const Prim& q) {
  const auto& X = V.x;
  if (p.n == 1 && q.n == 1) return geometry::pointPoint(X[p.v[0]], X[q.v[0]]).d;
  if (p.n == 1 && q.n == 2) return geometry::pointSegment(X[p.v[0]], X[q.v[0]], X[q.v[1]]).d;
  if (p.n == 1) return geometry::pointTriangle(X[p.v[0]], X[q.v[0]], X[q.v[1]], X[q.v[2]]).d;
  return geometry::segmentSegment(X[p.v[0]], X[p.v[1]], X[q.v[0]], X[q.v[1]]).d;
}

// The smallest distance over the pairs considered, and the closest pair closer than 2 eta.
struct ClosestPairs {
  double eta = 0.0;
  double dmin = std::numeric_limits<double>::infinity();
  std::string first;
  double firstD = 0.0;
  // `names()` gives the two names; called only for an offending pair closer than the last one,
  // so a valid scene builds no string (this runs over every candidate pair of the scene).
  template <class Names>
  void consider(double d, Names names) {
    dmin = std::min(dmin, d);
    if (d < 2.0 * eta && (first.empty() || d < firstD)) {  // the closest offending pair
      const auto [a, b] = names();
      first = str(a, " and ", b);
      firstD = d;
    }
  }
};

// Primitives per spatial hash call of the separation check: a larger scene is checked slab by
// slab, so the hash's buffers (a few hundred bytes per box) stay bounded whatever the scene size
// (at 100,000 balls one call over every box held 43 MB).
constexpr std::size_t kSlabPrims = 16384;

// Every primitive pair the engine would form (found by a spatial hash on the eta-grown boxes).
// Large scenes: the boxes are cut into slabs at quantiles of their lower corners along the axis
// of widest spread; each slab [x0, x1) is checked with every box meeting it, so a pair of
// overlapping boxes is found in the slab holding the lower end of their overlap on that axis
// (also in others at times: considering a pair twice changes nothing).
void considerPrimPairs(const Scene& sc, const std::vector<Prim>& prims, ClosestPairs& closest) {
  const Vertices& V = sc.vertices;
  const double eta = sc.eta;
  if (prims.empty()) return;
  std::vector<geometry::Aabb<3>> boxes(prims.size());
  for (std::size_t i = 0; i < prims.size(); ++i) {
    geometry::Aabb<3> b;
    for (int k = 0; k < prims[i].n; ++k) b.merge(V.x[prims[i].v[k]]);
    boxes[i] = geometry::Aabb<3>(b.lo.array() - eta, b.hi.array() + eta);
  }
  const auto consider = [&](std::size_t i, std::size_t j) {
    const Prim* p = &prims[i];
    const Prim* q = &prims[j];
    if (p->n > q->n) std::swap(p, q);
    if (!formedPair(sc, *p, *q) || sharesVertex(*p, *q) || allScripted(V, *p, *q)) return;
    closest.consider(primDistance(V, *p, *q),
                     [&] { return std::make_pair(describePrim(sc, *p), describePrim(sc, *q)); });
  };
  geometry::SpatialHash<3> hash;
  std::vector<geometry::BodyPair> pairs;
  if (boxes.size() <= kSlabPrims) {
    hash.findPairs(std::span<const geometry::Aabb<3>>(boxes), pairs);
    for (const geometry::BodyPair& bp : pairs) consider(static_cast<std::size_t>(bp.i), static_cast<std::size_t>(bp.j));
    return;
  }
  // The axis along which the lower corners spread most (a flat cloth is not cut across its plane).
  Vec3 lo = boxes[0].lo, hi = boxes[0].lo;
  for (const geometry::Aabb<3>& b : boxes) {
    lo = lo.cwiseMin(b.lo);
    hi = hi.cwiseMax(b.lo);
  }
  int axis = 0;
  (hi - lo).maxCoeff(&axis);
  std::vector<double> lows(boxes.size());
  for (std::size_t i = 0; i < boxes.size(); ++i) lows[i] = boxes[i].lo[axis];
  std::sort(lows.begin(), lows.end());
  const std::size_t slabs = (boxes.size() + kSlabPrims - 1) / kSlabPrims;
  std::vector<geometry::Aabb<3>> sub;
  std::vector<std::size_t> which;
  for (std::size_t k = 0; k < slabs; ++k) {
    const double x0 = k == 0 ? -std::numeric_limits<double>::infinity() : lows[k * boxes.size() / slabs];
    const double x1 = k + 1 == slabs ? std::numeric_limits<double>::infinity() : lows[(k + 1) * boxes.size() / slabs];
    if (!(x0 < x1)) continue;  // an empty slab: the overlaps starting at x0 belong to the next one
    sub.clear();
    which.clear();
    for (std::size_t i = 0; i < boxes.size(); ++i)
      if (boxes[i].hi[axis] >= x0 && boxes[i].lo[axis] <= x1) {
        sub.push_back(boxes[i]);
        which.push_back(i);
      }
    hash.findPairs(std::span<const geometry::Aabb<3>>(sub), pairs);
    for (const geometry::BodyPair& bp : pairs)
      consider(which[static_cast<std::size_t>(bp.i)], which[static_cast<std::size_t>(bp.j)]);
  }
}

// Every contact point that is not scripted against every plane.
void considerPlanes(const Scene& sc, ClosestPairs& closest) {
  const Vertices& V = sc.vertices;
  const auto& planes = sc.planes;
  for (std::size_t pi = 0; pi < planes.size(); ++pi)
    for (std::int32_t a : sc.contactPoints) {
      if (V.scripted(a)) continue;
      closest.consider(geometry::pointPlane(V.x[a], planes[pi].normal, planes[pi].offset).d,
                       [&] { return std::make_pair(str("point ", vertexName(sc, a)), str("plane ", pi)); });
    }
}

// No layer active at rest: every pair the engine would form is at least 2 eta apart.
void checkSeparation(const Scene& sc) {
  const double eta = sc.eta;
  ClosestPairs closest;
  closest.eta = eta;
  considerPrimPairs(sc, contactPrims(sc), closest);
  considerPlanes(sc, closest);
  if (!closest.first.empty())
    fail(sc, str("a penalty layer is active at t = 0: ", closest.first, " are ", closest.firstD,
                 " apart, closer than 2 eta = ", 2.0 * eta, "; the largest eta that works is ",
                 std::max(0.0, 0.5 * closest.dmin), " (or move the objects apart)"));
}

}  // namespace

void Scene::validate() const {
  checkSizesAndValues(*this);
  checkElements(*this);
  checkSeparation(*this);
}

}  // namespace kinema::avi

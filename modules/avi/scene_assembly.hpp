#pragma once
// Building blocks shared by the scene generators (scene_shells.cpp, scene_balls.cpp, ...): adding
// vertices and objects to a Scene, choosing the steps of material potentials, gravity, scripted
// motion. The engine rounds steps to dyadic levels where it needs them; here every potential gets
// its own step h (the paper's §4).
#include <string>
#include <vector>

#include "modules/avi/scene.hpp"

namespace kinema::avi {

// How material potentials get their step h: `fixed` > 0 gives every one that step (e.g. the
// sphere-plate's 1e-7 s, the spring scene's 0.01); otherwise each element's own stable estimate
// min(stableStep(e, masses, cSafe), C_safe * 2 / lambda_damp), lambda_damp the largest eigenvalue
// of M^-1/2 D M^-1/2 for the element's damping matrix D (0 without damping).
struct StepRule {
  double fixed = 0.0;
  double cSafe = 0.2;
};

// Sets e.h by the rule, from the stencil's masses and current (rest) positions in `scene`.
void assignStep(ForceElement& e, const Scene& scene, const StepRule& rule);

// Room for `vertices` more vertices in `objects` more objects (their arrays grow once, to the
// exact size: a generator of N balls peaks at one copy of each array, not two).
void reserveVertices(Scene& scene, std::size_t vertices, std::size_t objects);
// Starts a new object; returns its index. Vertices added next belong to it (addVertex).
int beginObject(Scene& scene, const std::string& name);
// Appends a vertex to the current (last) object; mass > 0; scripted vertices get minv = 0.
int addVertex(Scene& scene, const Vec3& x, const Vec3& v, double mass, bool scripted);
// Closes the current object's vertex range (numVertices).
void endObject(Scene& scene);

// Gravity V = -m g . x on every free vertex without one (the paper's §8), each with its own clock of
// step `step` if > 0; else the smallest step of the material potentials on that vertex, or
// `fallback` for a vertex without any. Sets scene.gravity.
void addGravity(Scene& scene, const Vec3& g, double step, double fallback);

// Prescribed motion: the listed (scripted) vertices move with velocities[i] from times[i] on; the
// vertices' current velocities are set to the entry due at t = 0.
void addScript(Scene& scene, const std::string& name, const std::vector<std::int32_t>& vertices,
               const std::vector<double>& times, const std::vector<Vec3>& velocities);

}  // namespace kinema::avi

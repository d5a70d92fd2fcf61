#pragma once
// Internal to the scene generators (scene_params.cpp and scene_*.cpp): one declare / build pair
// per generator family, both from the generator's one binding list of its arguments, and the
// context through which they read them and the shared overrides (scene_params.hpp). Not part of
// the module's interface.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "framework/core/config.hpp"
#include "framework/core/param_binding.hpp"
#include "framework/core/params.hpp"
#include "modules/avi/scene.hpp"
#include "modules/avi/scene_assembly.hpp"
#include "modules/avi/shell_builder.hpp"

namespace kinema::avi::scenes {

// The generator's own ("paper") values of the shared keys; the scene's keys override them.
struct PaperValues {
  double eta = 0.1;
  double k = 1000.0;
  Vec3 gravity = Vec3::Zero();
  double materialStep = 0.0;  // 0: per-element stable steps
  double gravityStep = 0.0;   // 0: smallest material step on the vertex, else `gravityFallback`
  double gravityFallback = 0.0;
};

// The shared keys (scene_params.cpp): the generator's name, and the overrides of the generator's
// paper values, each set only where the scene gives the key.
struct SharedOverrides {
  std::string generator;
  std::optional<double> eta, k, materialStep, gravityStep;
  std::optional<Vec3> gravity;
  double materialCSafe = 0.05;
};

class Context {
 public:
  Context(const Config& c, std::string prefix, SharedOverrides shared)
      : c_(c), prefix_(std::move(prefix)), shared_(std::move(shared)) {}
  const Config& config() const { return c_; }
  const std::string& generator() const { return shared_.generator; }
  // The generator's arguments, bound once in its file (framework/core/param_binding.hpp).
  template <class O>
  O read(const ParamBindings<O>& bindings, O start = O{}) const {
    return bindings.read(c_, prefix_ + "." + shared_.generator, std::move(start));
  }
  std::string key(const std::string& arg) const { return prefix_ + "." + shared_.generator + "." + arg; }
  std::string sharedKey(const std::string& k) const { return prefix_ + "." + k; }
  // InputError "file:line: <prefix>.<generator>.<arg>: what" (no file:line for a default).
  [[noreturn]] void bad(const std::string& arg, const std::string& what) const;
  // A path as written in the scene, relative paths against the scene file's directory.
  std::string path(const std::string& written) const;

  // Shared overrides over the generator's values.
  double eta(double paper) const { return shared_.eta.value_or(paper); }
  double k(double paper) const { return shared_.k.value_or(paper); }
  Vec3 gravity(const Vec3& paper) const { return shared_.gravity.value_or(paper); }
  StepRule steps(double paperFixed) const;
  // Gravity on the free vertices (addGravity) with the shared overrides; 2D scenes refuse z != 0.
  void finish(Scene& s, const PaperValues& paper) const;

 private:
  const Config& c_;
  std::string prefix_;
  SharedOverrides shared_;
};

// Deterministic uniform numbers in [0, 1) (splitmix64: the same sequence on every platform).
class Random {
 public:
  explicit Random(std::uint64_t seed) : s_(seed) {}
  double uniform() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
  }
  // A uniformly distributed unit vector in `dim` = 2 (z = 0) or 3 dimensions.
  Vec3 direction(int dim);

 private:
  std::uint64_t s_;
};

// Declarations of the generator arguments (prefix "<prefix>.<generator>").
void declareSpring(ParamSchema& s, const std::string& g);
void declareBalls2d(ParamSchema& s, const std::string& g);
void declareBalls3d(ParamSchema& s, const std::string& g);
void declareParticlesFree(ParamSchema& s, const std::string& g);
void declareSpherePlate(ParamSchema& s, const std::string& g);
void declareSphereWedge(ParamSchema& s, const std::string& g);
void declareTwoShells(ParamSchema& s, const std::string& g);
void declareClothSpikes(ParamSchema& s, const std::string& g);
void declareTrashCompactor(ParamSchema& s, const std::string& g);
void declareRodKnot(ParamSchema& s, const std::string& g);
void declareMesh(ParamSchema& s, const std::string& g);
void declareParticles(ParamSchema& s, const std::string& g);

Scene buildSpring(const Context& c);
Scene buildBalls2d(const Context& c);
Scene buildBalls3d(const Context& c);
Scene buildParticlesFree(const Context& c);
Scene buildSpherePlate(const Context& c);
Scene buildSphereWedge(const Context& c);
Scene buildTwoShells(const Context& c);
Scene buildClothSpikes(const Context& c);
// 2 cloths of (nx + 1)(resolution + 1) vertices, from the arguments alone (the resource estimate).
double clothSpikesVertices(const Context& c);
Scene buildTrashCompactor(const Context& c);
Scene buildRodKnot(const Context& c);
Scene buildMesh(const Context& c);
Scene buildParticles(const Context& c);

// A field of a generator's shell material (cloth, compactor, two shells, sphere_wedge, mesh).
template <class O, class T>
auto shell(T ShellMaterial::*member) {
  return [member](O& o) -> T& { return o.material.*member; };
}

// A list of 3 reals bound to a Vec3 field.
template <class O>
typename ParamBindings<O>::Binding& vec3(ParamBindings<O>& r, std::string key, Vec3 O::*member, std::string help) {
  return r.custom(
      std::move(key),
      [member, help](ParamSchema& s, const std::string& k, const O& d) -> ParamSpec& {
        const Vec3& v = d.*member;
        return s.addRealList(k, {v.x(), v.y(), v.z()}, 3, help);
      },
      [member](const Config& c, const std::string& k, O& o) {
        const std::vector<double>& v = c.getRealList(k);
        o.*member = Vec3(v[0], v[1], v[2]);
      });
}

}  // namespace kinema::avi::scenes

#pragma once
// Internal to the scene generators (scene_params.cpp and scene_*.cpp): one declare / build pair
// per generator family, and the context through which they read their arguments and the shared
// overrides (scene_params.hpp). Not part of the module's interface.
#include <cstdint>
#include <string>
#include <vector>

#include "framework/core/config.hpp"
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

class Context {
 public:
  Context(const Config& c, std::string prefix, std::string generator)
      : c_(c), prefix_(std::move(prefix)), gen_(std::move(generator)) {}
  const Config& config() const { return c_; }
  const std::string& generator() const { return gen_; }
  std::string key(const std::string& arg) const { return prefix_ + "." + gen_ + "." + arg; }
  std::string sharedKey(const std::string& k) const { return prefix_ + "." + k; }
  double real(const std::string& arg) const { return c_.getReal(key(arg)); }
  int integer(const std::string& arg) const { return static_cast<int>(c_.getInt(key(arg))); }
  bool flag(const std::string& arg) const { return c_.getBool(key(arg)); }
  const std::string& text(const std::string& arg) const { return c_.getString(key(arg)); }
  Vec3 vec(const std::string& arg) const;
  // InputError "file:line: <prefix>.<generator>.<arg>: what" (no file:line for a default).
  [[noreturn]] void bad(const std::string& arg, const std::string& what) const;
  // A path as written in the scene, relative paths against the scene file's directory.
  std::string path(const std::string& arg) const;

  // Shared overrides over the generator's values.
  double eta(double paper) const;
  double k(double paper) const;
  Vec3 gravity(const Vec3& paper) const;
  StepRule steps(double paperFixed) const;
  // Gravity on the free vertices (addGravity) with the shared overrides; 2D scenes refuse z != 0.
  void finish(Scene& s, const PaperValues& paper) const;

 private:
  const Config& c_;
  std::string prefix_, gen_;
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
Scene buildTrashCompactor(const Context& c);
Scene buildRodKnot(const Context& c);
Scene buildMesh(const Context& c);
Scene buildParticles(const Context& c);

// The shell material of a generator that declares areal_density, stretch, bend, poisson,
// stretch_damping and bend_damping (cloth, compactor, two shells, mesh).
inline ShellMaterial shellMaterial(const Context& c) {
  ShellMaterial m;
  m.arealDensity = c.real("areal_density");
  m.stretch = c.real("stretch");
  m.bend = c.real("bend");
  m.poisson = c.real("poisson");
  m.stretchDamping = c.real("stretch_damping");
  m.bendDamping = c.real("bend_damping");
  return m;
}

}  // namespace kinema::avi::scenes

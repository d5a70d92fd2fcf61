// Scene parameters and the generator dispatch of the avi module (scene_params.hpp). The
// generators live one family per file (scene_spring.cpp, scene_balls.cpp, scene_shells.cpp,
// scene_cloth_spikes.cpp, scene_compactor.cpp, scene_rod_knot.cpp, scene_mesh.cpp).
#include "modules/avi/scene_params.hpp"

#include <cmath>
#include <filesystem>
#include <numbers>

#include "framework/core/error.hpp"
#include "framework/core/param_binding.hpp"
#include "modules/avi/scene_generators.hpp"

namespace kinema::avi {

namespace scenes {

void Context::bad(const std::string& arg, const std::string& what) const {
  const std::string k = key(arg);
  const std::string w = c_.where(k);
  throw InputError(str(w.empty() ? "" : w + ": ", k, ": ", what));
}

std::string Context::path(const std::string& p) const {
  namespace fs = std::filesystem;
  if (p.empty() || fs::path(p).is_absolute()) return p;
  std::error_code ec;
  const fs::path src(c_.source());
  if (fs::is_regular_file(src, ec)) return (src.parent_path() / p).lexically_normal().string();
  return p;
}

StepRule Context::steps(double paperFixed) const {
  StepRule r;
  r.fixed = shared_.materialStep.value_or(paperFixed);
  r.cSafe = shared_.materialCSafe;
  return r;
}

void Context::finish(Scene& s, const PaperValues& paper) const {
  s.eta = eta(paper.eta);
  s.k = k(paper.k);
  const Vec3 g = gravity(paper.gravity);
  if (s.dim == 2 && g.z() != 0.0) {
    const std::string w = c_.where(sharedKey("gravity"));
    throw InputError(str(w.empty() ? "" : w + ": ", sharedKey("gravity"), ": the scene ", generator(),
                         " is 2D (the xy plane): gravity needs z = 0, e.g. [0, -9.8, 0]"));
  }
  addGravity(s, g, shared_.gravityStep.value_or(paper.gravityStep), paper.gravityFallback);
}

Vec3 Random::direction(int dim) {
  if (dim == 2) {
    const double a = 2.0 * std::numbers::pi * uniform();
    return Vec3(std::cos(a), std::sin(a), 0.0);
  }
  const double z = 2.0 * uniform() - 1.0, a = 2.0 * std::numbers::pi * uniform();
  const double r = std::sqrt(std::max(0.0, 1.0 - z * z));
  return Vec3(r * std::cos(a), r * std::sin(a), z);
}

}  // namespace scenes

namespace {

using S = scenes::SharedOverrides;

// A shared key that overrides the generator's value only where the scene gives it; the schema
// shows `shown` as its default.
void overriding(ParamBindings<S>& r, std::string key, std::optional<double> S::*member, double shown, Range range,
                std::string help) {
  r.custom(
       std::move(key),
       [shown, range, help](ParamSchema& s, const std::string& k, const S&) -> ParamSpec& {
         return s.addReal(k, shown, range, help);
       },
       [member](const Config& c, const std::string& k, S& o) { o.*member = c.getReal(k); })
      .onlyWhenSet();
}

// The keys every generator shares, directly under the prefix.
const ParamBindings<S>& sharedBindings() {
  static const ParamBindings<S> b = [] {
    ParamBindings<S> r;
    r.custom(
        "generator",
        [](ParamSchema& s, const std::string& k, const S&) -> ParamSpec& {
          const std::string prefix = k.substr(0, k.rfind('.'));
          return s.addChoice(k, "spring_on_plane", sceneGenerators(),
                             "scene generator (the paper's section 8); its arguments are under " + prefix +
                                 ".<generator>.*");
        },
        [](const Config& c, const std::string& k, S& o) { o.generator = c.getString(k); });
    overriding(r, "eta", &S::eta, 0.1, Range::positive(),
               "contact thickness eta: layer l of a pair is active below distance 2 eta / l (unset: the generator's "
               "value; validation names the largest eta free of contact at rest)");
    overriding(r, "k", &S::k, 1000.0, Range::positive(),
               "base penalty stiffness k, V_l = l^3 k g^2 (unset: the generator's value)");
    r.custom(
         "gravity",
         [](ParamSchema& s, const std::string& k, const S&) -> ParamSpec& {
           return s.addRealList(k, {0.0, 0.0, -9.8}, 3,
                                "gravity vector (scene units; cm/s^2 for the 3D paper scenes) (unset: the generator's value)");
         },
         [](const Config& c, const std::string& k, S& o) {
           const std::vector<double>& g = c.getRealList(k);
           o.gravity = Vec3(g[0], g[1], g[2]);
         })
        .onlyWhenSet();
    overriding(r, "material_step", &S::materialStep, 0.0, Range::nonNegative(),
               "> 0: one fixed step for every material potential; 0: each element's own stable step (unset: the "
               "generator's value, e.g. 1e-7 s for sphere_plate, 0.01 for spring_on_plane)");
    r.real("material_c_safe", &S::materialCSafe, Range::leftOpen(0.0, 1.0),
           "safety of the automatic material steps: h = C 2 / omega_max of the element alone (and C 2 / lambda of its "
           "damping), about C / 2 of the coupled limit when 4-6 elements share a vertex; above ~0.1 unequal steps can "
           "resonate (energy growth, docs/benchmarks/avi.md)");
    overriding(r, "gravity_step", &S::gravityStep, 0.0, Range::nonNegative(),
               "> 0: step of every gravity potential; 0: the smallest material step on the vertex (particles: the "
               "generator's value) (unset: the generator's value)");
    return r;
  }();
  return b;
}

}  // namespace

namespace {

// One generator: its arguments under `<prefix>.<name>` (declared in its file, bound once there),
// how it builds the scene, and, for a scene too large to generate just to count it, its vertex
// count from the arguments alone.
struct Generator {
  const char* name;
  void (*declare)(ParamSchema&, const std::string& g);
  Scene (*build)(const scenes::Context&);
  double (*vertices)(const scenes::Context&) = nullptr;
};

// In the order of the `generator` choice.
const std::vector<Generator>& generators() {
  using namespace scenes;
  static const std::vector<Generator> all{
      {"spring_on_plane", declareSpring, buildSpring},
      {"balls_2d", declareBalls2d, buildBalls2d},
      {"balls_3d", declareBalls3d, buildBalls3d},
      {"sphere_plate", declareSpherePlate, buildSpherePlate},
      {"sphere_wedge", declareSphereWedge, buildSphereWedge},
      {"cloth_spikes", declareClothSpikes, buildClothSpikes, clothSpikesVertices},
      {"trash_compactor", declareTrashCompactor, buildTrashCompactor},
      {"rod_knot", declareRodKnot, buildRodKnot},
      {"two_shells", declareTwoShells, buildTwoShells},
      {"particles_free", declareParticlesFree, buildParticlesFree},
      {"mesh", declareMesh, buildMesh},
      {"particles", declareParticles, buildParticles},
  };
  return all;
}

const Generator* findGenerator(const std::string& name) {
  for (const Generator& g : generators())
    if (name == g.name) return &g;
  return nullptr;
}

}  // namespace

const std::vector<std::string>& sceneGenerators() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Generator& g : generators()) n.emplace_back(g.name);
    return n;
  }();
  return names;
}

void declareSceneParams(ParamSchema& s, const std::string& prefix) {
  sharedBindings().declare(s, prefix);
  for (const Generator& g : generators()) g.declare(s, prefix + "." + g.name);
}

double countedVertices(const Config& config, const std::string& prefix) {
  const scenes::Context c(config, prefix, sharedBindings().read(config, prefix));
  const Generator* g = findGenerator(c.generator());
  return g != nullptr && g->vertices != nullptr ? g->vertices(c) : -1.0;
}

Scene buildScene(const Config& config, const std::string& prefix) {
  const scenes::Context c(config, prefix, sharedBindings().read(config, prefix));
  const std::string& gen = c.generator();
  Scene scene;
  try {
    const Generator* g = findGenerator(gen);
    if (g == nullptr) throw InputError(str(prefix, ".generator: unknown generator '", gen, "'"));
    scene = g->build(c);
    if (scene.name.empty()) scene.name = gen;
    scene.validate();
  } catch (Error& e) {
    e.addContext(str("while building the avi scene ", prefix, ".generator = ", gen,
                     config.source().empty() ? "" : " of " + config.source()));
    throw;
  }
  return scene;
}

}  // namespace kinema::avi

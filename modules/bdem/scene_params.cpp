#include "modules/bdem/scene_params.hpp"

#include <filesystem>
#include <functional>
#include <numbers>

#include "framework/core/error.hpp"
#include "framework/core/param_binding.hpp"
#include "modules/bdem/bond_builder.hpp"
#include "modules/bdem/particle_file.hpp"
#include "modules/bdem/particle_sets.hpp"
#include "modules/bdem/scene_builder.hpp"

namespace kinema::bdem {

bool packedGenerator(const std::string& generator) {
  return generator != "single_bond" && generator != "two_spheres" && generator != "sphere_on_plane" &&
         generator != "yarn_sheet" && generator != "file";
}

namespace {

// The keys every generator shares, over the generator's own body defaults: lattice, jitter, seed
// and bond_delta always (their declared defaults), material.* and gravity only where given.
const ParamBindings<BodyOptions>& bodyBindings() {
  static const ParamBindings<BodyOptions> b = [] {
    using O = BodyOptions;
    ParamBindings<O> r;
    r.choiceOf("lattice", &O::lattice, {{"fcc", Lattice::Fcc}, {"hcp", Lattice::Hcp}, {"cubic", Lattice::Cubic}},
               "packing lattice, spacing 2r: fcc (close packed, ABC), hcp (close packed, AB), cubic");
    r.real("jitter", &O::jitter, Range::closed(0.0, 0.1),
           "random displacement of each lattice point, uniform in [-jitter r, jitter r]^3 (<= 0.1: bonds stay "
           "those of the lattice)");
    r.integer("seed", &O::seed, Range::atLeast(0), "seed of the jitter (splitmix64; the same on every platform)");
    r.real("bond_delta", &O::bondDelta, Range::closed(0.0, 0.5),
           "bond every pair with |p_i - p_j| <= (1 + bond_delta + sqrt(3) jitter)(r_i + r_j) (§3.4; README decision 23)");
    r.real("material.E", field(&O::material, &Material::E), Range::positive(),
           "Young's modulus [Pa] (unset: the generator's value)")
        .onlyWhenSet();
    r.real("material.nu", field(&O::material, &Material::nu), Range::open(-1.0, 0.5),
           "Poisson ratio, G = E / (2 (1 + nu)) (unset: generator's)")
        .onlyWhenSet();
    r.real("material.density", field(&O::material, &Material::density), Range::positive(),
           "density [kg/m^3] (unset: the generator's value)")
        .onlyWhenSet();
    r.real("material.sigma_c", field(&O::material, &Material::sigmaC), Range::positive(),
           "tensile strength sigma_c [Pa], Eq. 12; .inf: unbreakable (unset: the generator's value)")
        .infiniteMeans("unbreakable")
        .onlyWhenSet();
    r.real("material.tau_c", field(&O::material, &Material::tauC), Range::positive(),
           "shear strength tau_c [Pa], Eq. 13; .inf: unbreakable (unset: the generator's value)")
        .infiniteMeans("unbreakable")
        .onlyWhenSet();
    // Read by the module (bdem_module.cpp), which applies it to the built scene.
    r.custom(
        "material.calibration",
        [](ParamSchema& s, const std::string& k, const O&) -> ParamSpec& {
          return s.addChoice(k, "lattice", {"lattice", "none"},
                             "lattice: bond stiffnesses, strengths and particle masses scaled so that the packing shows the "
                             "given E (along x and z within 2.6 %) and density (docs/modules/bdem.md, Calibrated material); "
                             "none: bonds built from E as in Eqs. 8-11 and masses rho (4/3) pi r^3, as in the paper. "
                             "Packed generators only (not single_bond, two_spheres, sphere_on_plane, yarn_sheet, file)");
        },
        [](const Config&, const std::string&, O&) {});
    r.custom(
        "gravity",
        [](ParamSchema& s, const std::string& k, const O& d) -> ParamSpec& {
          return s.addRealList(k, {d.gravity.x(), d.gravity.y(), d.gravity.z()}, 3,
                               "gravity [m/s^2] (unset: the generator's value)");
        },
        [](const Config& c, const std::string& k, O& o) {
          const std::vector<double>& g = c.getRealList(k);
          o.gravity = Vec3(g[0], g[1], g[2]);
        })
        .onlyWhenSet();
    return r;
  }();
  return b;
}

BodyOptions readBody(const Config& c, const std::string& p, BodyOptions d) {
  bodyBindings().readInto(c, p, d);
  return d;
}

const ParamBindings<BeamGeometry>& beamBindings() {
  static const ParamBindings<BeamGeometry> b = [] {
    using O = BeamGeometry;
    ParamBindings<O> r;
    r.real("length", &O::length, Range::positive(), "beam length along x [m]");
    r.real("height", &O::height, Range::positive(), "beam height along z [m]");
    r.real("width", &O::width, Range::positive(), "beam width along y [m]");
    r.real("radius", &O::radius, Range::positive(), "particle radius r (lattice spacing 2r) [m]");
    return r;
  }();
  return b;
}

// The generator `file`: the particle file's options and a floor.
struct FileScene {
  ParticleFileOptions file;
  bool floor = false;
};

System buildFileScene(const Config& c, const std::string& g, const BodyOptions& body, FileScene fs);

// One generator: its keys under `<prefix>.<name>`, bound once, how it builds the scene, and how
// many particles that scene will have (from the options alone; < 0 when a file must be read).
struct Generator {
  std::string name;
  std::function<void(ParamSchema&, const std::string& g)> declare;
  std::function<System(const Config&, const std::string& g, const std::string& prefix)> build;
  std::function<double(const Config&, const std::string& g, const std::string& prefix)> particles;
};

// A generator whose options struct O has a `body` (the shared keys); `count` gives its particle
// count from the options (none: unknown before building); `finish` resolves paths.
template <class O, class Build>
Generator generator(std::string name, const ParamBindings<O>& bindings, Build build,
                    std::function<double(const O&)> count, std::function<void(const Config&, O&)> finish = {}) {
  return {std::move(name), [&bindings](ParamSchema& s, const std::string& g) { bindings.declare(s, g, O{}); },
          [&bindings, build, finish](const Config& c, const std::string& g, const std::string& p) {
            O o = bindings.read(c, g);
            if (finish) finish(c, o);
            o.body = readBody(c, p, o.body);
            return build(o);
          },
          [&bindings, count](const Config& c, const std::string& g, const std::string& p) {
            if (!count) return -1.0;
            O o = bindings.read(c, g);
            o.body = readBody(c, p, o.body);
            return count(o);
          }};
}

// Particles of radius r per unit volume: fcc and hcp pack 4 spheres per cube of side 2 sqrt(2) r,
// cubic one per cube of side 2r.
double packingDensity(Lattice lattice, double r) {
  return lattice == Lattice::Cubic ? 1.0 / (8 * r * r * r) : 1.0 / (4 * std::numbers::sqrt2 * r * r * r);
}
double boxParticles(double a, double b, double c, double r, Lattice lattice) { return a * b * c * packingDensity(lattice, r); }
template <class O>
double beamParticles(const O& o) {
  return boxParticles(o.beam.length, o.beam.height, o.beam.width, o.beam.radius, o.body.lattice);
}

template <class O>
ParamBindings<O> withBeam() {
  ParamBindings<O> r;
  r.nested("", &O::beam, beamBindings());
  return r;
}

// The options of each generator, one table of bindings per generator.
const ParamBindings<SingleBondOptions>& singleBondBindings() {
  static const ParamBindings<SingleBondOptions> b = [] {
  using O = SingleBondOptions;
  ParamBindings<O> r;
  r.real("radius", &O::radius, Range::positive(), "radius of both particles [m]; they touch along x");
  r.choice("mode", &O::mode, {"stretch", "shear", "twist", "bend"},
           "motion of the gripped particle j: along the bond, across it, spin about it, spin about z");
  r.real("speed", &O::speed, Range::nonNegative(), "stretch / shear speed of j [m/s]");
  r.real("angular_speed", &O::angularSpeed, Range::any(), "twist / bend spin rate of j [rad/s]");
  return r;
  }();
  return b;
}

const ParamBindings<CantileverOptions>& cantileverBindings() {
  static const ParamBindings<CantileverOptions> b = [] {
  ParamBindings<CantileverOptions> r = withBeam<CantileverOptions>();
  r.real("clamp_length", &CantileverOptions::clampLength, Range::positive(),
         "particles with x < clamp_length are fixed [m]");
  return r;
  }();
  return b;
}

const ParamBindings<BeamPullOptions>& stretchBindings() {
  static const ParamBindings<BeamPullOptions> b = [] {
  ParamBindings<BeamPullOptions> r = withBeam<BeamPullOptions>();
  r.real("grip_length", &BeamPullOptions::gripLength, Range::positive(),
         "particles within grip_length of an end are gripped [m]");
  r.real("speed", &BeamPullOptions::speed, Range::any(), "speed of the moving end along +x [m/s]");
  return r;
  }();
  return b;
}

const ParamBindings<BeamPullOptions>& twistBindings() {
  static const ParamBindings<BeamPullOptions> b = [] {
  ParamBindings<BeamPullOptions> r = withBeam<BeamPullOptions>();
  r.real("grip_length", &BeamPullOptions::gripLength, Range::positive(),
         "particles within grip_length of an end are gripped [m]");
  r.real("angular_speed", &BeamPullOptions::angularSpeed, Range::any(),
         "spin rate of the moving end about the beam axis [rad/s]");
  return r;
  }();
  return b;
}

const ParamBindings<BeamDrapeOptions>& drapeBindings() {
  static const ParamBindings<BeamDrapeOptions> b = [] {
  ParamBindings<BeamDrapeOptions> r = withBeam<BeamDrapeOptions>();
  r.choice("support", &BeamDrapeOptions::support, {"clamp", "both"}, "clamp: one end fixed; both: both ends fixed");
  r.real("support_length", &BeamDrapeOptions::supportLength, Range::positive(), "length of each fixed end [m]");
  return r;
  }();
  return b;
}

const ParamBindings<PlateDropOptions>& plateBindings() {
  static const ParamBindings<PlateDropOptions> b = [] {
  using O = PlateDropOptions;
  ParamBindings<O> r;
  r.real("plate_radius", &O::plateRadius, Range::positive(), "radius of the disc plate [m]");
  r.real("thickness", &O::thickness, Range::positive(), "plate thickness [m]");
  r.real("radius", &O::radius, Range::positive(), "particle radius [m]");
  r.real("tilt", &O::tilt, Range::closed(-90, 90), "tilt of the plate about x [degrees]");
  r.real("gap", &O::gap, Range::nonNegative(), "height of the lowest sphere above the floor [m]");
  r.real("speed", &O::speed, Range::any(), "initial downward speed [m/s]");
  return r;
  }();
  return b;
}

const ParamBindings<ChocolateBarOptions>& chocolateBindings() {
  static const ParamBindings<ChocolateBarOptions> b = [] {
  using O = ChocolateBarOptions;
  ParamBindings<O> r;
  r.real("length", &O::length, Range::positive(), "bar length along x [m]");
  r.real("width", &O::width, Range::positive(), "bar width along y [m]");
  r.real("thickness", &O::thickness, Range::positive(), "bar thickness along z [m]");
  r.real("radius", &O::radius, Range::positive(), "particle radius [m]");
  r.integer("pieces_x", &O::piecesX, Range::atLeast(1), "pieces along x (V grooves between them)");
  r.integer("pieces_y", &O::piecesY, Range::atLeast(1), "pieces along y");
  r.real("groove_depth", &O::grooveDepth, Range::nonNegative(), "depth of the V grooves [m]");
  r.real("groove_half_width", &O::grooveHalfWidth, Range::positive(), "half width of a groove at the top [m]");
  r.string("mesh", &O::meshPath, "closed OBJ mesh of the bar instead of the grooved box (e.g. meshes/chocolate_bar.obj)");
  r.real("mesh_scale", &O::meshScale, Range::positive(), "scale applied to the OBJ mesh");
  r.real("tilt", &O::tilt, Range::closed(-90, 90), "tilt of the bar about y [degrees]");
  r.real("gap", &O::gap, Range::nonNegative(), "height of the lowest sphere above the floor [m]");
  r.real("speed", &O::speed, Range::any(), "initial downward speed [m/s] (Fig. 8: 5)");
  return r;
  }();
  return b;
}

const ParamBindings<YarnSheetOptions>& yarnBindings() {
  static const ParamBindings<YarnSheetOptions> b = [] {
  using O = YarnSheetOptions;
  ParamBindings<O> r;
  r.integer("yarns_x", &O::yarnsX, Range::atLeast(2), "number of yarns along x (pulled apart)");
  r.integer("yarns_y", &O::yarnsY, Range::atLeast(2), "number of yarns along y");
  r.integer("particles_per_cell", &O::particlesPerCell, Range::atLeast(2),
            "particles per yarn spacing (even); yarn spacing = 2 r particles_per_cell");
  r.real("radius", &O::radius, Range::positive(), "yarn (particle) radius [m]");
  r.real("speed", &O::speed, Range::any(), "speed at which the two gripped edges separate [m/s]");
  r.real("grip_width", &O::gripWidth, Range::nonNegative(),
         "width of each gripped band at the x ends [m] (0: half a yarn spacing + r/2)");
  r.real("bending_scale", &O::bendingScale, Range::positive(),
         "factor on every bond's bend and twist stiffness (yarns: stiff in tension, soft in bending)");
  return r;
  }();
  return b;
}

const ParamBindings<ThreePointBendingOptions>& bendingBindings() {
  static const ParamBindings<ThreePointBendingOptions> b = [] {
  using O = ThreePointBendingOptions;
  ParamBindings<O> r;
  r.real("length", &O::length, Range::positive(), "beam length along x [m]");
  r.real("height", &O::height, Range::positive(), "beam height along z [m]");
  r.real("width", &O::width, Range::positive(), "beam width along y [m]");
  r.real("span", &O::span, Range::positive(), "distance between the two supports [m]");
  r.real("support_radius", &O::supportRadius, Range::positive(), "radius of the support cylinders [m]");
  r.real("indenter_radius", &O::indenterRadius, Range::positive(), "radius of the indenter cylinder [m]");
  r.real("indenter_speed", &O::indenterSpeed, Range::nonNegative(), "downward speed of the indenter [m/s]");
  r.choice("resolution", &O::resolution, {"low", "middle", "high"},
           "about 532 / 1.8K / 18K particles (Table 2), same geometry");
  r.integer("particles", &O::particles, Range::atLeast(0), "target particle count (> 0 overrides resolution)");
  r.real("radius", &O::radius, Range::nonNegative(), "particle radius (> 0 overrides resolution) [m]");
  return r;
  }();
  return b;
}

const ParamBindings<TwoSpheresOptions>& twoSpheresBindings() {
  static const ParamBindings<TwoSpheresOptions> b = [] {
  using O = TwoSpheresOptions;
  ParamBindings<O> r;
  r.real("radius", &O::radius, Range::positive(), "radius of each sphere [m]");
  r.real("gap", &O::gap, Range::nonNegative(), "initial gap between the surfaces [m]");
  r.real("speed", &O::speed, Range::any(), "speed of each sphere towards the other [m/s]");
  return r;
  }();
  return b;
}

const ParamBindings<SphereOnPlaneOptions>& sphereOnPlaneBindings() {
  static const ParamBindings<SphereOnPlaneOptions> b = [] {
  using O = SphereOnPlaneOptions;
  ParamBindings<O> r;
  r.real("radius", &O::radius, Range::positive(), "sphere radius [m]");
  r.real("gap", &O::gap, Range::nonNegative(), "initial height of its lowest point [m]");
  r.real("speed", &O::speed, Range::any(), "initial downward speed [m/s]");
  return r;
  }();
  return b;
}

const ParamBindings<MeshSceneOptions>& meshBindings() {
  static const ParamBindings<MeshSceneOptions> b = [] {
  using O = MeshSceneOptions;
  ParamBindings<O> r;
  r.string("path", &O::path, "closed OBJ mesh to pack (relative to the scene file)");
  r.real("scale", &O::scale, Range::positive(), "scale applied to the mesh");
  r.real("radius", &O::radius, Range::nonNegative(), "particle radius [m] (0: about 2000 particles)");
  r.boolean("floor", &O::floor, "add a floor z = 0 and place the body above it");
  r.real("gap", &O::gap, Range::nonNegative(), "height of the lowest sphere above the floor [m]");
  r.real("speed", &O::speed, Range::any(), "initial downward speed [m/s]");
  return r;
  }();
  return b;
}

const ParamBindings<FileScene>& fileBindings() {
  static const ParamBindings<FileScene> b = [] {
  using P = ParticleFileOptions;
  ParamBindings<FileScene> r;
  r.string("path", field(&FileScene::file, &P::path),
           "particle file, CSV (header x,y,z,r[,vx,vy,vz][,qx,qy,qz,qw][,material]) or HDF5 (/particles/position, "
           "/particles/radius, ...), relative to the scene file (docs/modules/bdem.md, Particles from a file)");
  r.string("bonds", field(&FileScene::file, &P::bondsPath),
           "bond CSV (header i,j; scene indices); empty: /bonds of an HDF5 particle file if present, else auto_bonds");
  r.boolean("auto_bonds", field(&FileScene::file, &P::autoBonds),
            "without a bond list, bond every pair within (1 + bond_delta)(r_i + r_j) (§3.4; README decision 23); false: no bonds");
  // Read by buildFileScene, which checks each entry (a tree: the schema cannot type a list of maps).
  r.custom(
      "materials",
      [](ParamSchema& s, const std::string& k, const FileScene&) -> ParamSpec& {
        return s.addTree(k,
                         "materials 1, 2, ... of the file's material column: a list of {E, nu, density, sigma_c, tau_c} (unset "
                         "fields: those of material 0, the shared material.* keys)");
      },
      [](const Config&, const std::string&, FileScene&) {});
  r.boolean("floor", &FileScene::floor, "add a floor, the plane z = 0");
  return r;
  }();
  return b;
}

// The generators by name: options, builder, expected particle count and path resolution.
const std::vector<Generator>& generators() {
  auto path = [](auto member) {
    return [member](const Config& c, auto& o) { o.*member = resolveScenePath(c, o.*member); };
  };
  static const std::vector<Generator> all{
      generator<SingleBondOptions>("single_bond", singleBondBindings(), buildSingleBond,
                                   [](const auto&) { return 2.0; }),
      generator<CantileverOptions>("cantilever", cantileverBindings(), buildCantilever,
                                   beamParticles<CantileverOptions>),
      generator<BeamPullOptions>("beam_stretch", stretchBindings(), buildBeamStretch, beamParticles<BeamPullOptions>),
      generator<BeamPullOptions>("beam_twist", twistBindings(), buildBeamTwist, beamParticles<BeamPullOptions>),
      generator<BeamDrapeOptions>("beam_drape", drapeBindings(), buildBeamDrape, beamParticles<BeamDrapeOptions>),
      generator<PlateDropOptions>("plate_drop", plateBindings(), buildPlateDrop,
                                  [](const PlateDropOptions& o) {
                                    return std::numbers::pi * o.plateRadius * o.plateRadius * o.thickness *
                                           packingDensity(o.body.lattice, o.radius);
                                  }),
      generator<ChocolateBarOptions>("chocolate_bar", chocolateBindings(), buildChocolateBar,
                                     [](const ChocolateBarOptions& o) {
                                       if (!o.meshPath.empty()) return -1.0;  // known once the mesh is packed
                                       return boxParticles(o.length, o.width, o.thickness, o.radius, o.body.lattice);
                                     },
                                     path(&ChocolateBarOptions::meshPath)),
      generator<YarnSheetOptions>("yarn_sheet", yarnBindings(), buildYarnSheet,
                                  [](const YarnSheetOptions& o) {
                                    const double x = o.yarnsX, y = o.yarnsY, k = o.particlesPerCell;
                                    return x * (y * k + 1) + y * (x * k + 1);
                                  }),
      generator<ThreePointBendingOptions>("three_point_bending", bendingBindings(), buildThreePointBending,
                                          [](const ThreePointBendingOptions& o) {
                                            if (o.particles > 0) return static_cast<double>(o.particles);
                                            if (o.radius > 0)
                                              return boxParticles(o.length, o.height, o.width, o.radius, o.body.lattice);
                                            return static_cast<double>(threePointBendingTarget(o.resolution));
                                          }),
      generator<TwoSpheresOptions>("two_spheres", twoSpheresBindings(), buildTwoSpheres,
                                   [](const auto&) { return 2.0; }),
      generator<SphereOnPlaneOptions>("sphere_on_plane", sphereOnPlaneBindings(), buildSphereOnPlane,
                                      [](const auto&) { return 1.0; }),
      // With a radius, the count is known once the mesh is packed; without, the generator's target.
      generator<MeshSceneOptions>("mesh", meshBindings(), buildMeshScene,
                                  [](const MeshSceneOptions& o) { return o.radius == 0 ? 2000.0 : -1.0; },
                                  path(&MeshSceneOptions::path)),
      Generator{"file", [](ParamSchema& s, const std::string& g) { fileBindings().declare(s, g, FileScene{}); },
                [](const Config& c, const std::string& g, const std::string& p) {
                  return buildFileScene(c, g, readBody(c, p, BodyOptions{}), fileBindings().read(c, g));
                },
                [](const Config&, const std::string&, const std::string&) { return -1.0; }}};
  return all;
}

}  // namespace

std::string resolveScenePath(const Config& config, const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty() || fs::path(path).is_absolute()) return path;
  std::error_code ec;
  const fs::path src(config.source());
  if (fs::is_regular_file(src, ec)) return (src.parent_path() / path).lexically_normal().string();
  return path;
}

const std::vector<std::string>& sceneGenerators() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Generator& g : generators()) n.push_back(g.name);
    return n;
  }();
  return names;
}

void declareSceneParams(ParamSchema& s, const std::string& prefix) {
  s.addChoice(prefix + ".generator", "three_point_bending", sceneGenerators(),
              "scene generator (the paper's scenes of §6.3-6.4; docs/modules/bdem.md); its arguments are under " + prefix +
                  ".<generator>.*");
  bodyBindings().declare(s, prefix, BodyOptions{});
  for (const Generator& g : generators()) g.declare(s, prefix + "." + g.name);
}

namespace {

System buildFileScene(const Config& c, const std::string& g, const BodyOptions& body, FileScene fs) {
  ParticleFileOptions& o = fs.file;
  o.path = resolveScenePath(c, o.path);
  if (o.path.empty()) throw SceneArgError("file.path", "no particle file given");
  o.bondsPath = resolveScenePath(c, o.bondsPath);
  o.bondDelta = body.bondDelta;
  o.gravity = body.gravity;
  o.materials = {body.material};
  const YAML::Node mats = c.tree(g + ".materials");
  if (mats && !mats.IsNull()) {
    if (!mats.IsSequence()) treeError(c, g + ".materials", "expected a list of {E, nu, density, sigma_c, tau_c}");
    for (std::size_t k = 0; k < mats.size(); ++k) {
      const std::string key = str(g, ".materials");
      checkFields(c, key, mats[k], {"E", "nu", "density", "sigma_c", "tau_c"});
      Material m = body.material;
      auto field = [&](const char* name, double& x, bool positive) {
        if (!mats[k][name]) return;
        x = readReal(c, key, mats[k][name]);
        if (positive ? !(x > 0) : !(x > -1 && x < 0.5))
          treeError(c, key, str("entry ", k, ": ", name, " = ", x, positive ? " must be positive" : " must be in (-1, 0.5)"));
      };
      field("E", m.E, true);
      field("nu", m.nu, false);
      field("density", m.density, true);
      field("sigma_c", m.sigmaC, true);
      field("tau_c", m.tauC, true);
      o.materials.push_back(m);
    }
  }
  System S;
  try {
    S = readParticleFile(o);
  } catch (const SceneArgError&) {
    throw;
  } catch (const InputError& e) {  // file:line of the data; say which key named the file
    throw InputError(str(e.message(), " (particle file of ", g, ".path, ", c.where(g + ".path"), ")"));
  }
  if (fs.floor) {
    Obstacle f;
    f.kind = Obstacle::Kind::Plane;
    f.name = "floor";
    f.point = Vec3::Zero();
    f.normal = Vec3::UnitZ();
    S.obstacles.push_back(f);
  }
  checkSystem(S);
  return S;
}

}  // namespace

double sceneParticleCount(const Config& c, const std::string& p) {
  const std::string gen = c.getString(p + ".generator");
  for (const Generator& generator : generators())
    if (generator.name == gen) return generator.particles(c, p + "." + gen, p);
  return -1.0;
}

System buildScene(const Config& c, const std::string& p) {
  const std::string gen = c.getString(p + ".generator");
  const std::string g = p + "." + gen;
  auto run = [&]() -> System {
    for (const Generator& generator : generators())
      if (generator.name == gen) return generator.build(c, g, p);
    throw InputError(str(c.where(p + ".generator"), ": ", p, ".generator: unknown generator '", gen, "'"));
  };
  try {
    return run();
  } catch (const SceneArgError& e) {
    const std::string key = p + "." + e.key();
    throw InputError(str(c.where(key), ": ", key, ": ", e.reason()));
  }
}

}  // namespace kinema::bdem

#include "modules/bdem/scene_params.hpp"

#include <filesystem>
#include <functional>

#include "framework/core/error.hpp"
#include "modules/bdem/bond_builder.hpp"
#include "modules/bdem/particle_file.hpp"
#include "modules/bdem/particle_sets.hpp"
#include "modules/bdem/scene_builder.hpp"

namespace kinema::bdem {

bool packedGenerator(const std::string& generator) {
  return generator != "single_bond" && generator != "two_spheres" && generator != "sphere_on_plane" &&
         generator != "yarn_sheet" && generator != "file";
}

const std::vector<std::string>& sceneGenerators() {
  static const std::vector<std::string> names{
      "single_bond", "cantilever",          "beam_stretch", "beam_twist",      "beam_drape", "plate_drop",
      "chocolate_bar", "yarn_sheet", "three_point_bending", "two_spheres", "sphere_on_plane", "mesh",
      "file"};
  return names;
}

namespace {

void declareBeam(ParamSchema& s, const std::string& g, const BeamGeometry& d) {
  s.addReal(g + ".length", d.length, Range::positive(), "beam length along x [m]");
  s.addReal(g + ".height", d.height, Range::positive(), "beam height along z [m]");
  s.addReal(g + ".width", d.width, Range::positive(), "beam width along y [m]");
  s.addReal(g + ".radius", d.radius, Range::positive(), "particle radius r (lattice spacing 2r) [m]");
}

BeamGeometry readBeam(const Config& c, const std::string& g) {
  return {c.getReal(g + ".length"), c.getReal(g + ".height"), c.getReal(g + ".width"), c.getReal(g + ".radius")};
}

// The shared keys over the generator's defaults `d`.
BodyOptions readBody(const Config& c, const std::string& p, BodyOptions d) {
  d.lattice = parseLattice(c.getString(p + ".lattice"));
  d.jitter = c.getReal(p + ".jitter");
  d.seed = static_cast<std::uint64_t>(c.getInt(p + ".seed"));
  d.bondDelta = c.getReal(p + ".bond_delta");
  const std::string m = p + ".material.";
  if (c.isSet(m + "E")) d.material.E = c.getReal(m + "E");
  if (c.isSet(m + "nu")) d.material.nu = c.getReal(m + "nu");
  if (c.isSet(m + "density")) d.material.density = c.getReal(m + "density");
  if (c.isSet(m + "sigma_c")) d.material.sigmaC = c.getReal(m + "sigma_c");
  if (c.isSet(m + "tau_c")) d.material.tauC = c.getReal(m + "tau_c");
  if (c.isSet(p + ".gravity")) {
    const std::vector<double>& g = c.getRealList(p + ".gravity");
    d.gravity = Vec3(g[0], g[1], g[2]);
  }
  return d;
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

void declareSceneParams(ParamSchema& s, const std::string& prefix) {
  const std::string p = prefix;
  s.addChoice(p + ".generator", "three_point_bending", sceneGenerators(),
              "scene generator (the paper's scenes of §6.3-6.4; docs/modules/bdem.md); its arguments are under " + p + ".<generator>.*");
  s.addChoice(p + ".lattice", "fcc", {"fcc", "hcp", "cubic"},
              "packing lattice, spacing 2r: fcc (close packed, ABC), hcp (close packed, AB), cubic");
  s.addReal(p + ".jitter", 0.0, Range::closed(0.0, 0.1),
            "random displacement of each lattice point, uniform in [-jitter r, jitter r]^3 (<= 0.1: bonds stay "
            "those of the lattice)");
  s.addInt(p + ".seed", 1, Range::atLeast(0), "seed of the jitter (splitmix64; the same on every platform)");
  s.addReal(p + ".bond_delta", kDefaultBondDelta, Range::closed(0.0, 0.5),
            "bond every pair with |p_i - p_j| <= (1 + bond_delta + sqrt(3) jitter)(r_i + r_j) (§3.4; README decision 23)");
  s.addReal(p + ".material.E", 1e7, Range::positive(), "Young's modulus [Pa] (unset: the generator's value)");
  s.addReal(p + ".material.nu", 0.3, Range::open(-1.0, 0.5), "Poisson ratio, G = E / (2 (1 + nu)) (unset: generator's)");
  s.addReal(p + ".material.density", 1000, Range::positive(), "density [kg/m^3] (unset: the generator's value)");
  s.addReal(p + ".material.sigma_c", 3e4, Range::positive(),
            "tensile strength sigma_c [Pa], Eq. 12; .inf: unbreakable (unset: the generator's value)")
      .infiniteMeans("unbreakable");
  s.addReal(p + ".material.tau_c", 3e4, Range::positive(),
            "shear strength tau_c [Pa], Eq. 13; .inf: unbreakable (unset: the generator's value)")
      .infiniteMeans("unbreakable");
  s.addChoice(p + ".material.calibration", "lattice", {"lattice", "none"},
              "lattice: bond stiffnesses, strengths and particle masses scaled so that the packing shows the "
              "given E (along x and z within 2.6 %) and density (docs/modules/bdem.md, Calibrated material); "
              "none: bonds built from E as in Eqs. 8-11 and masses rho (4/3) pi r^3, as in the paper. "
              "Packed generators only (not single_bond, two_spheres, sphere_on_plane, yarn_sheet, file)");
  s.addRealList(p + ".gravity", {0.0, 0.0, -9.81}, 3, "gravity [m/s^2] (unset: the generator's value)");

  const std::string sb = p + ".single_bond";
  const SingleBondOptions b;
  s.addReal(sb + ".radius", b.radius, Range::positive(), "radius of both particles [m]; they touch along x");
  s.addChoice(sb + ".mode", b.mode, {"stretch", "shear", "twist", "bend"},
              "motion of the gripped particle j: along the bond, across it, spin about it, spin about z");
  s.addReal(sb + ".speed", b.speed, Range::nonNegative(), "stretch / shear speed of j [m/s]");
  s.addReal(sb + ".angular_speed", b.angularSpeed, Range::any(), "twist / bend spin rate of j [rad/s]");

  const CantileverOptions cl;
  declareBeam(s, p + ".cantilever", cl.beam);
  s.addReal(p + ".cantilever.clamp_length", cl.clampLength, Range::positive(),
            "particles with x < clamp_length are fixed [m]");

  const BeamPullOptions bp;
  for (const char* g : {"beam_stretch", "beam_twist"}) {
    declareBeam(s, p + "." + g, bp.beam);
    s.addReal(p + "." + g + ".grip_length", bp.gripLength, Range::positive(),
              "particles within grip_length of an end are gripped [m]");
  }
  s.addReal(p + ".beam_stretch.speed", bp.speed, Range::any(), "speed of the moving end along +x [m/s]");
  s.addReal(p + ".beam_twist.angular_speed", bp.angularSpeed, Range::any(),
            "spin rate of the moving end about the beam axis [rad/s]");

  const BeamDrapeOptions bd;
  declareBeam(s, p + ".beam_drape", bd.beam);
  s.addChoice(p + ".beam_drape.support", bd.support, {"clamp", "both"}, "clamp: one end fixed; both: both ends fixed");
  s.addReal(p + ".beam_drape.support_length", bd.supportLength, Range::positive(),
            "length of each fixed end [m]");

  const PlateDropOptions pd;
  const std::string pp = p + ".plate_drop";
  s.addReal(pp + ".plate_radius", pd.plateRadius, Range::positive(), "radius of the disc plate [m]");
  s.addReal(pp + ".thickness", pd.thickness, Range::positive(), "plate thickness [m]");
  s.addReal(pp + ".radius", pd.radius, Range::positive(), "particle radius [m]");
  s.addReal(pp + ".tilt", pd.tilt, Range::closed(-90, 90), "tilt of the plate about x [degrees]");
  s.addReal(pp + ".gap", pd.gap, Range::nonNegative(), "height of the lowest sphere above the floor [m]");
  s.addReal(pp + ".speed", pd.speed, Range::any(), "initial downward speed [m/s]");

  const ChocolateBarOptions cb;
  const std::string cp = p + ".chocolate_bar";
  s.addReal(cp + ".length", cb.length, Range::positive(), "bar length along x [m]");
  s.addReal(cp + ".width", cb.width, Range::positive(), "bar width along y [m]");
  s.addReal(cp + ".thickness", cb.thickness, Range::positive(), "bar thickness along z [m]");
  s.addReal(cp + ".radius", cb.radius, Range::positive(), "particle radius [m]");
  s.addInt(cp + ".pieces_x", cb.piecesX, Range::atLeast(1), "pieces along x (V grooves between them)");
  s.addInt(cp + ".pieces_y", cb.piecesY, Range::atLeast(1), "pieces along y");
  s.addReal(cp + ".groove_depth", cb.grooveDepth, Range::nonNegative(), "depth of the V grooves [m]");
  s.addReal(cp + ".groove_half_width", cb.grooveHalfWidth, Range::positive(), "half width of a groove at the top [m]");
  s.addString(cp + ".mesh", "", "closed OBJ mesh of the bar instead of the grooved box (e.g. meshes/chocolate_bar.obj)");
  s.addReal(cp + ".mesh_scale", cb.meshScale, Range::positive(), "scale applied to the OBJ mesh");
  s.addReal(cp + ".tilt", cb.tilt, Range::closed(-90, 90), "tilt of the bar about y [degrees]");
  s.addReal(cp + ".gap", cb.gap, Range::nonNegative(), "height of the lowest sphere above the floor [m]");
  s.addReal(cp + ".speed", cb.speed, Range::any(), "initial downward speed [m/s] (Fig. 8: 5)");

  const YarnSheetOptions ys;
  const std::string yp = p + ".yarn_sheet";
  s.addInt(yp + ".yarns_x", ys.yarnsX, Range::atLeast(2), "number of yarns along x (pulled apart)");
  s.addInt(yp + ".yarns_y", ys.yarnsY, Range::atLeast(2), "number of yarns along y");
  s.addInt(yp + ".particles_per_cell", ys.particlesPerCell, Range::atLeast(2),
           "particles per yarn spacing (even); yarn spacing = 2 r particles_per_cell");
  s.addReal(yp + ".radius", ys.radius, Range::positive(), "yarn (particle) radius [m]");
  s.addReal(yp + ".speed", ys.speed, Range::any(), "speed at which the two gripped edges separate [m/s]");
  s.addReal(yp + ".grip_width", ys.gripWidth, Range::nonNegative(),
            "width of each gripped band at the x ends [m] (0: half a yarn spacing + r/2)");
  s.addReal(yp + ".bending_scale", ys.bendingScale, Range::positive(),
            "factor on every bond's bend and twist stiffness (yarns: stiff in tension, soft in bending)");

  const ThreePointBendingOptions tp;
  const std::string tpp = p + ".three_point_bending";
  s.addReal(tpp + ".length", tp.length, Range::positive(), "beam length along x [m]");
  s.addReal(tpp + ".height", tp.height, Range::positive(), "beam height along z [m]");
  s.addReal(tpp + ".width", tp.width, Range::positive(), "beam width along y [m]");
  s.addReal(tpp + ".span", tp.span, Range::positive(), "distance between the two supports [m]");
  s.addReal(tpp + ".support_radius", tp.supportRadius, Range::positive(), "radius of the support cylinders [m]");
  s.addReal(tpp + ".indenter_radius", tp.indenterRadius, Range::positive(), "radius of the indenter cylinder [m]");
  s.addReal(tpp + ".indenter_speed", tp.indenterSpeed, Range::nonNegative(), "downward speed of the indenter [m/s]");
  s.addChoice(tpp + ".resolution", tp.resolution, {"low", "middle", "high"},
              "about 532 / 1.8K / 18K particles (Table 2), same geometry");
  s.addInt(tpp + ".particles", tp.particles, Range::atLeast(0), "target particle count (> 0 overrides resolution)");
  s.addReal(tpp + ".radius", tp.radius, Range::nonNegative(), "particle radius (> 0 overrides resolution) [m]");

  const TwoSpheresOptions ts;
  s.addReal(p + ".two_spheres.radius", ts.radius, Range::positive(), "radius of each sphere [m]");
  s.addReal(p + ".two_spheres.gap", ts.gap, Range::nonNegative(), "initial gap between the surfaces [m]");
  s.addReal(p + ".two_spheres.speed", ts.speed, Range::any(), "speed of each sphere towards the other [m/s]");

  const SphereOnPlaneOptions sp;
  s.addReal(p + ".sphere_on_plane.radius", sp.radius, Range::positive(), "sphere radius [m]");
  s.addReal(p + ".sphere_on_plane.gap", sp.gap, Range::nonNegative(), "initial height of its lowest point [m]");
  s.addReal(p + ".sphere_on_plane.speed", sp.speed, Range::any(), "initial downward speed [m/s]");

  const MeshSceneOptions ms;
  s.addString(p + ".mesh.path", "", "closed OBJ mesh to pack (relative to the scene file)");
  s.addReal(p + ".mesh.scale", ms.scale, Range::positive(), "scale applied to the mesh");
  s.addReal(p + ".mesh.radius", ms.radius, Range::nonNegative(), "particle radius [m] (0: about 2000 particles)");
  s.addBool(p + ".mesh.floor", ms.floor, "add a floor z = 0 and place the body above it");
  s.addReal(p + ".mesh.gap", ms.gap, Range::nonNegative(), "height of the lowest sphere above the floor [m]");
  s.addReal(p + ".mesh.speed", ms.speed, Range::any(), "initial downward speed [m/s]");

  const ParticleFileOptions fo;
  s.addString(p + ".file.path", "",
              "particle file, CSV (header x,y,z,r[,vx,vy,vz][,qx,qy,qz,qw][,material]) or HDF5 (/particles/position, "
              "/particles/radius, ...), relative to the scene file (docs/modules/bdem.md, Particles from a file)");
  s.addString(p + ".file.bonds", "",
              "bond CSV (header i,j; scene indices); empty: /bonds of an HDF5 particle file if present, else auto_bonds");
  s.addBool(p + ".file.auto_bonds", fo.autoBonds,
            "without a bond list, bond every pair within (1 + bond_delta)(r_i + r_j) (§3.4; README decision 23); false: no bonds");
  s.addTree(p + ".file.materials",
            "materials 1, 2, ... of the file's material column: a list of {E, nu, density, sigma_c, tau_c} (unset "
            "fields: those of material 0, the shared material.* keys)");
  s.addBool(p + ".file.floor", false, "add a floor, the plane z = 0");
}

System buildScene(const Config& c, const std::string& p) {
  const std::string gen = c.getString(p + ".generator");
  const std::string g = p + "." + gen;
  auto run = [&]() -> System {
    if (gen == "single_bond") {
      SingleBondOptions o;
      o.radius = c.getReal(g + ".radius");
      o.mode = c.getString(g + ".mode");
      o.speed = c.getReal(g + ".speed");
      o.angularSpeed = c.getReal(g + ".angular_speed");
      o.body = readBody(c, p, o.body);
      return buildSingleBond(o);
    }
    if (gen == "cantilever") {
      CantileverOptions o;
      o.beam = readBeam(c, g);
      o.clampLength = c.getReal(g + ".clamp_length");
      o.body = readBody(c, p, o.body);
      return buildCantilever(o);
    }
    if (gen == "beam_stretch" || gen == "beam_twist") {
      BeamPullOptions o;
      o.beam = readBeam(c, g);
      o.gripLength = c.getReal(g + ".grip_length");
      o.body = readBody(c, p, o.body);
      if (gen == "beam_stretch") {
        o.speed = c.getReal(g + ".speed");
        return buildBeamStretch(o);
      }
      o.angularSpeed = c.getReal(g + ".angular_speed");
      return buildBeamTwist(o);
    }
    if (gen == "beam_drape") {
      BeamDrapeOptions o;
      o.beam = readBeam(c, g);
      o.support = c.getString(g + ".support");
      o.supportLength = c.getReal(g + ".support_length");
      o.body = readBody(c, p, o.body);
      return buildBeamDrape(o);
    }
    if (gen == "plate_drop") {
      PlateDropOptions o;
      o.plateRadius = c.getReal(g + ".plate_radius");
      o.thickness = c.getReal(g + ".thickness");
      o.radius = c.getReal(g + ".radius");
      o.tilt = c.getReal(g + ".tilt");
      o.gap = c.getReal(g + ".gap");
      o.speed = c.getReal(g + ".speed");
      o.body = readBody(c, p, o.body);
      return buildPlateDrop(o);
    }
    if (gen == "chocolate_bar") {
      ChocolateBarOptions o;
      o.length = c.getReal(g + ".length");
      o.width = c.getReal(g + ".width");
      o.thickness = c.getReal(g + ".thickness");
      o.radius = c.getReal(g + ".radius");
      o.piecesX = static_cast<int>(c.getInt(g + ".pieces_x"));
      o.piecesY = static_cast<int>(c.getInt(g + ".pieces_y"));
      o.grooveDepth = c.getReal(g + ".groove_depth");
      o.grooveHalfWidth = c.getReal(g + ".groove_half_width");
      o.meshPath = resolveScenePath(c, c.getString(g + ".mesh"));
      o.meshScale = c.getReal(g + ".mesh_scale");
      o.tilt = c.getReal(g + ".tilt");
      o.gap = c.getReal(g + ".gap");
      o.speed = c.getReal(g + ".speed");
      o.body = readBody(c, p, o.body);
      return buildChocolateBar(o);
    }
    if (gen == "yarn_sheet") {
      YarnSheetOptions o;
      o.yarnsX = static_cast<int>(c.getInt(g + ".yarns_x"));
      o.yarnsY = static_cast<int>(c.getInt(g + ".yarns_y"));
      o.particlesPerCell = static_cast<int>(c.getInt(g + ".particles_per_cell"));
      o.radius = c.getReal(g + ".radius");
      o.speed = c.getReal(g + ".speed");
      o.gripWidth = c.getReal(g + ".grip_width");
      o.bendingScale = c.getReal(g + ".bending_scale");
      o.body = readBody(c, p, o.body);
      return buildYarnSheet(o);
    }
    if (gen == "three_point_bending") {
      ThreePointBendingOptions o;
      o.length = c.getReal(g + ".length");
      o.height = c.getReal(g + ".height");
      o.width = c.getReal(g + ".width");
      o.span = c.getReal(g + ".span");
      o.supportRadius = c.getReal(g + ".support_radius");
      o.indenterRadius = c.getReal(g + ".indenter_radius");
      o.indenterSpeed = c.getReal(g + ".indenter_speed");
      o.resolution = c.getString(g + ".resolution");
      o.particles = c.getInt(g + ".particles");
      o.radius = c.getReal(g + ".radius");
      o.body = readBody(c, p, o.body);
      return buildThreePointBending(o);
    }
    if (gen == "two_spheres") {
      TwoSpheresOptions o;
      o.radius = c.getReal(g + ".radius");
      o.gap = c.getReal(g + ".gap");
      o.speed = c.getReal(g + ".speed");
      o.body = readBody(c, p, o.body);
      return buildTwoSpheres(o);
    }
    if (gen == "sphere_on_plane") {
      SphereOnPlaneOptions o;
      o.radius = c.getReal(g + ".radius");
      o.gap = c.getReal(g + ".gap");
      o.speed = c.getReal(g + ".speed");
      o.body = readBody(c, p, o.body);
      return buildSphereOnPlane(o);
    }
    if (gen == "mesh") {
      MeshSceneOptions o;
      o.path = resolveScenePath(c, c.getString(g + ".path"));
      o.scale = c.getReal(g + ".scale");
      o.radius = c.getReal(g + ".radius");
      o.floor = c.getBool(g + ".floor");
      o.gap = c.getReal(g + ".gap");
      o.speed = c.getReal(g + ".speed");
      o.body = readBody(c, p, o.body);
      return buildMeshScene(o);
    }
    if (gen == "file") {
      ParticleFileOptions o;
      const BodyOptions body = readBody(c, p, BodyOptions{});
      o.path = resolveScenePath(c, c.getString(g + ".path"));
      if (o.path.empty()) throw SceneArgError("file.path", "no particle file given");
      o.bondsPath = resolveScenePath(c, c.getString(g + ".bonds"));
      o.autoBonds = c.getBool(g + ".auto_bonds");
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
      if (c.getBool(g + ".floor")) {
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

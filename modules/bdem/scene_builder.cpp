#include "modules/bdem/scene_builder.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "framework/core/error.hpp"
#include "modules/bdem/bond_builder.hpp"

namespace kinema::bdem {

namespace {

constexpr double kPi = std::numbers::pi;

void need(bool ok, const std::string& key, const std::string& message) {
  if (!ok) throw SceneArgError(key, message);
}

void needPositive(double x, const std::string& key) {
  need(x > 0 && std::isfinite(x), key, str("must be positive and finite, got ", x));
}

void checkBody(const BodyOptions& b) {
  needPositive(b.material.E, "material.E");
  need(b.material.nu > -1.0 && b.material.nu < 0.5, "material.nu", str("must be in (-1, 0.5), got ", b.material.nu));
  needPositive(b.material.density, "material.density");
  need(b.material.sigmaC > 0, "material.sigma_c", str("must be positive, got ", b.material.sigmaC));
  need(b.material.tauC > 0, "material.tau_c", str("must be positive, got ", b.material.tauC));
  // Above 0.1 a jittered second neighbour (2 sqrt2 r apart) can come closer than a stretched first
  // one: 2 + 2 sqrt3 j < 2 sqrt2 - 2 sqrt3 j needs j < 0.12.
  need(b.jitter >= 0 && b.jitter <= 0.1, "jitter", str("must be in [0, 0.1] for a bonded body, got ", b.jitter));
  need(b.bondDelta >= 0 && b.bondDelta <= 0.5, "bond_delta", str("must be in [0, 0.5], got ", b.bondDelta));
  need(b.gravity.allFinite(), "gravity", "must be finite");
}

System startSystem(const BodyOptions& b) {
  checkBody(b);
  System S;
  S.materials = {b.material};
  S.gravity = b.gravity;
  return S;
}

PackingOptions packing(const BodyOptions& b, double radius) {
  PackingOptions p;
  p.radius = radius;
  p.lattice = b.lattice;
  p.jitter = b.jitter;
  p.seed = b.seed;
  return p;
}

// Packs `solid` into S (appending particles); a packing error names the generator's radius key.
void packInto(System& S, const Solid& solid, const BodyOptions& b, double radius, const std::string& radiusKey) {
  std::vector<Vec3> pts;
  try {
    pts = pack(solid, packing(b, radius));
  } catch (const SceneArgError&) {
    throw;
  } catch (const InputError& e) {
    throw SceneArgError(radiusKey, e.message());
  }
  addParticles(S.P, pts, radius, b.material.density, 0);
}

// Bond tolerance (decision): bond_delta plus sqrt(3) jitter, the most a jittered lattice pair can
// stretch, so a jittered packing keeps exactly the bonds of its lattice (second neighbours are
// sqrt 2 further, far outside).
void finish(System& S, const BodyOptions& b) {
  const double delta = b.bondDelta + std::sqrt(3.0) * b.jitter;
  S.P.numOwned = S.P.size();
  for (std::size_t a = 0; a < S.P.size(); ++a) {
    S.P.pRef[a] = S.P.p[a];
    S.P.qRef[a] = S.P.q[a];
  }
  buildBonds(S, delta);
  checkSystem(S);
}

void checkBeam(const BeamGeometry& g, const std::string& gen) {
  needPositive(g.length, gen + ".length");
  needPositive(g.height, gen + ".height");
  needPositive(g.width, gen + ".width");
  needPositive(g.radius, gen + ".radius");
  const double smallest = std::min({g.length, g.height, g.width});
  need(2.0 * g.radius <= smallest, gen + ".radius",
       str("particle diameter ", 2 * g.radius, " exceeds the smallest beam side ", smallest));
}

void packBeam(System& S, const BeamGeometry& g, const BodyOptions& b, const std::string& gen) {
  checkBeam(g, gen);
  packInto(S, boxSolid(Vec3(0, -0.5 * g.width, 0), Vec3(g.length, 0.5 * g.width, g.height)), b, g.radius,
           gen + ".radius");
}

Vec3 centroid(const Particles& P, const std::vector<std::size_t>& ids) {
  Vec3 c = Vec3::Zero();
  for (std::size_t a : ids) c += P.p[a];
  return ids.empty() ? c : Vec3(c / static_cast<double>(ids.size()));
}

// Marks particles with `select(p)` as gripped by a new grip; returns its index and the members.
int addGrip(System& S, const std::string& name, const std::function<bool(const Vec3&)>& select,
            std::vector<std::size_t>* members = nullptr) {
  const int g = static_cast<int>(S.grips.size());
  std::vector<std::size_t> ids;
  for (std::size_t a = 0; a < S.P.size(); ++a)
    if (S.P.dof[a] == Dof::Free && select(S.P.p[a])) {
      S.P.dof[a] = Dof::Grip;
      S.P.grip[a] = g;
      ids.push_back(a);
    }
  Grip grip;
  grip.name = name;
  grip.centre = centroid(S.P, ids);
  S.grips.push_back(grip);
  if (members) *members = ids;
  return g;
}

std::size_t fixWhere(System& S, const std::function<bool(const Vec3&)>& select) {
  std::size_t n = 0;
  for (std::size_t a = 0; a < S.P.size(); ++a)
    if (S.P.dof[a] == Dof::Free && select(S.P.p[a])) {
      S.P.dof[a] = Dof::Fixed;
      ++n;
    }
  return n;
}

Obstacle floorPlane() {
  Obstacle f;
  f.kind = Obstacle::Kind::Plane;
  f.name = "floor";
  f.point = Vec3::Zero();
  f.normal = Vec3::UnitZ();
  return f;
}

// Centres the body on the z axis, rotates it about `axis` by `degrees`, lifts it so its lowest
// sphere is `gap` above z = 0, and gives every particle the velocity (0, 0, -speed).
void placeAboveFloor(Particles& P, const Vec3& axis, double degrees, double gap, double speed) {
  std::vector<std::size_t> all(P.size());
  for (std::size_t a = 0; a < all.size(); ++a) all[a] = a;
  const Vec3 c = centroid(P, all);
  const Mat3 R = Eigen::AngleAxisd(degrees * kPi / 180.0, axis.normalized()).toRotationMatrix();
  double zmin = std::numeric_limits<double>::infinity();
  for (std::size_t a = 0; a < P.size(); ++a) {
    P.p[a] = R * (P.p[a] - c);
    zmin = std::min(zmin, P.p[a][2] - P.r[a]);
  }
  for (std::size_t a = 0; a < P.size(); ++a) {
    P.p[a][2] += gap - zmin;
    P.v[a] = Vec3(0, 0, -speed);
  }
}

}  // namespace

long long threePointBendingTarget(const std::string& resolution) {
  if (resolution == "low") return 532;
  if (resolution == "middle") return 1800;
  if (resolution == "high") return 18000;
  throw SceneArgError("three_point_bending.resolution",
                      str("unknown resolution '", resolution, "' (expected low | middle | high)"));
}

// ---------------------------------------------------------------------------------------------

System buildSingleBond(const SingleBondOptions& o) {
  needPositive(o.radius, "single_bond.radius");
  need(o.speed >= 0 && std::isfinite(o.speed), "single_bond.speed", str("must be >= 0, got ", o.speed));
  need(std::isfinite(o.angularSpeed), "single_bond.angular_speed", "must be finite");
  need(o.mode == "stretch" || o.mode == "shear" || o.mode == "twist" || o.mode == "bend", "single_bond.mode",
       str("unknown mode '", o.mode, "' (expected stretch | shear | twist | bend)"));
  System S = startSystem(o.body);
  addParticles(S.P, {Vec3::Zero(), Vec3(2 * o.radius, 0, 0)}, o.radius, o.body.material.density, 0);
  S.P.dof[0] = Dof::Fixed;
  S.P.dof[1] = Dof::Grip;
  S.P.grip[1] = 0;
  Grip g;
  g.name = "j";
  g.centre = S.P.p[1];  // rotations spin j in place
  if (o.mode == "stretch") g.velocity = Vec3(o.speed, 0, 0);
  if (o.mode == "shear") g.velocity = Vec3(0, o.speed, 0);
  if (o.mode == "twist") g.angularVelocity = Vec3(o.angularSpeed, 0, 0);
  if (o.mode == "bend") g.angularVelocity = Vec3(0, 0, o.angularSpeed);
  S.grips.push_back(g);
  finish(S, o.body);
  return S;
}

System buildCantilever(const CantileverOptions& o) {
  System S = startSystem(o.body);
  packBeam(S, o.beam, o.body, "cantilever");
  need(o.clampLength > 0 && o.clampLength < 0.5 * o.beam.length, "cantilever.clamp_length",
       str("must be in (0, length/2), got ", o.clampLength));
  const std::size_t nFixed = fixWhere(S, [&](const Vec3& p) { return p[0] < o.clampLength; });
  need(nFixed > 0, "cantilever.clamp_length",
       str("clamps no particle (the first particles sit at x = ", o.beam.radius, ")"));
  finish(S, o.body);
  return S;
}

namespace {

System beamPull(const BeamPullOptions& o, const std::string& gen, bool twist) {
  System S = startSystem(o.body);
  packBeam(S, o.beam, o.body, gen);
  need(o.gripLength > 0 && o.gripLength < 0.5 * o.beam.length, gen + ".grip_length",
       str("must be in (0, length/2), got ", o.gripLength));
  std::vector<std::size_t> left, right;
  addGrip(S, "fixed_end", [&](const Vec3& p) { return p[0] < o.gripLength; }, &left);
  const int g = addGrip(S, "moving_end", [&](const Vec3& p) { return p[0] > o.beam.length - o.gripLength; }, &right);
  need(!left.empty() && !right.empty(), gen + ".grip_length", "grips no particle at one end");
  if (twist) {
    need(std::isfinite(o.angularSpeed), gen + ".angular_speed", "must be finite");
    // The axis of the packed beam: the centroid of all particles in y and z.
    std::vector<std::size_t> all(S.P.size());
    for (std::size_t a = 0; a < all.size(); ++a) all[a] = a;
    const Vec3 c = centroid(S.P, all);
    S.grips[static_cast<std::size_t>(g)].centre = Vec3(S.grips[static_cast<std::size_t>(g)].centre[0], c[1], c[2]);
    S.grips[static_cast<std::size_t>(g)].angularVelocity = Vec3(o.angularSpeed, 0, 0);
  } else {
    need(std::isfinite(o.speed), gen + ".speed", "must be finite");
    S.grips[static_cast<std::size_t>(g)].velocity = Vec3(o.speed, 0, 0);
  }
  finish(S, o.body);
  return S;
}

}  // namespace

System buildBeamStretch(const BeamPullOptions& o) { return beamPull(o, "beam_stretch", false); }
System buildBeamTwist(const BeamPullOptions& o) { return beamPull(o, "beam_twist", true); }

System buildBeamDrape(const BeamDrapeOptions& o) {
  System S = startSystem(o.body);
  packBeam(S, o.beam, o.body, "beam_drape");
  need(o.support == "clamp" || o.support == "both", "beam_drape.support",
       str("unknown support '", o.support, "' (expected clamp | both)"));
  need(o.supportLength > 0 && o.supportLength < 0.5 * o.beam.length, "beam_drape.support_length",
       str("must be in (0, length/2), got ", o.supportLength));
  const bool both = o.support == "both";
  const std::size_t n = fixWhere(S, [&](const Vec3& p) {
    return p[0] < o.supportLength || (both && p[0] > o.beam.length - o.supportLength);
  });
  need(n > 0, "beam_drape.support_length", "fixes no particle");
  finish(S, o.body);
  return S;
}

System buildPlateDrop(const PlateDropOptions& o) {
  needPositive(o.plateRadius, "plate_drop.plate_radius");
  needPositive(o.thickness, "plate_drop.thickness");
  needPositive(o.radius, "plate_drop.radius");
  need(2 * o.radius <= o.thickness, "plate_drop.radius",
       str("particle diameter ", 2 * o.radius, " exceeds the plate thickness ", o.thickness));
  need(o.thickness < o.plateRadius, "plate_drop.thickness", "must be smaller than plate_radius (a thin plate)");
  need(o.gap >= 0 && std::isfinite(o.gap), "plate_drop.gap", str("must be >= 0, got ", o.gap));
  need(std::isfinite(o.speed), "plate_drop.speed", "must be finite");
  need(std::abs(o.tilt) <= 90, "plate_drop.tilt", str("must be in [-90, 90] degrees, got ", o.tilt));
  System S = startSystem(o.body);
  packInto(S, discPlateSolid(Vec3(0, 0, 0.5 * o.thickness), o.plateRadius, o.thickness), o.body, o.radius,
           "plate_drop.radius");
  placeAboveFloor(S.P, Vec3::UnitX(), o.tilt, o.gap, o.speed);
  S.obstacles.push_back(floorPlane());
  finish(S, o.body);
  return S;
}

Solid chocolateBarSolid(const ChocolateBarOptions& o) {
  const double L = o.length, W = o.width, T = o.thickness, d = o.grooveDepth, hw = o.grooveHalfWidth;
  const int nx = o.piecesX, ny = o.piecesY;
  Solid s = boxSolid(Vec3::Zero(), Vec3(L, W, T));
  auto box = s.inside;
  s.inside = [=](const Vec3& p) {
    if (!box(p)) return false;
    // V grooves: below T - d (1 - |x - x_g| / hw) within hw of a groove line.
    double top = T;
    for (int a = 1; a < nx; ++a) {
      const double dist = std::abs(p[0] - L * a / nx);
      if (dist < hw) top = std::min(top, T - d * (1.0 - dist / hw));
    }
    for (int b = 1; b < ny; ++b) {
      const double dist = std::abs(p[1] - W * b / ny);
      if (dist < hw) top = std::min(top, T - d * (1.0 - dist / hw));
    }
    return p[2] <= top;
  };
  return s;
}

System buildChocolateBar(const ChocolateBarOptions& o) {
  needPositive(o.radius, "chocolate_bar.radius");
  need(o.gap >= 0 && std::isfinite(o.gap), "chocolate_bar.gap", str("must be >= 0, got ", o.gap));
  need(std::isfinite(o.speed), "chocolate_bar.speed", "must be finite");
  need(std::abs(o.tilt) <= 90, "chocolate_bar.tilt", str("must be in [-90, 90] degrees, got ", o.tilt));
  System S = startSystem(o.body);
  if (o.meshPath.empty()) {
    needPositive(o.length, "chocolate_bar.length");
    needPositive(o.width, "chocolate_bar.width");
    needPositive(o.thickness, "chocolate_bar.thickness");
    need(2 * o.radius <= std::min({o.length, o.width, o.thickness}), "chocolate_bar.radius",
         str("particle diameter ", 2 * o.radius, " exceeds the smallest side of the bar"));
    need(o.piecesX >= 1, "chocolate_bar.pieces_x", "must be >= 1");
    need(o.piecesY >= 1, "chocolate_bar.pieces_y", "must be >= 1");
    // A piece narrower than a particle cannot be packed: say so on the piece count, before the
    // groove check below would blame the groove for it.
    need(o.length / o.piecesX >= 2 * o.radius, "chocolate_bar.pieces_x",
         str(o.piecesX, " pieces along the length ", o.length, " are ", o.length / o.piecesX,
             " wide, narrower than a particle diameter ", 2 * o.radius));
    need(o.width / o.piecesY >= 2 * o.radius, "chocolate_bar.pieces_y",
         str(o.piecesY, " pieces along the width ", o.width, " are ", o.width / o.piecesY,
             " wide, narrower than a particle diameter ", 2 * o.radius));
    need(o.grooveDepth >= 0 && o.grooveDepth < o.thickness, "chocolate_bar.groove_depth",
         str("must be in [0, thickness), got ", o.grooveDepth));
    const double piece = std::min(o.length / o.piecesX, o.width / o.piecesY);
    need(o.grooveHalfWidth > 0 && 2 * o.grooveHalfWidth < piece, "chocolate_bar.groove_half_width",
         str("must be positive and smaller than half a piece (", piece / 2, "), got ", o.grooveHalfWidth));
    packInto(S, chocolateBarSolid(o), o.body, o.radius, "chocolate_bar.radius");
  } else {
    needPositive(o.meshScale, "chocolate_bar.mesh_scale");
    TriMesh mesh;
    try {
      mesh = readObj(o.meshPath);
    } catch (const InputError& e) {
      throw SceneArgError("chocolate_bar.mesh", e.message());
    }
    mesh.transform(o.meshScale, Vec3::Zero());
    packInto(S, meshSolid(mesh), o.body, o.radius, "chocolate_bar.radius");
  }
  placeAboveFloor(S.P, Vec3::UnitY(), o.tilt, o.gap, o.speed);
  S.obstacles.push_back(floorPlane());
  finish(S, o.body);
  return S;
}

System buildYarnSheet(const YarnSheetOptions& o) {
  need(o.yarnsX >= 2, "yarn_sheet.yarns_x", str("must be >= 2, got ", o.yarnsX));
  need(o.yarnsY >= 2, "yarn_sheet.yarns_y", str("must be >= 2, got ", o.yarnsY));
  need(o.particlesPerCell >= 2 && o.particlesPerCell % 2 == 0, "yarn_sheet.particles_per_cell",
       str("must be even and >= 2 (a particle sits on every crossing), got ", o.particlesPerCell));
  needPositive(o.radius, "yarn_sheet.radius");
  need(std::isfinite(o.speed), "yarn_sheet.speed", "must be finite");
  need(o.gripWidth >= 0 && std::isfinite(o.gripWidth), "yarn_sheet.grip_width", "must be >= 0");
  need(o.bendingScale > 0 && std::isfinite(o.bendingScale), "yarn_sheet.bending_scale", "must be positive");
  System S = startSystem(o.body);
  const double r = o.radius, s = 2.0 * r * o.particlesPerCell, a = r;
  const double rho = o.body.material.density;
  // x-yarns j (y = j s) cross the y-yarns i (x = i s); each yarn runs s/2 past the outer crossings.
  const int mx = o.yarnsY * o.particlesPerCell;  // segments of an x-yarn
  const int my = o.yarnsX * o.particlesPerCell;  // segments of a y-yarn
  std::vector<std::pair<std::int32_t, std::int32_t>> chain;
  for (int j = 0; j < o.yarnsX; ++j) {
    const double sign = (j % 2 == 0) ? 1.0 : -1.0;
    std::vector<Vec3> pts;
    for (int m = 0; m <= mx; ++m) {
      const double x = -0.5 * s + 2.0 * r * m;
      pts.emplace_back(x, j * s, sign * a * std::cos(kPi * x / s));
    }
    const auto first = static_cast<std::int32_t>(S.P.size());
    addParticles(S.P, pts, r, rho, 0);
    for (int m = 0; m < mx; ++m) chain.emplace_back(first + m, first + m + 1);
  }
  for (int i = 0; i < o.yarnsY; ++i) {
    const double sign = (i % 2 == 0) ? -1.0 : 1.0;
    std::vector<Vec3> pts;
    for (int m = 0; m <= my; ++m) {
      const double y = -0.5 * s + 2.0 * r * m;
      pts.emplace_back(i * s, y, sign * a * std::cos(kPi * y / s));
    }
    const auto first = static_cast<std::int32_t>(S.P.size());
    addParticles(S.P, pts, r, rho, 0);
    for (int m = 0; m < my; ++m) chain.emplace_back(first + m, first + m + 1);
  }
  for (auto [i, j] : chain) S.bonds.push_back(makeBond(S.P, i, j, S.materials[0]));
  const double xmin = -0.5 * s, xmax = (o.yarnsY - 0.5) * s;
  const double gw = o.gripWidth > 0 ? o.gripWidth : 0.5 * s + 0.5 * r;
  need(gw < 0.5 * (xmax - xmin), "yarn_sheet.grip_width", "must be less than half the sheet");
  std::vector<std::size_t> left, right;
  const int g0 = addGrip(S, "left", [&](const Vec3& p) { return p[0] < xmin + gw; }, &left);
  const int g1 = addGrip(S, "right", [&](const Vec3& p) { return p[0] > xmax - gw; }, &right);
  S.grips[static_cast<std::size_t>(g0)].velocity = Vec3(-0.5 * o.speed, 0, 0);
  S.grips[static_cast<std::size_t>(g1)].velocity = Vec3(0.5 * o.speed, 0, 0);
  // Crossing bonds (the two yarns 2r apart) come from the distance rule; chain bonds are kept.
  S.P.numOwned = S.P.size();
  buildBonds(S, o.body.bondDelta);
  for (Bond& b : S.bonds) {
    b.kBend *= o.bendingScale;
    b.kTwist *= o.bendingScale;
  }
  checkSystem(S);
  return S;
}

System buildThreePointBending(const ThreePointBendingOptions& o) {
  const std::string g = "three_point_bending.";
  needPositive(o.length, g + "length");
  needPositive(o.height, g + "height");
  needPositive(o.width, g + "width");
  need(o.span > 0 && o.span < o.length, g + "span", str("must be in (0, length), got ", o.span));
  needPositive(o.supportRadius, g + "support_radius");
  needPositive(o.indenterRadius, g + "indenter_radius");
  need(o.indenterSpeed >= 0 && std::isfinite(o.indenterSpeed), g + "indenter_speed", "must be >= 0");
  need(o.particles >= 0, g + "particles", "must be >= 0");
  need(o.radius >= 0 && std::isfinite(o.radius), g + "radius", "must be >= 0");
  System S = startSystem(o.body);
  const Solid beam = boxSolid(Vec3(-0.5 * o.length, -0.5 * o.width, 0), Vec3(0.5 * o.length, 0.5 * o.width, o.height));
  double r = o.radius;
  std::string rKey = g + "radius";
  if (r == 0) {
    // Radius for a target count: fixed-point iteration r <- r (n / N)^(1/3) from the bulk estimate
    // N = V / (4 sqrt2 r^3) (FCC cell volume per sphere), keeping the closest count.
    const long long target = o.particles > 0 ? o.particles : threePointBendingTarget(o.resolution);
    rKey = o.particles > 0 ? g + "particles" : g + "resolution";
    const double V = o.length * o.height * o.width;
    const double cell = o.body.lattice == Lattice::Cubic ? 8.0 : 4.0 * std::sqrt(2.0);
    double trial = std::cbrt(V / (cell * static_cast<double>(target)));
    double best = trial, bestErr = std::numeric_limits<double>::infinity();
    PackingOptions p = packing(o.body, trial);
    p.jitter = 0;
    for (int it = 0; it < 12; ++it) {
      need(2 * trial <= std::min(o.height, o.width), rKey,
           str("too few particles: radius ", trial, " does not fit the beam's cross-section"));
      p.radius = trial;
      const double n = static_cast<double>(pack(beam, p).size());
      const double err = std::abs(n - static_cast<double>(target));
      if (err < bestErr) {
        bestErr = err;
        best = trial;
      }
      if (err <= 0.01 * static_cast<double>(target)) break;
      trial *= std::cbrt(n / static_cast<double>(target));
    }
    r = best;
  }
  need(2 * r <= std::min(o.height, o.width), rKey,
       str("particle diameter ", 2 * r, " exceeds the beam's cross-section"));
  packInto(S, beam, o.body, r, rKey);
  double top = -std::numeric_limits<double>::infinity();
  for (std::size_t a = 0; a < S.P.size(); ++a) top = std::max(top, S.P.p[a][2] + S.P.r[a]);
  for (int side : {-1, 1}) {
    Obstacle c;
    c.kind = Obstacle::Kind::Cylinder;
    c.name = side < 0 ? "support_left" : "support_right";
    c.point = Vec3(0.5 * side * o.span, 0, -o.supportRadius);
    c.axis = Vec3::UnitY();
    c.radius = o.supportRadius;
    c.halfLength = o.width;  // longer than the beam is wide
    S.obstacles.push_back(c);
  }
  Obstacle ind;
  ind.kind = Obstacle::Kind::Cylinder;
  ind.name = "indenter";
  ind.point = Vec3(0, 0, top + o.indenterRadius);
  ind.axis = Vec3::UnitY();
  ind.radius = o.indenterRadius;
  ind.halfLength = o.width;
  ind.velocity = Vec3(0, 0, -o.indenterSpeed);
  S.obstacles.push_back(ind);
  finish(S, o.body);
  return S;
}

System buildTwoSpheres(const TwoSpheresOptions& o) {
  needPositive(o.radius, "two_spheres.radius");
  need(o.gap >= 0 && std::isfinite(o.gap), "two_spheres.gap", str("must be >= 0, got ", o.gap));
  need(std::isfinite(o.speed), "two_spheres.speed", "must be finite");
  System S = startSystem(o.body);
  const double h = o.radius + 0.5 * o.gap;
  addParticles(S.P, {Vec3(-h, 0, 0), Vec3(h, 0, 0)}, o.radius, o.body.material.density, 0);
  S.P.v[0] = Vec3(o.speed, 0, 0);
  S.P.v[1] = Vec3(-o.speed, 0, 0);
  S.P.numOwned = S.P.size();
  // No bonds, even when touching (gap 0): a contact test.
  checkSystem(S);
  return S;
}

System buildSphereOnPlane(const SphereOnPlaneOptions& o) {
  needPositive(o.radius, "sphere_on_plane.radius");
  need(o.gap >= 0 && std::isfinite(o.gap), "sphere_on_plane.gap", str("must be >= 0, got ", o.gap));
  need(std::isfinite(o.speed), "sphere_on_plane.speed", "must be finite");
  System S = startSystem(o.body);
  addParticles(S.P, {Vec3(0, 0, o.radius + o.gap)}, o.radius, o.body.material.density, 0);
  S.P.v[0] = Vec3(0, 0, -o.speed);
  S.P.numOwned = 1;
  S.obstacles.push_back(floorPlane());
  checkSystem(S);
  return S;
}

System buildMeshScene(const MeshSceneOptions& o) {
  need(!o.path.empty(), "mesh.path", "needs the path of a closed OBJ mesh");
  needPositive(o.scale, "mesh.scale");
  need(o.radius >= 0 && std::isfinite(o.radius), "mesh.radius", "must be >= 0 (0: automatic)");
  need(o.gap >= 0 && std::isfinite(o.gap), "mesh.gap", str("must be >= 0, got ", o.gap));
  need(std::isfinite(o.speed), "mesh.speed", "must be finite");
  TriMesh mesh;
  try {
    mesh = readObj(o.path);
  } catch (const InputError& e) {
    throw SceneArgError("mesh.path", e.message());
  }
  mesh.transform(o.scale, Vec3::Zero());
  const Vec3 ext = mesh.upper() - mesh.lower();
  // Automatic radius: about 2000 particles (bulk FCC density, V = 4 sqrt2 r^3 N), at most a quarter
  // of the smallest extent.
  const double r = o.radius > 0 ? o.radius
                                 : std::min(std::cbrt(std::abs(mesh.volume()) / (4.0 * std::sqrt(2.0) * 2000.0)),
                                            0.25 * ext.minCoeff());
  need(2 * r <= ext.minCoeff(), "mesh.radius",
       str("particle diameter ", 2 * r, " exceeds the mesh's smallest extent ", ext.minCoeff()));
  System S = startSystem(o.body);
  packInto(S, meshSolid(mesh), o.body, r, "mesh.radius");
  if (o.floor) {
    placeAboveFloor(S.P, Vec3::UnitZ(), 0.0, o.gap, o.speed);
    S.obstacles.push_back(floorPlane());
  }
  finish(S, o.body);
  return S;
}

// ---------------------------------------------------------------------------------------------

void checkSystem(const System& S) {
  const Particles& P = S.P;
  const std::size_t n = P.size();
  KINEMA_CHECK(P.v.size() == n && P.q.size() == n && P.qdot.size() == n && P.r.size() == n && P.m.size() == n &&
                   P.dof.size() == n && P.grip.size() == n && P.material.size() == n && P.gid.size() == n &&
                   P.pRef.size() == n && P.qRef.size() == n,
               "bdem scene: particle arrays of different lengths");
  KINEMA_CHECK(P.numOwned == n, "bdem scene: numOwned ", P.numOwned, " != ", n, " particles");
  std::vector<char> seen(n, 0);
  for (std::size_t a = 0; a < n; ++a) {
    KINEMA_CHECK(P.p[a].allFinite() && P.v[a].allFinite(), "bdem scene: particle ", a, " is not finite");
    KINEMA_CHECK(std::abs(P.q[a].norm() - 1.0) <= 1e-12, "bdem scene: particle ", a, " has |q| != 1");
    KINEMA_CHECK(P.r[a] > 0 && P.m[a] > 0, "bdem scene: particle ", a, " has r or m <= 0");
    KINEMA_CHECK(P.gid[a] >= 0 && static_cast<std::size_t>(P.gid[a]) < n && !seen[static_cast<std::size_t>(P.gid[a])],
                 "bdem scene: gid ", P.gid[a], " of particle ", a, " out of range or repeated");
    seen[static_cast<std::size_t>(P.gid[a])] = 1;
    KINEMA_CHECK(P.material[a] >= 0 && static_cast<std::size_t>(P.material[a]) < S.materials.size(),
                 "bdem scene: particle ", a, " has material ", P.material[a]);
    KINEMA_CHECK((P.dof[a] == Dof::Grip) == (P.grip[a] >= 0) &&
                     (P.grip[a] < 0 || static_cast<std::size_t>(P.grip[a]) < S.grips.size()),
                 "bdem scene: particle ", a, " has an inconsistent grip ", P.grip[a]);
  }
  for (std::size_t k = 0; k < S.bonds.size(); ++k) {
    const Bond& b = S.bonds[k];
    KINEMA_CHECK(b.alive && b.l0 > 0 && std::isfinite(b.l0) && b.i >= 0 && b.j >= 0 &&
                     static_cast<std::size_t>(b.i) < n && static_cast<std::size_t>(b.j) < n &&
                     b.gi == P.gid[static_cast<std::size_t>(b.i)] && b.gj == P.gid[static_cast<std::size_t>(b.j)] &&
                     b.gi < b.gj,
                 "bdem scene: bond ", k, " (", b.gi, ", ", b.gj, ") is invalid");
    if (k > 0)
      KINEMA_CHECK(S.bonds[k - 1].gi < b.gi || (S.bonds[k - 1].gi == b.gi && S.bonds[k - 1].gj < b.gj),
                   "bdem scene: bonds not sorted or duplicated at bond ", k);
  }
}

}  // namespace kinema::bdem

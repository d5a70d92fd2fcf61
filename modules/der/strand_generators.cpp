// Procedural strands: straight, coil and seeded curly wisps (see strand_generators.hpp).
#include "modules/der/strand_generators.hpp"

#include <cmath>
#include <numbers>
#include <random>

#include <Eigen/Geometry>

#include "framework/core/error.hpp"

namespace kinema::der {

namespace {

constexpr double kPi = std::numbers::pi;

void requireVertices(const char* generator, int N) {
  if (N < 3) throw InputError(str(generator, ": ", N, " vertices; a DER strand needs at least 3"));
}

void requirePositive(const char* generator, const char* name, double v) {
  if (!(v > 0.0) || !std::isfinite(v))
    throw InputError(str(generator, ": ", name, " must be positive and finite, got ", v));
}

void requireNonNegative(const char* generator, const char* name, double v) {
  if (!(v >= 0.0) || !std::isfinite(v))
    throw InputError(str(generator, ": ", name, " must be >= 0 and finite, got ", v));
}

StrandGeometry straight(int N, double length, const Vec3& root, const Vec3& direction) {
  StrandGeometry g;
  g.x.resize(static_cast<std::size_t>(N));
  for (int i = 0; i < N; ++i) g.x[static_cast<std::size_t>(i)] = root + (length * i / (N - 1)) * direction;
  g.theta.assign(static_cast<std::size_t>(N - 1), 0.0);
  return g;
}

// splitmix64 (Steele, Lea, Flood 2014): turns (seed, strand) into well-separated mt19937_64 seeds.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform on [0, 1) from the 53 high bits: exact and the same everywhere (unlike
// std::uniform_real_distribution, whose algorithm is implementation-defined).
class Uniform {
 public:
  explicit Uniform(std::uint64_t seed) : rng_(seed) {}
  double operator()() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }
  double operator()(double a, double b) { return a + (b - a) * (*this)(); }

 private:
  std::mt19937_64 rng_;
};

double smoothstep(double t) { return t >= 1.0 ? 1.0 : t * t * (3.0 - 2.0 * t); }

// One wisp: the curve described in the header, resampled at equal arc length.
StrandGeometry wisp(int N, const WispParams& p, Uniform& u) {
  // Draws, always in this order (changing it changes every seeded scene).
  const double cosPolar = 1.0 - u() * (1.0 - std::cos(p.capAngle));
  const double azimuth = 2.0 * kPi * u();
  const double length = p.length * (1.0 + p.lengthJitter * (2.0 * u() - 1.0));
  const double curlRadius = u(p.curlRadiusMin, p.curlRadiusMax);
  const double curlPeriod = u(p.curlPeriodMin, p.curlPeriodMax);
  const double curlPhase = 2.0 * kPi * u();
  const double handedness = u() < 0.5 ? 1.0 : -1.0;

  const double polar0 = std::acos(std::fmin(1.0, std::fmax(-1.0, cosPolar)));
  const double ca = std::cos(azimuth), sa = std::sin(azimuth);
  const Vec3 normal(std::sin(polar0) * ca, std::sin(polar0) * sa, std::cos(polar0));
  const Vec3 root = p.scalpRadius * normal;
  const Vec3 side(-sa, ca, 0.0);  // normal to the root's vertical plane: the centre line stays in it
  const double omega = handedness * 2.0 * kPi / curlPeriod;
  auto direction = [&](double s) {
    double alpha = kPi - (kPi - polar0) * std::exp(-s / p.bendLength);
    return Vec3(std::sin(alpha) * ca, std::sin(alpha) * sa, std::cos(alpha));
  };
  auto point = [&](const Vec3& centre, double s) {
    Vec3 d = direction(s);
    Vec3 v = d.cross(side);
    double rho = curlRadius * smoothstep(s / p.curlRamp);
    double a = omega * s + curlPhase;
    return Vec3(centre + rho * (std::cos(a) * side + std::sin(a) * v));
  };

  // Fine samples of the curve (midpoint rule for the centre line) until its arc length reaches
  // `length`, then vertices at equal arc length by linear interpolation between samples.
  const int perEdge = 32;
  const double h = length / ((N - 1) * perEdge);
  const double edge = length / (N - 1);
  StrandGeometry g;
  g.x.reserve(static_cast<std::size_t>(N));
  g.x.push_back(root);
  Vec3 centre = root, previous = root;
  double s = 0.0, arc = 0.0;
  const long maxSteps = 1000L * (N - 1) * perEdge;  // curl never shortens the curve this much
  for (long step = 0; static_cast<int>(g.x.size()) < N; ++step) {
    if (step >= maxSteps) throw Error("wisps: the curve does not reach its length (degenerate parameters)");
    centre += h * direction(s + 0.5 * h);
    s += h;
    Vec3 next = point(centre, s);
    double segment = (next - previous).norm();
    // Every vertex whose arc position falls in this sample segment (the last one at exactly
    // `length`, guarding against round-off in the running sum).
    while (static_cast<int>(g.x.size()) < N) {
      double target = (static_cast<int>(g.x.size()) == N - 1) ? length : edge * static_cast<double>(g.x.size());
      if (target > arc + segment) break;
      double t = segment > 0.0 ? (target - arc) / segment : 1.0;
      g.x.push_back(previous + t * (next - previous));
    }
    arc += segment;
    previous = next;
  }
  g.theta.assign(static_cast<std::size_t>(N - 1), 0.0);
  return g;
}

}  // namespace

StrandGeometry straightVertical(int N, double length, const Vec3& root) {
  requireVertices("straightVertical", N);
  requirePositive("straightVertical", "length", length);
  return straight(N, length, root, Vec3(0.0, 0.0, -1.0));
}

StrandGeometry straightHorizontal(int N, double length, const Vec3& root) {
  requireVertices("straightHorizontal", N);
  requirePositive("straightHorizontal", "length", length);
  return straight(N, length, root, Vec3(1.0, 0.0, 0.0));
}

StrandGeometry helix(int N, double radius, double pitch, double turns, const Vec3& root) {
  requireVertices("helix", N);
  requireNonNegative("helix", "radius", radius);
  requirePositive("helix", "turns", turns);
  if (!std::isfinite(pitch)) throw InputError(str("helix: pitch must be finite, got ", pitch));
  if (radius == 0.0 && pitch == 0.0) throw InputError("helix: radius and pitch are both 0 (all vertices coincide)");
  StrandGeometry g;
  g.x.resize(static_cast<std::size_t>(N));
  for (int i = 0; i < N; ++i) {
    double phi = 2.0 * kPi * turns * i / (N - 1);
    g.x[static_cast<std::size_t>(i)] =
        root + Vec3(radius * (std::cos(phi) - 1.0), radius * std::sin(phi), -pitch * phi / (2.0 * kPi));
  }
  g.theta.assign(static_cast<std::size_t>(N - 1), 0.0);
  return g;
}

std::vector<StrandGeometry> wisps(int count, int vertices, const WispParams& p, std::uint64_t seed) {
  if (count < 0) throw InputError(str("wisps: count must be >= 0, got ", count));
  return wispRange(0, count, vertices, p, seed);
}

std::vector<StrandGeometry> wispRange(std::int64_t first, int count, int vertices, const WispParams& p,
                                      std::uint64_t seed) {
  const char* w = "wisps";
  if (first < 0 || count < 0) throw InputError(str("wisps: strands [", first, ", ", first + count, ") asked for"));
  requireVertices(w, vertices);
  requirePositive(w, "scalpRadius", p.scalpRadius);
  if (!(p.capAngle >= 0.0 && p.capAngle <= kPi))
    throw InputError(str("wisps: capAngle must be in [0, pi], got ", p.capAngle));
  requirePositive(w, "length", p.length);
  if (!(p.lengthJitter >= 0.0 && p.lengthJitter < 1.0))
    throw InputError(str("wisps: lengthJitter must be in [0, 1), got ", p.lengthJitter));
  requirePositive(w, "bendLength", p.bendLength);
  requireNonNegative(w, "curlRadiusMin", p.curlRadiusMin);
  requireNonNegative(w, "curlRadiusMax", p.curlRadiusMax);
  requirePositive(w, "curlPeriodMin", p.curlPeriodMin);
  requirePositive(w, "curlPeriodMax", p.curlPeriodMax);
  requirePositive(w, "curlRamp", p.curlRamp);
  if (p.curlRadiusMin > p.curlRadiusMax)
    throw InputError(str("wisps: curlRadiusMin ", p.curlRadiusMin, " > curlRadiusMax ", p.curlRadiusMax));
  if (p.curlPeriodMin > p.curlPeriodMax)
    throw InputError(str("wisps: curlPeriodMin ", p.curlPeriodMin, " > curlPeriodMax ", p.curlPeriodMax));
  std::vector<StrandGeometry> out;
  out.reserve(static_cast<std::size_t>(count));
  // Strand k is a function of (seed, k) only, whichever range it is built in.
  for (std::int64_t k = first; k < first + count; ++k) {
    Uniform u(splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(k))));
    out.push_back(wisp(vertices, p, u));
  }
  return out;
}

}  // namespace kinema::der

#include "modules/der/strand_set_file.hpp"

#include <algorithm>
#include <cmath>

#include "framework/core/error.hpp"
#include "framework/io/hdf5_file.hpp"

namespace kinema::der {

namespace {

constexpr const char* kFormat = "kinema-der-strands";
constexpr std::int64_t kVersion = 1;

std::uint64_t u64(std::int64_t v) { return static_cast<std::uint64_t>(v); }

}  // namespace

void writeStrandSet(const std::string& path, Comm comm, const LocalStrands& local) {
  const std::int64_t S = local.totalStrands;
  KINEMA_CHECK(static_cast<std::int64_t>(local.vertexOffset.size()) == S + 1,
               "writeStrandSet: vertexOffset must hold every strand's offset");
  const std::int64_t V = local.vertexOffset.back();
  const std::int64_t count = static_cast<std::int64_t>(local.geometry.size());
  const bool hasRest = comm.max(local.rest.empty() ? 0.0 : 1.0) > 0.0 && (count == 0 || !local.rest.empty());
  const bool hasResults = comm.max(local.results.empty() ? 0.0 : 1.0) > 0.0;
  const std::int64_t v0 = local.vertexOffset[u64(local.firstStrand)];
  const std::int64_t v1 = local.vertexOffset[u64(local.firstStrand + count)];
  const std::size_t rows = u64(v1 - v0);

  for (std::int64_t s = 0; s < count; ++s) {
    const int N = local.geometry[u64(s)].vertices();
    KINEMA_CHECK(N == local.vertexOffset[u64(local.firstStrand + s + 1)] - local.vertexOffset[u64(local.firstStrand + s)],
                 "writeStrandSet: strand vertex count disagrees with vertexOffset");
  }

  io::H5File f(path, io::H5File::Mode::create, comm);
  f.createGroup("/strands");
  f.writeAttribute("/strands", "format", std::string(kFormat));
  f.writeAttribute("/strands", "version", kVersion);
  f.writeAttribute("/strands", "strands", S);
  f.writeAttribute("/strands", "vertices", V);
  f.writeAttribute("/strands", "has_rest", static_cast<std::int64_t>(hasRest ? 1 : 0));
  f.writeAttribute("/strands", "radius", local.material.radius);
  f.writeAttribute("/strands", "density", local.material.density);
  f.writeAttribute("/strands", "gravity_x", local.material.gravity.x());
  f.writeAttribute("/strands", "gravity_y", local.material.gravity.y());
  f.writeAttribute("/strands", "gravity_z", local.material.gravity.z());
  f.writeArray("/strands/vertex_offset", {u64(S + 1)}, std::span<const std::int64_t>(local.vertexOffset));
  // One dataset at a time through one buffer: the largest (positions, kbar) is 3-4 doubles per
  // vertex, instead of all twelve at once (memory per strand, docs/modules/der.md).
  std::vector<double> buf;
  // Fills buf with `width` values per vertex from get(strand, vertex, out) (entries get leaves
  // alone stay 0) and writes it as dataset `name`.
  auto write = [&](const char* name, int width, auto get) {
    buf.assign(static_cast<std::size_t>(width) * rows, 0.0);
    std::size_t row = 0;
    for (std::int64_t s = 0; s < count; ++s) {
      const int N = local.geometry[u64(s)].vertices();
      for (int v = 0; v < N; ++v, ++row) get(u64(s), v, N, &buf[static_cast<std::size_t>(width) * row]);
    }
    if (width == 1) f.writeSlab(name, {u64(V)}, u64(v0), buf);
    else f.writeSlab(name, {u64(V), u64(width)}, u64(v0), buf);
  };
  write("/strands/positions", 3, [&](std::size_t s, int v, int, double* out) {
    for (int c = 0; c < 3; ++c) out[c] = local.geometry[s].x[u64(v)][c];
  });
  write("/strands/theta", 1, [&](std::size_t s, int v, int N, double* out) {
    if (v < N - 1) out[0] = local.geometry[s].theta[u64(v)];
  });
  if (hasRest) {
    write("/strands/rest_length", 1, [&](std::size_t s, int v, int N, double* out) {
      if (v < N - 1) out[0] = local.rest[s].restLength[u64(v)];
    });
    write("/strands/rest_kappa", 4, [&](std::size_t s, int v, int, double* out) {
      for (int c = 0; c < 4; ++c) out[c] = local.rest[s].restKappa[u64(v)][c];
    });
    write("/strands/rest_twist", 1, [&](std::size_t s, int v, int, double* out) { out[0] = local.rest[s].restTwist[u64(v)]; });
    write("/strands/c_stretch", 1, [&](std::size_t s, int v, int N, double* out) {
      if (v < N - 1) out[0] = local.rest[s].cStretch[u64(v)];
    });
    write("/strands/c_bend", 1, [&](std::size_t s, int v, int, double* out) { out[0] = local.rest[s].cBend[u64(v)]; });
    write("/strands/c_twist", 1, [&](std::size_t s, int v, int, double* out) { out[0] = local.rest[s].cTwist[u64(v)]; });
  }
  buf.clear();
  buf.shrink_to_fit();
  if (hasResults) {
    std::vector<double> res(u64(count)), newton(u64(count)), mprgp(u64(count)), reason(u64(count)),
        mprgpTotal(u64(count)), seconds(u64(count));
    for (std::int64_t s = 0; s < count && !local.results.empty(); ++s) {
      res[u64(s)] = local.results[u64(s)].relativeResidual;
      newton[u64(s)] = local.results[u64(s)].newtonIterations;
      mprgp[u64(s)] = local.results[u64(s)].mprgpIterationsPerSolve;
      reason[u64(s)] = local.results[u64(s)].stopReason;
      mprgpTotal[u64(s)] = local.results[u64(s)].mprgpIterations;
      seconds[u64(s)] = local.results[u64(s)].seconds;
    }
    const std::uint64_t off = u64(local.firstStrand);
    f.writeSlab("/strands/results/relative_residual", {u64(S)}, off, res);
    f.writeSlab("/strands/results/newton_iterations", {u64(S)}, off, newton);
    f.writeSlab("/strands/results/mprgp_iterations_per_solve", {u64(S)}, off, mprgp);
    f.writeSlab("/strands/results/stop_reason", {u64(S)}, off, reason);
    f.writeSlab("/strands/results/mprgp_iterations", {u64(S)}, off, mprgpTotal);
    f.writeSlab("/strands/results/seconds", {u64(S)}, off, seconds);
  }
  f.flush();
}

namespace {

void requireFormat(const io::H5File& f, const std::string& path) {
  if (!f.exists("/strands") || !f.hasAttribute("/strands", "format") ||
      f.readAttributeString("/strands", "format") != kFormat)
    throw InputError(path + ": not a Kinema strand-set file (no /strands group with format = " +
                     std::string(kFormat) + "); .hair files are read with der.strands.source: hair");
  const std::int64_t version = f.readAttributeInt("/strands", "version");
  if (version != kVersion)
    throw InputError(str(path, ": strand-set file version ", version, ", this build reads version ", kVersion));
}

std::vector<std::int64_t> readOffsets(const io::H5File& f, const std::string& path) {
  std::vector<std::int64_t> off = f.readAllInt("/strands/vertex_offset");
  const std::int64_t S = f.readAttributeInt("/strands", "strands");
  if (static_cast<std::int64_t>(off.size()) != S + 1 || off.empty() || off[0] != 0)
    throw InputError(str(path, ": /strands/vertex_offset has ", off.size(), " entries for ", S,
                         " strands (expected ", S + 1, ", starting at 0)"));
  for (std::int64_t s = 0; s < S; ++s)
    if (off[u64(s + 1)] - off[u64(s)] < 3)
      throw InputError(str(path, ": strand ", s, " has ", off[u64(s + 1)] - off[u64(s)],
                           " vertices; a DER strand needs at least 3"));
  if (off.back() != f.readAttributeInt("/strands", "vertices"))
    throw InputError(str(path, ": /strands/vertex_offset ends at ", off.back(), " but the file has ",
                         f.readAttributeInt("/strands", "vertices"), " vertices"));
  return off;
}

}  // namespace

std::vector<std::int64_t> readStrandOffsets(const std::string& path, Comm comm) {
  io::H5File f(path, io::H5File::Mode::read, comm);
  requireFormat(f, path);
  return readOffsets(f, path);
}

LocalStrands readStrandSet(const std::string& path, Comm comm, std::int64_t first, std::int64_t count) {
  io::H5File f(path, io::H5File::Mode::read, comm);
  requireFormat(f, path);
  LocalStrands out;
  out.vertexOffset = readOffsets(f, path);
  out.totalStrands = static_cast<std::int64_t>(out.vertexOffset.size()) - 1;
  if (first < 0 || count < 0 || first + count > out.totalStrands)
    throw InputError(str(path, ": asked for strands [", first, ", ", first + count, ") of ", out.totalStrands));
  out.firstStrand = first;
  out.material.radius = f.readAttributeReal("/strands", "radius");
  out.material.density = f.readAttributeReal("/strands", "density");
  out.material.gravity = Vec3(f.readAttributeReal("/strands", "gravity_x"), f.readAttributeReal("/strands", "gravity_y"),
                              f.readAttributeReal("/strands", "gravity_z"));
  const bool hasRest = f.readAttributeInt("/strands", "has_rest") != 0;
  const std::int64_t v0 = out.vertexOffset[u64(first)];
  const std::uint64_t rows = u64(out.vertexOffset[u64(first + count)] - v0);
  // Every dataset this read needs is there with one row per vertex, checked on every rank before
  // any slab is read (the same metadata everywhere, so every rank raises the same error): a
  // missing or short dataset names the file, the dataset and the first strand it lacks.
  const std::int64_t V = out.vertexOffset.back();
  auto requireRows = [&](const char* name, std::uint64_t width) {
    if (!f.exists(name))
      throw InputError(str(path, ": dataset ", name, " is missing (strands 0 to ", out.totalStrands - 1,
                           " have their rows there)"));
    const io::Shape shape = f.shape(name);
    const std::uint64_t have = shape.empty() ? 0 : shape[0];
    const std::uint64_t w = shape.size() > 1 ? shape[1] : 1;
    if (have < u64(V) || w != width) {
      const auto cut = std::upper_bound(out.vertexOffset.begin(), out.vertexOffset.end(), static_cast<std::int64_t>(have));
      throw InputError(str(path, ": dataset ", name, " has ", have, " rows of ", w, " values, expected ", V, " rows of ",
                           width, " (one per vertex); strand ", (cut - out.vertexOffset.begin()) - 1,
                           " is the first whose rows are missing"));
    }
  };
  requireRows("/strands/positions", 3);
  requireRows("/strands/theta", 1);
  if (hasRest) {
    requireRows("/strands/rest_length", 1);
    requireRows("/strands/rest_kappa", 4);
    for (const char* name : {"/strands/rest_twist", "/strands/c_stretch", "/strands/c_bend", "/strands/c_twist"})
      requireRows(name, 1);
  }
  auto pos = f.readSlab("/strands/positions", u64(v0), rows);
  auto theta = f.readSlab("/strands/theta", u64(v0), rows);
  std::vector<double> lbar, kbar, mbar, cst, cbe, ctw;
  if (hasRest) {
    lbar = f.readSlab("/strands/rest_length", u64(v0), rows);
    kbar = f.readSlab("/strands/rest_kappa", u64(v0), rows);
    mbar = f.readSlab("/strands/rest_twist", u64(v0), rows);
    cst = f.readSlab("/strands/c_stretch", u64(v0), rows);
    cbe = f.readSlab("/strands/c_bend", u64(v0), rows);
    ctw = f.readSlab("/strands/c_twist", u64(v0), rows);
  }
  std::size_t row = 0;
  for (std::int64_t s = first; s < first + count; ++s) {
    const int N = static_cast<int>(out.vertexOffset[u64(s + 1)] - out.vertexOffset[u64(s)]);
    StrandGeometry g;
    g.x.resize(u64(N));
    g.theta.resize(u64(N - 1));
    RestState r;
    if (hasRest) {
      r.restLength.resize(u64(N - 1));
      r.cStretch.resize(u64(N - 1));
      r.restKappa.assign(u64(N), Vec4::Zero());
      r.restTwist.resize(u64(N));
      r.cBend.resize(u64(N));
      r.cTwist.resize(u64(N));
    }
    for (int v = 0; v < N; ++v, ++row) {
      g.x[u64(v)] = Vec3(pos[3 * row], pos[3 * row + 1], pos[3 * row + 2]);
      if (!g.x[u64(v)].allFinite())
        throw InputError(str(path, ": strand ", s, " vertex ", v, " has a non-finite position"));
      if (v < N - 1) g.theta[u64(v)] = theta[row];
      if (!hasRest) continue;
      if (v < N - 1) {
        r.restLength[u64(v)] = lbar[row];
        r.cStretch[u64(v)] = cst[row];
      }
      r.restKappa[u64(v)] = Vec4(kbar[4 * row], kbar[4 * row + 1], kbar[4 * row + 2], kbar[4 * row + 3]);
      r.restTwist[u64(v)] = mbar[row];
      r.cBend[u64(v)] = cbe[row];
      r.cTwist[u64(v)] = ctw[row];
      if (!std::isfinite(lbar[row] + cst[row] + mbar[row] + cbe[row] + ctw[row]) || !r.restKappa[u64(v)].allFinite())
        throw InputError(str(path, ": strand ", s, " vertex ", v, " has a non-finite rest parameter"));
    }
    out.geometry.push_back(std::move(g));
    if (hasRest) out.rest.push_back(std::move(r));
  }
  return out;
}

}  // namespace kinema::der

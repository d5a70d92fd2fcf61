#include "framework/io/frame_writer.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "framework/core/error.hpp"
#include "framework/io/kill_point.hpp"

namespace kinema::io {

namespace {

std::string frameName(long k) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%06ld", k);
  return buf;
}

// Round-trips a double exactly through text (attributes and the XDMF).
std::string num(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

std::string xmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string dimsText(const Shape& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += ' ';
    out += std::to_string(s[i]);
  }
  return out;
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream is(s);
  std::vector<std::string> out;
  for (std::string w; is >> w;) out.push_back(w);
  return out;
}

const char* attributeType(std::uint64_t components) {
  switch (components) {
    case 1: return "Scalar";
    case 3: return "Vector";
    case 6: return "Tensor6";
    case 9: return "Tensor";
    default: return "Matrix";
  }
}

// A frame number from a group name, -1 if the name is not six digits.
long frameNumber(const std::string& name) {
  if (name.size() != 6 || name.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stol(name);
}

// The closing tags of an XDMF with an open temporal collection (the tail each append rewrites).
const std::string kTail = "  </Grid>\n </Domain>\n</Xdmf>\n";

std::string collectionOpen(const std::string& name) {
  return "  <Grid Name=\"" + xmlEscape(name) + "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
}

struct CellTypeInfo {
  const char* name;        // attribute "type" of a cell grid group
  const char* xdmf;        // XDMF TopologyType
  std::uint64_t nodes;     // nodes per cell
};

const CellTypeInfo& cellTypeInfo(CellType type) {
  static const CellTypeInfo vertex{"vertex", "Polyvertex", 1}, line{"line", "Polyline", 2},
      triangle{"triangle", "Triangle", 3};
  switch (type) {
    case CellType::vertex: return vertex;
    case CellType::line: return line;
    case CellType::triangle: return triangle;
  }
  return vertex;
}

const CellTypeInfo* cellTypeInfo(const std::string& name) {
  for (CellType t : {CellType::vertex, CellType::line, CellType::triangle})
    if (name == cellTypeInfo(t).name) return &cellTypeInfo(t);
  return nullptr;
}

bool validName(const std::string& name) {
  return !name.empty() && name.find('/') == std::string::npos;
}

std::string vertexPath(std::uint64_t n) { return "/xdmf/vertices_" + std::to_string(n); }

}  // namespace

FrameWriter::FrameWriter(const std::string& directory, const std::string& base, Comm comm, bool append,
                         long keepFrames)
    : comm_(comm) {
  std::filesystem::path dir(directory.empty() ? "." : directory);
  h5Name_ = base + ".h5";
  h5Path_ = (dir / h5Name_).string();
  xdmfPath_ = (dir / (base + ".xdmf")).string();
  if (!append) {
    bool ok = true;
    if (comm_.isRoot()) {
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      ok = !ec;
    }
    if (!comm_.all(ok)) throw Error(str("cannot create output directory ", dir.string()));
    file_ = std::make_unique<H5File>(h5Path_, H5File::Mode::create, comm_);
    file_->createGroup("/frames");
    writeXdmf();  // an empty collection replaces the XDMF of an earlier run at once
  } else {
    file_ = std::make_unique<H5File>(h5Path_, H5File::Mode::append, comm_);
    file_->createGroup("/frames");
    long last = -1;
    for (const std::string& name : file_->children("/frames")) {
      long k = frameNumber(name);
      if (k < 0) continue;
      std::string g = "/frames/" + name;
      // A frame without "complete" was being written when the run died: never part of the run.
      bool drop = (keepFrames >= 0 && k >= keepFrames) || !file_->hasAttribute(g, "complete");
      if (drop)
        file_->remove(g);
      else
        last = std::max(last, k);
    }
    frames_ = last + 1;
    if (last >= 0) {
      std::string g = "/frames/" + frameName(last);
      if (file_->hasAttribute(g, "collection")) collection_ = file_->readAttributeString(g, "collection");
    }
    file_->flush();
    writeXdmf();
  }
}

FrameWriter::~FrameWriter() {
  try {
    if (file_) file_->close();
  } catch (...) {
    // Destructors must not throw; every complete frame was already flushed by endFrame().
  }
}

void FrameWriter::setCollection(const std::string& name) {
  KINEMA_CHECK(!open_, "FrameWriter::setCollection while frame ", current_, " is open");
  KINEMA_CHECK(!name.empty(), "FrameWriter::setCollection: empty name");
  collection_ = name;
}

void FrameWriter::beginCommon(double time, const std::string& mesh) {
  current_ = "/frames/" + frameName(frames_);
  file_->remove(current_);  // a leftover of a frame that never completed
  file_->createGroup(current_);
  file_->writeAttribute(current_, "time", time);
  file_->writeAttribute(current_, "collection", collection_);
  file_->writeAttribute(current_, "mesh", mesh);
  meshKind_ = mesh;
  customTopology_ = false;
  cells_.clear();
}

void FrameWriter::beginFrame(double time, const UniformGrid& grid) {
  KINEMA_CHECK(!open_, "FrameWriter::beginFrame while frame ", current_, " is open");
  for (int d = 0; d < 3; ++d)
    KINEMA_CHECK(grid.dims[d] > 0, "FrameWriter: grid dimensions must be positive");
  KINEMA_CHECK(grid.zBegin >= 0 && grid.zCount >= 0 && grid.zBegin + grid.zCount <= grid.dims[2],
               "FrameWriter: z-planes [", grid.zBegin, ", ", grid.zBegin + grid.zCount,
               ") outside the grid's ", grid.dims[2]);
  std::int64_t planes = comm_.sum(grid.zCount);
  KINEMA_CHECK(planes == grid.dims[2], "FrameWriter: ranks hold ", planes, " z-planes in total, the grid has ",
               grid.dims[2]);
  beginCommon(time, "uniform_grid");
  file_->writeAttribute(current_, "dims",
                        str(grid.dims[2], " ", grid.dims[1], " ", grid.dims[0]));
  file_->writeAttribute(current_, "origin",
                        num(grid.origin[0]) + " " + num(grid.origin[1]) + " " + num(grid.origin[2]));
  file_->writeAttribute(current_, "spacing",
                        num(grid.spacing[0]) + " " + num(grid.spacing[1]) + " " + num(grid.spacing[2]));
  grid_ = grid;
  rowOffset_ = static_cast<std::uint64_t>(grid.zBegin);
  localRows_ = static_cast<std::uint64_t>(grid.zCount);
  globalRows_ = static_cast<std::uint64_t>(grid.dims[2]);
  open_ = true;
}

void FrameWriter::beginFrame(double time, const PointSet& points) {
  KINEMA_CHECK(!open_, "FrameWriter::beginFrame while frame ", current_, " is open");
  KINEMA_CHECK(points.positions.size() % 3 == 0, "FrameWriter: positions are not rows of 3");
  std::int64_t local = static_cast<std::int64_t>(points.positions.size() / 3);
  KINEMA_CHECK(points.rowOffset >= 0 && points.rowOffset + local <= points.globalCount,
               "FrameWriter: point rows [", points.rowOffset, ", ", points.rowOffset + local,
               ") outside the set of ", points.globalCount);
  std::int64_t total = comm_.sum(local);
  KINEMA_CHECK(total == points.globalCount, "FrameWriter: ranks hold ", total, " points in total, the set has ",
               points.globalCount);
  beginCommon(time, "points");
  file_->writeAttribute(current_, "count", points.globalCount);
  rowOffset_ = static_cast<std::uint64_t>(points.rowOffset);
  localRows_ = static_cast<std::uint64_t>(local);
  globalRows_ = static_cast<std::uint64_t>(points.globalCount);
  file_->writeSlab(current_ + "/positions", {globalRows_, 3}, rowOffset_, points.positions);
  open_ = true;
}

void FrameWriter::beginFrame(double time, const Polylines& lines) {
  KINEMA_CHECK(!open_, "FrameWriter::beginFrame while frame ", current_, " is open");
  KINEMA_CHECK(lines.positions.size() % 3 == 0, "FrameWriter: positions are not rows of 3");
  std::int64_t local = static_cast<std::int64_t>(lines.positions.size() / 3);
  std::int64_t localLines = static_cast<std::int64_t>(lines.lineSizes.size());
  KINEMA_CHECK(lines.pointOffset >= 0 && lines.pointOffset + local <= lines.globalPoints,
               "FrameWriter: polyline points [", lines.pointOffset, ", ", lines.pointOffset + local,
               ") outside the set of ", lines.globalPoints);
  KINEMA_CHECK(lines.lineOffset >= 0 && lines.lineOffset + localLines <= lines.globalLines,
               "FrameWriter: polylines [", lines.lineOffset, ", ", lines.lineOffset + localLines,
               ") outside the set of ", lines.globalLines);
  std::int64_t used = 0;
  for (std::int64_t n : lines.lineSizes) {
    KINEMA_CHECK(n >= 1, "FrameWriter: a polyline of ", n, " points");
    used += n;
  }
  KINEMA_CHECK(used == local, "FrameWriter: this rank's polylines use ", used, " points, it holds ", local);
  std::int64_t totalPoints = comm_.sum(local), totalLines = comm_.sum(localLines);
  KINEMA_CHECK(totalPoints == lines.globalPoints, "FrameWriter: ranks hold ", totalPoints,
               " polyline points in total, the set has ", lines.globalPoints);
  KINEMA_CHECK(totalLines == lines.globalLines, "FrameWriter: ranks hold ", totalLines,
               " polylines in total, the set has ", lines.globalLines);

  // The Mixed-topology array of this rank's lines: 2 (XDMF polyline), point count, global indices.
  std::vector<std::int64_t> connectivity;
  connectivity.reserve(static_cast<std::size_t>(2 * localLines + local));
  std::int64_t point = lines.pointOffset;
  for (std::int64_t n : lines.lineSizes) {
    connectivity.push_back(2);
    connectivity.push_back(n);
    for (std::int64_t k = 0; k < n; ++k) connectivity.push_back(point++);
  }
  // The slab of this rank starts after the arrays of every rank whose lines come first (ranks
  // may hold their line ranges in any order; empty ranks contribute nothing).
  auto length = static_cast<std::int64_t>(connectivity.size());
  std::vector<std::int64_t> offsets = comm_.allgather(lines.lineOffset);
  std::vector<std::int64_t> lengths = comm_.allgather(length);
  std::vector<std::int64_t> counts = comm_.allgather(localLines);
  std::int64_t connOffset = 0, connTotal = 0;
  for (std::size_t r = 0; r < offsets.size(); ++r) {
    connTotal += lengths[r];
    if (offsets[r] < lines.lineOffset) connOffset += lengths[r];
  }
  // The ranks' line ranges must tile [0, globalLines) (same verdict on every rank).
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  for (std::size_t r = 0; r < offsets.size(); ++r)
    if (counts[r] > 0) ranges.emplace_back(offsets[r], counts[r]);
  std::sort(ranges.begin(), ranges.end());
  std::int64_t end = 0;
  for (const auto& [begin, count] : ranges) {
    KINEMA_CHECK(begin == end, "FrameWriter: the ranks' polyline ranges overlap or leave a gap at line ", end);
    end += count;
  }

  beginCommon(time, "polylines");
  file_->writeAttribute(current_, "count", lines.globalPoints);
  file_->writeAttribute(current_, "lines", lines.globalLines);
  rowOffset_ = static_cast<std::uint64_t>(lines.pointOffset);
  localRows_ = static_cast<std::uint64_t>(local);
  globalRows_ = static_cast<std::uint64_t>(lines.globalPoints);
  file_->writeSlab(current_ + "/positions", {globalRows_, 3}, rowOffset_, lines.positions);
  file_->writeSlab(current_ + "/connectivity", {static_cast<std::uint64_t>(connTotal)},
                   static_cast<std::uint64_t>(connOffset), std::span<const std::int64_t>(connectivity));
  open_ = true;
}

void FrameWriter::writeFieldAttributes(const std::string& dataset, bool integer, const std::string& units) {
  file_->writeAttribute(dataset, "number_type", std::string(integer ? "Int" : "Float"));
  if (!units.empty()) file_->writeAttribute(dataset, "units", units);
}

template <class T>
void FrameWriter::addFieldImpl(const std::string& name, std::span<const T> local, int components,
                               const std::string& units) {
  KINEMA_CHECK(open_, "FrameWriter::addField('", name, "') outside beginFrame/endFrame");
  KINEMA_CHECK(components >= 1, "FrameWriter::addField('", name, "'): components must be >= 1");
  KINEMA_CHECK(validName(name) && name != "positions" && name != "cells" &&
                   !(meshKind_ == "polylines" && name == "connectivity"),
               "FrameWriter::addField: invalid field name '", name, "'");
  auto c = static_cast<std::uint64_t>(components);
  Shape shape{globalRows_};
  std::uint64_t perRow = c;
  if (meshKind_ == "uniform_grid") {
    auto ny = static_cast<std::uint64_t>(grid_.dims[1]), nx = static_cast<std::uint64_t>(grid_.dims[0]);
    shape = {globalRows_, ny, nx};
    perRow = ny * nx * c;
  }
  if (c > 1) shape.push_back(c);
  KINEMA_CHECK(local.size() == localRows_ * perRow, "FrameWriter::addField('", name, "'): ", local.size(),
               " values, expected ", localRows_ * perRow, " (", localRows_, " rows of ", perRow, ")");
  const std::string ds = current_ + "/" + name;
  file_->writeSlab(ds, shape, rowOffset_, local);
  writeFieldAttributes(ds, std::is_integral_v<T>, units);
}

void FrameWriter::addField(const std::string& name, std::span<const double> local, int components,
                           const std::string& units) {
  addFieldImpl(name, local, components, units);
}

void FrameWriter::addField(const std::string& name, std::span<const std::int64_t> local, int components,
                           const std::string& units) {
  addFieldImpl(name, local, components, units);
}

void FrameWriter::setTopology(const std::string& dataset, std::int64_t cells) {
  KINEMA_CHECK(open_ && meshKind_ == "points", "FrameWriter::setTopology outside a point frame");
  KINEMA_CHECK(cells >= 0, "FrameWriter::setTopology: ", cells, " cells");
  KINEMA_CHECK(file_->exists(dataset) && file_->shape(dataset).size() == 1, "FrameWriter::setTopology: ",
               dataset, " is not a 1-D dataset of ", h5Path_);
  file_->writeAttribute(current_, "topology", dataset);
  file_->writeAttribute(current_, "cells", cells);
  customTopology_ = true;
}

void FrameWriter::addCells(const std::string& name, CellType type, std::span<const std::int64_t> local) {
  KINEMA_CHECK(open_ && (meshKind_ == "points" || meshKind_ == "polylines"),
               "FrameWriter::addCells('", name, "') outside a point or polyline frame");
  KINEMA_CHECK(validName(name) && !cells_.count(name), "FrameWriter::addCells: invalid or repeated name '", name,
               "'");
  const CellTypeInfo& info = cellTypeInfo(type);
  KINEMA_CHECK(local.size() % info.nodes == 0, "FrameWriter::addCells('", name, "'): ", local.size(),
               " indices are not rows of ", info.nodes);
  for (std::int64_t p : local)
    KINEMA_CHECK(p >= 0 && static_cast<std::uint64_t>(p) < globalRows_, "FrameWriter::addCells('", name,
                 "'): point ", p, " outside the frame's ", globalRows_);
  CellGrid cg;
  cg.nodes = info.nodes;
  cg.local = local.size() / info.nodes;
  std::vector<std::int64_t> counts = comm_.allgather(static_cast<std::int64_t>(cg.local));
  for (std::size_t r = 0; r < counts.size(); ++r) {
    if (static_cast<int>(r) < comm_.rank()) cg.offset += static_cast<std::uint64_t>(counts[r]);
    cg.global += static_cast<std::uint64_t>(counts[r]);
  }
  cells_[name] = cg;
  if (cg.global == 0) return;  // no cells anywhere: no grid (HDF5 datasets of zero rows are avoided)
  const std::string g = current_ + "/cells/" + name;
  file_->writeSlab(g + "/connectivity", {cg.global, cg.nodes}, cg.offset, local);
  file_->writeAttribute(g, "type", std::string(info.name));
}

template <class T>
void FrameWriter::addCellFieldImpl(const std::string& cells, const std::string& name, std::span<const T> local,
                                   int components, const std::string& units) {
  KINEMA_CHECK(open_, "FrameWriter::addCellField('", name, "') outside beginFrame/endFrame");
  auto it = cells_.find(cells);
  KINEMA_CHECK(it != cells_.end(), "FrameWriter::addCellField: no cell grid '", cells, "' in this frame");
  KINEMA_CHECK(components >= 1, "FrameWriter::addCellField('", name, "'): components must be >= 1");
  KINEMA_CHECK(validName(name) && name != "connectivity", "FrameWriter::addCellField: invalid field name '", name,
               "'");
  const CellGrid& cg = it->second;
  auto c = static_cast<std::uint64_t>(components);
  KINEMA_CHECK(local.size() == cg.local * c, "FrameWriter::addCellField('", name, "'): ", local.size(),
               " values, expected ", cg.local * c, " (", cg.local, " cells of ", c, ")");
  if (cg.global == 0) return;
  Shape shape{cg.global};
  if (c > 1) shape.push_back(c);
  const std::string ds = current_ + "/cells/" + cells + "/" + name;
  file_->writeSlab(ds, shape, cg.offset, local);
  writeFieldAttributes(ds, std::is_integral_v<T>, units);
}

void FrameWriter::addCellField(const std::string& cells, const std::string& name, std::span<const double> local,
                               int components, const std::string& units) {
  addCellFieldImpl(cells, name, local, components, units);
}

void FrameWriter::addCellField(const std::string& cells, const std::string& name,
                               std::span<const std::int64_t> local, int components, const std::string& units) {
  addCellFieldImpl(cells, name, local, components, units);
}

void FrameWriter::endFrame() {
  KINEMA_CHECK(open_, "FrameWriter::endFrame without beginFrame");
  killPointReached(KillPoint::frame, frames_, comm_.rank());  // test-only (kill_point.hpp)
  if (meshKind_ == "points" && !customTopology_ && globalRows_ > 0 && !file_->exists(vertexPath(globalRows_))) {
    // One vertex cell per point: the connectivity 0..n-1, shared by every frame of n points.
    std::vector<std::int64_t> ids(localRows_);
    for (std::uint64_t k = 0; k < localRows_; ++k) ids[k] = static_cast<std::int64_t>(rowOffset_ + k);
    file_->writeSlab(vertexPath(globalRows_), {globalRows_}, rowOffset_, std::span<const std::int64_t>(ids));
  }
  // Written last: the XDMF (and a restart) only trust frames that carry it.
  file_->writeAttribute(current_, "complete", std::int64_t{1});
  file_->flush();
  open_ = false;
  ++frames_;
  appendXdmf(current_);
}

namespace {

// An HDF DataItem of `dataset` in `file` with the dataset's shape.
std::string hdfItem(const std::string& indent, const Shape& shape, const char* numberType, const std::string& file,
                    const std::string& dataset) {
  return indent + "<DataItem Dimensions=\"" + dimsText(shape) + "\" NumberType=\"" + numberType +
         "\" Precision=\"8\" Format=\"HDF\">" + file + ":" + xmlEscape(dataset) + "</DataItem>\n";
}

// What the XDMF pieces of one frame read: the HDF5 file (its path for errors, its escaped name for
// the DataItems) and the indent of the frame's (first) uniform grid.
struct FrameXmlContext {
  const H5File& h5;
  const std::string& h5Path;
  const std::string& file;
  const std::string& in;
};

// The fields of a group as XDMF attributes centred on `center`.
std::string fieldAttributes(const FrameXmlContext& ctx, const std::string& group, std::size_t meshRank,
                            const char* center, const std::vector<std::string>& skip) {
  const std::string& in = ctx.in;
  std::string out;
  for (const std::string& field : ctx.h5.children(group)) {
    if (std::find(skip.begin(), skip.end(), field) != skip.end()) continue;
    const std::string ds = group + "/" + field;
    Shape s = ctx.h5.shape(ds);
    std::uint64_t comps = s.size() > meshRank ? s.back() : 1;
    bool integer = ctx.h5.hasAttribute(ds, "number_type") && ctx.h5.readAttributeString(ds, "number_type") == "Int";
    out += in + " <Attribute Name=\"" + xmlEscape(field) + "\" AttributeType=\"" + attributeType(comps) +
           "\" Center=\"" + center + "\">\n";
    if (ctx.h5.hasAttribute(ds, "units"))
      out += in + "  <Information Name=\"units\" Value=\"" + xmlEscape(ctx.h5.readAttributeString(ds, "units")) +
             "\"/>\n";
    out += hdfItem(in + "  ", s, integer ? "Int" : "Float", ctx.file, ds);
    out += in + " </Attribute>\n";
  }
  return out;
}

// Topology and geometry of a uniform-grid frame `g` (co-rectilinear, from its dims, origin, spacing).
void uniformGridXml(const FrameXmlContext& ctx, const std::string& g, std::ostringstream& x) {
  const std::string& in = ctx.in;
  std::vector<std::string> dims = words(ctx.h5.readAttributeString(g, "dims"));        // nz ny nx
  std::vector<std::string> origin = words(ctx.h5.readAttributeString(g, "origin"));    // x y z
  std::vector<std::string> spacing = words(ctx.h5.readAttributeString(g, "spacing"));  // x y z
  if (dims.size() != 3 || origin.size() != 3 || spacing.size() != 3)
    throw Error(str(ctx.h5Path, ": frame ", g, " has a malformed grid description"));
  // XDMF orders everything z, y, x.
  x << in << " <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << dims[0] << " " << dims[1] << " "
    << dims[2] << "\"/>\n"
    << in << " <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
    << in << "  <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">"
    << origin[2] << " " << origin[1] << " " << origin[0] << "</DataItem>\n"
    << in << "  <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">"
    << spacing[2] << " " << spacing[1] << " " << spacing[0] << "</DataItem>\n"
    << in << " </Geometry>\n";
}

// Topology and geometry of a point or polyline frame `g`; returns the XYZ geometry, which the
// frame's cell grids share.
std::string pointsXml(const FrameXmlContext& ctx, const std::string& g, const std::string& mesh,
                      std::ostringstream& x) {
  const std::string& in = ctx.in;
  const std::uint64_t n = static_cast<std::uint64_t>(ctx.h5.readAttributeInt(g, "count"));
  std::string geometry = in + " <Geometry GeometryType=\"XYZ\">\n" +
                         hdfItem(in + "  ", {n, 3}, "Float", ctx.file, g + "/positions") + in + " </Geometry>\n";
  if (mesh == "polylines" || ctx.h5.hasAttribute(g, "topology")) {
    // Mixed topology (XDMF type ids: 1 polyvertex and 2 polyline with their point count, 4 triangle).
    const std::string ds = mesh == "polylines" ? g + "/connectivity" : ctx.h5.readAttributeString(g, "topology");
    const std::int64_t cells = ctx.h5.readAttributeInt(g, mesh == "polylines" ? "lines" : "cells");
    x << in << " <Topology TopologyType=\"Mixed\" NumberOfElements=\"" << cells << "\">\n"
      << hdfItem(in + "  ", ctx.h5.shape(ds), "Int", ctx.file, ds) << in << " </Topology>\n";
  } else if (n > 0) {
    // One vertex cell per point (a Polyvertex topology without connectivity has no cells).
    x << in << " <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" << n << "\" NodesPerElement=\"1\">\n"
      << hdfItem(in + "  ", {n}, "Int", ctx.file, vertexPath(n)) << in << " </Topology>\n";
  } else {
    x << in << " <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"0\" NodesPerElement=\"1\"/>\n";
  }
  x << geometry;
  return geometry;
}

}  // namespace

std::string FrameWriter::frameXml(const std::string& g, std::string* collection) const {
  const std::string file = xmlEscape(h5Name_);
  const std::string name = g.substr(g.rfind('/') + 1);
  const double time = file_->readAttributeReal(g, "time");
  const std::string mesh = file_->readAttributeString(g, "mesh");
  *collection = file_->hasAttribute(g, "collection") ? file_->readAttributeString(g, "collection") : "frames";
  std::vector<std::string> cellGrids;
  if (mesh != "uniform_grid" && file_->exists(g + "/cells")) cellGrids = file_->children(g + "/cells");
  const bool spatial = !cellGrids.empty();
  const std::string in = spatial ? "    " : "   ";  // indent of the frame's (first) uniform grid
  const std::string timeXml = "<Time Value=\"" + num(time) + "\"/>\n";

  const FrameXmlContext ctx{*file_, h5Path_, file, in};

  std::ostringstream x;
  std::string geometry;  // point and polyline frames: the XYZ geometry, shared with the cell grids
  if (spatial)
    x << "   <Grid Name=\"frame_" << name << "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n"
      << "    " << timeXml;
  x << in << "<Grid Name=\"" << (spatial ? mesh : "frame_" + name) << "\" GridType=\"Uniform\">\n"
    << in << " " << timeXml;
  std::size_t meshRank = 1;  // leading dimensions of a field that index mesh points
  if (mesh == "uniform_grid") {
    uniformGridXml(ctx, g, x);
    meshRank = 3;
  } else if (mesh == "points" || mesh == "polylines") {
    geometry = pointsXml(ctx, g, mesh, x);
  } else {
    throw Error(str(h5Path_, ": frame ", g, " has unknown mesh kind '", mesh, "'"));
  }
  x << fieldAttributes(ctx, g, meshRank, "Node", {"positions", "cells", mesh == "polylines" ? "connectivity" : ""});
  x << in << "</Grid>\n";
  for (const std::string& c : cellGrids) {
    const std::string cg = g + "/cells/" + c;
    const CellTypeInfo* info = cellTypeInfo(file_->readAttributeString(cg, "type"));
    if (!info) throw Error(str(h5Path_, ": cell grid ", cg, " has an unknown cell type"));
    Shape conn = file_->shape(cg + "/connectivity");
    x << in << "<Grid Name=\"" << xmlEscape(c) << "\" GridType=\"Uniform\">\n"
      << in << " " << timeXml << in << " <Topology TopologyType=\"" << info->xdmf << "\" NumberOfElements=\""
      << conn[0] << "\" NodesPerElement=\"" << info->nodes << "\">\n"
      << hdfItem(in + "  ", conn, "Int", file, cg + "/connectivity") << in << " </Topology>\n"
      << geometry << fieldAttributes(ctx, cg, 1, "Cell", {"connectivity"}) << in << "</Grid>\n";
  }
  if (spatial) x << "   </Grid>\n";
  return x.str();
}

namespace {

// Writes `text` at byte `pos` of `path` (rank 0) and cuts the file there if it was longer. False,
// with nothing written, if the file is not the `oldSize` bytes this writer left (removed or
// changed by someone else).
bool writeAt(const std::string& path, std::uint64_t pos, const std::string& text, std::uint64_t oldSize) {
  std::error_code ec;
  if (std::filesystem::file_size(path, ec) != oldSize || ec) return false;
  std::FILE* f = std::fopen(path.c_str(), "r+b");
  if (!f) return false;
  bool ok = std::fseek(f, static_cast<long>(pos), SEEK_SET) == 0 &&
            std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = (std::fclose(f) == 0) && ok;
  if (ok && pos + text.size() < oldSize) {
    std::filesystem::resize_file(path, pos + text.size(), ec);
    ok = !ec;
  }
  return ok;
}

}  // namespace

void FrameWriter::writeXdmf() {
  // Every rank reads (reads of metadata are cheap and keep the ranks in step); rank 0 writes.
  std::string x = "<?xml version=\"1.0\" ?>\n"
                  "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
                  "<Xdmf Version=\"3.0\">\n"
                  " <Domain>\n";
  openCollection_.clear();
  openFrames_ = 0;
  for (const std::string& name : file_->children("/frames")) {
    if (frameNumber(name) < 0) continue;
    std::string g = "/frames/" + name;
    if (!file_->hasAttribute(g, "complete")) continue;
    std::string collection;
    std::string grid = frameXml(g, &collection);
    if (openFrames_ == 0 || collection != openCollection_) {
      if (openFrames_ > 0) x += "  </Grid>\n";
      openStart_ = x.size();
      x += collectionOpen(collection);
      openCollection_ = collection;
      openFrames_ = 0;
    }
    x += grid;
    ++openFrames_;
  }
  if (openFrames_ == 0) {  // an empty collection: the frames to come (appendXdmf may rename it)
    openStart_ = x.size();
    openCollection_ = collection_;
    x += collectionOpen(collection_);
  }
  x += kTail;
  tailSize_ = kTail.size();
  xdmfSize_ = x.size();

  bool ok = true;
  if (comm_.isRoot()) {
    // Write then rename, so a reader (or a crash) never sees a half-written XDMF.
    std::string tmp = xdmfPath_ + ".tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "w");
    if (f) {
      ok = std::fwrite(x.data(), 1, x.size(), f) == x.size();
      ok = (std::fclose(f) == 0) && ok;
      std::error_code ec;
      if (ok) std::filesystem::rename(tmp, xdmfPath_, ec);
      ok = ok && !ec;
    } else {
      ok = false;
    }
  }
  if (!comm_.all(ok)) throw Error(str("cannot write ", xdmfPath_));
}

void FrameWriter::appendXdmf(const std::string& group) {
  // The new frame is written over the closing tags, which follow it again: the cost of a frame
  // does not grow with the frames before it. A crash in this write leaves the XDMF cut short; the
  // next writer on the file (a restart) rewrites it whole from the HDF5 file.
  std::string collection;
  std::string text = frameXml(group, &collection);
  std::uint64_t pos = xdmfSize_ - tailSize_;
  std::string head;
  if (collection != openCollection_) {
    if (openFrames_ == 0) {
      pos = openStart_;  // the open collection is empty: replace it
    } else {
      head = "  </Grid>\n";
    }
    openStart_ = pos + head.size();
    head += collectionOpen(collection);
    openCollection_ = collection;
    openFrames_ = 0;
  }
  text = head + text + kTail;
  bool ok = true;
  if (comm_.isRoot()) ok = writeAt(xdmfPath_, pos, text, xdmfSize_);
  xdmfSize_ = pos + text.size();
  tailSize_ = kTail.size();
  ++openFrames_;
  if (!comm_.all(ok)) writeXdmf();  // the file is gone or was changed: rebuild it from the HDF5 file
}

}  // namespace kinema::io

#include "framework/io/frame_writer.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

#include "framework/core/error.hpp"

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
  current_ = "/frames/" + frameName(frames_);
  file_->remove(current_);  // a leftover of a frame that never completed
  file_->createGroup(current_);
  file_->writeAttribute(current_, "time", time);
  file_->writeAttribute(current_, "mesh", std::string("uniform_grid"));
  file_->writeAttribute(current_, "dims",
                        str(grid.dims[2], " ", grid.dims[1], " ", grid.dims[0]));
  file_->writeAttribute(current_, "origin",
                        num(grid.origin[0]) + " " + num(grid.origin[1]) + " " + num(grid.origin[2]));
  file_->writeAttribute(current_, "spacing",
                        num(grid.spacing[0]) + " " + num(grid.spacing[1]) + " " + num(grid.spacing[2]));
  meshKind_ = "uniform_grid";
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
  current_ = "/frames/" + frameName(frames_);
  file_->remove(current_);
  file_->createGroup(current_);
  file_->writeAttribute(current_, "time", time);
  file_->writeAttribute(current_, "mesh", std::string("points"));
  file_->writeAttribute(current_, "count", points.globalCount);
  meshKind_ = "points";
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

  current_ = "/frames/" + frameName(frames_);
  file_->remove(current_);
  file_->createGroup(current_);
  file_->writeAttribute(current_, "time", time);
  file_->writeAttribute(current_, "mesh", std::string("polylines"));
  file_->writeAttribute(current_, "count", lines.globalPoints);
  file_->writeAttribute(current_, "lines", lines.globalLines);
  meshKind_ = "polylines";
  rowOffset_ = static_cast<std::uint64_t>(lines.pointOffset);
  localRows_ = static_cast<std::uint64_t>(local);
  globalRows_ = static_cast<std::uint64_t>(lines.globalPoints);
  file_->writeSlab(current_ + "/positions", {globalRows_, 3}, rowOffset_, lines.positions);
  file_->writeSlab(current_ + "/connectivity", {static_cast<std::uint64_t>(connTotal)},
                   static_cast<std::uint64_t>(connOffset), std::span<const std::int64_t>(connectivity));
  open_ = true;
}

void FrameWriter::addField(const std::string& name, std::span<const double> local, int components) {
  KINEMA_CHECK(open_, "FrameWriter::addField('", name, "') outside beginFrame/endFrame");
  KINEMA_CHECK(components >= 1, "FrameWriter::addField('", name, "'): components must be >= 1");
  KINEMA_CHECK(!name.empty() && name.find('/') == std::string::npos && name != "positions" &&
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
  file_->writeSlab(current_ + "/" + name, shape, rowOffset_, local);
}

void FrameWriter::endFrame() {
  KINEMA_CHECK(open_, "FrameWriter::endFrame without beginFrame");
  // Written last: the XDMF (and a restart) only trust frames that carry it.
  file_->writeAttribute(current_, "complete", std::int64_t{1});
  file_->flush();
  open_ = false;
  ++frames_;
  writeXdmf();
}

void FrameWriter::writeXdmf() {
  // Every rank reads (reads of metadata are cheap and keep the ranks in step); rank 0 writes.
  std::ostringstream x;
  x << "<?xml version=\"1.0\" ?>\n"
    << "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
    << "<Xdmf Version=\"2.0\">\n"
    << " <Domain>\n"
    << "  <Grid Name=\"frames\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  const std::string file = xmlEscape(h5Name_);
  for (const std::string& name : file_->children("/frames")) {
    if (frameNumber(name) < 0) continue;
    std::string g = "/frames/" + name;
    if (!file_->hasAttribute(g, "complete")) continue;
    double time = file_->readAttributeReal(g, "time");
    std::string mesh = file_->readAttributeString(g, "mesh");
    x << "   <Grid Name=\"frame_" << name << "\" GridType=\"Uniform\">\n"
      << "    <Time Value=\"" << num(time) << "\"/>\n";
    std::size_t meshRank = 1;  // leading dimensions of a field that index mesh points
    if (mesh == "uniform_grid") {
      std::vector<std::string> dims = words(file_->readAttributeString(g, "dims"));        // nz ny nx
      std::vector<std::string> origin = words(file_->readAttributeString(g, "origin"));    // x y z
      std::vector<std::string> spacing = words(file_->readAttributeString(g, "spacing"));  // x y z
      if (dims.size() != 3 || origin.size() != 3 || spacing.size() != 3)
        throw Error(str(h5Path_, ": frame ", g, " has a malformed grid description"));
      meshRank = 3;
      // XDMF orders everything z, y, x.
      x << "    <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << dims[0] << " " << dims[1] << " "
        << dims[2] << "\"/>\n"
        << "    <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
        << "     <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
           "Format=\"XML\">"
        << origin[2] << " " << origin[1] << " " << origin[0] << "</DataItem>\n"
        << "     <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
           "Format=\"XML\">"
        << spacing[2] << " " << spacing[1] << " " << spacing[0] << "</DataItem>\n"
        << "    </Geometry>\n";
    } else if (mesh == "points") {
      std::int64_t n = file_->readAttributeInt(g, "count");
      x << "    <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" << n
        << "\" NodesPerElement=\"1\"/>\n"
        << "    <Geometry GeometryType=\"XYZ\">\n"
        << "     <DataItem Dimensions=\"" << n << " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">"
        << file << ":" << g << "/positions</DataItem>\n"
        << "    </Geometry>\n";
    } else if (mesh == "polylines") {
      std::int64_t n = file_->readAttributeInt(g, "count");
      std::int64_t lines = file_->readAttributeInt(g, "lines");
      Shape conn = file_->shape(g + "/connectivity");
      // Mixed topology: ParaView's Xdmf3 reader takes the polyline (type 2) with its point count.
      x << "    <Topology TopologyType=\"Mixed\" NumberOfElements=\"" << lines << "\">\n"
        << "     <DataItem Dimensions=\"" << dimsText(conn)
        << "\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">" << file << ":" << g
        << "/connectivity</DataItem>\n"
        << "    </Topology>\n"
        << "    <Geometry GeometryType=\"XYZ\">\n"
        << "     <DataItem Dimensions=\"" << n << " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">"
        << file << ":" << g << "/positions</DataItem>\n"
        << "    </Geometry>\n";
    } else {
      throw Error(str(h5Path_, ": frame ", g, " has unknown mesh kind '", mesh, "'"));
    }
    for (const std::string& field : file_->children(g)) {
      if (field == "positions" || (mesh == "polylines" && field == "connectivity")) continue;
      Shape s = file_->shape(g + "/" + field);
      std::uint64_t comps = s.size() > meshRank ? s.back() : 1;
      std::string item = xmlEscape(g + "/" + field);
      x << "    <Attribute Name=\"" << xmlEscape(field) << "\" AttributeType=\"" << attributeType(comps)
        << "\" Center=\"Node\">\n"
        << "     <DataItem Dimensions=\"" << dimsText(s)
        << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << file << ":" << item
        << "</DataItem>\n"
        << "    </Attribute>\n";
    }
    x << "   </Grid>\n";
  }
  x << "  </Grid>\n"
    << " </Domain>\n"
    << "</Xdmf>\n";

  bool ok = true;
  if (comm_.isRoot()) {
    // Write then rename, so a reader (or a crash) never sees a half-written XDMF.
    std::string tmp = xdmfPath_ + ".tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "w");
    if (f) {
      std::string text = x.str();
      ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
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

}  // namespace kinema::io

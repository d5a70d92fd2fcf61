#pragma once
// Frames of a run in one HDF5 file plus an XDMF file that ParaView opens directly (temporal
// collections, one grid per frame). The XDMF is a function of the HDF5 contents: each frame group
// stores its time and mesh description as attributes. The XDMF is appended to at every frame (the
// new frame's grid is written over the closing tags, which are written again after it), so the
// output time is linear in the frame count; it is rewritten whole only when a writer opens an
// existing file (restart), so a restarted run continues the same collection. docs/output.md
// describes the layout for users; the element names follow the XDMF model (xdmf.org, "XDMF Model
// and Format").
//
// Layout: /frames/<k, 6 digits>/ with attributes time, collection (the temporal collection the frame
// belongs to, "frames" unless setCollection named another), mesh ("uniform_grid" | "points" |
// "polylines"), and
//   uniform_grid: attributes dims (nz, ny, nx as "nz ny nx"), origin and spacing (x y z); fields
//                 are datasets of shape (nz, ny, nx[, components]) split over ranks by z-planes.
//   points:       dataset "positions" (n, 3) split over ranks by rows; fields (n[, components]).
//                 The XDMF topology is one vertex cell per point (XDMF Polyvertex, one node per
//                 element; the connectivity 0..n-1 is /xdmf/vertices_<n>, written once per n), or,
//                 with setTopology, attributes topology (path of an XDMF Mixed array) and cells.
//   polylines:    attributes count (points) and lines; datasets "positions" (n, 3) and
//                 "connectivity" (the XDMF Mixed topology array: per line the polyline type id 2,
//                 its point count, then its global point indices), both split over ranks;
//                 fields per point (n[, components]).
// Field datasets carry the attributes number_type ("Float" or "Int", the XDMF NumberType) and,
// where the module knows them, units. Point and polyline frames may carry cell grids under
// /frames/<k>/cells/<name>/: dataset "connectivity" (cells, nodes per cell) of global point
// indices, attribute type ("vertex" | "line" | "triangle"), and cell fields (cells[, components]);
// such a frame is an XDMF spatial collection of the point grid and its cell grids.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "framework/io/hdf5_file.hpp"

namespace kinema::io {

// A vertex-centred uniform 3D grid, split over ranks by z-planes: this rank holds planes
// [zBegin, zBegin + zCount). dims are point counts (nx, ny, nz).
struct UniformGrid {
  std::array<std::int64_t, 3> dims{};      // nx, ny, nz
  std::array<double, 3> origin{};          // x, y, z of point (0, 0, 0)
  std::array<double, 3> spacing{1, 1, 1};  // hx, hy, hz
  std::int64_t zBegin = 0;
  std::int64_t zCount = 0;
};

// Cell types of the cell grids of a frame (addCells) and their XDMF topology types.
enum class CellType { vertex, line, triangle };

// A point set (particles, balls, rod vertices), split over ranks by rows.
struct PointSet {
  std::int64_t globalCount = 0;
  std::int64_t rowOffset = 0;
  std::span<const double> positions;  // local rows x 3
};

// Polylines (hair strands, rods), split over ranks: this rank holds points
// [pointOffset, pointOffset + positions.size() / 3) and lines [lineOffset, lineOffset +
// lineSizes.size()); its lines use exactly its points, in order (line k of this rank is the next
// lineSizes[k] local points).
struct Polylines {
  std::int64_t globalPoints = 0;
  std::int64_t pointOffset = 0;
  std::span<const double> positions;  // local points x 3
  std::int64_t globalLines = 0;
  std::int64_t lineOffset = 0;
  std::span<const std::int64_t> lineSizes;  // points per local line
};

class FrameWriter {
 public:
  // Opens (create) or reopens (append, for a restart) `<dir>/<base>.h5`; the XDMF is
  // `<dir>/<base>.xdmf`. With append, frames after `keepFrames` are removed from the collection.
  FrameWriter(const std::string& directory, const std::string& base, Comm comm, bool append = false,
              long keepFrames = -1);
  ~FrameWriter();

  // The temporal collection of the frames that follow (default "frames"). Frames of one collection
  // must share one kind of grid; a grid of another size (a refined level) starts a new collection,
  // so ParaView's filters see each collection's own extent.
  void setCollection(const std::string& name);

  void beginFrame(double time, const UniformGrid& grid);
  void beginFrame(double time, const PointSet& points);
  void beginFrame(double time, const Polylines& lines);
  // A field on the current frame: this rank's values (points or grid points in its slab),
  // `components` values each (1 = scalar, 3 = vector). Integer fields (ids, counts, flags) are
  // stored as 64-bit integers. `units` (e.g. "m/s", "1" for dimensionless) is written as an
  // attribute of the dataset and as an XDMF Information element of the attribute.
  void addField(const std::string& name, std::span<const double> local, int components = 1,
                const std::string& units = "");
  void addField(const std::string& name, std::span<const std::int64_t> local, int components = 1,
                const std::string& units = "");
  // Point frames: the frame grid's cells are the XDMF Mixed array `dataset` (1-D integers, global
  // point indices of this frame's points; written by the module, e.g. once per file for a static
  // mesh) holding `cells` cells, instead of one vertex cell per point. Collective.
  void setTopology(const std::string& dataset, std::int64_t cells);
  // Point and polyline frames: a cell grid `name` on the frame's points, written as a second grid
  // of the frame. `local` holds this rank's cells, rows of 1 (vertex), 2 (line) or 3 (triangle)
  // global point indices; the ranks' cells are concatenated in rank order. Collective.
  void addCells(const std::string& name, CellType type, std::span<const std::int64_t> local);
  // A field of cell grid `cells`: this rank's cells' values, in the order given to addCells.
  void addCellField(const std::string& cells, const std::string& name, std::span<const double> local,
                    int components = 1, const std::string& units = "");
  void addCellField(const std::string& cells, const std::string& name, std::span<const std::int64_t> local,
                    int components = 1, const std::string& units = "");
  // Completes the frame, flushes the HDF5 file and appends the frame to the XDMF (rank 0).
  void endFrame();

  long frames() const { return frames_; }
  const std::string& h5Path() const { return h5Path_; }
  const std::string& xdmfPath() const { return xdmfPath_; }
  H5File& file() { return *file_; }

 private:
  struct CellGrid {
    std::uint64_t offset = 0, local = 0, global = 0, nodes = 0;
  };
  void beginCommon(double time, const std::string& mesh);
  template <class T>
  void addFieldImpl(const std::string& name, std::span<const T> local, int components, const std::string& units);
  template <class T>
  void addCellFieldImpl(const std::string& cells, const std::string& name, std::span<const T> local,
                        int components, const std::string& units);
  void writeFieldAttributes(const std::string& dataset, bool integer, const std::string& units);
  // The XDMF grid of one complete frame (read from its HDF5 group) and its collection's name.
  std::string frameXml(const std::string& group, std::string* collection) const;
  void writeXdmf();               // the whole file, from the HDF5 contents
  void appendXdmf(const std::string& group);  // one more frame
  std::string h5Path_, xdmfPath_, h5Name_;
  Comm comm_;
  std::unique_ptr<H5File> file_;
  long frames_ = 0;
  bool open_ = false;
  std::string current_;  // group of the open frame
  std::string meshKind_;
  std::string collection_ = "frames";
  std::uint64_t rowOffset_ = 0, localRows_ = 0, globalRows_ = 0;
  UniformGrid grid_;
  bool customTopology_ = false;
  std::map<std::string, CellGrid> cells_;  // cell grids of the open frame
  // The XDMF as written (rank 0): its size, the length of the closing tags at its end, the name of
  // the open temporal collection, where that collection's element starts and how many frames it has.
  std::uint64_t xdmfSize_ = 0, tailSize_ = 0, openStart_ = 0;
  std::string openCollection_;
  long openFrames_ = 0;
};

}  // namespace kinema::io

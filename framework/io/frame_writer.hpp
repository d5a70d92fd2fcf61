#pragma once
// Frames of a run in one HDF5 file plus an XDMF file that ParaView opens directly (a temporal
// collection, one grid per frame). The XDMF is a pure function of the HDF5 contents: each frame
// group stores its time and mesh description as attributes, and the XDMF is rewritten from them
// after every frame, so it is always valid up to the last complete frame, and a restarted run
// (append mode) continues the same collection.
//
// Layout: /frames/<k, 6 digits>/ with attributes time, mesh ("uniform_grid" | "points" |
// "polylines"), and
//   uniform_grid: attributes dims (nz, ny, nx as "nz ny nx"), origin and spacing (x y z); fields
//                 are datasets of shape (nz, ny, nx[, components]) split over ranks by z-planes.
//   points:       dataset "positions" (n, 3) split over ranks by rows; fields (n[, components]).
//   polylines:    attributes count (points) and lines; datasets "positions" (n, 3) and
//                 "connectivity" (the XDMF Mixed topology array: per line the polyline type id 2,
//                 its point count, then its global point indices), both split over ranks;
//                 fields per point (n[, components]).
#include <array>
#include <cstdint>
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

  void beginFrame(double time, const UniformGrid& grid);
  void beginFrame(double time, const PointSet& points);
  void beginFrame(double time, const Polylines& lines);
  // A field on the current frame: this rank's values (points or grid points in its slab),
  // `components` values each (1 = scalar, 3 = vector).
  void addField(const std::string& name, std::span<const double> local, int components = 1);
  // Completes the frame, flushes the HDF5 file and rewrites the XDMF (rank 0).
  void endFrame();

  long frames() const { return frames_; }
  const std::string& h5Path() const { return h5Path_; }
  const std::string& xdmfPath() const { return xdmfPath_; }
  H5File& file() { return *file_; }

 private:
  void writeXdmf();
  std::string h5Path_, xdmfPath_, h5Name_;
  Comm comm_;
  std::unique_ptr<H5File> file_;
  long frames_ = 0;
  bool open_ = false;
  std::string current_;  // group of the open frame
  std::string meshKind_;
  std::uint64_t rowOffset_ = 0, localRows_ = 0, globalRows_ = 0;
  UniformGrid grid_;
};

}  // namespace kinema::io

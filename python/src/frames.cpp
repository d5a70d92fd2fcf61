// Reading a run's frames.h5 into numpy through the framework's HDF5 reader (io::H5File; the layout
// is docs/output.md's): one dict per frame with its time, mesh kind, collection, attributes and
// every dataset (float64, or int64 for integer fields and connectivity), cell grids as nested
// dicts; and the diagnostics table stored at /diagnostics as a dict of columns. Each rank reads
// the whole file (MPI_COMM_SELF).
#include <pybind11/stl.h>

#include "framework/core/comm.hpp"
#include "framework/core/error.hpp"
#include "framework/io/hdf5_file.hpp"
#include "python/src/bindings.hpp"

namespace kinema::python {
namespace {

std::vector<py::ssize_t> shapeOf(const io::Shape& s) { return {s.begin(), s.end()}; }

// Integer datasets say so (number_type = "Int", docs/output.md); connectivity arrays are integer
// without the attribute. Anything else is read as float64 (integers convert).
bool isInteger(const io::H5File& f, const std::string& path) {
  if (f.hasAttribute(path, "number_type")) return f.readAttributeString(path, "number_type") == "Int";
  const std::string name = path.substr(path.rfind('/') + 1);
  return name == "connectivity";
}

py::object readDataset(const io::H5File& f, const std::string& path) {
  const auto shape = shapeOf(f.shape(path));
  if (isInteger(f, path)) {
    const auto v = f.readAllInt(path);
    py::array_t<std::int64_t> a(shape);
    std::copy(v.begin(), v.end(), a.mutable_data());
    return py::object(std::move(a));
  }
  const auto v = f.readAll(path);
  return toArray(v.data(), shape);
}

bool isGroup(const io::H5File& f, const std::string& path) {
  try {
    f.children(path);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// Every dataset under `group` by name, groups as nested dicts.
py::dict readGroup(const io::H5File& f, const std::string& group) {
  py::dict d;
  for (const std::string& name : f.children(group)) {
    const std::string path = group + "/" + name;
    if (isGroup(f, path))
      d[py::str(name)] = readGroup(f, path);
    else
      d[py::str(name)] = readDataset(f, path);
  }
  return d;
}

py::dict readDiagnostics(const io::H5File& f) {
  py::dict d;
  if (!f.exists("/diagnostics")) return d;
  const io::Shape shape = f.shape("/diagnostics");
  const std::string header = f.readAttributeString("/diagnostics", "columns");
  std::vector<std::string> columns;
  for (std::size_t start = 0;;) {
    const std::size_t comma = header.find(',', start);
    columns.push_back(header.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  const auto values = f.readAll("/diagnostics");
  const std::size_t rows = shape.empty() ? 0 : shape[0], cols = shape.size() > 1 ? shape[1] : 1;
  if (cols != columns.size())
    throw InputError(str(f.path(), ": /diagnostics has ", cols, " columns but its attribute names ", columns.size()));
  for (std::size_t c = 0; c < cols; ++c) {
    py::array_t<double> col(static_cast<py::ssize_t>(rows));
    for (std::size_t r = 0; r < rows; ++r) col.mutable_at(static_cast<py::ssize_t>(r)) = values[r * cols + c];
    d[py::str(columns[c])] = col;
  }
  return d;
}

py::list readFrames(const io::H5File& f) {
  py::list frames;
  if (!f.exists("/frames")) return frames;
  for (const std::string& k : f.children("/frames")) {
    const std::string g = "/frames/" + k;
    py::dict frame = readGroup(f, g);
    frame["index"] = std::stol(k);
    frame["time"] = f.readAttributeReal(g, "time");
    for (const char* a : {"mesh", "collection"})
      if (f.hasAttribute(g, a)) frame[a] = f.readAttributeString(g, a);
    frames.append(frame);
  }
  return frames;
}

}  // namespace

void bindFrames(py::module_& m) {
  m.def(
      "_read_frames",
      [](const std::string& path) {
        ensureMpi();
        io::H5File f(path, io::H5File::Mode::read, Comm::self());
        return readFrames(f);
      },
      py::arg("path"), "The frames of a frames.h5 file: a list of dicts.");
  m.def(
      "_read_diagnostics",
      [](const std::string& path) {
        ensureMpi();
        io::H5File f(path, io::H5File::Mode::read, Comm::self());
        return readDiagnostics(f);
      },
      py::arg("path"), "The diagnostics table stored in a frames.h5 file: a dict of columns.");
}

}  // namespace kinema::python

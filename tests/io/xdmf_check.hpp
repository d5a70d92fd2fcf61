#pragma once
// An XDMF checker independent of the frame writer: the .xdmf is parsed with expat (an XML parser)
// and every heavy-data reference is opened with the HDF5 C API directly (not through
// framework/io). It checks what the XDMF model requires of the files Kinema writes (xdmf.org,
// "XDMF Model and Format"; docs/output.md):
//   - an Xdmf root of Version 3.x with one Domain; grids are Uniform or Collections (Temporal or
//     Spatial); every child of a temporal collection has its own Time, strictly increasing;
//   - a Uniform grid has one Topology and one Geometry; an unstructured topology with cells has a
//     connectivity DataItem whose size is NumberOfElements x NodesPerElement (Mixed: the array
//     walks to exactly NumberOfElements cells), every index naming a point of the geometry;
//   - every HDF DataItem names an existing dataset of the file beside the .xdmf, with exactly the
//     stated Dimensions, NumberType (Float / Int) and Precision (bytes); XML DataItems hold as many
//     numbers as their Dimensions say;
//   - node attributes have one row per point, cell attributes one row per cell, and the trailing
//     dimension the AttributeType needs (Scalar 1, Vector 3, Tensor6 6, Tensor 9).
// It returns the problems found (empty: the file passes) and a summary of the grids for tests.
#include <expat.h>
#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

namespace kinema::test {

struct XmlNode {
  std::string tag;
  std::map<std::string, std::string> attrs;
  std::string text;
  std::vector<std::unique_ptr<XmlNode>> kids;
  std::string attr(const std::string& k, const std::string& def = "") const {
    auto it = attrs.find(k);
    return it == attrs.end() ? def : it->second;
  }
  std::vector<const XmlNode*> children(const std::string& t) const {
    std::vector<const XmlNode*> out;
    for (const auto& k : kids)
      if (k->tag == t) out.push_back(k.get());
    return out;
  }
};

// Parses `text` into a tree; an empty pointer and `error` set on malformed XML.
inline std::unique_ptr<XmlNode> parseXml(const std::string& text, std::string* error) {
  struct State {
    std::unique_ptr<XmlNode> root;
    std::vector<XmlNode*> stack;
  } st;
  XML_Parser p = XML_ParserCreate(nullptr);
  XML_SetUserData(p, &st);
  XML_SetElementHandler(
      p,
      [](void* ud, const XML_Char* name, const XML_Char** atts) {
        auto* s = static_cast<State*>(ud);
        auto node = std::make_unique<XmlNode>();
        node->tag = name;
        for (int i = 0; atts[i]; i += 2) node->attrs[atts[i]] = atts[i + 1];
        XmlNode* raw = node.get();
        if (s->stack.empty())
          s->root = std::move(node);
        else
          s->stack.back()->kids.push_back(std::move(node));
        s->stack.push_back(raw);
      },
      [](void* ud, const XML_Char*) { static_cast<State*>(ud)->stack.pop_back(); });
  XML_SetCharacterDataHandler(p, [](void* ud, const XML_Char* s, int len) {
    auto* st2 = static_cast<State*>(ud);
    if (!st2->stack.empty()) st2->stack.back()->text.append(s, static_cast<std::size_t>(len));
  });
  bool ok = XML_Parse(p, text.data(), static_cast<int>(text.size()), 1) == XML_STATUS_OK;
  if (!ok && error)
    *error = std::string(XML_ErrorString(XML_GetErrorCode(p))) + " at line " +
             std::to_string(XML_GetCurrentLineNumber(p));
  XML_ParserFree(p);
  if (!ok) return nullptr;
  return std::move(st.root);
}

// What a test wants to know of one Uniform grid.
struct XdmfGridInfo {
  std::string path;      // collection/frame/grid names joined by '/'
  std::string topology;  // TopologyType
  std::int64_t cells = 0, points = 0;
  std::map<int, std::int64_t> mixedCells;  // Mixed: cells per XDMF type id
  // attribute name -> Center, NumberType and units (the Information "units", if any)
  struct Attr {
    std::string center, numberType, units;
  };
  std::map<std::string, Attr> attributes;
};

struct XdmfSummary {
  std::vector<std::string> problems;
  std::vector<std::string> collections;     // temporal collections at the top of the Domain
  std::vector<std::size_t> frames;          // frames per temporal collection
  std::vector<XdmfGridInfo> grids;          // every Uniform grid, in document order
  std::vector<XdmfGridInfo> lastFrame(const std::string& collection) const {
    std::vector<XdmfGridInfo> out;
    std::string last;
    for (const auto& g : grids) {
      if (g.path.rfind(collection + "/", 0) != 0) continue;
      std::string frame = g.path.substr(0, g.path.find('/', collection.size() + 1));
      if (frame != last) out.clear();
      last = frame;
      out.push_back(g);
    }
    return out;
  }
};

namespace detail {

inline std::vector<std::int64_t> dimsOf(const std::string& s) {
  std::istringstream is(s);
  std::vector<std::int64_t> out;
  for (std::int64_t d; is >> d;) out.push_back(d);
  return out;
}

inline std::int64_t product(const std::vector<std::int64_t>& d) {
  return std::accumulate(d.begin(), d.end(), std::int64_t{1}, std::multiplies<>());
}

class Checker {
 public:
  explicit Checker(std::string dir) : dir_(std::move(dir)) {}
  ~Checker() {
    for (auto& [name, id] : files_)
      if (id >= 0) H5Fclose(id);
  }
  XdmfSummary sum;

  void problem(const std::string& where, const std::string& what) { sum.problems.push_back(where + ": " + what); }

  // Checks a DataItem; returns its dimensions (empty on failure). Integer HDF items are read into
  // `values` when asked.
  std::vector<std::int64_t> dataItem(const XmlNode& item, const std::string& where,
                                     std::vector<std::int64_t>* values = nullptr) {
    std::vector<std::int64_t> dims = dimsOf(item.attr("Dimensions"));
    if (dims.empty()) {
      problem(where, "DataItem without Dimensions");
      return {};
    }
    const std::string format = item.attr("Format", "XML");
    const std::string numberType = item.attr("NumberType", "Float");
    const std::size_t precision = std::stoul(item.attr("Precision", "4"));
    std::string text = item.text;
    text.erase(0, text.find_first_not_of(" \t\n"));
    text.erase(text.find_last_not_of(" \t\n") + 1);
    if (format == "XML") {
      std::istringstream is(text);
      std::int64_t n = 0;
      for (double v; is >> v;) ++n;
      if (n != product(dims)) problem(where, "XML DataItem has " + std::to_string(n) + " numbers, Dimensions say " +
                                                 std::to_string(product(dims)));
      return dims;
    }
    if (format != "HDF") {
      problem(where, "unknown Format " + format);
      return {};
    }
    std::size_t colon = text.find(':');
    if (colon == std::string::npos) {
      problem(where, "HDF DataItem '" + text + "' is not file:path");
      return {};
    }
    std::string file = text.substr(0, colon), path = text.substr(colon + 1);
    if (std::filesystem::path(file).is_absolute()) problem(where, "absolute HDF file name " + file);
    hid_t f = open(file);
    if (f < 0) {
      problem(where, "cannot open HDF5 file " + file);
      return {};
    }
    if (H5Lexists(f, path.c_str(), H5P_DEFAULT) <= 0) {
      problem(where, "no dataset " + path + " in " + file);
      return {};
    }
    hid_t ds = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
    if (ds < 0) {
      problem(where, path + " is not a dataset");
      return {};
    }
    hid_t space = H5Dget_space(ds), type = H5Dget_type(ds);
    int rank = H5Sget_simple_extent_ndims(space);
    std::vector<hsize_t> shape(static_cast<std::size_t>(rank > 0 ? rank : 0));
    H5Sget_simple_extent_dims(space, shape.data(), nullptr);
    std::vector<std::int64_t> actual(shape.begin(), shape.end());
    if (actual != dims) problem(where, path + " has dimensions " + join(actual) + ", the XDMF says " + join(dims));
    H5T_class_t cls = H5Tget_class(type);
    bool integer = numberType == "Int" || numberType == "UInt" || numberType == "Char" || numberType == "UChar";
    if (integer ? cls != H5T_INTEGER : cls != H5T_FLOAT)
      problem(where, path + " is stored as " + (cls == H5T_INTEGER ? "integer" : "non-integer") +
                         ", the XDMF says NumberType " + numberType);
    if (H5Tget_size(type) != precision)
      problem(where, path + " has " + std::to_string(H5Tget_size(type)) + "-byte values, the XDMF says Precision " +
                         std::to_string(precision));
    if (values && integer && actual == dims) {
      values->resize(static_cast<std::size_t>(product(dims)));
      if (!values->empty() &&
          H5Dread(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values->data()) < 0)
        problem(where, "cannot read " + path);
    }
    H5Tclose(type);
    H5Sclose(space);
    H5Dclose(ds);
    return actual == dims ? dims : std::vector<std::int64_t>{};
  }

  void uniformGrid(const XmlNode& g, const std::string& where) {
    XdmfGridInfo info;
    info.path = where;
    auto topos = g.children("Topology"), geos = g.children("Geometry");
    if (topos.size() != 1 || geos.size() != 1) {
      problem(where, "a Uniform grid needs one Topology and one Geometry");
      return;
    }
    const XmlNode& topo = *topos[0];
    const XmlNode& geo = *geos[0];
    info.topology = topo.attr("TopologyType", topo.attr("Type"));
    // Geometry: the points.
    std::vector<std::int64_t> structured;  // 3DCoRectMesh point dimensions
    const std::string gt = geo.attr("GeometryType", geo.attr("Type", "XYZ"));
    auto gitems = geo.children("DataItem");
    if (info.topology == "3DCoRectMesh") {
      structured = dimsOf(topo.attr("Dimensions"));
      if (structured.size() != 3) problem(where, "3DCoRectMesh needs 3 Dimensions");
      if (gt != "ORIGIN_DXDYDZ" || gitems.size() != 2) problem(where, "3DCoRectMesh needs an ORIGIN_DXDYDZ geometry");
      for (const XmlNode* it : gitems)
        if (dataItem(*it, where + "/Geometry") != std::vector<std::int64_t>{3})
          problem(where, "origin and spacing need 3 values");
      info.points = product(structured);
      info.cells = structured.size() == 3 ? (structured[0] - 1) * (structured[1] - 1) * (structured[2] - 1) : 0;
    } else {
      if (gt != "XYZ" || gitems.size() != 1) {
        problem(where, "expected one XYZ geometry DataItem");
        return;
      }
      std::vector<std::int64_t> d = dataItem(*gitems[0], where + "/Geometry");
      if (d.size() != 2 || d[1] != 3) problem(where, "XYZ geometry is not (points, 3)");
      info.points = d.empty() ? 0 : d[0];
      unstructured(topo, info, where + "/Topology");
    }
    for (const XmlNode* a : g.children("Attribute")) {
      const std::string name = a->attr("Name"), center = a->attr("Center", "Node"),
                        type = a->attr("AttributeType", "Scalar");
      const std::string aw = where + "/Attribute[" + name + "]";
      auto items = a->children("DataItem");
      if (name.empty() || items.size() != 1) {
        problem(aw, "an Attribute needs a Name and one DataItem");
        continue;
      }
      XdmfGridInfo::Attr ai{center, items[0]->attr("NumberType", "Float"), ""};
      for (const XmlNode* inf : a->children("Information"))
        if (inf->attr("Name") == "units") ai.units = inf->attr("Value");
      info.attributes[name] = ai;
      std::vector<std::int64_t> d = dataItem(*items[0], aw);
      if (d.empty()) continue;
      std::size_t lead = 1;
      if (center == "Node" && !structured.empty()) {
        lead = 3;
        if (d.size() < 3 || std::vector<std::int64_t>(d.begin(), d.begin() + 3) != structured)
          problem(aw, "node attribute does not match the grid's point dimensions");
      } else if (center == "Node") {
        if (d[0] != info.points) problem(aw, "node attribute has " + std::to_string(d[0]) + " rows for " +
                                                 std::to_string(info.points) + " points");
      } else if (center == "Cell") {
        if (d[0] != info.cells) problem(aw, "cell attribute has " + std::to_string(d[0]) + " rows for " +
                                                std::to_string(info.cells) + " cells");
      } else {
        problem(aw, "unexpected Center " + center);
      }
      std::int64_t comps = d.size() > lead ? product(std::vector<std::int64_t>(d.begin() + lead, d.end())) : 1;
      std::map<std::string, std::int64_t> need{{"Scalar", 1}, {"Vector", 3}, {"Tensor6", 6}, {"Tensor", 9}};
      if (need.count(type) && need[type] != comps)
        problem(aw, type + " attribute with " + std::to_string(comps) + " components");
    }
    sum.grids.push_back(info);
  }

  void unstructured(const XmlNode& topo, XdmfGridInfo& info, const std::string& where) {
    const std::string t = info.topology;
    auto items = topo.children("DataItem");
    const std::int64_t elements = std::stoll(topo.attr("NumberOfElements", "0"));
    info.cells = elements;
    std::map<std::string, std::int64_t> fixed{{"Polyvertex", -1}, {"Polyline", -1}, {"Triangle", 3},
                                              {"Quadrilateral", 4}, {"Tetrahedron", 4}, {"Hexahedron", 8}};
    std::vector<std::int64_t> conn;
    if (t == "Mixed") {
      if (items.size() != 1) {
        problem(where, "Mixed topology without a connectivity DataItem");
        return;
      }
      if (dataItem(*items[0], where, &conn).empty()) return;
      std::map<std::int64_t, std::int64_t> nodes{{4, 3}, {5, 4}, {6, 4}, {9, 8}};
      std::size_t k = 0;
      std::int64_t cells = 0;
      while (k < conn.size()) {
        std::int64_t type = conn[k++], n = 0;
        if (type == 1 || type == 2 || type == 3) {
          if (k >= conn.size()) break;
          n = conn[k++];
        } else if (nodes.count(type)) {
          n = nodes[type];
        } else {
          problem(where, "Mixed array has unknown cell type " + std::to_string(type));
          return;
        }
        for (std::int64_t j = 0; j < n && k < conn.size(); ++j, ++k) checkIndex(conn[k], info.points, where);
        ++cells;
        ++info.mixedCells[static_cast<int>(type)];
      }
      if (k != conn.size() || cells != elements)
        problem(where, "Mixed array holds " + std::to_string(cells) + " cells (" + std::to_string(k) + " of " +
                           std::to_string(conn.size()) + " entries), NumberOfElements says " +
                           std::to_string(elements));
      return;
    }
    if (!fixed.count(t)) {
      problem(where, "unexpected TopologyType " + t);
      return;
    }
    std::int64_t per = fixed[t] > 0 ? fixed[t] : std::stoll(topo.attr("NodesPerElement", "0"));
    if (per <= 0) problem(where, t + " without NodesPerElement");
    if (elements > 0 && items.size() != 1) {
      problem(where, t + " with " + std::to_string(elements) + " elements but no connectivity DataItem (0 cells)");
      return;
    }
    if (items.empty()) return;
    std::vector<std::int64_t> d = dataItem(*items[0], where, &conn);
    if (d.empty()) return;
    if (product(d) != elements * per)
      problem(where, "connectivity of " + std::to_string(product(d)) + " entries for " + std::to_string(elements) +
                         " x " + std::to_string(per));
    for (std::int64_t p : conn) checkIndex(p, info.points, where);
  }

  void checkIndex(std::int64_t p, std::int64_t points, const std::string& where) {
    if ((p < 0 || p >= points) && badIndex_++ < 3)
      problem(where, "point index " + std::to_string(p) + " outside [0, " + std::to_string(points) + ")");
  }

  void grid(const XmlNode& g, const std::string& where, bool needTime, double* time) {
    const std::string type = g.attr("GridType", "Uniform");
    auto times = g.children("Time");
    if (needTime) {
      if (times.size() != 1 || times[0]->attr("Value").empty())
        problem(where, "a child of a temporal collection without its Time");
      else
        *time = std::stod(times[0]->attr("Value"));
    }
    if (type == "Uniform") {
      uniformGrid(g, where);
    } else if (type == "Collection") {
      const std::string ct = g.attr("CollectionType");
      if (ct != "Temporal" && ct != "Spatial") problem(where, "CollectionType '" + ct + "'");
      double last = -1e300;
      for (const XmlNode* c : g.children("Grid")) {
        double t = 0;
        grid(*c, where + "/" + c->attr("Name"), ct == "Temporal", &t);
        if (ct == "Temporal") {
          if (!(t > last)) problem(where + "/" + c->attr("Name"), "time " + std::to_string(t) + " not after " +
                                                                       std::to_string(last));
          last = t;
        }
      }
    } else {
      problem(where, "GridType '" + type + "'");
    }
  }

 private:
  static std::string join(const std::vector<std::int64_t>& d) {
    std::ostringstream s;
    for (std::size_t i = 0; i < d.size(); ++i) s << (i ? " " : "") << d[i];
    return s.str();
  }
  hid_t open(const std::string& file) {
    auto it = files_.find(file);
    if (it != files_.end()) return it->second;
    hid_t id = -1;
    std::string path = (std::filesystem::path(dir_) / file).string();
    if (std::filesystem::exists(path)) {
      H5E_BEGIN_TRY { id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT); }
      H5E_END_TRY;
    }
    files_[file] = id;
    return id;
  }
  std::string dir_;
  std::map<std::string, hid_t> files_;
  int badIndex_ = 0;
};

}  // namespace detail

// Checks `xdmfPath` and every HDF5 dataset it references (serial; call on one rank).
inline XdmfSummary checkXdmf(const std::string& xdmfPath) {
  std::ifstream in(xdmfPath);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  detail::Checker c(std::filesystem::path(xdmfPath).parent_path().string());
  std::string error;
  auto root = parseXml(text, &error);
  if (!root) {
    c.sum.problems.push_back(xdmfPath + ": not well-formed XML: " + error);
    return c.sum;
  }
  if (root->tag != "Xdmf" || root->attr("Version").rfind("3", 0) != 0)
    c.problem(xdmfPath, "root is not <Xdmf Version=\"3.x\">");
  auto domains = root->children("Domain");
  if (domains.size() != 1) {
    c.problem(xdmfPath, "needs exactly one Domain");
    return c.sum;
  }
  for (const XmlNode* g : domains[0]->children("Grid")) {
    const std::string name = g->attr("Name");
    if (g->attr("GridType") == "Collection" && g->attr("CollectionType") == "Temporal") {
      c.sum.collections.push_back(name);
      c.sum.frames.push_back(g->children("Grid").size());
    }
    double t = 0;
    c.grid(*g, name, false, &t);
  }
  return c.sum;
}

}  // namespace kinema::test

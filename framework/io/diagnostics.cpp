#include "framework/io/diagnostics.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "framework/core/error.hpp"

namespace kinema::io {

namespace {

std::string trim(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  std::size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> splitCommas(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = line.find(',', start);
    out.push_back(trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string joinColumns(const std::vector<std::string>& columns) {
  std::string out;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i) out += ',';
    out += columns[i];
  }
  return out;
}

// Full precision, so a restarted run's table continues bit-for-bit.
void writeRow(std::FILE* f, const std::vector<double>& row) {
  for (std::size_t i = 0; i < row.size(); ++i) std::fprintf(f, i ? ",%.17g" : "%.17g", row[i]);
  std::fputc('\n', f);
}

}  // namespace

Diagnostics::Diagnostics(std::string csvPath, Comm comm, bool append, long keepRows)
    : csvPath_(std::move(csvPath)), comm_(comm) {
  if (append) {
    // Rank 0 reads, every rank parses the same text, so a malformed file fails on all ranks.
    // A missing file reads as empty: a run that died before its first row left no table.
    std::string text;
    if (comm_.isRoot()) {
      std::ifstream in(csvPath_, std::ios::binary);
      if (in) {
        std::ostringstream ss;
        ss << in.rdbuf();
        text = ss.str();
      }
    }
    text = comm_.broadcast(text);
    std::istringstream lines(text);
    std::string line;
    long lineNo = 0;
    while (std::getline(lines, line)) {
      ++lineNo;
      if (trim(line).empty()) continue;
      std::vector<std::string> fields = splitCommas(line);
      if (columns_.empty()) {
        for (const std::string& c : fields)
          if (c.empty()) throw InputError(str(csvPath_, ":", lineNo, ": empty column name in the header"));
        columns_ = fields;
        continue;
      }
      if (fields.size() != columns_.size())
        throw InputError(str(csvPath_, ":", lineNo, ": ", fields.size(), " values, the header has ",
                             columns_.size(), " columns"));
      std::vector<double> row;
      for (std::size_t i = 0; i < fields.size(); ++i) {
        const char* s = fields[i].c_str();
        char* end = nullptr;
        double v = std::strtod(s, &end);
        if (fields[i].empty() || end == s || *end != '\0')
          throw InputError(str(csvPath_, ":", lineNo, ": '", fields[i], "' in column '", columns_[i],
                               "' is not a number"));
        row.push_back(v);
      }
      rows_.push_back(std::move(row));
    }
    if (keepRows >= 0 && static_cast<std::size_t>(keepRows) < rows_.size())
      rows_.resize(static_cast<std::size_t>(keepRows));
  }

  bool ok = true;
  if (comm_.isRoot()) {
    std::error_code ec;
    std::filesystem::path parent = std::filesystem::path(csvPath_).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    // Rewrite through a temporary file, so a crash now cannot lose the rows being kept.
    std::string tmp = csvPath_ + ".tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "w");
    ok = f != nullptr;
    if (f) {
      if (!columns_.empty()) std::fprintf(f, "%s\n", joinColumns(columns_).c_str());
      for (const auto& row : rows_) writeRow(f, row);
      ok = std::fclose(f) == 0;
      if (ok) std::filesystem::rename(tmp, csvPath_, ec);
      ok = ok && !ec;
    }
    if (ok) {
      csv_ = std::fopen(csvPath_.c_str(), "a");
      ok = csv_ != nullptr;
    }
  }
  if (!comm_.all(ok)) throw Error(str("cannot write diagnostics table ", csvPath_));
}

Diagnostics::~Diagnostics() {
  if (csv_) std::fclose(static_cast<std::FILE*>(csv_));
}

void Diagnostics::addRow(const Row& row) {
  KINEMA_CHECK(!row.empty(), "Diagnostics::addRow with no columns");
  if (columns_.empty()) {
    for (const auto& [name, value] : row) {
      // The CSV has no quoting, so a name may not contain its separators.
      if (name.empty() || name.find_first_of(",\"\n\r") != std::string::npos)
        throw Error(str("diagnostics column name '", name, "' is empty or contains ',', '\"' or a newline"));
      columns_.push_back(name);
    }
    if (csv_) std::fprintf(static_cast<std::FILE*>(csv_), "%s\n", joinColumns(columns_).c_str());
  } else {
    std::size_t n = std::min(row.size(), columns_.size());
    for (std::size_t i = 0; i < n; ++i)
      if (row[i].first != columns_[i])
        throw Error(str("diagnostics row: column ", i + 1, " is '", row[i].first, "', expected '",
                        columns_[i], "' (", csvPath_, ")"));
    if (row.size() > columns_.size())
      throw Error(str("diagnostics row: extra column '", row[n].first, "' (", csvPath_, ")"));
    if (row.size() < columns_.size())
      throw Error(str("diagnostics row: missing column '", columns_[n], "' (", csvPath_, ")"));
  }
  std::vector<double> values;
  values.reserve(row.size());
  for (const auto& entry : row) values.push_back(entry.second);
  if (csv_) {
    auto* f = static_cast<std::FILE*>(csv_);
    writeRow(f, values);
    std::fflush(f);
  }
  rows_.push_back(std::move(values));
}

std::vector<double> Diagnostics::column(const std::string& name) const {
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (columns_[c] != name) continue;
    std::vector<double> out;
    out.reserve(rows_.size());
    for (const auto& row : rows_) out.push_back(row[c]);
    return out;
  }
  throw Error(str("diagnostics: no column '", name, "' in ", csvPath_));
}

// With no rows the dataset is 0 x columns (0 x 0 before the first row), so readers need no special case.
void Diagnostics::writeTo(H5File& file, const std::string& dataset) const {
  Shape shape{rows_.size(), columns_.size()};
  // The table grows between calls (and across a restart): replace, do not insist on the old shape.
  if (file.exists(dataset) && file.shape(dataset) != shape) file.remove(dataset);
  std::vector<double> flat;
  flat.reserve(rows_.size() * columns_.size());
  for (const auto& row : rows_) flat.insert(flat.end(), row.begin(), row.end());
  file.writeArray(dataset, shape, flat);
  file.writeAttribute(dataset, "columns", joinColumns(columns_));
}

}  // namespace kinema::io

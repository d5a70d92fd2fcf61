// Diagnostics: rows in memory and in the CSV (full precision), column checks, restart
// (append/keepRows), malformed CSVs, and the table in HDF5.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "framework/io/diagnostics.hpp"
#include "io_test_util.hpp"
#include "test_util.hpp"

namespace kinema::io {
namespace {

using test::messageOf;

Diagnostics::Row row(double step) {
  return {{"step", step}, {"time", 0.1 * step}, {"energy", 1.0 / 3.0 + step}};
}

// The CSV as header fields and rows of numbers.
std::pair<std::vector<std::string>, std::vector<std::vector<double>>> parseCsv(const std::string& path) {
  std::istringstream in(test::readText(path));
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::vector<std::string> fields;
    for (std::string f; std::getline(ls, f, ',');) fields.push_back(f);
    if (first) {
      header = fields;
      first = false;
      continue;
    }
    std::vector<double> r;
    for (const std::string& f : fields) r.push_back(std::strtod(f.c_str(), nullptr));
    rows.push_back(r);
  }
  return {header, rows};
}

const std::vector<std::string> kColumns{"step", "time", "energy"};

TEST(Diagnostics, RowsAndCsv) {
  Comm world = Comm::world();
  std::string csv = test::scratchDir("diag_rows") + "/diagnostics.csv";
  Diagnostics d(csv, world);
  for (int s = 0; s < 3; ++s) d.addRow(row(s));
  EXPECT_EQ(d.columns(), kColumns);
  ASSERT_EQ(d.rows().size(), 3u);
  EXPECT_EQ(d.rows()[2], (std::vector<double>{2, 0.1 * 2, 1.0 / 3.0 + 2}));
  EXPECT_EQ(d.column("energy"), (std::vector<double>{1.0 / 3.0, 1.0 / 3.0 + 1, 1.0 / 3.0 + 2}));
  EXPECT_THROW(d.column("momentum"), Error);
  world.barrier();  // rank 0 flushed every row; every rank reads the file
  auto [header, rows] = parseCsv(csv);
  EXPECT_EQ(header, kColumns);
  EXPECT_EQ(rows, d.rows());  // bit-for-bit through %.17g
}

TEST(Diagnostics, ColumnMismatchNamesTheColumn) {
  Comm world = Comm::world();
  std::string csv = test::scratchDir("diag_mismatch") + "/d.csv";
  Diagnostics d(csv, world);
  d.addRow(row(0));
  std::string msg = messageOf<Error>([&] { d.addRow({{"step", 1}, {"t", 0.1}, {"energy", 2}}); });
  EXPECT_NE(msg.find("'t'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'time'"), std::string::npos) << msg;
  msg = messageOf<Error>([&] { d.addRow({{"step", 1}, {"time", 0.1}}); });
  EXPECT_NE(msg.find("energy"), std::string::npos) << msg;
  msg = messageOf<Error>([&] { d.addRow({{"step", 1}, {"time", 0.1}, {"energy", 2}, {"extra", 3}}); });
  EXPECT_NE(msg.find("extra"), std::string::npos) << msg;
  EXPECT_EQ(d.rows().size(), 1u);  // rejected rows are not kept
  Diagnostics e(test::scratchDir("diag_badname") + "/d.csv", world);
  EXPECT_THROW(e.addRow({{"a,b", 1}}), Error);
}

TEST(Diagnostics, AppendKeepsRows) {
  Comm world = Comm::world();
  std::string csv = test::scratchDir("diag_append") + "/d.csv";
  {
    Diagnostics d(csv, world);
    for (int s = 0; s < 4; ++s) d.addRow(row(s));
  }
  {
    Diagnostics d(csv, world, /*append=*/true);  // keep all
    EXPECT_EQ(d.columns(), kColumns);
    ASSERT_EQ(d.rows().size(), 4u);
    EXPECT_EQ(d.rows()[3], (std::vector<double>{3, 0.1 * 3, 1.0 / 3.0 + 3}));
  }
  {
    Diagnostics d(csv, world, true, /*keepRows=*/2);
    ASSERT_EQ(d.rows().size(), 2u);
    world.barrier();
    EXPECT_EQ(parseCsv(csv).second.size(), 2u);  // rewritten at once
    world.barrier();  // every rank has read before rank 0 appends
    d.addRow(row(10));
    EXPECT_THROW(d.addRow({{"other", 1}}), Error);  // columns from the file still hold
  }
  world.barrier();
  auto [header, rows] = parseCsv(csv);
  EXPECT_EQ(header, kColumns);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<double>{0, 0, 1.0 / 3.0}));
  EXPECT_EQ(rows[1], (std::vector<double>{1, 0.1, 1.0 / 3.0 + 1}));
  EXPECT_EQ(rows[2], (std::vector<double>{10, 0.1 * 10, 1.0 / 3.0 + 10}));
  // A run that died before its first row left no CSV: append starts an empty table.
  std::string none = test::scratchDir("diag_append_missing") + "/d.csv";
  Diagnostics fresh(none, world, true, 5);
  EXPECT_TRUE(fresh.rows().empty());
  fresh.addRow(row(0));
  EXPECT_EQ(fresh.rows().size(), 1u);
}

TEST(Diagnostics, MalformedCsvIsInputError) {
  Comm world = Comm::world();
  std::string dir = test::scratchDir("diag_malformed");
  auto write = [&](const std::string& path, const char* text) {
    if (world.isRoot()) {
      std::FILE* f = std::fopen(path.c_str(), "w");
      std::fputs(text, f);
      std::fclose(f);
    }
    world.barrier();
  };
  std::string bad = dir + "/bad.csv";
  write(bad, "a,b\n1,2\n3,x\n");
  std::string msg = messageOf<InputError>([&] { Diagnostics d(bad, world, true); });
  EXPECT_NE(msg.find(bad + ":3"), std::string::npos) << msg;
  std::string shortRow = dir + "/short.csv";
  write(shortRow, "a,b\n1,2\n3\n");
  msg = messageOf<InputError>([&] { Diagnostics d(shortRow, world, true); });
  EXPECT_NE(msg.find(shortRow + ":3"), std::string::npos) << msg;
  std::string special = dir + "/special.csv";
  write(special, "a,b\n1,nan\n-inf,2.5\n");  // what %.17g prints for non-finite values
  Diagnostics d(special, world, true);
  ASSERT_EQ(d.rows().size(), 2u);
  EXPECT_TRUE(std::isnan(d.rows()[0][1]));
  EXPECT_EQ(d.rows()[1][0], -INFINITY);
}

TEST(Diagnostics, WriteToHdf5) {
  Comm world = Comm::world();
  std::string dir = test::scratchDir("diag_h5");
  Diagnostics d(dir + "/d.csv", world);
  H5File f(dir + "/run.h5", H5File::Mode::create, world);
  d.writeTo(f);  // no rows yet: a 0 x 0 table
  EXPECT_EQ(f.shape("/diagnostics"), (Shape{0, 0}));
  EXPECT_EQ(f.readAttributeString("/diagnostics", "columns"), "");
  d.addRow(row(0));
  d.writeTo(f, "/tables/diag");
  EXPECT_EQ(f.shape("/tables/diag"), (Shape{1, 3}));
  d.addRow(row(1));
  d.writeTo(f);  // the table grew: replaced
  EXPECT_EQ(f.shape("/diagnostics"), (Shape{2, 3}));
  EXPECT_EQ(f.readAttributeString("/diagnostics", "columns"), "step,time,energy");
  std::vector<double> v = f.readAll("/diagnostics");
  EXPECT_EQ(v, (std::vector<double>{0, 0, 1.0 / 3.0, 1, 0.1, 1.0 / 3.0 + 1}));
}

}  // namespace
}  // namespace kinema::io

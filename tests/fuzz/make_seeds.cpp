// Writes the binary seeds of the fuzz corpora (scripts/fuzz calls it; nothing binary is committed):
//   <dir>/hair/wisps.hair, wisps_thick.hair   .hair files (writeHair) of a few der wisps
//   <dir>/strands/plain.h5, rest.h5           der strand-set files, without and with rest state
//   <dir>/checkpoint/values.h5                a checkpoint (format 2, checksums) holding values and
//                                             arrays of every kind the readers take
// The corpora also get a checkpoint and a strand-set file from short runs of the CLI (scripts/fuzz).
#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/io/checkpoint.hpp"
#include "modules/der/hair_file.hpp"
#include "modules/der/strand_generators.hpp"
#include "modules/der/strand_set_file.hpp"

using namespace kinema;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  MPI_Init(&argc, &argv);
  const std::string dir = argv[1];
  for (const char* sub : {"hair", "strands", "checkpoint"}) std::filesystem::create_directories(dir + "/" + sub);

  der::WispParams wp;
  const std::vector<der::StrandGeometry> strands = der::wisps(3, 6, wp, 7);
  der::writeHair(dir + "/hair/wisps.hair", strands);
  const std::vector<double> thickness{0.1, 0.2, 0.3};
  der::writeHair(dir + "/hair/wisps_thick.hair", strands, std::span<const double>(thickness), "kinema fuzz seed");

  der::LocalStrands set;
  set.totalStrands = static_cast<std::int64_t>(strands.size());
  set.vertexOffset.assign(1, 0);
  for (const auto& g : strands) set.vertexOffset.push_back(set.vertexOffset.back() + g.vertices());
  set.geometry = strands;
  der::writeStrandSet(dir + "/strands/plain.h5", Comm::self(), set);
  for (const auto& g : strands) {
    const auto N = static_cast<std::size_t>(g.vertices());
    der::RestState r;
    r.restLength.assign(N - 1, 0.01);
    r.cStretch.assign(N - 1, 1e9);
    r.restKappa.assign(N, der::Vec4(0.1, 0.2, 0.3, 0.4));
    r.restTwist.assign(N, 0.0);
    r.cBend.assign(N, 1e9);
    r.cTwist.assign(N, 1e9);
    set.rest.push_back(r);
    set.results.push_back(der::StrandResult{1e-9, 3, 10, 1, 30, 0.5});
  }
  der::writeStrandSet(dir + "/strands/rest.h5", Comm::self(), set);

  {
    io::CheckpointWriter out(dir + "/checkpoint/values.h5", Comm::self());
    out.writeInt("runner_step", 3);
    out.writeReal("runner_time", 0.25);
    out.writeString("runner_module", "impact");
    out.writeInt("int", -42);
    out.writeReal("real", 1.5);
    out.writeString("string", "text");
    const std::vector<double> a{1, 2, 3, 4, 5, 6};
    out.writeArray("impact_state", a);
    out.writeArray("impact_totals", std::span<const double>(a.data(), 2));
    out.commit();
  }
  MPI_Finalize();
  return 0;
}

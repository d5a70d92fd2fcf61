// Writes the binary seeds of the fuzz corpora (scripts/fuzz calls it; nothing binary is committed):
//   <dir>/hair/wisps.hair, wisps_thick.hair   .hair files (writeHair) of a few der wisps
//   <dir>/strands/plain.h5, rest.h5           der strand-set files, without and with rest state
//   <dir>/checkpoint/values.h5                a checkpoint (format 2, checksums) holding values and
//                                             arrays of every kind the readers take
//   <dir>/particles/cube.h5, cube_bonds.csv   a bdem particle file (HDF5, with /bonds) and a
//                                             particle CSV followed by "@bonds" and a bond list
//                                             (the input format of fuzz_particles)
// The corpora also get a checkpoint and a strand-set file from short runs of the CLI (scripts/fuzz).
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <filesystem>
#include <string>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/io/checkpoint.hpp"
#include "framework/io/hdf5_file.hpp"
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
  for (const char* sub : {"hair", "strands", "checkpoint", "particles"}) std::filesystem::create_directories(dir + "/" + sub);

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
  {
    // Eight particles on the corners of a cube of edge 2r (bdem particle file formats).
    std::vector<double> pos, rad, vel, ori;
    std::vector<std::int64_t> mat, bondList;
    const double r = 0.005;
    for (int k = 0; k < 8; ++k) {
      pos.insert(pos.end(), {2 * r * (k & 1), 2 * r * ((k >> 1) & 1), 2 * r * ((k >> 2) & 1)});
      rad.push_back(r);
      vel.insert(vel.end(), {0.0, 0.0, -0.1 * k});
      ori.insert(ori.end(), {0.0, 0.0, 0.0, 1.0});
      mat.push_back(k < 4 ? 0 : 1);
    }
    for (int k = 0; k < 8; ++k)
      for (int b : {1, 2, 4})
        if (!(k & b)) bondList.insert(bondList.end(), {k, k | b});
    {
      io::H5File f(dir + "/particles/cube.h5", io::H5File::Mode::create, Comm::self());
      f.writeArray("/particles/position", {8, 3}, std::span<const double>(pos));
      f.writeArray("/particles/radius", {8}, std::span<const double>(rad));
      f.writeArray("/particles/velocity", {8, 3}, std::span<const double>(vel));
      f.writeArray("/particles/orientation", {8, 4}, std::span<const double>(ori));
      f.writeArray("/particles/material", {8}, std::span<const std::int64_t>(mat));
      f.writeArray("/bonds", {bondList.size() / 2, 2}, std::span<const std::int64_t>(bondList));
    }
    std::ofstream csv(dir + "/particles/cube_bonds.csv");
    csv << "x,y,z,r,vx,vy,vz,qx,qy,qz,qw,material\n";
    for (int k = 0; k < 8; ++k)
      csv << pos[3 * k] << ',' << pos[3 * k + 1] << ',' << pos[3 * k + 2] << ',' << r << ",0,0," << vel[3 * k + 2]
          << ",0,0,0,1," << mat[k] << '\n';
    csv << "@bonds\ni,j\n";
    for (std::size_t b = 0; b + 1 < bondList.size(); b += 2) csv << bondList[b] << ',' << bondList[b + 1] << '\n';
  }
  MPI_Finalize();
  return 0;
}

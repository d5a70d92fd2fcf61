// libFuzzer harness: the checkpoint reader (framework/io/checkpoint.hpp). The input is written to
// a temporary file and opened (format and checksums verified); then every dataset of the root
// group is read whole and as a slab, and every value the runner and the modules read on a restart
// is read as each type. kinema::Error (InputError) is the expected outcome of a bad file.
#include "framework/core/comm.hpp"
#include "framework/io/checkpoint.hpp"
#include "tests/fuzz/fuzz_util.hpp"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  kinema::fuzz::initMpi(argc, argv);
  return 0;
}

namespace {
// Every root value the runner (framework/run) and the modules read on a restart, and the ones
// make_seeds writes; each is tried as an integer, a real and a string.
const char* const kValues[] = {
    "avi_deepest_layer", "avi_dyadic_base", "avi_energy0", "avi_energy_last", "avi_events_cert",
    "avi_events_force", "avi_events_kicks", "avi_events_reschedules", "avi_events_script",
    "avi_events_zero_ticks", "avi_generator", "avi_ranks", "avi_scene", "avi_state_ints",
    "avi_state_reals", "avi_step", "avi_time", "avi_vertices", "bdem_bonds0", "bdem_dead_bonds",
    "bdem_dt", "bdem_energy0", "bdem_generator", "bdem_particles", "bdem_step", "bdem_time",
    "bdem_totals", "der_frame", "der_optimization_done", "der_optimize_step", "der_scheme",
    "der_strands", "impact_bodies", "impact_energy0", "impact_energy_totals", "impact_scene",
    "impact_solves", "impact_state", "impact_step", "impact_time", "impact_totals", "impact_work",
    "poisson_error_l2", "poisson_error_max", "poisson_iterations", "poisson_level", "poisson_n",
    "poisson_u", "runner_config", "runner_fingerprint", "runner_frames", "runner_module",
    "runner_rows", "runner_step", "runner_time", "int", "real", "string"
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static kinema::fuzz::TempFile file(".h5");
  const std::string& path = file.write(data, size);
  kinema::fuzz::expectOnlyKinemaErrors([&] {
    kinema::io::CheckpointReader in(path, kinema::Comm::world());
    for (const char* name : kValues) {
      if (!in.has(name)) continue;
      kinema::fuzz::expectOnlyKinemaErrors([&] { (void)in.readInt(name); });
      kinema::fuzz::expectOnlyKinemaErrors([&] { (void)in.readReal(name); });
      kinema::fuzz::expectOnlyKinemaErrors([&] { (void)in.readString(name); });
    }
    const kinema::io::H5File& h5 = in.file();
    for (const std::string& child : h5.children("/")) {
      kinema::fuzz::expectOnlyKinemaErrors([&] { (void)in.readArray(child); });
      kinema::fuzz::expectOnlyKinemaErrors([&] {
        const std::string p = "/" + child;
        const kinema::io::Shape shape = h5.shape(p);
        if (shape.empty()) return;
        (void)h5.readSlab(p, 0, shape[0]);
        (void)h5.readSlabInt(p, shape[0] / 2, shape[0] - shape[0] / 2);
      });
    }
  });
  kinema::fuzz::expectNoOpenHdf5Objects();
  return 0;
}

// kinema._Simulation: a run of a scene that Python steps (framework/run/session.hpp). The Python
// class kinema.Simulation (kinema/simulation.py) wraps it: it turns a dict into scene text and an
// overrides dict into --set assignments. Everything here is collective under MPI: every rank
// makes the same calls.
#include <pybind11/stl.h>

#include <optional>

#include "framework/core/comm.hpp"
#include "framework/run/session.hpp"
#include "python/src/bindings.hpp"

namespace kinema::python {
namespace {

using run::Session;

// Stop handlers only while stepping: a signal then ends the stepping after the current step with a
// checkpoint (as `kinema run`), and Ctrl-C at the prompt stays a KeyboardInterrupt.
struct SignalScope {
  Session& s;
  explicit SignalScope(Session& session) : s(session) { s.catchSignals(true); }
  ~SignalScope() { s.catchSignals(false); }
};

Session& live(const std::unique_ptr<Session>& s) {
  if (!s) throw Error("this Simulation is closed");
  return *s;
}

class PySimulation {
 public:
  PySimulation(const std::optional<std::string>& path, const std::optional<std::string>& text,
               const std::string& sourceName, const std::vector<std::string>& sets,
               const std::optional<std::string>& backend, const std::optional<std::string>& output,
               const std::optional<std::string>& restart, bool overwrite) {
    ensureMpi();
    run::SceneOptions o;
    o.sets = sets;
    o.backend = backend;
    o.output = output;
    o.restart = restart;
    o.overwrite = overwrite;
    o.program = "kinema";  // restart commands name the CLI, which continues any run
    if (path) {
      o.path = *path;
      session_ = std::make_unique<Session>(o);
    } else {
      session_ = std::make_unique<Session>(o, text.value_or(""), sourceName);
    }
  }

  // Steps up to n times (fewer at the end of the run or after a signal); returns the steps run.
  long step(long n) {
    Session& s = live(session_);
    if (s.finished()) throw Error("this Simulation has ended (run() or close() was called)");
    long done = 0;
    py::gil_scoped_release release;  // MPI ranks may wait on each other inside a step
    SignalScope signals(s);
    while (done < n && !s.done() && !s.stopped()) {
      s.step();
      ++done;
    }
    return done;
  }

  // Runs to the end and finishes the run (status completed); returns the steps run now.
  long run() {
    Session& s = live(session_);
    long done = 0;
    if (!s.finished()) {
      py::gil_scoped_release release;
      SignalScope signals(s);
      while (!s.done() && !s.stopped()) {
        s.step();
        ++done;
      }
    }
    finishRun();
    return done;
  }

  py::dict finishRun() {
    Session& s = live(session_);
    run::RunResult r;
    {
      py::gil_scoped_release release;
      r = s.finish();
    }
    py::dict d;
    d["output"] = r.outputDir;
    d["steps_completed"] = r.stepsCompleted;
    d["last_checkpoint"] = r.lastCheckpoint;
    d["interrupted"] = r.interrupted;
    d["signal"] = r.signal;
    d["restart_command"] = r.restartCommand;
    return d;
  }

  void close() {
    if (!session_) return;
    {
      py::gil_scoped_release release;
      session_->close();
    }
    closed_.emplace(Closed{session_->outputDir(), session_->framesPath(), session_->stepsDone(),
                           session_->totalSteps(), session_->time()});
    session_.reset();
  }

  // Named arrays of the module's state on this rank (run::StateArrays): float64 or int64, shape
  // (rows,) or (rows, components).
  py::dict state() {
    Session& s = live(session_);
    run::StateArrays arrays;
    {
      py::gil_scoped_release release;
      s.module().exportState(arrays);
    }
    py::dict d;
    for (const auto& [name, a] : arrays.arrays()) {
      const py::ssize_t size = static_cast<py::ssize_t>(a.integer ? a.ints.size() : a.real.size());
      std::vector<py::ssize_t> shape{size};
      if (a.components > 1) shape = {size / a.components, a.components};
      if (a.integer) {
        py::array_t<std::int64_t> arr(shape);
        std::copy(a.ints.begin(), a.ints.end(), arr.mutable_data());
        d[py::str(name)] = arr;
      } else {
        d[py::str(name)] = toArray(a.real.data(), shape);
      }
    }
    return d;
  }

  py::dict diagnostics() const {
    const io::Diagnostics& diag = live(session_).diagnostics();
    py::dict d;
    const auto& rows = diag.rows();
    for (std::size_t c = 0; c < diag.columns().size(); ++c) {
      py::array_t<double> col(static_cast<py::ssize_t>(rows.size()));
      for (std::size_t r = 0; r < rows.size(); ++r) col.mutable_at(static_cast<py::ssize_t>(r)) = rows[r][c];
      d[py::str(diag.columns()[c])] = col;
    }
    return d;
  }

  std::string framesPath() {
    if (closed_) return closed_->framesPath;
    Session& s = live(session_);
    s.flushFrames();
    return s.framesPath();
  }

  double time() const { return closed_ ? closed_->time : live(session_).time(); }
  long stepsDone() const { return closed_ ? closed_->steps : live(session_).stepsDone(); }
  long totalSteps() const { return closed_ ? closed_->total : live(session_).totalSteps(); }
  std::string outputDir() const { return closed_ ? closed_->output : live(session_).outputDir(); }
  bool done() const { return closed_ ? true : live(session_).done(); }
  bool finished() const { return !session_ || session_->finished(); }
  bool stopped() const { return session_ && session_->stopped(); }
  std::string module() const { return live(session_).config().getString("module"); }
  std::string backend() const { return live(session_).backend().name(); }
  std::string resolvedConfig() const { return live(session_).config().resolvedYaml(); }
  std::string summary() const { return live(session_).module().summary(); }

 private:
  struct Closed {
    std::string output, framesPath;
    long steps, total;
    double time;
  };
  std::unique_ptr<Session> session_;
  std::optional<Closed> closed_;
};

}  // namespace

void bindSimulation(py::module_& m) {
  py::class_<PySimulation>(m, "_Simulation")
      .def(py::init<const std::optional<std::string>&, const std::optional<std::string>&, const std::string&,
                    const std::vector<std::string>&, const std::optional<std::string>&,
                    const std::optional<std::string>&, const std::optional<std::string>&, bool>(),
           py::arg("path"), py::arg("text"), py::arg("source_name"), py::arg("sets"), py::arg("backend"),
           py::arg("output"), py::arg("restart"), py::arg("overwrite"))
      .def("step", &PySimulation::step, py::arg("n") = 1)
      .def("run", &PySimulation::run)
      .def("finish", &PySimulation::finishRun)
      .def("close", &PySimulation::close)
      .def("state", &PySimulation::state)
      .def("diagnostics", &PySimulation::diagnostics)
      .def("frames_path", &PySimulation::framesPath)
      .def_property_readonly("time", &PySimulation::time)
      .def_property_readonly("steps_done", &PySimulation::stepsDone)
      .def_property_readonly("total_steps", &PySimulation::totalSteps)
      .def_property_readonly("output", &PySimulation::outputDir)
      .def_property_readonly("done", &PySimulation::done)
      .def_property_readonly("finished", &PySimulation::finished)
      .def_property_readonly("stopped", &PySimulation::stopped)
      .def_property_readonly("module", &PySimulation::module)
      .def_property_readonly("backend", &PySimulation::backend)
      .def_property_readonly("resolved_config", &PySimulation::resolvedConfig)
      .def("summary", &PySimulation::summary);
}

}  // namespace kinema::python

#!/usr/bin/env bash
# ctest install_examples (tests/install/CMakeLists.txt): installs this build into a temporary prefix
# and uses it as an outside project would (docs/installing.md):
#   1. the installed tree: headers, generated version.hpp, libraries, CLI, CMake package, kinema.pc;
#      the CLI runs without LD_LIBRARY_PATH and loads Kinema's libraries from the prefix only
#   2. pkg-config --cflags --libs kinema compiles and links tests/install/pkgconfig_check.cpp
#   3. docs/examples/mprgp_box and docs/examples/heat1d configured with find_package(Kinema) against
#      the prefix (CMAKE_PREFIX_PATH) and built
#   4. mprgp_box's own checks pass (eigen and petsc backends)
#   5. the installed `kinema list` with KINEMA_PLUGIN_PATH shows the heat1d plugin and its path,
#      `kinema help heat1d` its parameters; the example's own ctest runs its scene (Kinema::cli)
#   6. the installed `kinema run` runs the plugin's scene: completed, frames, diagnostics,
#      checkpoints; a run stopped by a failure restarts from its checkpoint to the same last row
# Every check that cannot be made fails the test. Files are removed on success, kept on failure.
# usage: install_examples.sh SOURCE_DIR BUILD_DIR WORK_DIR CMAKE CXX GENERATOR
set -euo pipefail
src=$1 build=$2 work=$3 cmake=$4 cxx=$5 gen=$6 python=${7:?the Python the bindings were built for}
unset LD_LIBRARY_PATH KINEMA_PLUGIN_PATH
mkdir -p "$work"
tmp=$(mktemp -d "$work/run.XXXXXX")
prefix=$tmp/prefix
fail() {
  echo "install_examples: FAILED: $*" >&2
  echo "install_examples: files kept in $tmp" >&2
  exit 1
}
step() { echo "== $(date +%T) $*"; }
need_file() { [ -f "$prefix/$1" ] || fail "not installed: $prefix/$1"; }
# Column `name` of the last row of a diagnostics.csv.
last_value() {
  awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == name) c = i; next }
                        { v = $c } END { if (!c) exit 1; print v }' "$1"
}

step "cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" > "$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
for f in include/kinema/framework/core/config.hpp include/kinema/framework/core/version.hpp \
         include/kinema/framework/solvers/mprgp.hpp include/kinema/modules/poisson/poisson_module.hpp include/kinema/apps/builtins.hpp \
         lib/libkinema_framework.so lib/libkinema_all.so lib/libkinema_module_poisson.so \
         lib/libkinema_backend_eigen.so bin/kinema \
         lib/cmake/Kinema/KinemaConfig.cmake lib/cmake/Kinema/KinemaConfigVersion.cmake \
         lib/cmake/Kinema/KinemaTargets.cmake lib/cmake/Kinema/KinemaFunctions.cmake \
         lib/pkgconfig/kinema.pc share/kinema/modules/poisson/scenes/demo.yaml; do
  need_file "$f"
done
version=$(sed -n 's/^#define KINEMA_VERSION_STRING "\(.*\)"$/\1/p' "$prefix/include/kinema/framework/core/version.hpp")
[ -n "$version" ] || fail "no KINEMA_VERSION_STRING in the installed version.hpp"

step "installed binaries: RPATH and libraries"
for f in "$prefix"/bin/kinema "$prefix"/lib/libkinema_*.so; do
  if readelf -d "$f" | grep -E 'RPATH|RUNPATH' | grep -qF "$build"; then
    fail "$f has an RPATH into the build tree: $(readelf -d "$f" | grep -E 'RPATH|RUNPATH')"
  fi
done
readelf -d "$prefix/bin/kinema" | grep -E 'RUNPATH|RPATH' | grep -qF '$ORIGIN/../lib' ||
  fail "bin/kinema has no \$ORIGIN/../lib RPATH"
ldd "$prefix/bin/kinema" > "$tmp/ldd.txt"
if grep -q 'not found' "$tmp/ldd.txt"; then cat "$tmp/ldd.txt"; fail "bin/kinema: libraries not found"; fi
grep 'libkinema' "$tmp/ldd.txt" | grep -vF "=> $prefix/" && fail "bin/kinema loads a Kinema library from outside the prefix"
grep -q 'libkinema_framework' "$tmp/ldd.txt" || fail "bin/kinema does not load libkinema_framework.so"
out=$("$prefix/bin/kinema" --version) || fail "installed kinema --version"
[ "$out" = "kinema $version" ] || fail "kinema --version printed '$out', expected 'kinema $version'"

step "pkg-config --cflags --libs kinema"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[ "$(pkg-config --modversion kinema)" = "$version" ] || fail "pkg-config --modversion kinema"
flags=$(pkg-config --cflags --libs kinema) || fail "pkg-config --cflags --libs kinema"
echo "$flags"
# shellcheck disable=SC2086
"$cxx" -O0 "$src/tests/install/pkgconfig_check.cpp" -o "$tmp/pkgconfig_check" $flags ||
  fail "pkgconfig_check.cpp does not build with the pkg-config flags"
out=$("$tmp/pkgconfig_check") || fail "pkgconfig_check: $out"
echo "$out"
grep -q '^modules:.* poisson' <<< "$out" || fail "pkgconfig_check lists no poisson module"
unset PKG_CONFIG_PATH

for ex in mprgp_box heat1d; do
  step "configure and build docs/examples/$ex with find_package(Kinema)"
  "$cmake" -S "$src/docs/examples/$ex" -B "$tmp/$ex" -G "$gen" -DCMAKE_BUILD_TYPE=Release \
           -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/$ex.configure.log" 2>&1 ||
    { cat "$tmp/$ex.configure.log"; fail "configure docs/examples/$ex"; }
  grep -qx "Kinema_DIR:PATH=$prefix/lib/cmake/Kinema" "$tmp/$ex/CMakeCache.txt" ||
    fail "docs/examples/$ex found Kinema elsewhere: $(grep '^Kinema_DIR' "$tmp/$ex/CMakeCache.txt")"
  "$cmake" --build "$tmp/$ex" -j 2 > "$tmp/$ex.build.log" 2>&1 ||
    { cat "$tmp/$ex.build.log"; fail "build docs/examples/$ex"; }
  if grep -q 'warning:' "$tmp/$ex.build.log"; then cat "$tmp/$ex.build.log"; fail "docs/examples/$ex builds with warnings"; fi
done

for backend in eigen petsc; do
  step "mprgp_box $backend"
  "$tmp/mprgp_box/mprgp_box" "$backend" > "$tmp/mprgp_$backend.log" 2>&1 ||
    { cat "$tmp/mprgp_$backend.log"; fail "mprgp_box $backend: its checks failed"; }
  cat "$tmp/mprgp_$backend.log"
  grep -q '^all checks passed' "$tmp/mprgp_$backend.log" || fail "mprgp_box $backend did not report its checks"
done

plugin=$tmp/heat1d/libkinema_module_heat1d.so
[ -f "$plugin" ] || fail "the heat1d example built no $plugin"
nm -D --defined-only "$plugin" | grep -q ' kinema_plugin_register$' || fail "$plugin exports no kinema_plugin_register"
nm -D --defined-only "$plugin" | grep -q ' kinema_plugin_version$' || fail "$plugin exports no kinema_plugin_version"

step "kinema list with KINEMA_PLUGIN_PATH"
"$prefix/bin/kinema" list > "$tmp/list_plain.txt" 2>&1 || { cat "$tmp/list_plain.txt"; fail "kinema list"; }
grep -q 'heat1d' "$tmp/list_plain.txt" && fail "kinema list shows heat1d without a plugin path"
KINEMA_PLUGIN_PATH=$tmp/heat1d "$prefix/bin/kinema" list > "$tmp/list.txt" 2>&1 ||
  { cat "$tmp/list.txt"; fail "KINEMA_PLUGIN_PATH=$tmp/heat1d kinema list"; }
cat "$tmp/list.txt"
grep -q 'heat1d' "$tmp/list.txt" || fail "kinema list does not show the heat1d plugin"
real=$(realpath "$plugin")
grep 'heat1d' "$tmp/list.txt" | grep -qF "$real" || grep -qF "$real" "$tmp/list.txt" ||
  fail "kinema list does not show where heat1d came from ($real)"
grep -q 'poisson' "$tmp/list.txt" || fail "kinema list with a plugin lost the built-in poisson module"

KINEMA_PLUGIN_PATH=$plugin "$prefix/bin/kinema" help heat1d > "$tmp/help.txt" 2>&1 ||
  { cat "$tmp/help.txt"; fail "kinema help heat1d"; }
grep -q 'heat1d.dt' "$tmp/help.txt" || fail "kinema help heat1d does not show heat1d.dt"

step "ctest in the heat1d example (Kinema::cli runs its scene)"
(cd "$tmp/heat1d" && "$(dirname "$cmake")/ctest" --output-on-failure > "$tmp/heat1d.ctest.log" 2>&1) ||
  { cat "$tmp/heat1d.ctest.log"; fail "ctest of docs/examples/heat1d"; }
grep -q '^state: "completed"' "$tmp/heat1d/heat1d_out/status.yaml" || fail "heat1d ctest: run not completed"

scene=$src/docs/examples/heat1d/scenes/heat1d.yaml
steps=$(sed -n 's/^  steps: *\([0-9]*\).*/\1/p' "$scene")
step "kinema run $scene ($steps steps)"
cd "$tmp"
export KINEMA_PLUGIN_PATH=$plugin
"$prefix/bin/kinema" run "$scene" --output "$tmp/run_full" > "$tmp/run_full.log" 2>&1 ||
  { cat "$tmp/run_full.log"; fail "kinema run heat1d"; }
tail -n 5 "$tmp/run_full.log"
grep -q '^state: "completed"' "$tmp/run_full/status.yaml" || fail "run_full/status.yaml: not completed"
for f in frames.h5 frames.xdmf diagnostics.csv config.resolved.yaml; do
  [ -s "$tmp/run_full/$f" ] || fail "kinema run heat1d wrote no $f"
done
ls "$tmp"/run_full/checkpoints/checkpoint_*.h5 > /dev/null 2>&1 || fail "kinema run heat1d wrote no checkpoint"
rows=$(($(wc -l < "$tmp/run_full/diagnostics.csv") - 1))
[ "$rows" = "$steps" ] || fail "diagnostics.csv has $rows rows, expected $steps"
frames=$(grep -c '<Grid Name="frame_' "$tmp/run_full/frames.xdmf") || true
[ "$frames" -ge 4 ] || fail "frames.xdmf holds $frames frames, expected at least 4 (output.frame_every 10)"
solver_error=$(last_value "$tmp/run_full/diagnostics.csv" solver_error) || fail "no solver_error column"
awk -v e="$solver_error" 'BEGIN { exit !(e < 1e-8) }' ||
  fail "heat1d: |u - discrete closed form| = $solver_error after $steps steps (expected < 1e-8)"
echo "heat1d: last solver_error $solver_error"

step "kinema run stopped at step 25, restarted from its checkpoint"
"$prefix/bin/kinema" run "$scene" --output "$tmp/run_restart" --set run.fail_at_step=25 \
  > "$tmp/run_fail.log" 2>&1 && fail "run.fail_at_step=25 did not stop the run"
grep -q '^state: "failed"' "$tmp/run_restart/status.yaml" || fail "run_restart/status.yaml: not failed"
"$prefix/bin/kinema" run "$scene" --output "$tmp/run_restart" --restart latest > "$tmp/run_restart.log" 2>&1 ||
  { cat "$tmp/run_restart.log"; fail "kinema run heat1d --restart latest"; }
grep -q '^state: "completed"' "$tmp/run_restart/status.yaml" || fail "run_restart/status.yaml: not completed"
for col in step u_max solver_error error; do
  a=$(last_value "$tmp/run_full/diagnostics.csv" $col) b=$(last_value "$tmp/run_restart/diagnostics.csv" $col)
  [ "$a" = "$b" ] || fail "restarted run ends with $col = $b, the uninterrupted run with $a"
done
step "the installed Python package: import, the heat1d plugin scene, MPRGP"
env -u PYTHONPATH KINEMA_PLUGIN_PATH="$plugin" PYTHONPATH="$prefix/lib/python3/dist-packages" \
  "$python" - "$scene" "$tmp/run_py" "$prefix" > "$tmp/python.log" 2>&1 <<'PY' || { cat "$tmp/python.log"; fail "installed python package"; }
import sys, os
import numpy as np
import kinema
prefix_pkg = os.path.realpath(os.path.dirname(kinema.__file__))
assert prefix_pkg.startswith(os.path.realpath(sys.argv[3]) + "/"), prefix_pkg  # the installed copy, not build/python
sim = kinema.Simulation(sys.argv[1], output=sys.argv[2])
sim.run()
d = sim.diagnostics()
assert d["solver_error"][-1] < 1e-8, d["solver_error"][-1]
a = np.array([2.0, 4.0, 1.0]); b = np.array([1.0, -8.0, 5.0])
r = kinema.mprgp(np.diag(a), b, lower=np.array([0.0, -1.0, 0.0]), upper=np.array([1.0, 1.0, 2.0]))
assert r["converged"] and np.allclose(r["x"], np.clip(b / a, [0, -1, 0], [1, 1, 2]), atol=1e-10)
print("python: ok from", prefix_pkg)
PY
cat "$tmp/python.log"

cd /
rm -rf "$tmp"
echo "install_examples: passed"

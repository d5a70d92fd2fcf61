// Plugins (framework/core/plugins.hpp): a module built out of the built-ins with
// kinema_add_module(plugin_demo PLUGIN ...) is loaded from a file, a directory, KINEMA_PLUGIN_PATH,
// --plugin-path (before or after the command) and a scene's run.plugin_path; the registry records
// the file it came from and `kinema list` shows it; it runs a scene that writes frames and
// checkpoints. Every way of getting it wrong is an InputError naming the file and the reason.
//
// The in-process tests share one registry: the error cases come first and register nothing; the
// demo plugin is loaded into this process by the last of them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "apps/kinema_cli.hpp"
#include "framework/core/error.hpp"
#include "framework/core/plugins.hpp"
#include "framework/core/registry.hpp"
#include "framework/core/version.hpp"
#include "framework/la/backend.hpp"
#include "framework/run/module.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using namespace kinema_cli;
using kinema::test::messageOf;
using kinema::test::scratchDir;

namespace {

std::string loadError(const std::string& path) {
  return messageOf<kinema::InputError>([&] { kinema::plugins::loadPath(path, "the test's path"); });
}

std::string absoluteDir(const std::string& name) { return fs::absolute(scratchDir(name)).lexically_normal().string(); }

// A directory holding a copy of the demo plugin (a directory entry of a plugin path).
std::string demoPluginDir(const std::string& name) {
  const std::string dir = absoluteDir(name);
  fs::copy_file(PLUGIN_DEMO, dir + "/libkinema_module_plugin_demo.so");
  return dir;
}

const char* kDemoScene = "module: plugin_demo\nplugin_demo: {steps: 2, speed: 0.5}\n";

}  // namespace

TEST(PluginErrors, MissingFile) {
  const std::string msg = loadError("/nonexistent/libkinema_module_nothing.so");
  EXPECT_TRUE(has(msg, "the test's path: plugin /nonexistent/libkinema_module_nothing.so: no such file or directory"))
      << msg;
}

TEST(PluginErrors, DirectoryWithoutPlugins) {
  const std::string dir = absoluteDir("plugins_empty");
  std::string msg = loadError(dir);
  EXPECT_TRUE(has(msg, "plugin directory " + dir + " holds no plugin")) << msg;
  std::ofstream(dir + "/README.txt") << "not a library\n";
  std::ofstream(dir + "/libother.so") << "not a Kinema library name\n";
  msg = loadError(dir);
  EXPECT_TRUE(has(msg, "holds no plugin (no libkinema_module_*.so or libkinema_backend_*.so)")) << msg;
}

TEST(PluginErrors, NotALibrary) {
  const std::string dir = absoluteDir("plugins_text");
  std::ofstream(dir + "/libkinema_module_text.so") << "just text\n";
  const std::string msg = loadError(dir);
  // dlerror's own words follow ("invalid ELF header", "file too short", depending on glibc).
  EXPECT_TRUE(has(msg, "plugin " + dir + "/libkinema_module_text.so: cannot be loaded: ")) << msg;
}

TEST(PluginErrors, SharedLibraryWithoutEntryPoints) {
  const std::string msg = loadError(NOT_A_PLUGIN);
  EXPECT_TRUE(has(msg, std::string("plugin ") + NOT_A_PLUGIN + ": not a Kinema plugin")) << msg;
  EXPECT_TRUE(has(msg, "does not export kinema_plugin_version()")) << msg;
  EXPECT_TRUE(has(msg, "kinema_add_module(<name> PLUGIN ...)")) << msg;
}

TEST(PluginErrors, VersionMismatch) {
  // Its kinema_plugin_register() aborts: the version check must refuse it before that.
  const std::string msg = loadError(OLD_PLUGIN);
  EXPECT_TRUE(has(msg, std::string("plugin ") + OLD_PLUGIN + ": built against Kinema 0.0.0, but this is Kinema " +
                           KINEMA_VERSION_STRING))
      << msg;
}

TEST(PluginErrors, BuiltinLibraries) {
  // The build's lib/ holds the built-in modules and backends, which this process is linked with:
  // scanning it loads nothing and is no error; naming one of them is (it is not a plugin).
  const fs::path lib = fs::path(kinemaBin()).parent_path().parent_path() / "lib";
  const std::string poisson = (lib / "libkinema_module_poisson.so").string();
  ASSERT_TRUE(fs::exists(poisson)) << poisson;
  for (const std::string& f : kinema::plugins::loadPath(lib.string(), "test"))
    EXPECT_FALSE(has(f, "poisson") || has(f, "eigen")) << f << " loaded again as a plugin";
  const std::string msg = loadError(poisson);
  EXPECT_TRUE(has(msg, "not a Kinema plugin: it is a library this program is already linked with")) << msg;
  EXPECT_EQ(kinema::run::modules().origin("poisson"), "built-in");
  EXPECT_EQ(kinema::la::backends().origin("eigen"), "built-in");
}

TEST(PluginErrors, NameOfABuiltin) {
  const std::string msg = loadError(PLUGIN_CLASH);
  EXPECT_TRUE(has(msg, std::string("module 'poisson' registered by ") + PLUGIN_CLASH +
                           " is already registered (built-in)"))
      << msg;
  EXPECT_TRUE(has(msg, "while registering plugin")) << msg;
  // The built-in stays, and what is registered later is built-in again.
  EXPECT_EQ(kinema::run::modules().origin("poisson"), "built-in");
  EXPECT_EQ(kinema::registrationOrigin(), "built-in");
  // Loaded once: a second attempt does not register (and clash) again.
  EXPECT_TRUE(kinema::plugins::loadPath(PLUGIN_CLASH, "test").empty());
}

TEST(Plugins, LoadedOnceWithItsFileAsOrigin) {
  ASSERT_FALSE(kinema::run::modules().has("plugin_demo"));
  // Listed twice: loaded once, no error.
  const auto files = kinema::plugins::loadPath(std::string(PLUGIN_DEMO) + "::" + PLUGIN_DEMO, "test");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0], PLUGIN_DEMO);
  ASSERT_TRUE(kinema::run::modules().has("plugin_demo"));
  EXPECT_EQ(kinema::run::modules().origin("plugin_demo"), PLUGIN_DEMO);
  EXPECT_EQ(kinema::plugins::loaded().back(), PLUGIN_DEMO);
  // The same file through a link in a directory: the same file, so nothing happens.
  const std::string dir = absoluteDir("plugins_link");
  fs::create_symlink(PLUGIN_DEMO, dir + "/libkinema_module_plugin_demo.so");
  EXPECT_TRUE(kinema::plugins::loadPath(dir, "test").empty());
  EXPECT_EQ(kinema::run::modules().origin("plugin_demo"), PLUGIN_DEMO);
}

TEST(PluginsCli, ListShowsWhereEachCameFrom) {
  const std::string dir = demoPluginDir("plugins_list");
  const Result r = sh("KINEMA_PLUGIN_PATH=" + dir + " " + kinemaCmd("list"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r, "  plugin_demo  a point moving at constant speed; the test plugin of tests/plugins [plugin " +
                         dir + "/libkinema_module_plugin_demo.so]"))
      << r.output;
  EXPECT_TRUE(has(r, "[built-in]\n")) << r.output;
  EXPECT_TRUE(has(r, "[one rank] [built-in]")) << r.output;  // eigen
  // Without a plugin path, no plugin.
  const Result plain = sh("env -u KINEMA_PLUGIN_PATH " + kinemaCmd("list"));
  EXPECT_EQ(plain.status, 0) << plain.output;
  EXPECT_FALSE(has(plain, "plugin_demo")) << plain.output;
}

TEST(PluginsCli, OptionBeforeOrAfterTheCommand) {
  const std::string file = PLUGIN_DEMO;
  for (const std::string& args : {"--plugin-path " + file + " list", "list --plugin-path=" + file,
                                  "help plugin_demo --plugin-path " + file,
                                  "--plugin-path " + file + " help plugin_demo"}) {
    const Result r = sh(kinemaCmd(args));
    EXPECT_EQ(r.status, 0) << args << "\n" << r.output;
    EXPECT_TRUE(has(r, "plugin_demo")) << args << "\n" << r.output;
  }
  const Result help = sh(kinemaCmd("help plugin_demo.speed --plugin-path " + file));
  EXPECT_TRUE(has(help, "distance the point moves per step")) << help.output;
}

TEST(PluginsCli, RunsASceneWithFramesAndCheckpoints) {
  const std::string dir = absoluteDir("plugins_run");
  const std::string scene = writeScene(dir, "demo.yaml", kDemoScene);
  const Result r = sh(kinemaCmd("run " + scene + " --plugin-path " + PLUGIN_DEMO + " --output " + dir +
                                "/out --set run.checkpoint_every=1"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r, "plugin_demo: x = 1 after 2 steps")) << r.output;
  for (const char* f : {"frames.h5", "frames.xdmf", "diagnostics.csv", "checkpoints/checkpoint_000002.h5"})
    EXPECT_TRUE(fs::exists(dir + "/out/" + f)) << f << "\n" << r.output;
  EXPECT_EQ(kinema::test::csvColumn(dir + "/out", "x"), (std::vector<double>{0.5, 1.0}));
  // Without the plugin the module is unknown, named as such.
  const Result missing = sh("env -u KINEMA_PLUGIN_PATH " + kinemaCmd("check " + scene));
  EXPECT_EQ(missing.status, 2) << missing.output;
  EXPECT_TRUE(has(missing, "unknown module 'plugin_demo'")) << missing.output;
}

// The restart command of a failed run names the plugin file, so that it works from a shell that
// has neither --plugin-path nor KINEMA_PLUGIN_PATH.
TEST(PluginsCli, RestartCommandNamesThePlugin) {
  const std::string dir = absoluteDir("plugins_restart");
  const std::string scene = writeScene(dir, "demo.yaml", "module: plugin_demo\nplugin_demo: {steps: 4, speed: 0.5}\n");
  const std::string plugin = fs::canonical(PLUGIN_DEMO).string();
  const Result r = sh("env -u KINEMA_PLUGIN_PATH " + kinemaCmd("run " + scene + " --plugin-path " + PLUGIN_DEMO +
                                                               " --output " + dir + "/out --set run.checkpoint_every=1"
                                                               " --set run.fail_at_step=3"));
  ASSERT_EQ(r.status, 1) << r.output;
  const std::string command = readStatus(dir + "/out")["restart"];
  EXPECT_NE(command.find("--plugin-path " + plugin), std::string::npos) << command;
  const Result again = sh("env -u KINEMA_PLUGIN_PATH " + command);
  ASSERT_EQ(again.status, 0) << command << "\n" << again.output;
  EXPECT_EQ(kinema::test::csvColumn(dir + "/out", "x"), (std::vector<double>{0.5, 1.0, 1.5, 2.0}));
}

#ifdef KINEMA_MPIEXEC
TEST(PluginsCli, EveryRankLoadsIt) {
  if (std::string(KINEMA_MPIEXEC).empty()) GTEST_SKIP() << "no mpiexec";
  const std::string dir = absoluteDir("plugins_mpi");
  const std::string scene = writeScene(dir, "demo.yaml", kDemoScene);
  const Result r = sh(cleanEnv() + "KINEMA_PLUGIN_PATH=" + PLUGIN_DEMO + " " + mpiexec(2) +
                      kinemaCmd("run " + scene + " --output " + dir + "/out"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(kinema::test::csvColumn(dir + "/out", "x"), (std::vector<double>{0.5, 1.0}));
}
#endif

TEST(PluginsCli, SceneKeyRelativeToTheScene) {
  const std::string dir = demoPluginDir("plugins_scene");
  fs::create_directories(dir + "/scenes");
  const std::string scene =
      writeScene(dir + "/scenes", "demo.yaml", std::string(kDemoScene) + "run: {plugin_path: ..}\n");
  const Result r = sh(kinemaCmd("check " + scene));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r, "OK (module plugin_demo")) << r.output;
  const std::string bad =
      writeScene(dir + "/scenes", "bad.yaml", std::string(kDemoScene) + "run: {plugin_path: nowhere}\n");
  const Result b = sh(kinemaCmd("check " + bad));
  EXPECT_EQ(b.status, 2) << b.output;
  EXPECT_TRUE(has(b, bad + ":3: run.plugin_path: plugin " + dir + "/scenes/nowhere: no such file or directory"))
      << b.output;
}

TEST(PluginsCli, ErrorsEndWithStatus2) {
  Result r = sh(kinemaCmd("--plugin-path /nonexistent.so list"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r, "--plugin-path: plugin /nonexistent.so: no such file or directory")) << r.output;
  r = sh("KINEMA_PLUGIN_PATH=" + std::string(PLUGIN_CLASH) + " " + kinemaCmd("list"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r, "module 'poisson' registered by " + std::string(PLUGIN_CLASH))) << r.output;
  EXPECT_TRUE(has(r, "(from KINEMA_PLUGIN_PATH)")) << r.output;
  r = sh(kinemaCmd("list --plugin-path"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r, "--plugin-path needs a value")) << r.output;
}

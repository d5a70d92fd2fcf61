// The kinema commands of README.md and docs/ work word for word: every `kinema run` or `kinema
// check` command line (in a code block, or an inline code span of the prose) that names a scene of
// the repository (a path with a directory) is run as `kinema check` with the same arguments from the
// source tree, which reads the scene, applies every --set, --backend and --output and makes the
// backend, but runs nothing. A command naming a missing scene, an unknown key or a bad value fails
// here. A bare file name (`kinema run scene.yaml`, `SCENE.yaml`) stands for the reader's own scene
// and is not checked (the test lists these), nor are commands that only name a placeholder
// (`kinema run ...`) or that prose leads into ("restart with: kinema run ...").
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "kinema_cli.hpp"

namespace fs = std::filesystem;

namespace {

using namespace kinema_cli;

struct Command {
  std::string where;  // file:line
  std::string text;   // the command as written
};

std::vector<std::string> docFiles() {
  const fs::path root = KINEMA_SOURCE_DIR;
  std::vector<std::string> files{(root / "README.md").string()};
  for (const auto& e : fs::recursive_directory_iterator(root / "docs"))
    if (e.is_regular_file() && e.path().extension() == ".md") files.push_back(e.path().string());
  std::sort(files.begin() + 1, files.end());
  return files;
}

std::string relative(const std::string& path) {
  return fs::relative(path, KINEMA_SOURCE_DIR).string();
}

// Command lines of a markdown file: the lines of fenced code blocks (continued with a trailing
// backslash), and the inline code spans of the prose, that mention `kinema run` or `kinema check`.
std::vector<Command> extract(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const std::regex mention(R"((^|[\s/])kinema\s+(run|check)\s)");
  std::vector<Command> out;
  bool fenced = false;
  std::string prose;  // the current paragraph, for code spans that wrap over lines
  std::size_t proseLine = 0;
  auto flushProse = [&] {
    const std::regex span("`([^`]+)`");
    for (auto it = std::sregex_iterator(prose.begin(), prose.end(), span); it != std::sregex_iterator(); ++it) {
      const std::string code = (*it)[1];
      if (std::regex_search(code, mention)) out.push_back({relative(path) + ":" + std::to_string(proseLine), code});
    }
    prose.clear();
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const std::size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line.compare(first, 3, "```") == 0) {
      flushProse();
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      std::string text = line;
      const std::size_t at = i + 1;
      while (!text.empty() && text.back() == '\\' && i + 1 < lines.size()) {
        text.pop_back();
        text += " " + lines[++i];
      }
      if (std::regex_search(text, mention)) out.push_back({relative(path) + ":" + std::to_string(at), text});
    } else if (line.find_first_not_of(" \t") == std::string::npos) {
      flushProse();
    } else {
      if (prose.empty()) proseLine = i + 1;
      prose += line + " ";
    }
  }
  flushProse();
  return out;
}

// Shell words, with single and double quotes grouping.
std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> w;
  std::string cur;
  bool have = false;
  char quote = 0;
  for (char c : s) {
    if (quote) {
      if (c == quote) quote = 0;
      else cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      have = true;
    } else if (c == ' ' || c == '\t') {
      if (have) w.push_back(cur);
      cur.clear();
      have = false;
    } else {
      cur += c;
      have = true;
    }
  }
  if (have) w.push_back(cur);
  return w;
}

std::string quoted(const std::string& w) {
  std::string q = "'";
  for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The scene paths of `scene`, with one {a,b,...} alternation expanded as the shell would.
std::vector<std::string> expandBraces(const std::string& scene) {
  const std::size_t open = scene.find('{'), close = scene.find('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return {scene};
  std::vector<std::string> out;
  std::stringstream alternatives(scene.substr(open + 1, close - open - 1));
  for (std::string a; std::getline(alternatives, a, ',');)
    out.push_back(scene.substr(0, open) + a + scene.substr(close + 1));
  return out;
}

// The `kinema check` command lines for one documented command: none if it is prose around a
// command, names no scene, or names the reader's own (a bare file name).
// The file under docs/examples/ whose path ends with `scene`, if `scene` is not a path from the
// repository's root: an out-of-tree example's scene (run from its own directory with its plugin,
// which tests/install/install_examples builds against an installed Kinema and runs).
std::string exampleScene(const std::string& scene) {
  namespace fs = std::filesystem;
  const fs::path root(KINEMA_SOURCE_DIR);
  if (fs::exists(root / scene)) return "";
  for (const auto& e : fs::recursive_directory_iterator(root / "docs/examples")) {
    const std::string p = e.path().generic_string();
    if (e.is_regular_file() && p.size() > scene.size() && p.compare(p.size() - scene.size(), scene.size(), scene) == 0 &&
        p[p.size() - scene.size() - 1] == '/')
      return fs::relative(e.path(), root).generic_string();
  }
  return "";
}

std::vector<std::string> checksFor(const std::string& text, std::string* example = nullptr) {
  std::vector<std::string> w = words(text);
  if (!w.empty() && w[0] == "$") w.erase(w.begin());  // a prompt
  std::size_t k = 0;
  while (k < w.size() && w[k] != "kinema" && !(w[k].size() > 7 && w[k].substr(w[k].size() - 7) == "/kinema")) ++k;
  if (k + 1 >= w.size() || (w[k + 1] != "run" && w[k + 1] != "check")) return {};
  if (k > 0 && w[0] != "mpiexec" && w[0] != "mpirun" && w[0] != "srun") return {};  // "... with: kinema run"
  std::vector<std::string> args;
  for (std::size_t i = k + 2; i < w.size(); ++i) {
    const std::string& a = w[i];
    if (a == "&" || a == "&&" || a == "|" || a == ";" || a[0] == '#' || a[0] == '>' || a.rfind("2>", 0) == 0) break;
    args.push_back(a);
  }
  std::string scene;
  std::size_t sceneAt = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--set" || args[i] == "--backend" || args[i] == "--output" || args[i] == "--restart") {
      ++i;
      continue;
    }
    if (args[i][0] != '-') {
      scene = args[i];
      sceneAt = i;
      break;
    }
  }
  if (scene.find('/') == std::string::npos || scene.find("...") != std::string::npos) return {};
  if (example) {
    *example = exampleScene(scene);
    if (!example->empty()) return {};
  }
  std::vector<std::string> out;
  for (const std::string& s : expandBraces(scene)) {
    std::string cmd = "cd ";
    cmd += quoted(KINEMA_SOURCE_DIR);
    cmd += " && ";
    cmd += quoted(kinemaBin());
    // --quick: the scene and its options; a documented command may continue an earlier one's
    // output (a restart, a strands file), which a full check would need to exist.
    cmd += " check --quick";
    for (std::size_t i = 0; i < args.size(); ++i) {
      cmd += ' ';
      cmd += quoted(i == sceneAt ? s : args[i]);
    }
    out.push_back(cmd);
  }
  return out;
}

TEST(DocsCommands, ExtractionFindsCommandsAndSkipsPlaceholders) {
  EXPECT_EQ(checksFor("build/bin/kinema run modules/x/scenes/a.yaml --set a.b=1 # note").size(), 1u);
  EXPECT_EQ(checksFor("mpiexec -n 4 kinema run modules/{a,b}/s.yaml --backend petsc &").size(), 2u);
  EXPECT_TRUE(checksFor("kinema run scene.yaml --backend petsc").empty());
  EXPECT_TRUE(checksFor("kinema run SCENE.yaml [--backend NAME]").empty());
  EXPECT_TRUE(checksFor("kinema run ...").empty());
  EXPECT_TRUE(checksFor("restart from the last checkpoint with: kinema run out/a/s.yaml").empty());
  const std::string c = checksFor("kinema run modules/m/s.yaml --set 'a.b=x y' --output /tmp/o")[0];
  EXPECT_NE(c.find(" check --quick 'modules/m/s.yaml' '--set' 'a.b=x y' '--output' '/tmp/o'"), std::string::npos) << c;
  // What the check catches: a scene that is not there, a key that does not exist.
  EXPECT_EQ(sh(checksFor("kinema run modules/poisson/scenes/missing.yaml")[0]).status, 2);
  EXPECT_EQ(sh(checksFor("kinema run modules/poisson/scenes/demo.yaml --set poisson.nn=4")[0]).status, 2);
  EXPECT_EQ(sh(checksFor("kinema run modules/poisson/scenes/demo.yaml --set poisson.n=4")[0]).status, 0);
}

TEST(DocsCommands, EveryDocumentedCommandChecks) {
  std::size_t checked = 0;
  for (const std::string& file : docFiles()) {
    for (const Command& c : extract(file)) {
      std::string example;
      const std::vector<std::string> checks = checksFor(c.text, &example);
      if (!example.empty()) {
        // Run by install_examples with the example's plugin; the scene must be the one it runs.
        std::printf("checked by tests/install (out-of-tree example %s): %s: %s\n", example.c_str(), c.where.c_str(),
                    c.text.c_str());
        EXPECT_NE(readFile(std::string(KINEMA_SOURCE_DIR) + "/tests/install/install_examples.sh")
                      .find(std::filesystem::path(example).filename().string()),
                  std::string::npos)
            << c.where << ": " << example << " is not run by tests/install/install_examples.sh";
        continue;
      }
      if (checks.empty() && c.text.find(".yaml") != std::string::npos)
        std::printf("not checked (no scene of the repository named): %s: %s\n", c.where.c_str(), c.text.c_str());
      for (const std::string& cmd : checks) {
        const Result r = sh(cmd);
        ++checked;
        EXPECT_EQ(r.status, 0) << c.where << ": `" << c.text << "` does not check:\n" << r.output;
      }
    }
  }
  // README.md alone documents several; a count near zero means the extraction broke.
  EXPECT_GE(checked, 10u);
  std::printf("checked %zu documented commands\n", checked);
}

}  // namespace

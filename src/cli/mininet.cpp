// `flowlab mininet SCRIPT.py [ARGS...]`: a Mininet script run unchanged on flowlab's
// lab. Debian's python3 runs the script with python/mininet_api first on its
// path, so `import mininet.net` finds flowlab's Mininet API (docs/MININET.md),
// and FLOWLAB_BIN naming this binary, which the API calls for `lab up`/`lab down`.
// The script's terminal, exit code and signals are its own: this process becomes
// the interpreter (execv).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "lab/generate/custom_topo.h"
#include "lab/host/process.h"

namespace flowlab::cli {

int run_mininet(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::fputs(
        "usage: flowlab mininet SCRIPT.py [ARGS...]\n"
        "Runs a Mininet script unchanged on flowlab's lab (needs root): mininet.net.Mininet,\n"
        "mininet.topo, mininet.node, mininet.link, mininet.cli, mininet.log and mininet.util are\n"
        "flowlab's (docs/MININET.md). $FLOWLAB_PYTHON names the interpreter (/usr/bin/python3).\n",
        argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string script = argv[1];
  if (access(script.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "flowlab mininet: error: cannot read %s\n", script.c_str());
    return 2;
  }
  auto exporter = lab::custom_topo_exporter();  // python/ of this flowlab
  if (!exporter) {
    std::fprintf(stderr, "flowlab mininet: error: %s\n", exporter.error().message.c_str());
    return 2;
  }
  const std::string api = (std::filesystem::path(*exporter).parent_path() / "mininet_api").string();
  const char* old = std::getenv("PYTHONPATH");
  const std::string path = old && *old ? api + ":" + old : api;
  setenv("PYTHONPATH", path.c_str(), 1);
  setenv("FLOWLAB_BIN", lab::self_binary().c_str(), 1);
  const char* py = std::getenv("FLOWLAB_PYTHON");
  const std::string python = py && *py ? py : "/usr/bin/python3";
  std::vector<char*> args = {const_cast<char*>(python.c_str())};
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execv(python.c_str(), args.data());
  std::fprintf(stderr, "flowlab mininet: error: cannot run %s: %s\n", python.c_str(), std::strerror(errno));
  return 2;
}

}  // namespace flowlab::cli

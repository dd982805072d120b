// Finding and running python/flowlab_custom_topo.py (see custom_topo.h).
#include <filesystem>

#include "lab/generate/custom_topo.h"
#include "lab/host/process.h"

namespace flowlab::lab {

namespace {

constexpr const char* kExporter = "flowlab_custom_topo.py";

}  // namespace

Result<std::string> custom_topo_exporter() {
  namespace fs = std::filesystem;
  std::vector<fs::path> dirs;
  if (const char* d = std::getenv("FLOWLAB_PYTHON_DIR"); d && *d) dirs.emplace_back(d);
  fs::path bin = fs::path(self_binary()).parent_path();
  // build/test/flowlab -> python/ of the tree; bin/flowlab -> share/flowlab/python.
  for (const char* rel : {"../../python", "../python", "../share/flowlab/python", "python"})
    dirs.push_back(bin / rel);
#ifdef FLOWLAB_PYTHON_SOURCE_DIR
  dirs.emplace_back(FLOWLAB_PYTHON_SOURCE_DIR);
#endif
  std::string looked;
  for (const auto& d : dirs) {
    std::error_code ec;
    auto p = fs::weakly_canonical(d / kExporter, ec);
    if (!ec && fs::is_regular_file(p, ec)) return p.string();
    looked += (looked.empty() ? "" : ", ") + (d / kExporter).lexically_normal().string();
  }
  return fail("cannot find {} (looked in {}; set FLOWLAB_PYTHON_DIR)", kExporter, looked);
}

Result<CustomTopology> load_custom_topology(const std::string& files, const std::string& topo,
                                            const LinkDefaults& link, const IpBase& ipbase) {
  FLOWLAB_ASSIGN_OR_RETURN(auto exporter, custom_topo_exporter());
  const char* py = std::getenv("FLOWLAB_PYTHON");
  std::string python = py && *py ? py : "/usr/bin/python3";
  if (!have_program(python))
    return fail("{} is not installed (Debian's python3 runs --custom files)", python);
  // The custom file may print; only the last line of stdout is the exporter's JSON.
  auto r = run_command({python, exporter, files, topo}, with_timeout(120));
  if (r.timed_out) return fail("{} {} did not finish in 120 s", files, topo);
  if (r.interrupted) return fail("interrupted");
  std::string out = r.out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  auto nl = out.rfind('\n');
  std::string last = nl == std::string::npos ? out : out.substr(nl + 1);
  if (last.empty()) return fail("{} printed nothing ({})", exporter, r.describe());
  return decode_custom_topology(last, link, ipbase);
}

}  // namespace flowlab::lab

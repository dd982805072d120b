// Each machine's capture files, piece by piece over etcd (see capture_fetch.h).
#include "lab/machines/capture_fetch.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "lab/host/process.h"
#include "lab/machines/remote_exec.h"

namespace flowlab::lab {

namespace {

namespace fs = std::filesystem;

// File `name` of the machine behind `agent` into `path`; its size, or why not.
Result<uint64_t> fetch_file(AgentExec& agent, const std::string& name, const std::string& path,
                            uint64_t room) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return fail("cannot write {}", path);
  uint64_t got = 0;
  for (;;) {
    if (interrupted()) return fail("interrupted");
    auto piece = agent.fetch(name, got);
    if (!piece.ok()) return fail("{}", piece.error().message);
    if (got + piece->size() > room) {
      out.close();
      std::error_code ec;
      fs::remove(path, ec);
      return fail("not brought over: past the {} MB a case's captures may bring through etcd",
                  double(kCaptureShipCap) / 1e6);
    }
    out.write(piece->data(), std::streamsize(piece->size()));
    got += piece->size();
    if (piece->size() < kFetchPiece) break;
  }
  out.close();
  if (!out) return fail("writing {} failed", path);
  return got;
}

}  // namespace

nlohmann::json collect_captures(const std::map<std::string, std::shared_ptr<AgentExec>>& agents,
                                const std::string& dir, uint64_t cap) {
  nlohmann::json all = nlohmann::json::array();
  std::error_code ec;
  fs::create_directories(dir, ec);
  uint64_t brought = 0;
  for (const auto& [machine, agent] : agents) {
    auto rec = agent->finish_captures();
    if (!rec.ok()) {
      std::fprintf(stderr, "lab: capture on machine %s: %s\n", machine.c_str(), rec.error().message.c_str());
      all.push_back({{"machine", machine}, {"error", rec.error().message}});
      continue;
    }
    for (auto& l : *rec) {
      for (const char* k : {"previous_file", "file"}) {  // the older half first
        if (!l.contains(k) || !l[k].is_string()) continue;
        std::string name = l[k].get<std::string>();
        std::string path = dir + "/" + name;
        auto size = fetch_file(*agent, name, path, cap - brought);
        if (!size.ok()) {
          std::string why = fmt::format("{} of machine {}: {}", name, machine, size.error().message);
          std::fprintf(stderr, "lab: capture %s\n", why.c_str());
          l["error"] = l.contains("error") ? l["error"].get<std::string>() + "; " + why : why;
          l.erase(k);
          continue;
        }
        brought += *size;
        l[k] = path;
      }
      all.push_back(std::move(l));
    }
  }
  if (brought)
    std::fprintf(stderr, "lab: captures: %.3g MB brought from %zu machine(s) over etcd into %s\n",
                 double(brought) / 1e6, agents.size(), dir.c_str());
  return all;
}

}  // namespace flowlab::lab

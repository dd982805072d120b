// Each machine's records at the end of the tests, and its capture files piece
// by piece over etcd (see finish_parts.h).
#include "lab/machines/finish_parts.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

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
  std::error_code ec;
  for (;;) {
    auto piece = agent.fetch(name, got);
    if (!piece.ok()) {
      out.close();
      fs::remove(path, ec);
      return fail("{}", piece.error().message);
    }
    if (got + piece->size() > room) {
      out.close();
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

nlohmann::json finish_parts(const std::map<std::string, MachineFinish>& machines, bool captures,
                            const std::string& capture_dir, uint64_t cap) {
  nlohmann::json links = nlohmann::json::array(), all = nlohmann::json::array();
  std::error_code ec;
  if (captures) fs::create_directories(capture_dir, ec);
  uint64_t brought = 0;
  for (const auto& [machine, m] : machines) {
    auto part = m.agent->finish_part();
    if (!part.ok()) {
      std::fprintf(stderr, "lab: machine %s at the end of the tests: %s\n", machine.c_str(),
                   part.error().message.c_str());
      for (const auto& l : m.ready_links) links.push_back(l);
      if (captures) all.push_back({{"machine", machine}, {"error", part.error().message}});
      continue;
    }
    for (const auto& l : part->value("links", nlohmann::json::array())) links.push_back(l);
    if (!captures) continue;
    for (auto l : part->value("capture", nlohmann::json::array())) {
      for (const char* k : {"previous_file", "file"}) {  // the older half first
        if (!l.contains(k) || !l[k].is_string()) continue;
        std::string name = l[k].get<std::string>();
        std::string path = capture_dir + "/" + name;
        auto size = fetch_file(*m.agent, name, path, cap - brought);
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
                 double(brought) / 1e6, machines.size(), capture_dir.c_str());
  return {{"links", links}, {"capture", captures ? all : nlohmann::json()}};
}

}  // namespace flowlab::lab

// Each machine's records at the end of the tests, and its capture files piece
// by piece over etcd (see finish_parts.h).
#include "lab/machines/finish_parts.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "lab/machines/remote_exec.h"

namespace flowlab::lab {

namespace {

namespace fs = std::filesystem;

// File `name` of the machine behind `agent` into `path`; its size, or why not.
// kFetchesInFlight pieces are asked at once (each fetch is a few etcd round trips
// and the agent's read and put; one at a time, the round trips were the bound),
// each written at its offset; the first short piece is the file's end.
Result<uint64_t> fetch_file(AgentExec& agent, const std::string& name, const std::string& path,
                            uint64_t room) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail("cannot write {}: {}", path, std::strerror(errno));
  std::mutex mu;
  std::string error;          // the first failure, under mu
  uint64_t end = UINT64_MAX;  // the file's size once a short piece said it, under mu
  std::atomic<uint64_t> next{0};
  auto work = [&] {
    for (;;) {
      uint64_t offset = next.fetch_add(kFetchPiece);
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!error.empty() || offset >= end) return;
      }
      auto piece = agent.fetch(name, offset);
      std::lock_guard<std::mutex> lock(mu);
      if (!piece.ok()) {
        if (error.empty()) error = piece.error().message;
        return;
      }
      if (offset + piece->size() > room) {
        if (error.empty())
          error = fmt::format("not brought over: past the {} MB a case's captures may bring through etcd",
                              double(kCaptureShipCap) / 1e6);
        return;
      }
      if (::pwrite(fd, piece->data(), piece->size(), off_t(offset)) != ssize_t(piece->size())) {
        if (error.empty()) error = fmt::format("writing {}: {}", path, std::strerror(errno));
        return;
      }
      if (piece->size() < kFetchPiece) {
        end = std::min(end, offset + piece->size());
        return;
      }
    }
  };
  std::vector<std::thread> workers;
  for (int w = 0; w < kFetchesInFlight; ++w) workers.emplace_back(work);
  for (auto& w : workers) w.join();
  bool closed = ::close(fd) == 0;
  std::error_code ec;
  if (error.empty() && !closed) error = fmt::format("writing {} failed", path);
  if (error.empty() && end == UINT64_MAX) error = "the transfer ended before the file did";
  if (!error.empty()) {
    fs::remove(path, ec);
    return fail("{}", error);
  }
  return end;
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

// Per-run state files and `flowlab lab clean` (see run_state.h).
#include "lab/host/run_state.h"

#include <signal.h>
#include <sys/random.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "core/log.h"
#include "lab/host/netns.h"
#include "lab/host/process.h"

namespace flowlab::lab {

namespace fs = std::filesystem;

std::string state_root() {
  if (const char* e = std::getenv("FLOWLAB_STATE_DIR"); e && *e) return e;
  std::error_code ec;
  fs::create_directories("/run/flowlab", ec);
  if (!ec && access("/run/flowlab", W_OK) == 0) return "/run/flowlab";
  return "/tmp/flowlab-runs";
}

uint64_t process_start_time(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string s;
  if (!in || !std::getline(in, s)) return 0;
  // Field 2 (comm) may hold spaces; fields after the last ')' are plain.
  auto rp = s.rfind(')');
  if (rp == std::string::npos) return 0;
  std::istringstream rest(s.substr(rp + 2));
  std::string field;
  // A zombie (killed, not yet reaped by its new parent) counts as gone.
  if (rp + 2 < s.size() && (s[rp + 2] == 'Z' || s[rp + 2] == 'X')) return 0;
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  return 0;
}

Result<std::unique_ptr<RunState>> RunState::create(const std::string& scenario) {
  std::string root = state_root();
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) return fail("cannot create the state dir {}: {}", root, ec.message());
  static constexpr char kAlphabet[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  for (int attempt = 0; attempt < 50; ++attempt) {
    unsigned char rnd[5];
    if (getrandom(rnd, sizeof rnd, 0) != sizeof rnd) return fail("getrandom failed");
    std::string id;
    for (unsigned char b : rnd) id += kAlphabet[b % 36];
    std::string dir = root + "/" + id;
    if (!fs::create_directory(dir, ec) || ec) continue;  // taken: another run has this id
    std::unique_ptr<RunState> s(new RunState());         // private constructor
    s->id_ = id;
    s->dir_ = dir;
    s->scenario_ = scenario;
    s->save();
    return s;
  }
  return fail("could not allocate a run id in {}", root);
}

RunState::~RunState() {
  std::error_code ec;
  if (netns_.empty() && procs_.empty()) {
    fs::remove_all(dir_, ec);
    return;
  }
  // Something could not be removed: keep the record for `lab clean`. Writing
  // JSON may throw (allocation, I/O); a destructor must not.
  try {
    save();
  } catch (const std::exception& e) {
    log::warn("lab", "could not save run state {}: {}", dir_, e.what());
  }
}

void RunState::add_netns(const std::string& name) { add_netns(std::vector<std::string>{name}); }
void RunState::remove_netns(const std::string& name) { remove_netns(std::vector<std::string>{name}); }
void RunState::add_netns(const std::vector<std::string>& names) {
  std::lock_guard<std::mutex> lock(mu_);
  netns_.insert(netns_.end(), names.begin(), names.end());
  save();
}
void RunState::remove_netns(const std::vector<std::string>& names) {
  std::lock_guard<std::mutex> lock(mu_);
  std::set<std::string> gone(names.begin(), names.end());
  std::erase_if(netns_, [&](const std::string& n) { return gone.count(n) > 0; });
  save();
}
void RunState::add_process(pid_t pid, const std::string& label) {
  std::lock_guard<std::mutex> lock(mu_);
  procs_.push_back({pid, process_start_time(pid), label});
  save();
}
void RunState::remove_process(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(procs_, [&](const Proc& p) { return p.pid == pid; });
  save();
}

void RunState::save() const {
  nlohmann::json j;
  j["run_id"] = id_;
  j["scenario"] = scenario_;
  j["owner_pid"] = getpid();
  j["owner_start"] = process_start_time(getpid());
  j["netns"] = netns_;
  j["processes"] = nlohmann::json::array();
  for (const auto& p : procs_)
    j["processes"].push_back({{"pid", p.pid}, {"start", p.start}, {"label", p.label}});
  std::string tmp = dir_ + "/state.json.tmp";
  {
    std::ofstream out(tmp);
    out << j.dump(2) << "\n";
  }
  std::error_code ec;
  fs::rename(tmp, dir_ + "/state.json", ec);
}

namespace {

bool alive_with_start(pid_t pid, uint64_t start) {
  return pid > 0 && start != 0 && process_start_time(pid) == start;
}

// SIGTERM, then SIGKILL after 3 s; true when it ended on the SIGTERM.
bool stop_owner(pid_t pid, uint64_t start) {
  kill(pid, SIGTERM);
  for (int i = 0; i < 300; ++i) {
    if (!alive_with_start(pid, start)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  for (int i = 0; i < 100 && alive_with_start(pid, start); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return false;
}

}  // namespace

CleanReport clean_runs(bool force, const std::string& only_scenario) {
  CleanReport rep;
  std::string root = state_root();
  std::error_code ec;
  if (!fs::exists(root, ec)) return rep;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    auto state_path = entry.path() / "state.json";
    std::ifstream in(state_path);
    if (!in) continue;
    nlohmann::json j;
    try {
      in >> j;
    } catch (const nlohmann::json::exception&) {
      continue;  // half-written or foreign: not ours to judge
    }
    std::string id = j.value("run_id", entry.path().filename().string());
    if (!only_scenario.empty() && j.value("scenario", "") != only_scenario) continue;
    pid_t owner = j.value("owner_pid", 0);
    const uint64_t owner_start = j.value("owner_start", uint64_t(0));
    if (owner != getpid() && alive_with_start(owner, owner_start)) {
      if (!force) {
        rep.kept.push_back(fmt::format("run {} (lab pid {} is still running)", id, owner));
        continue;
      }
      // Forced: the lab's own process goes first (a `lab up` left behind would
      // otherwise hold on and rebuild nothing, but live on). SIGTERM lets it take
      // its lab down itself; what it has not removed after 3 s is removed below.
      rep.actions.push_back(stop_owner(owner, owner_start)
                                ? fmt::format("run {}: stopped its lab pid {}", id, owner)
                                : fmt::format("run {}: killed its lab pid {}", id, owner));
    }
    for (const auto& p : j.value("processes", nlohmann::json::array())) {
      pid_t pid = p.value("pid", 0);
      if (!alive_with_start(pid, p.value("start", uint64_t(0)))) continue;
      kill(-pid, SIGKILL);  // its process group (our children lead their own)
      kill(pid, SIGKILL);
      rep.actions.push_back(fmt::format("run {}: killed pid {} ({})", id, pid, p.value("label", "?")));
    }
    // Give killed processes a moment to release their namespaces.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (const auto& n : j.value("netns", nlohmann::json::array())) {
      auto name = n.get<std::string>();
      std::string err;
      // Its links between switches first, in one batch (netlink.h says why); a
      // namespace that is gone already fails to open, and has none.
      (void)delete_lab_links(name);
      if (!remove_netns_mount(name, &err)) continue;
      rep.actions.push_back(
          fmt::format("run {}: deleted netns {}{}", id, name, err.empty() ? "" : " (failed: " + err + ")"));
    }
    fs::remove_all(entry.path(), ec);
    rep.actions.push_back(fmt::format("run {}: removed {}", id, entry.path().string()));
  }
  return rep;
}

}  // namespace flowlab::lab

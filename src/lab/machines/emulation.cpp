// Emulated machines: the underlay bridge, an etcd of the lab's own, one agent each.
#include "lab/machines/emulation.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "coord/etcd_client.h"
#include "coord/loopback_port.h"
#include "core/clock.h"

namespace flowlab::lab {

namespace {

namespace fs = std::filesystem;

constexpr const char* kEtcd = "/usr/bin/etcd";

std::string underlay_address(int k) { return fmt::format("203.0.113.{}", k + 1); }

}  // namespace

Result<std::unique_ptr<EmulatedMachines>> EmulatedMachines::start(const EmulationOptions& opts) {
  if (opts.machines < 1 || opts.machines > 64) return fail("--machines must be 1-64 (got {})", opts.machines);
  if (geteuid() != 0) return fail("--machines needs root (network namespaces); try sudo");
  if (access(kEtcd, X_OK) != 0) return fail("--machines needs etcd ({}: apt install etcd-server)", kEtcd);
  install_signal_handlers();
  std::unique_ptr<EmulatedMachines> e(new EmulatedMachines());
  FLOWLAB_ASSIGN_OR_RETURN(e->state_, RunState::create("machines"));
  e->log_dir_ = opts.log_dir;
  FLOWLAB_TRY(e->start_etcd());
  FLOWLAB_TRY(e->make_underlay(opts));
  FLOWLAB_TRY(e->start_agents(opts.machines));
  return e;
}

Status EmulatedMachines::start_etcd() {
  char tmpl[] = "/dev/shm/flowlab-lab-etcd-XXXXXX";
  if (!fs::is_directory("/dev/shm")) std::strcpy(tmpl, "/tmp/flowlab-lab-etcd-XXXXXX");
  if (!mkdtemp(tmpl)) return fail("cannot make etcd's data dir: {}", std::strerror(errno));
  data_dir_ = tmpl;
  uint16_t cport = coord::free_loopback_port(), pport = coord::free_loopback_port();
  if (!cport || !pport || cport == pport) return fail("no free loopback port for etcd");
  etcd_ = fmt::format("http://127.0.0.1:{}", cport);
  std::string peer = fmt::format("http://127.0.0.1:{}", pport);
  std::vector<std::string> argv = {kEtcd,
                                   "--name",
                                   "lab",
                                   "--data-dir",
                                   data_dir_ + "/data",
                                   "--listen-client-urls",
                                   etcd_,
                                   "--advertise-client-urls",
                                   etcd_,
                                   "--listen-peer-urls",
                                   peer,
                                   "--initial-advertise-peer-urls",
                                   peer,
                                   "--initial-cluster",
                                   "lab=" + peer,
                                   "--initial-cluster-token",
                                   "flowlab-lab-" + state_->id(),
                                   "--logger",
                                   "zap"};
  FLOWLAB_ASSIGN_OR_RETURN(
      etcd_proc_, Process::spawn("etcd", argv, with_timeout(0), data_dir_ + "/etcd.log", state_.get()));
  FLOWLAB_ASSIGN_OR_RETURN(auto cfg, coord::parse_endpoints(etcd_));
  cfg.timeout = std::chrono::milliseconds(500);
  coord::EtcdClient client(cfg);
  for (uint64_t t0 = monotonic_ns(); double(monotonic_ns() - t0) / 1e9 < 20;) {
    if (client.get("/flowlab/lab/").ok()) {
      std::fprintf(stderr, "lab: etcd of the emulated machines at %s\n", etcd_.c_str());
      return ok_status();
    }
    if (!etcd_proc_.running()) return fail("etcd exited: {}", etcd_proc_.log_tail());
    if (!sleep_unless_interrupted(0.1)) return fail("interrupted");
  }
  return fail("etcd did not answer within 20 s: {}", etcd_proc_.log_tail());
}

Status EmulatedMachines::make_underlay(const EmulationOptions& opts) {
  std::string ul = fmt::format("fl{}-ul", state_->id());
  std::vector<std::string> names = {ul};
  for (int k = 0; k < opts.machines; ++k) names.push_back(fmt::format("fl{}-m{}", state_->id(), k));
  FLOWLAB_ASSIGN_OR_RETURN(namespaces_, create_namespaces(names, state_.get()));
  auto ip = [](const std::string& ns, std::vector<std::string> args) {
    args.insert(args.begin(), {"ip", "-n", ns});
    return run_checked(args, with_timeout(5));
  };
  FLOWLAB_TRY(ip(ul, {"link", "add", "br0", "type", "bridge"}));
  FLOWLAB_TRY(ip(ul, {"link", "set", "br0", "up"}));
  std::string mtu = std::to_string(opts.underlay_mtu);
  for (int k = 0; k < opts.machines; ++k) {
    const std::string& m = names[size_t(k) + 1];
    std::string port = fmt::format("m{}", k);
    FLOWLAB_TRY(ip(m, {"link", "add", "ul0", "mtu", mtu, "type", "veth", "peer", "name", port, "mtu", mtu,
                       "netns", ul}));
    FLOWLAB_TRY(ip(ul, {"link", "set", port, "master", "br0", "up"}));
    FLOWLAB_TRY(ip(m, {"addr", "add", underlay_address(k) + "/24", "dev", "ul0"}));
    FLOWLAB_TRY(ip(m, {"link", "set", "ul0", "up"}));
    if (opts.underlay_rate_bps > 0) {  // a NIC's rate, each way: a token bucket on both ends
      std::string rate = fmt::format("{:.0f}bit", opts.underlay_rate_bps);
      std::string burst = std::to_string(std::max(30000, int(opts.underlay_rate_bps / 8 / 250)));
      for (const auto& [ns, dev] : {std::pair{m, std::string("ul0")}, std::pair{ul, port}})
        FLOWLAB_TRY(run_checked({"tc", "-n", ns, "qdisc", "add", "dev", dev, "root", "tbf", "rate", rate,
                                 "burst", burst, "latency", "50ms"},
                                with_timeout(5)));
    }
  }
  std::fprintf(
      stderr, "lab: %d emulated machine(s) on an underlay bridge (%s, MTU %d%s)\n", opts.machines, ul.c_str(),
      opts.underlay_mtu,
      opts.underlay_rate_bps > 0 ? fmt::format(", {:.0f} Mbit/s", opts.underlay_rate_bps / 1e6).c_str() : "");
  return ok_status();
}

Status EmulatedMachines::start_agents(int n) {
  for (int k = 0; k < n; ++k) {
    std::string name = fmt::format("m{}", k);
    std::vector<std::string> argv = {self_binary(),
                                     "lab",
                                     "agent",
                                     "--etcd",
                                     etcd_,
                                     "--name",
                                     name,
                                     "--underlay",
                                     underlay_address(k),
                                     "--underlay-netns",
                                     fmt::format("fl{}-m{}", state_->id(), k)};
    FLOWLAB_ASSIGN_OR_RETURN(auto p, Process::spawn("agent " + name, argv, with_timeout(0),
                                                    data_dir_ + "/agent-" + name + ".log", state_.get()));
    agents_.push_back(std::move(p));
  }
  FLOWLAB_ASSIGN_OR_RETURN(auto cfg, coord::parse_endpoints(etcd_));
  coord::EtcdClient client(cfg);
  for (uint64_t t0 = monotonic_ns(); double(monotonic_ns() - t0) / 1e9 < 20;) {
    auto got = client.get_prefix("/flowlab/lab/agents/");
    if (got.ok() && got->kvs.size() >= size_t(n)) return ok_status();
    for (auto& a : agents_)
      if (!a.running()) return fail("{} exited: {}", a.label(), a.log_tail());
    if (!sleep_unless_interrupted(0.05)) return fail("interrupted");
  }
  return fail("the agents did not register within 20 s: {}", agent_logs());
}

std::string EmulatedMachines::agent_logs() const {
  std::string out;
  for (const auto& a : agents_) out += fmt::format("\n--- {} ---\n{}", a.label(), a.log_tail(800));
  return out;
}

EmulatedMachines::~EmulatedMachines() {
  for (auto& a : agents_) a.stop(30);  // each tears down what it still holds
  // What a killed agent left (its runs' state files name it), as its next life would.
  for (size_t k = 0; k < agents_.size(); ++k)
    for (const auto& act : clean_runs(false, fmt::format("agent-m{}", k)).actions)
      std::fprintf(stderr, "lab: machine m%zu: cleaned: %s\n", k, act.c_str());
  agents_.clear();
  etcd_proc_.stop();
  destroy_namespaces(namespaces_);
  std::error_code ec;
  if (!log_dir_.empty() && !data_dir_.empty()) {  // the logs outlive the machines
    fs::create_directories(log_dir_ + "/machines", ec);
    for (const auto& f : fs::directory_iterator(data_dir_, ec))
      if (f.path().extension() == ".log")
        fs::copy_file(f.path(), log_dir_ + "/machines/" + f.path().filename().string(),
                      fs::copy_options::overwrite_existing, ec);
  }
  if (!data_dir_.empty()) fs::remove_all(data_dir_, ec);
}

}  // namespace flowlab::lab

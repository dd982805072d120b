// The controller cluster's test network (root): a three-member etcd and three
// `flowlab controller --cluster` nodes in the core namespace of a FaultNet
// (tests/lab/fault_net.h), whose switch (dpid 1, ports to hosts h0..hN-1)
// connects to all three; more switches without ports can be added. Read from
// outside: each node's --stats-json and log, and `flowlab controller
// cluster-status --json`. Every process and namespace goes with the object.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coord_support/etcd_cluster.h"
#include "lab/fault_net.h"

namespace flowlab::cluster_test {

using lab::fault::eventually;
using lab::fault::FaultNet;
using lab::fault::read_file;
using namespace std::chrono_literals;

inline std::string missing_for_cluster_tests() {
  if (auto why = lab::fault::missing_for_fault_tests(); !why.empty()) return why;
  if (access(testing::kEtcdBinary, X_OK) != 0) return "needs etcd (Debian etcd-server)";
  return "";
}

class ClusterNet {
 public:
  static constexpr int kNodes = 3;

  ClusterNet(const std::string& tag, size_t hosts) : net_(tag, hosts) {
    if (!net_.ok()) return;
    etcd_ = std::make_unique<testing::EtcdCluster>(3, net_.core());
    ok_ = etcd_->wait_healthy();
    nodes_.resize(kNodes);
  }
  ~ClusterNet() {
    for (auto& s : extra_) s.stop();
    for (auto& n : nodes_) n.stop();
  }

  bool ok() const { return ok_; }
  FaultNet& net() { return net_; }
  testing::EtcdCluster& etcd() { return *etcd_; }

  static int port(int i) { return 6653 + i; }
  static std::string name(int i) { return "c" + std::to_string(i); }
  std::string log_path(int i) const { return net_.dir() + "/" + name(i) + ".log"; }
  std::string stats_path(int i) const { return net_.dir() + "/" + name(i) + "-stats.json"; }
  std::string node_log(int i) const { return read_file(log_path(i)); }

  bool start_node(int i, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {FLOWLAB_BINARY, "controller",
                                     "--listen",     fmt::format("ptcp:{}:127.0.0.1", port(i)),
                                     "--cluster",    etcd_->endpoints(),
                                     "--node",       name(i),
                                     "--peer",       "127.0.0.1:0",
                                     "--lease-ttl",  "1",
                                     "--stats-json", stats_path(i),
                                     "--app",        "learning-switch",
                                     "--log-level",  "info"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto p = lab::Process::spawn(name(i), argv, lab::in_ns(net_.core()), log_path(i), nullptr);
    if (!p.ok()) return false;
    nodes_[size_t(i)] = std::move(*p);
    return eventually([&] { return node_log(i).find("joined cluster") != std::string::npos; }, 20s);
  }
  bool running(int i) { return nodes_[size_t(i)].running(); }
  bool kill_node(int i) {
    auto& p = nodes_[size_t(i)];
    if (!p.running()) return false;
    ::kill(p.pid(), SIGKILL);
    p.stop();
    return true;
  }
  bool signal_node(int i, int sig) {
    auto& p = nodes_[size_t(i)];
    return p.running() && ::kill(p.pid(), sig) == 0;
  }

  // The switch with the hosts, connected to every node.
  bool start_switch() {
    std::vector<std::string> args = {"--reconnect-max", "1"};
    for (int i = 1; i < kNodes; ++i)
      args.insert(args.end(), {"--controller", fmt::format("tcp:127.0.0.1:{}", port(i))});
    net_.set_switch_args(args);
    return net_.start_switch();
  }
  // A switch without ports, dpid `dpid`, connected to every node.
  bool start_bare_switch(uint64_t dpid) {
    std::vector<std::string> argv = {
        FLOWLAB_BINARY,    "switch", "--name", fmt::format("s{}", dpid),    "--dpid", std::to_string(dpid),
        "--reconnect-max", "1",      "--port", fmt::format("tap:t{}", dpid)};
    for (int i = 0; i < kNodes; ++i)
      argv.insert(argv.end(), {"--controller", fmt::format("tcp:127.0.0.1:{}", port(i))});
    auto p = lab::Process::spawn(fmt::format("s{}", dpid), argv, lab::in_ns(net_.core()),
                                 net_.dir() + fmt::format("/s{}.log", dpid), nullptr);
    if (!p.ok()) return false;
    extra_.push_back(std::move(*p));
    return true;
  }

  nlohmann::json stats(int i) const {
    auto j = nlohmann::json::parse(read_file(stats_path(i)), nullptr, false);
    return j.is_object() ? j : nlohmann::json::object();
  }
  uint64_t masters(int i) const {
    auto j = stats(i);
    return j.contains("role") ? j["role"].value("switches_master", uint64_t(0)) : 0;
  }
  uint64_t connected(int i) const { return stats(i).value("switches_connected", uint64_t(0)); }

  // `flowlab controller cluster-status --json` in the core.
  nlohmann::json status() const {
    auto r = lab::run_command(
        {FLOWLAB_BINARY, "controller", "cluster-status", "--cluster", etcd_->endpoints(), "--json"},
        lab::in_ns(net_.core(), 10));
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    return r.ok() && j.is_object() ? j : nlohmann::json::object();
  }
  // The master of `dpid` and its generation id in cluster-status ("" if none).
  std::pair<std::string, int64_t> master_of(uint64_t dpid) const {
    auto j = status();
    for (const auto& s : j.value("switches", nlohmann::json::array()))
      if (s.value("dpid", "") == fmt::format("{:016x}", dpid) && s["master"].is_string())
        return {s["master"].get<std::string>(), s.value("generation_id", int64_t(0))};
    return {"", 0};
  }
  // The running node whose stats say it masters the host switch, or -1 (a
  // killed node's last --stats-json still says it was master).
  int master_node() {
    for (int i = 0; i < kNodes; ++i)
      if (running(i) && masters(i) == 1) return i;
    return -1;
  }

  std::string logs() const {
    std::string out = net_.logs();
    for (int i = 0; i < kNodes; ++i) out += "\n--- " + name(i) + ":\n" + FaultNet::tail(node_log(i));
    return out + "\n--- etcd:\n" + etcd_->log_tail();
  }

 private:
  FaultNet net_;
  std::unique_ptr<testing::EtcdCluster> etcd_;
  std::vector<lab::Process> nodes_;
  std::vector<lab::Process> extra_;
  bool ok_ = false;
};

}  // namespace flowlab::cluster_test

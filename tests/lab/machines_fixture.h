// The fixture of the lab-across-machines tests (machines_run_test.cpp,
// machines_agents_test.cpp): the test's own lab state, namespaces as machines on
// one veth, agents started as a user starts them, scenarios written to its dir.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "lab/host/process.h"
#include "lab_dir_test.h"

namespace flowlab::lab {

class LabMachines : public LabDirTest {
 protected:
  LabMachines() : LabDirTest("machines", {"ip", "ping", "iperf3", "/usr/bin/etcd"}, 60) {}

  static std::set<std::string> namespaces() {
    std::set<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator("/run/netns"))
      out.insert(e.path().filename().string());
    return out;
  }
  // What this test left: the namespaces made since `before` that are its own,
  // those it made by hand and those of the labs (`fl<ID>-...`) whose ids its
  // files (the runs' results and logs, the agents' logs) or `text` (a command's
  // output) name. Other labs on the box may come and go meanwhile.
  std::set<std::string> left_since(const std::set<std::string>& before, const std::string& text = {}) const {
    std::set<std::string> ids = lab_ids(text);
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir_, ec);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file(ec) || it->path().extension() == ".pcap" || it->file_size(ec) > (16u << 20))
        continue;
      auto more = lab_ids(slurp(it->path().string()));
      ids.insert(more.begin(), more.end());
    }
    std::set<std::string> left;
    for (const auto& ns : namespaces()) {
      if (before.count(ns)) continue;
      const size_t dash = ns.find('-');
      const bool of_our_lab =
          ns.rfind("fl", 0) == 0 && dash != std::string::npos && ids.count(ns.substr(2, dash - 2));
      if (of_our_lab || std::find(made_.begin(), made_.end(), ns) != made_.end()) left.insert(ns);
    }
    return left;
  }
  // The lab ids a text names: in namespace names (fl<ID>-) and as runs ("run ID", "run_id": "ID").
  static std::set<std::string> lab_ids(const std::string& text) {
    static const std::regex re(R"((?:\bfl|\brun |"run_id": ?")([a-z0-9]{5})\b)");
    std::set<std::string> ids;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
      ids.insert((*it)[1].str());
    return ids;
  }
  // The namespaces of run `id` (its nodes', its wires'), on every machine of one box.
  static std::set<std::string> of_run(const std::string& id) {
    std::set<std::string> left;
    for (const auto& ns : namespaces())
      if (ns.rfind("fl" + id + "-", 0) == 0) left.insert(ns);
    return left;
  }
  nlohmann::json results() const {
    std::ifstream in(out() + "/results.json");
    return in ? nlohmann::json::parse(in, nullptr, false) : nlohmann::json();
  }
  // Two "machines" for agents started by hand: namespaces NAMEa and NAMEb on
  // one veth (192.0.2.11 and .12), as two hosts on one wire.
  std::pair<std::string, std::string> two_machines(const std::string& prefix) {
    std::string tag = fmt::format("{}{}", prefix, getpid() % 100000);
    std::string ma = tag + "a", mb = tag + "b";
    made_.insert(made_.end(), {ma, mb});
    EXPECT_EQ(run_command({"ip", "netns", "add", ma}).exit_code, 0);
    EXPECT_EQ(run_command({"ip", "netns", "add", mb}).exit_code, 0);
    auto ip = [](const std::string& ns, std::vector<std::string> args) {
      args.insert(args.begin(), {"ip", "-n", ns});
      return run_command(args).exit_code;
    };
    EXPECT_EQ(ip(ma, {"link", "add", "ul0", "type", "veth", "peer", "name", "ul0", "netns", mb}), 0);
    EXPECT_EQ(ip(ma, {"addr", "add", "192.0.2.11/24", "dev", "ul0"}), 0);
    EXPECT_EQ(ip(mb, {"addr", "add", "192.0.2.12/24", "dev", "ul0"}), 0);
    EXPECT_EQ(ip(ma, {"link", "set", "ul0", "up"}), 0);
    EXPECT_EQ(ip(mb, {"link", "set", "ul0", "up"}), 0);
    return {ma, mb};
  }
  // Until each agent's log says it registered (at most 30 s); false if one did not.
  bool registered(const std::vector<std::string>& names) const {
    for (int i = 0; i < 600; ++i) {
      size_t n = 0;
      for (const auto& name : names)
        if (slurp((dir_ / (name + ".log")).string()).find("lab agent " + name + ": registered") !=
            std::string::npos)
          ++n;
      if (n == names.size()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  // Agents m0 and m1 on the two "machines", as on machines of their own: each in a
  // mount namespace whose /run/netns holds its underlay's file alone, so what it
  // builds is out of this process's sight. Empty if one did not start.
  // With `sealed` false they share this process's /run/netns; `mb_addr` is
  // m1's --underlay.
  std::vector<Process> sealed_agents(const std::string& etcd, const std::string& ma, const std::string& mb,
                                     bool sealed = true, const std::string& mb_addr = "192.0.2.12") {
    const char* seal =
        "set -e; d=\"$1\"; u=\"$2\"; shift 2; mkdir -p \"$d\"; mount --rbind /run/netns \"$d\"; "
        "mount -t tmpfs flowlab-test /run/netns; touch \"/run/netns/$u\"; mount --bind \"$d/$u\" "
        "\"/run/netns/$u\"; "
        "umount -l \"$d\"; exec \"$@\"";
    std::vector<Process> agents;
    for (auto [name, ns, addr] :
         {std::tuple{"m0", ma, std::string("192.0.2.11")}, std::tuple{"m1", mb, mb_addr}}) {
      std::vector<std::string> argv = {"unshare",
                                       "--mount",
                                       "--propagation",
                                       "private",
                                       "--",
                                       "sh",
                                       "-c",
                                       seal,
                                       "sh",
                                       (dir_ / (std::string("netns-") + name)).string(),
                                       ns};
      if (!sealed) argv.clear();
      argv.insert(argv.end(), {FLOWLAB_BINARY, "lab", "agent", "--etcd", etcd, "--name", name, "--underlay",
                               addr, "--underlay-netns", ns});
      auto a = Process::spawn(std::string("agent ") + name, argv, opts(0),
                              (dir_ / (std::string(name) + ".log")).string(), nullptr);
      EXPECT_TRUE(a.ok()) << a.error().message;
      if (!a.ok()) return {};
      agents.push_back(std::move(*a));
    }
    return agents;
  }
  // The end of a test with agents by hand: each stops cleanly (SIGTERM, exit 0),
  // the two "machines" go, and no namespace is left that was not there `before`.
  void stop_agents(std::vector<Process>& agents, const std::string& ma, const std::string& mb,
                   const std::set<std::string>& before) {
    for (auto& a : agents) {
      a.stop(20);
      EXPECT_EQ(a.exit_code(), 0) << a.log_tail();
    }
    run_command({"ip", "netns", "del", ma});
    run_command({"ip", "netns", "del", mb});
    EXPECT_EQ(left_since(before), std::set<std::string>{});
  }
  void TearDown() override {  // the "machines" go even when an assertion ended the test early
    for (const auto& ns : made_) run_command({"ip", "netns", "del", ns});
    LabDirTest::TearDown();
  }
  std::vector<std::string> made_;
  static std::string slurp(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // Two hosts on two machines, a flowlab switch each under one learning switch;
  // `middle` is the rest of the switch-to-switch link's mapping (after its
  // endpoints), `tests` the tests' YAML. Written into the test's dir.
  std::string two_host_scenario(const std::string& name, const std::string& middle,
                                const std::string& tests) {
    std::string file = (dir_ / (name + ".yaml")).string();
    std::ofstream(file) << "name: " << name << R"(
hosts:
  h1: {addr: 10.0.0.1/24, machine: m0}
  h2: {addr: 10.0.0.2/24, machine: m1}
switches:
  s1: {kind: flowlab, dpid: 1, controller: c1, machine: m0}
  s2: {kind: flowlab, dpid: 2, controller: c1, machine: m1}
controllers:
  c1: {kind: flowlab, apps: [learning-switch]}
links:
  - endpoints: [h1:eth0, s1:p1]
  - {endpoints: [s1:p2, s2:p1])"
                        << (middle.empty() ? "" : ", " + middle) << R"(}
  - endpoints: [h2:eth0, s2:p2]
cases:
  - name: flowlab
tests:
)" << tests;
    return file;
  }
};

}  // namespace flowlab::lab

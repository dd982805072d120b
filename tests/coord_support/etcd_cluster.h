// EtcdCluster: N real etcd members (Debian's /usr/bin/etcd, etcd-server 3.4)
// for tests, on free loopback ports with a temporary data dir. The members get
// a cluster token unique to the run, short raft timers (50 ms heartbeat,
// 500 ms election) so a lost leader is replaced quickly, and PR_SET_PDEATHSIG
// so they die with the test process. A member can be killed (-9), stopped
// (SIGSTOP), continued and restarted on its data dir; the destructor kills
// every member and removes the data dir.
//
//   flowlab::testing::EtcdCluster etcd(3);
//   ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
//   coord::EtcdClient client(*coord::parse_endpoints(etcd.endpoints()));
//
// EtcdCluster(3, "NS") starts the members in network namespace NS (ip netns)
// instead, for tests whose controllers run there; in_netns() runs a call of
// the test's on a thread that joined NS (setns is per thread).
#pragma once

#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "coord/etcd_client.h"
#include "coord/loopback_port.h"

namespace flowlab::testing {

inline constexpr const char* kEtcdBinary = "/usr/bin/etcd";

using coord::free_loopback_port;

class EtcdCluster {
 public:
  explicit EtcdCluster(int members, std::string netns = {}) : netns_(std::move(netns)) {
    static std::atomic<int> seq{0};
    // tmpfs where there is one: etcd fsyncs every write, and a test measures
    // elections, not the disk.
    char tmpl[] = "/dev/shm/flowlab-etcd-XXXXXX";
    if (!std::filesystem::is_directory("/dev/shm")) std::strcpy(tmpl, "/tmp/flowlab-etcd-XXXXXX");
    if (mkdtemp(tmpl)) dir_ = tmpl;
    token_ = "flowlab-" + std::to_string(getpid()) + "-" + std::to_string(seq++);
    for (int i = 0; i < members; ++i) {
      Member m;
      m.name = "m" + std::to_string(i);
      m.client_port = free_loopback_port();
      m.peer_port = free_loopback_port();
      members_.push_back(m);
    }
    for (size_t i = 0; i < members_.size(); ++i) start(static_cast<int>(i));
  }
  ~EtcdCluster() {
    for (size_t i = 0; i < members_.size(); ++i) kill(static_cast<int>(i));
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
  }
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  int size() const { return static_cast<int>(members_.size()); }
  std::string endpoint(int i) const {
    return "http://127.0.0.1:" + std::to_string(members_[static_cast<size_t>(i)].client_port);
  }
  std::vector<std::string> endpoint_list() const {
    std::vector<std::string> v;
    for (int i = 0; i < size(); ++i) v.push_back(endpoint(i));
    return v;
  }
  // "http://127.0.0.1:P1,http://127.0.0.1:P2,..."
  std::string endpoints() const { return coord::join_endpoints(endpoint_list()); }
  coord::EtcdConfig config() const {
    coord::EtcdConfig c;
    c.endpoints = endpoint_list();
    return c;
  }
  const std::string& dir() const { return dir_; }
  pid_t pid(int i) const { return members_[static_cast<size_t>(i)].pid; }
  bool running(int i) const { return members_[static_cast<size_t>(i)].pid > 0; }

  // Runs `f` on a thread in the members' namespace (this thread if none).
  template <typename F>
  auto in_netns(F f) const -> decltype(f()) {
    if (netns_.empty()) return f();
    std::optional<decltype(f())> out;
    std::thread t([&] {
      join_netns(netns_);
      out.emplace(f());
    });
    t.join();
    return std::move(*out);
  }

  // Every running member answers its status and knows a leader.
  bool wait_healthy(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    return in_netns([&] { return wait_healthy_here(timeout); });
  }

  // Joins network namespace `ns` (/run/netns/NS) on this thread.
  static bool join_netns(const std::string& ns) {
    int fd = open(("/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = setns(fd, CLONE_NEWNET) == 0;
    close(fd);
    return ok;
  }

 private:
  bool wait_healthy_here(std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      bool all = true;
      for (int i = 0; i < size() && all; ++i) {
        if (!running(i)) continue;
        coord::EtcdConfig one;
        one.endpoints = {endpoint(i)};
        coord::EtcdClient c(one);
        auto s = c.member_status(endpoint(i));
        all = s.ok() && s->leader != 0;
        // A member answers status before it serves requests: a read too.
        if (all) all = c.get("/flowlab-health").ok();
      }
      if (all) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

 public:
  void kill(int i) { signal_member(i, SIGKILL, true); }
  void stop(int i) { signal_member(i, SIGSTOP, false); }
  void cont(int i) { signal_member(i, SIGCONT, false); }
  // Starts a killed member again on its data dir.
  void restart(int i) {
    if (!running(i)) start(i);
  }

  // The last lines of every member's log, for a failing assertion.
  std::string log_tail(size_t bytes = 1500) const {
    std::string out;
    for (const auto& m : members_) {
      std::ifstream f(dir_ + "/" + m.name + ".log");
      std::stringstream ss;
      ss << f.rdbuf();
      std::string s = ss.str();
      if (s.size() > bytes) s = s.substr(s.size() - bytes);
      out += "--- " + m.name + "\n" + s + "\n";
    }
    return out;
  }

 private:
  struct Member {
    std::string name;
    uint16_t client_port = 0;
    uint16_t peer_port = 0;
    pid_t pid = -1;
  };

  std::string initial_cluster() const {
    std::string s;
    for (const auto& m : members_)
      s += (s.empty() ? "" : ",") + m.name + "=http://127.0.0.1:" + std::to_string(m.peer_port);
    return s;
  }

  void start(int i) {
    Member& m = members_[static_cast<size_t>(i)];
    const std::string client = "http://127.0.0.1:" + std::to_string(m.client_port);
    const std::string peer = "http://127.0.0.1:" + std::to_string(m.peer_port);
    std::vector<std::string> argv = {kEtcdBinary,
                                     "--name",
                                     m.name,
                                     "--data-dir",
                                     dir_ + "/" + m.name,
                                     "--listen-client-urls",
                                     client,
                                     "--advertise-client-urls",
                                     client,
                                     "--listen-peer-urls",
                                     peer,
                                     "--initial-advertise-peer-urls",
                                     peer,
                                     "--initial-cluster",
                                     initial_cluster(),
                                     "--initial-cluster-token",
                                     token_,
                                     "--initial-cluster-state",
                                     "new",
                                     "--heartbeat-interval",
                                     "50",
                                     "--election-timeout",
                                     "500",
                                     "--logger",
                                     "zap"};
    const std::string log = dir_ + "/" + m.name + ".log";
    pid_t pid = fork();
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (!netns_.empty() && !join_netns(netns_)) _exit(126);
      FILE* f = fopen(log.c_str(), "a");
      if (f) {
        dup2(fileno(f), 1);
        dup2(fileno(f), 2);
      }
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    m.pid = pid;
  }

  void signal_member(int i, int sig, bool reap) {
    Member& m = members_[static_cast<size_t>(i)];
    if (m.pid <= 0) return;
    if (sig == SIGKILL) ::kill(m.pid, SIGCONT);  // harmless; a stopped member dies either way
    ::kill(m.pid, sig);
    if (reap) {
      waitpid(m.pid, nullptr, 0);
      m.pid = -1;
    }
  }

  std::string netns_;
  std::string dir_;
  std::string token_;
  std::vector<Member> members_;
};

}  // namespace flowlab::testing

// Helpers for the switch's interop tests (root): two hosts in their own network
// namespaces, each joined by a veth pair to the root namespace where
// `flowlab switch` runs; child processes with their output kept in a log file;
// free TCP ports. Every namespace, link and process is removed on every path.
#pragma once

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace flowlab::switch_interop {

using namespace std::chrono_literals;

inline bool is_root() { return ::geteuid() == 0; }
inline bool have(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

inline int run_quiet(const std::string& cmd) {
  int r = std::system((cmd + " >/dev/null 2>&1").c_str());
  return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}
inline std::string run_output(const std::string& cmd, int* status = nullptr) {
  std::string out;
  FILE* f = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!f) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  int r = ::pclose(f);
  if (status) *status = WIFEXITED(r) ? WEXITSTATUS(r) : -1;
  return out;
}

// A free TCP port on 127.0.0.1 (bound then released).
inline uint16_t free_tcp_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  uint16_t port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

inline bool tcp_listening(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

template <typename P>
bool eventually(P pred, std::chrono::milliseconds timeout) {
  auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(50ms);
  }
  return pred();
}

// A child process whose stdout+stderr go to `log`; SIGTERM then SIGKILL on destruction.
class Process {
 public:
  Process(const std::vector<std::string>& argv, std::string log) : log_(std::move(log)) {
    std::vector<char*> a;
    for (auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    if (posix_spawnp(&pid_, a[0], &fa, nullptr, a.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
  }
  ~Process() {
    stop();
    ::unlink(log_.c_str());
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  bool ok() const { return pid_ > 0; }
  bool signal(int sig) const { return pid_ > 0 && ::kill(pid_, sig) == 0; }
  bool running() {
    if (pid_ <= 0) return false;
    int st = 0;
    pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      pid_ = -1;
      return false;
    }
    return true;
  }
  // SIGTERM, wait (bounded), SIGKILL if needed. Returns the exit status.
  int stop(std::chrono::milliseconds grace = 5s) {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      auto end = std::chrono::steady_clock::now() + grace;
      while (running() && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(10ms);
      if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        int st = 0;
        ::waitpid(pid_, &st, 0);
        status_ = 137;
        pid_ = -1;
      }
    }
    return status_;
  }
  std::string log() const {
    std::ifstream f(log_);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }

 private:
  pid_t pid_ = -1;
  int status_ = -1;
  std::string log_;
};

// h1 (10.0.0.1) and h2 (10.0.0.2) in namespaces, joined to root-namespace
// interfaces port1 / port2 that the switch uses. Offloads are left at defaults.
class TwoHosts {
 public:
  explicit TwoHosts(const std::string& tag) {
    std::string id = tag + std::to_string(::getpid() % 100000);
    ns1_ = "fl" + id + "h1";
    ns2_ = "fl" + id + "h2";
    port1_ = "fl" + id + "p1";
    port2_ = "fl" + id + "p2";
    cleanup();
    ok_ = run_quiet("ip netns add " + ns1_) == 0 && run_quiet("ip netns add " + ns2_) == 0 &&
          link(port1_, "eth0", ns1_, "10.0.0.1/24") && link(port2_, "eth0", ns2_, "10.0.0.2/24");
  }
  ~TwoHosts() { cleanup(); }
  TwoHosts(const TwoHosts&) = delete;
  TwoHosts& operator=(const TwoHosts&) = delete;

  bool ok() const { return ok_; }
  const std::string& ns1() const { return ns1_; }
  const std::string& ns2() const { return ns2_; }
  const std::string& port1() const { return port1_; }
  const std::string& port2() const { return port2_; }
  std::string in1(const std::string& cmd) const { return "ip netns exec " + ns1_ + " " + cmd; }
  std::string in2(const std::string& cmd) const { return "ip netns exec " + ns2_ + " " + cmd; }
  bool ping(int count = 3) const {
    return run_quiet(in1("ping -c " + std::to_string(count) + " -i 0.2 -W 2 10.0.0.2")) == 0;
  }

 private:
  bool link(const std::string& port, const std::string& host, const std::string& ns,
            const std::string& cidr) {
    std::string tmp = port + "x";
    return run_quiet("ip link add " + port + " type veth peer name " + tmp) == 0 &&
           run_quiet("ip link set " + tmp + " netns " + ns) == 0 &&
           run_quiet("ip netns exec " + ns + " ip link set " + tmp + " name " + host) == 0 &&
           run_quiet("ip netns exec " + ns + " ip addr add " + cidr + " dev " + host) == 0 &&
           run_quiet("ip netns exec " + ns + " ip link set " + host + " up") == 0 &&
           run_quiet("ip netns exec " + ns + " ip link set lo up") == 0 &&
           run_quiet("sysctl -w net.ipv6.conf." + port + ".disable_ipv6=1") == 0 &&
           run_quiet("ip link set " + port + " up") == 0;
  }
  void cleanup() {
    run_quiet("ip link del " + port1_);
    run_quiet("ip link del " + port2_);
    run_quiet("ip netns del " + ns1_);
    run_quiet("ip netns del " + ns2_);
  }
  std::string ns1_, ns2_, port1_, port2_;
  bool ok_ = false;
};

// Runs a bounded iperf3 TCP test h1 -> h2; returns Gbit/s received (<0: failed).
inline double iperf3_tcp(const TwoHosts& t, int seconds, std::string* output = nullptr) {
  uint16_t port = 5201 + uint16_t(::getpid() % 1000);
  Process server({"ip", "netns", "exec", t.ns2(), "iperf3", "-s", "-1", "-p", std::to_string(port)},
                 "/tmp/flowlab-iperf3-server-" + std::to_string(::getpid()) + ".log");
  std::this_thread::sleep_for(300ms);
  int st = -1;
  std::string out = run_output(t.in1("timeout " + std::to_string(seconds + 15) + " iperf3 -c 10.0.0.2 -p " +
                                     std::to_string(port) + " -t " + std::to_string(seconds) + " -f g"),
                               &st);
  if (output) *output = out;
  if (st != 0) return -1;
  // "[  5]   0.00-3.00   sec  3.1 GBytes  8.9 Gbits/sec   receiver"
  double gbps = -1;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("receiver") == std::string::npos) continue;
    auto pos = line.find(" Gbits/sec");
    if (pos == std::string::npos) continue;
    auto start = line.rfind(' ', pos - 1);
    gbps = std::atof(line.substr(start + 1, pos - start - 1).c_str());
  }
  return gbps;
}

}  // namespace flowlab::switch_interop

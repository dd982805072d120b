// Test helpers for port tests that need root: uniquely named namespaces and veth
// pairs removed on every path (RAII), running a function or a command inside a
// namespace, raw packet sockets opened inside a namespace, bounded child processes.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace flowlab::testutil {

inline bool is_root() { return ::geteuid() == 0; }

// Runs a shell command quietly; returns its exit status.
inline int sh(const std::string& cmd) {
  int r = std::system((cmd + " >/dev/null 2>&1").c_str());
  return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}

// Runs a command and returns its stdout.
inline std::string sh_out(const std::string& cmd) {
  std::string out;
  FILE* f = ::popen((cmd + " 2>/dev/null").c_str(), "r");
  if (!f) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  ::pclose(f);
  return out;
}

// A network namespace that exists for the lifetime of the object.
class Netns {
 public:
  explicit Netns(std::string name) : name_(std::move(name)) {
    sh("ip netns del " + name_);
    ok_ = sh("ip netns add " + name_) == 0;
    if (ok_) {
      exec("ip link set lo up");
      exec("sysctl -w net.ipv6.conf.all.disable_ipv6=1");
      exec("sysctl -w net.ipv6.conf.default.disable_ipv6=1");
    }
  }
  ~Netns() {
    if (ok_) sh("ip netns del " + name_);
  }
  Netns(const Netns&) = delete;
  Netns& operator=(const Netns&) = delete;
  bool ok() const { return ok_; }
  const std::string& name() const { return name_; }
  int exec(const std::string& cmd) const { return sh("ip netns exec " + name_ + " " + cmd); }
  std::string exec_out(const std::string& cmd) const { return sh_out("ip netns exec " + name_ + " " + cmd); }

  // Runs fn on a thread that has entered this namespace (sockets it opens stay there).
  template <typename F>
  auto run(F&& fn) const -> decltype(fn()) {
    decltype(fn()) result{};
    std::thread t([&] {
      int nsfd = ::open(("/var/run/netns/" + name_).c_str(), O_RDONLY | O_CLOEXEC);
      if (nsfd < 0 || ::setns(nsfd, CLONE_NEWNET) < 0) {
        if (nsfd >= 0) ::close(nsfd);
        return;
      }
      ::close(nsfd);
      result = fn();
    });
    t.join();
    return result;
  }

 private:
  std::string name_;
  bool ok_ = false;
};

// A veth pair in the root namespace: `port` stays there (the switch side), `host`
// is moved into `ns` with an optional address. Removed on destruction.
class VethLink {
 public:
  VethLink(std::string port, std::string host, const Netns& ns, const std::string& cidr)
      : port_(std::move(port)), host_(std::move(host)) {
    sh("ip link del " + port_);
    ok_ = sh("ip link add " + port_ + " type veth peer name " + host_) == 0 &&
          sh("ip link set " + host_ + " netns " + ns.name()) == 0 &&
          sh("sysctl -w net.ipv6.conf." + port_ + ".disable_ipv6=1") == 0 &&
          sh("ip link set " + port_ + " up") == 0 && ns.exec("ip link set " + host_ + " up") == 0 &&
          (cidr.empty() || ns.exec("ip addr add " + cidr + " dev " + host_) == 0);
  }
  ~VethLink() { sh("ip link del " + port_); }
  VethLink(const VethLink&) = delete;
  VethLink& operator=(const VethLink&) = delete;
  bool ok() const { return ok_; }
  const std::string& port() const { return port_; }
  const std::string& host() const { return host_; }

 private:
  std::string port_, host_;
  bool ok_ = false;
};

// A raw AF_PACKET socket bound to `ifname` inside `ns` (-1 on failure).
inline int raw_socket_in(const Netns& ns, const std::string& ifname) {
  return ns.run([&]() -> int {
    int fd = ::socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
    if (fd < 0) return -1;
    sockaddr_ll sll{};
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(ETH_P_ALL);
    sll.sll_ifindex = int(if_nametoindex(ifname.c_str()));
    if (sll.sll_ifindex == 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&sll), sizeof sll) < 0) {
      ::close(fd);
      return -1;
    }
    return fd;
  });
}

// A child process (argv) killed and reaped on destruction.
class Child {
 public:
  explicit Child(const std::vector<std::string>& argv) {
    std::vector<char*> a;
    for (auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    if (posix_spawnp(&pid_, a[0], &fa, nullptr, a.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
  }
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      for (int i = 0; i < 100; ++i) {
        if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  bool ok() const { return pid_ > 0; }

 private:
  pid_t pid_ = -1;
};

// Waits until pred() is true or the timeout passes.
template <typename P>
bool wait_for(P pred, std::chrono::milliseconds timeout) {
  auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pred();
}

}  // namespace flowlab::testutil

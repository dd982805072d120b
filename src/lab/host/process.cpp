// Child processes for the lab: bounded commands and supervised daemons (see process.h).
#include "lab/host/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "core/clock.h"
#include "lab/host/run_state.h"
#include "lab/host/signal_wait.h"

namespace flowlab::lab {

namespace {

// The one piece of global mutable state besides the logger: a signal can only talk
// to the program through a flag, and through a pipe it writes one byte to so that a
// wait (poll) on the pipe's read end returns the moment a signal arrives, on
// whichever thread the kernel delivered it. The pipe is never drained: once
// interrupted, every later wait returns at once, like interrupted().
volatile std::sig_atomic_t g_signal = 0;
int g_signal_pipe[2] = {-1, -1};

void on_signal(int sig) {
  g_signal = sig;
  if (g_signal_pipe[1] >= 0) {
    char b = 1;
    (void)!::write(g_signal_pipe[1], &b, 1);  // async-signal-safe; a full pipe is fine
  }
}

// argv for the child: `ip netns exec NS ...` when a namespace is given.
std::vector<std::string> full_argv(const std::vector<std::string>& argv, const CommandOptions& o) {
  std::vector<std::string> a;
  if (!o.netns.empty()) a = {"ip", "netns", "exec", o.netns};
  a.insert(a.end(), argv.begin(), argv.end());
  return a;
}

// Forks a child with its own process group and the given fds for stdout/stderr.
// Everything the child needs is prepared before fork (no allocation after it), so
// the child can be vfork's: it shares the parent's memory until exec instead of
// copying its page tables, which a fork of a lab holding a large result (pingall's
// million pairs: 1 GB) paid on every command. The child only makes system calls.
pid_t fork_exec(const std::vector<std::string>& argv, const CommandOptions& o, int out_fd, int err_fd) {
  std::vector<std::string> args = full_argv(argv, o);
  std::vector<char*> cargv;
  for (auto& s : args) cargv.push_back(s.data());
  cargv.push_back(nullptr);
  std::vector<std::string> envs;
  for (auto& [k, v] : o.env) envs.push_back(k + "=" + v);
  std::vector<char*> cenv;
  for (char** e = environ; *e; ++e) {
    bool overridden = false;
    for (auto& [k, v] : o.env)
      if (std::strncmp(*e, k.c_str(), k.size()) == 0 && (*e)[k.size()] == '=') overridden = true;
    if (!overridden) cenv.push_back(*e);
  }
  for (auto& s : envs) cenv.push_back(s.data());
  cenv.push_back(nullptr);
  pid_t parent = getpid();
  pid_t pid = vfork();
  if (pid != 0) return pid;
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, 0);
  dup2(out_fd, 1);
  dup2(err_fd, 2);
  execvpe(cargv[0], cargv.data(), cenv.data());
  const char msg[] = "flowlab lab: exec failed\n";
  (void)!write(2, msg, sizeof msg - 1);
  _exit(127);
}

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return -1;
}

}  // namespace

void install_signal_handlers() {
  if (g_signal_pipe[0] < 0 && pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
    g_signal_pipe[0] = g_signal_pipe[1] = -1;  // waits fall back to 20 ms polls
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: blocking waits return with EINTR
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

bool interrupted() { return g_signal != 0; }
int interrupt_signal() { return g_signal; }

bool sleep_unless_interrupted(double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (auto now = std::chrono::steady_clock::now(); now < end; now = std::chrono::steady_clock::now()) {
    if (interrupted()) return false;
    if (g_signal_pipe[0] < 0) {
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(end - now),
          std::chrono::milliseconds(20)));
      continue;
    }
    // Sleeps on the signal pipe: a signal ends the wait at once (the pipe has a byte).
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - now).count() + 1;
    pollfd p{g_signal_pipe[0], POLLIN, 0};
    (void)::poll(&p, 1, int(std::min<long long>(left, 1000)));
  }
  return !interrupted();
}

bool wait_readable_unless_interrupted(int fd, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (auto now = std::chrono::steady_clock::now(); now < end && !interrupted();
       now = std::chrono::steady_clock::now()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - now).count() + 1;
    pollfd p[2] = {{fd, POLLIN, 0}, {g_signal_pipe[0], POLLIN, 0}};
    // Without the signal pipe, 20 ms polls notice the flag.
    int n = ::poll(p, g_signal_pipe[0] < 0 ? 1 : 2,
                   int(std::min<long long>(left, g_signal_pipe[0] < 0 ? 20 : 1000)));
    if (n > 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))) return true;
  }
  return false;
}

std::string CommandResult::describe() const {
  if (interrupted) return "interrupted";
  if (timed_out) return "timed out";
  std::string tail = err.empty() ? out : err;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  if (auto nl = tail.rfind('\n'); nl != std::string::npos) tail = tail.substr(nl + 1);
  if (tail.size() > 300) tail = tail.substr(tail.size() - 300);
  return fmt::format("exit {}{}{}", exit_code, tail.empty() ? "" : ": ", tail);
}

namespace {
std::mutex routes_mu;
std::map<std::string, std::shared_ptr<RemoteExec>>& routes() {
  static std::map<std::string, std::shared_ptr<RemoteExec>> m;
  return m;
}
}  // namespace

void route_netns(const std::string& ns, std::shared_ptr<RemoteExec> exec) {
  std::lock_guard<std::mutex> lock(routes_mu);
  if (exec)
    routes()[ns] = std::move(exec);
  else
    routes().erase(ns);
}

std::shared_ptr<RemoteExec> routed_netns(const std::string& ns) {
  if (ns.empty()) return nullptr;
  std::lock_guard<std::mutex> lock(routes_mu);
  auto it = routes().find(ns);
  return it == routes().end() ? nullptr : it->second;
}

CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& o) {
  if (auto remote = routed_netns(o.netns)) return remote->run(argv, o);
  CommandResult r;
  int outp[2], errp[2];
  if (pipe2(outp, O_CLOEXEC) != 0) {
    r.err = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  if (pipe2(errp, O_CLOEXEC) != 0) {
    close(outp[0]);
    close(outp[1]);
    r.err = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  pid_t pid = fork_exec(argv, o, outp[1], errp[1]);
  close(outp[1]);
  close(errp[1]);
  if (pid < 0) {
    close(outp[0]);
    close(errp[0]);
    r.err = std::string("fork: ") + std::strerror(errno);
    return r;
  }
  uint64_t deadline = monotonic_ns() + uint64_t(o.timeout_s * 1e9);
  pollfd fds[2] = {{outp[0], POLLIN, 0}, {errp[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[8192];
  while (open_fds > 0) {
    if (o.interruptible && interrupted()) {
      r.interrupted = true;
      break;
    }
    if (monotonic_ns() > deadline) {
      r.timed_out = true;
      break;
    }
    int n = poll(fds, 2, 50);
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        (i == 0 ? r.out : r.err).append(buf, size_t(got));
      } else if (got == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  if (r.timed_out || r.interrupted) kill(-pid, SIGKILL);
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  // The pipes closed; the child exits now or is killed if it lingers past a second.
  uint64_t reap_deadline = monotonic_ns() + 1'000'000'000ULL;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (monotonic_ns() > reap_deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.exit_code = decode_status(status);
  return r;
}

Status run_checked(const std::vector<std::string>& argv, const CommandOptions& o) {
  auto r = run_command(argv, o);
  if (r.ok()) return ok_status();
  std::string cmd;
  for (auto& a : full_argv(argv, o)) cmd += (cmd.empty() ? "" : " ") + a;
  return fail("'{}' failed: {}", cmd, r.describe());
}

bool have_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  p += ":/usr/sbin:/sbin";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

std::string self_binary() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("flowlab") : p.string();
}

Result<Process> Process::spawn(std::string label, const std::vector<std::string>& argv,
                               const CommandOptions& opts, const std::string& log_path, RunState* state) {
  if (auto remote = routed_netns(opts.netns)) {
    FLOWLAB_ASSIGN_OR_RETURN(auto child, remote->spawn(label, argv, opts));
    Process p;
    p.label_ = std::move(label);
    p.log_path_ = log_path;
    p.remote_ = std::move(child);
    return p;
  }
  int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return fail("cannot open log {}: {}", log_path, std::strerror(errno));
  pid_t pid = fork_exec(argv, opts, fd, fd);
  close(fd);
  if (pid < 0) return fail("fork for {}: {}", label, std::strerror(errno));
  Process p;
  p.pid_ = pid;
  p.label_ = std::move(label);
  p.log_path_ = log_path;
  p.state_ = state;
  if (state) state->add_process(pid, p.label_);
  return p;
}

Process& Process::operator=(Process&& o) noexcept {
  if (this != &o) {
    stop();
    pid_ = std::exchange(o.pid_, -1);
    exit_code_ = o.exit_code_;
    label_ = std::move(o.label_);
    log_path_ = std::move(o.log_path_);
    state_ = std::exchange(o.state_, nullptr);
    remote_ = std::move(o.remote_);
  }
  return *this;
}

void Process::reap(int status) {
  exit_code_ = decode_status(status);
  // The group may hold grandchildren (daemons forked by the tool); take them too.
  kill(-pid_, SIGKILL);
  if (state_) state_->remove_process(pid_);
  pid_ = -1;
}

bool Process::running() {
  if (remote_) return remote_->running();
  if (pid_ <= 0) return false;
  int status = 0;
  pid_t w = waitpid(pid_, &status, WNOHANG);
  if (w == pid_) {
    reap(status);
    return false;
  }
  return true;
}

bool Process::wait_exit(double seconds) {
  uint64_t deadline = monotonic_ns() + uint64_t(seconds * 1e9);
  while (running()) {
    if (monotonic_ns() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

void Process::stop(double grace_s) {
  if (remote_) return remote_->stop(grace_s);
  if (pid_ <= 0) return;
  if (!running()) return;
  kill(-pid_, SIGTERM);
  if (wait_exit(grace_s)) return;
  kill(-pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  reap(status);
}

std::string Process::log_tail(size_t bytes) const {
  if (remote_) return remote_->log_tail(bytes);
  std::ifstream in(log_path_, std::ios::binary | std::ios::ate);
  if (!in) return {};
  auto size = static_cast<size_t>(in.tellg());
  size_t from = size > bytes ? size - bytes : 0;
  in.seekg(std::streamoff(from));
  std::string s(size - from, '\0');
  in.read(s.data(), std::streamsize(s.size()));
  return s;
}

}  // namespace flowlab::lab

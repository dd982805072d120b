// SwitchHostProcess (see switch_host.h): `flowlab switch-host` and its control
// socket, one connection per request.
#include "lab/backend/switch_host.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "channel/unix_socket.h"
#include "core/clock.h"
#include "lab/backend/backends.h"
#include "switch/unique_fd.h"

namespace flowlab::lab {

bool SwitchHostProcess::wanted(const CaseEnv& env) {
  const char* v = std::getenv("FLOWLAB_SWITCH_HOST");
  if (v && std::string_view(v) == "0") return false;
  return !env.scratch_dir.empty() && !routed_netns(env.core_ns);
}

Status SwitchHostProcess::ensure_started(const CaseEnv& env) {
  std::lock_guard lock(mu_);
  if (!socket_.empty() && proc_.running()) return ok_status();
  socket_ = env.scratch_dir + "/switch-host.sock";  // any length: channel/unix_socket.h
  ::unlink(socket_.c_str());
  FLOWLAB_ASSIGN_OR_RETURN(
      proc_, Process::spawn("flowlab switch-host", {env.flowlab_bin, "switch-host", "--control", socket_},
                            in_ns(env.core_ns), env.out_dir + "/switch-host.log", env.state));
  // Until the socket answers: a connect, no fork, every 2 ms.
  uint64_t deadline = monotonic_ns() + 30'000'000'000ull;
  while (true) {
    if (auto fd = channel::unix_connect(socket_); fd.ok()) {
      ::close(*fd);
      return ok_status();
    }
    if (!proc_.running())
      return fail("flowlab switch-host exited (code {}); log {}: {}", proc_.exit_code(), proc_.log_path(),
                  proc_.log_tail(600));
    if (monotonic_ns() > deadline) return fail("flowlab switch-host: control socket not ready after 30 s");
    if (!sleep_unless_interrupted(0.002)) return fail("interrupted");
  }
}

Result<std::string> SwitchHostProcess::request(const std::vector<std::string>& fields, double timeout_s) {
  std::string line;
  for (const auto& f : fields) {
    if (f.find_first_of("\t\n") != std::string::npos)
      return fail("switch host: an argument with a tab or a newline: '{}'", f);
    line += (line.empty() ? "" : "\t") + f;
  }
  line += "\n";
  std::string path;
  {
    std::lock_guard lock(mu_);
    path = socket_;
  }
  if (path.empty()) return fail("the switch host is not started");
  auto connected = channel::unix_connect(path);
  if (!connected.ok())
    return fail("switch host {}{}", connected.error().message, dead().empty() ? "" : " (" + dead() + ")");
  sw::UniqueFd fd(*connected);
  for (std::string_view rest = line; !rest.empty();) {
    ssize_t n = ::send(fd.get(), rest.data(), rest.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("switch host: sending '{}': {}", fields[0], std::strerror(errno));
    rest.remove_prefix(size_t(n));
  }
  std::string answer;
  uint64_t deadline = monotonic_ns() + uint64_t(timeout_s * 1e9);
  while (answer.find('\n') == std::string::npos) {
    pollfd p{fd.get(), POLLIN, 0};
    int left_ms = int((int64_t(deadline) - int64_t(monotonic_ns())) / 1'000'000);
    if (left_ms <= 0)
      return fail("switch host: no answer to '{} {}' in {:.0f} s", fields[0],
                  fields.size() > 1 ? fields[1] : "", timeout_s);
    int r = ::poll(&p, 1, std::min(left_ms, 100));
    if (r < 0 && errno != EINTR) return fail("switch host: poll: {}", std::strerror(errno));
    if (interrupted()) return fail("interrupted");
    if (r <= 0) continue;
    char buf[4096];
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = dead();
      return fail("switch host closed the connection during '{}'{}", fields[0],
                  why.empty() ? "" : ": " + why);
    }
    answer.append(buf, size_t(n));
  }
  answer.resize(answer.find('\n'));
  if (answer == "ok") return std::string();
  if (answer.rfind("ok\t", 0) == 0) return answer.substr(3);
  if (answer.rfind("error\t", 0) == 0) return fail("{}", answer.substr(6));
  return fail("switch host: unexpected answer '{}'", answer);
}

Status SwitchHostProcess::add(const std::string& name, const std::vector<std::string>& switch_args) {
  std::vector<std::string> f = {"add", name};
  f.insert(f.end(), switch_args.begin(), switch_args.end());
  // As a switch process's own bound to listen (backends.cpp): its start is CPU-bound.
  FLOWLAB_ASSIGN_OR_RETURN(auto ignored, request(f, 60));
  (void)ignored;
  return ok_status();
}

Status SwitchHostProcess::stop_switch(const std::string& name) {
  FLOWLAB_ASSIGN_OR_RETURN(auto ignored, request({"stop", name}, 30));
  (void)ignored;
  return ok_status();
}

Status SwitchHostProcess::start_switch(const std::string& name) {
  FLOWLAB_ASSIGN_OR_RETURN(auto ignored, request({"start", name}, 60));
  (void)ignored;
  return ok_status();
}

Status SwitchHostProcess::remove_switch(const std::string& name) {
  FLOWLAB_ASSIGN_OR_RETURN(auto ignored, request({"remove", name}, 30));
  (void)ignored;
  return ok_status();
}

bool SwitchHostProcess::running() {
  std::lock_guard lock(mu_);
  return !socket_.empty() && proc_.running();
}

std::string SwitchHostProcess::dead() {
  std::lock_guard lock(mu_);
  if (socket_.empty() || proc_.running()) return {};
  return fmt::format("flowlab switch-host exited (code {}); log {}: {}", proc_.exit_code(), proc_.log_path(),
                     proc_.log_tail(600));
}

void SwitchHostProcess::stop() {
  std::lock_guard lock(mu_);
  if (socket_.empty()) return;
  // Every switch closes at once in the host; 100 switches take about a second.
  proc_.stop(30);
  ::unlink(socket_.c_str());
  socket_.clear();
}

}  // namespace flowlab::lab

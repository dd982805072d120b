// SwitchHost (see switch_host.h): the control socket and the hosted switches
// by name.
#include "switch/switch_host.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "channel/unix_socket.h"
#include "core/log.h"

namespace flowlab::sw {

namespace {

std::vector<std::string> split_tabs(std::string_view line) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t tab = line.find('\t', start);
    out.emplace_back(
        line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  return out;
}

bool write_all(int fd, std::string_view s) {
  while (!s.empty()) {
    ssize_t n = ::send(fd, s.data(), s.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    s.remove_prefix(size_t(n));
  }
  return true;
}

}  // namespace

Result<std::unique_ptr<SwitchHost>> SwitchHost::open(const std::string& path, HostedSwitchFactory factory) {
  auto listening = channel::unix_listen(path, 64);
  if (!listening.ok()) return fail("--control: {}", listening.error().message);
  return std::unique_ptr<SwitchHost>(new SwitchHost(path, UniqueFd(*listening), std::move(factory)));
}

SwitchHost::~SwitchHost() { close(); }

void SwitchHost::start() {
  accept_thread_ = std::thread([this] { accept_loop(); });
}

void SwitchHost::close() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    closed_ = true;
    ::shutdown(listen_fd_.get(), SHUT_RDWR);  // wakes accept()
    for (int fd : client_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  if (accept_thread_.joinable()) accept_thread_.join();
  {
    std::lock_guard lock(mu_);
    threads.swap(threads_);
  }
  for (auto& t : threads) t.join();
  ::unlink(path_.c_str());
  // Every switch at once: each close waits for grace periods of its own.
  std::vector<std::unique_ptr<HostedSwitch>> running;
  {
    std::lock_guard lock(mu_);
    for (auto& [name, e] : switches_)
      if (e.sw) running.push_back(std::move(e.sw));
  }
  std::vector<std::thread> stoppers;
  for (auto& sw : running) stoppers.emplace_back([&sw] { sw.reset(); });
  for (auto& t : stoppers) t.join();
}

Status SwitchHost::build(const std::string& name, const std::vector<std::string>& args, bool fresh) {
  auto sw = factory_(args);
  std::lock_guard lock(mu_);
  auto it = switches_.find(name);
  if (!sw.ok()) {
    if (fresh)
      switches_.erase(it);  // a switch that never started is not kept
    else
      it->second.busy = false;
    return fail("{}", sw.error().message);
  }
  it->second.sw = std::move(*sw);
  it->second.busy = false;
  return ok_status();
}

Status SwitchHost::add(const std::string& name, std::vector<std::string> args) {
  if (name.empty()) return fail("add: no switch name");
  args.insert(args.begin(), "switch");
  if (std::find(args.begin(), args.end(), "--name") == args.end())
    args.insert(args.begin() + 1, {"--name", name});
  {
    std::lock_guard lock(mu_);
    if (closed_) return fail("the switch host is stopping");
    if (switches_.count(name)) return fail("switch {} exists already", name);
    Entry& e = switches_[name];
    e.args = args;
    e.busy = true;
  }
  return build(name, args, true);
}

Status SwitchHost::start_again(const std::string& name) {
  std::vector<std::string> args;
  {
    std::lock_guard lock(mu_);
    if (closed_) return fail("the switch host is stopping");
    auto it = switches_.find(name);
    if (it == switches_.end()) return fail("no switch {}", name);
    if (it->second.sw || it->second.busy) return fail("switch {} is still running", name);
    it->second.busy = true;
    args = it->second.args;
  }
  return build(name, args, false);
}

Status SwitchHost::stop(const std::string& name) {
  std::unique_ptr<HostedSwitch> sw;
  {
    std::lock_guard lock(mu_);
    auto it = switches_.find(name);
    if (it == switches_.end()) return fail("no switch {}", name);
    if (it->second.busy) return fail("switch {} is starting", name);
    if (!it->second.sw) return fail("switch {} is not running", name);
    sw = std::move(it->second.sw);
    it->second.busy = true;
  }
  sw.reset();
  std::lock_guard lock(mu_);
  switches_[name].busy = false;
  return ok_status();
}

Status SwitchHost::remove(const std::string& name) {
  {
    std::lock_guard lock(mu_);
    auto it = switches_.find(name);
    if (it == switches_.end()) return fail("no switch {}", name);
  }
  (void)stop(name);
  std::lock_guard lock(mu_);
  auto it = switches_.find(name);
  if (it != switches_.end() && !it->second.busy) switches_.erase(it);
  return ok_status();
}

std::string SwitchHost::list() const {
  std::lock_guard lock(mu_);
  std::string out;
  for (const auto& [name, e] : switches_)
    out += fmt::format("{}{}={}", out.empty() ? "" : ",", name,
                       e.busy ? "busy"
                       : e.sw ? "running"
                              : "stopped");
  return out;
}

std::string SwitchHost::handle_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  auto f = split_tabs(line);
  const std::string& verb = f[0];
  auto answer = [](const Status& st) {
    if (st.ok()) return std::string("ok");
    std::string m = st.error().message;
    for (char& c : m)
      if (c == '\n' || c == '\t') c = ' ';
    return "error\t" + m;
  };
  if (verb == "list" && f.size() == 1) return "ok\t" + list();
  if (verb == "add" && f.size() >= 2) return answer(add(f[1], {f.begin() + 2, f.end()}));
  if (f.size() == 2) {
    if (verb == "stop") return answer(stop(f[1]));
    if (verb == "start") return answer(start_again(f[1]));
    if (verb == "remove") return answer(remove(f[1]));
  }
  return answer(fail("unknown request '{}' (add NAME ARG..., stop NAME, start NAME, remove NAME, list)",
                     std::string(line.substr(0, 80))));
}

void SwitchHost::accept_loop() {
  while (true) {
    int fd = ::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // shut down by close(), or the socket broke
    }
    std::lock_guard lock(mu_);
    if (closed_) {
      ::close(fd);
      return;
    }
    client_fds_.push_back(fd);
    threads_.emplace_back([this, fd] { serve(fd); });
  }
}

void SwitchHost::serve(int fd) {
  std::string buf;
  char chunk[4096];
  bool open = true;
  while (open) {
    for (size_t nl; open && (nl = buf.find('\n')) != std::string::npos;) {
      std::string line = buf.substr(0, nl);
      buf.erase(0, nl + 1);
      open = write_all(fd, handle_line(line) + "\n");
    }
    if (!open || buf.size() > (1u << 20)) break;  // no request is that long
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buf.append(chunk, size_t(n));
  }
  std::lock_guard lock(mu_);
  std::erase(client_fds_, fd);
  ::close(fd);
}

}  // namespace flowlab::sw

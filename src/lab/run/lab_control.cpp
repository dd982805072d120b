// The control socket of a lab that is up (see lab_control.h).
#include "lab/run/lab_control.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <string>

#include "channel/unix_socket.h"
#include "core/clock.h"
#include "lab/host/process.h"
#include "lab/host/run_state.h"

namespace flowlab::lab {

using nlohmann::json;

namespace {

constexpr size_t kMaxRequest = 64 * 1024;

// Reads up to the first newline, waiting at most until `deadline_ns`.
Result<std::string> read_line(int fd, uint64_t deadline_ns) {
  std::string line;
  char buf[4096];
  for (;;) {
    if (auto nl = line.find('\n'); nl != std::string::npos) return line.substr(0, nl);
    if (line.size() > kMaxRequest * 64) return fail("the message is too long");
    uint64_t now = monotonic_ns();
    if (now >= deadline_ns) return fail("no answer in time");
    pollfd p{fd, POLLIN, 0};
    int n = poll(&p, 1, int(std::min<uint64_t>((deadline_ns - now) / 1000000 + 1, 1000)));
    if (n < 0 && errno != EINTR) return fail("poll: {}", std::strerror(errno));
    if (n <= 0) continue;
    ssize_t r = read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return fail("read: {}", std::strerror(errno));
    if (r == 0) {
      if (line.empty()) return fail("the connection closed");
      return line;
    }
    line.append(buf, size_t(r));
  }
}

bool write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t w = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    off += size_t(w);
  }
  return true;
}

json error_reply(const std::string& msg) { return {{"ok", false}, {"error", msg}}; }
json ok_reply(const std::string& out = "") { return {{"ok", true}, {"out", out}}; }

json link_request(const json& req, CaseHandles& h) {
  EventSpec e;
  e.link_a = req.value("a", "");
  e.link_b = req.value("b", "");
  if (e.link_a.empty() || e.link_b.empty()) return error_reply("link: give both ends");
  e.action = req.value("up", true) ? EventAction::kLinkUp : EventAction::kLinkDown;
  if (!h.remote_event && find_link(e, h.link_names) < 0)
    return error_reply(fmt::format("no link between {} and {}", e.link_a, e.link_b));
  Status st = fire_event(e, h);
  return st.ok() ? ok_reply() : error_reply(st.error().message);
}

// A link's shape replaced at run time, per direction given (a_to_b and/or b_to_a in
// link_shape_from_wire's keys; {} unshapes that direction); the other direction kept.
json shape_request(const json& req, CaseHandles& h) {
  EventSpec e;
  e.link_a = req.value("a", "");
  e.link_b = req.value("b", "");
  if (e.link_a.empty() || e.link_b.empty()) return error_reply("shape: give both ends");
  int i = find_link(e, h.link_names);
  if (i < 0) return error_reply(fmt::format("no link between {} and {}", e.link_a, e.link_b));
  ShapedLink* l = size_t(i) < h.shaped.size() ? h.shaped[size_t(i)] : nullptr;
  if (!l || h.halves.count(i))
    return error_reply(
        fmt::format("link {}-{} was built without a wire namespace of its own: only a link "
                    "shaped when the lab came up can be re-shaped",
                    e.link_a, e.link_b));
  LinkShapes next = l->shape();
  for (const char* key : {"a_to_b", "b_to_a"}) {
    if (!req.contains(key)) continue;
    auto s = link_shape_from_wire(req[key]);
    if (!s.ok()) return error_reply(fmt::format("shape {}: {}", key, s.error().message));
    (std::string(key) == "a_to_b" ? next.a_to_b : next.b_to_a) = *s;
  }
  Status st = l->set_shape(next);
  return st.ok() ? ok_reply(l->to_json().dump()) : error_reply(st.error().message);
}

json switch_request(const json& req, CaseHandles& h) {
  EventSpec e;
  e.node = req.value("name", "");
  bool start = req.value("start", true);
  e.action = start ? EventAction::kStart : EventAction::kKill;
  if (!h.switches.count(e.node)) return error_reply(fmt::format("no switch {} is running here", e.node));
  if (h.switches[e.node]->spec().kind == SwitchKind::kLinuxBridge)
    return error_reply(fmt::format("{} is a Linux bridge: there is no process to stop or start", e.node));
  bool stopped = h.killed.count(e.node) > 0;
  if (start && !stopped) return error_reply(fmt::format("switch {} is already running", e.node));
  if (!start && stopped) return error_reply(fmt::format("switch {} is already stopped", e.node));
  Status st = fire_event(e, h);
  return st.ok() ? ok_reply() : error_reply(st.error().message);
}

// Whether an ovs-ofctl command may change how the switch forwards (anything but the
// commands that only read or watch).
bool changes_tables(const std::string& verb) {
  static const std::set<std::string> kReadOnly = {
      "show",      "status",    "queue-stats",    "queue-get-config", "diff-flows",
      "get-frags", "probe",     "ping",           "benchmark",        "monitor",
      "snoop",     "ofp-parse", "ofp-parse-pcap", "compose-packet",   "parse-packet"};
  return verb.rfind("dump-", 0) != 0 && !kReadOnly.count(verb);
}

json dpctl_request(const json& req, CaseHandles& h) {
  std::vector<std::string> args;
  if (const json& a = req.value("args", json::array()); a.is_array())
    for (const auto& x : a)
      if (x.is_string()) args.push_back(x.get<std::string>());
  if (args.empty()) return error_reply("usage: dpctl command [arg1] [arg2] ...");
  // "switch": one switch's answer alone (Mininet's switch.dpctl), without the header.
  const json& only = req.value("switch", json(""));
  if (!only.is_string()) return error_reply("dpctl: switch must be a name");
  const std::string one = only.get<std::string>();
  if (!one.empty() && !h.switches.count(one))
    return error_reply(fmt::format("dpctl: no switch named {}", one));
  std::string out;
  bool ovs_changed = false;
  for (const auto& [name, sw] : h.switches) {
    if (!one.empty() && name != one) continue;
    if (one.empty()) out += fmt::format("*** {} {}\n", name, std::string(72, '-'));
    CommandResult r = sw->ofctl(args);
    out += r.out;
    if (!r.ok()) out += r.err.empty() ? r.describe() + "\n" : r.err;
    if (!out.empty() && out.back() != '\n') out += '\n';
    SwitchKind k = sw->spec().kind;
    ovs_changed |= (k == SwitchKind::kOvs || k == SwitchKind::kOvsTso) && changes_tables(args[0]);
  }
  // What the command changed holds when it returns, in Open vSwitch's datapath too
  // (ovs_daemon.h): a script that deletes every flow and pings at once (mobility.py)
  // is answered by the tables it left, not by the datapath's cache of the old ones.
  if (ovs_changed && h.env.ovs) {
    if (Status st = h.env.ovs->purge_datapath_flows(); !st.ok())
      out += fmt::format("dpctl: the datapath's cached flows were not purged: {}\n", st.error().message);
  }
  return ok_reply(out);
}

}  // namespace

std::string control_socket_path(const std::string& lab_id) {
  return state_root() + "/" + lab_id + "/control.sock";
}

Result<std::unique_ptr<ControlServer>> ControlServer::listen(const std::string& path) {
  // The socket is the lab's: root's alone (umask 077).
  auto fd = channel::unix_listen(path, 8, 077);
  if (!fd.ok()) return fail("control {}", fd.error().message);
  return std::unique_ptr<ControlServer>(new ControlServer(*fd, path));
}

ControlServer::~ControlServer() {
  stopping_ = true;
  ::shutdown(fd_, SHUT_RDWR);  // wakes the thread's poll on a listening socket
  if (thread_.joinable()) thread_.join();
  close(fd_);
  ::unlink(path_.c_str());
}

void ControlServer::start(CaseHandles& h) {
  thread_ = std::thread([this, &h] { serve(h); });
}

void ControlServer::serve(CaseHandles& h) {
  while (!stopping_) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, 1000) <= 0 || stopping_) continue;
    int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) continue;
    auto line = read_line(c, monotonic_ns() + 5'000'000'000ULL);
    json reply;
    if (!line.ok()) {
      reply = error_reply(line.error().message);
    } else {
      json req = json::parse(*line, nullptr, false);
      reply = req.is_object() ? handle_control(req, h) : error_reply("the request is not a JSON object");
    }
    std::fprintf(stderr, "lab: control %s -> %s\n", line.ok() ? line->c_str() : "?",
                 reply.value("ok", false) ? "ok" : reply.value("error", "").c_str());
    (void)write_all(c, reply.dump() + "\n");
    close(c);
  }
}

json handle_control(const json& req, CaseHandles& h) {
  std::string op = req.value("op", "");
  if (op == "link") return link_request(req, h);
  if (op == "switch") return switch_request(req, h);
  if (op == "dpctl") return dpctl_request(req, h);
  if (op == "shape") return shape_request(req, h);
  return error_reply(fmt::format("unknown request '{}'", op));
}

Result<std::string> control_request(const std::string& lab_id, const json& request, double timeout_s) {
  std::string path = control_socket_path(lab_id);
  auto connected = channel::unix_connect(path);
  if (!connected.ok())
    return fail("lab {}: its supervisor does not answer on {}", lab_id, connected.error().message);
  int fd = *connected;
  auto line = write_all(fd, request.dump() + "\n")
                  ? read_line(fd, monotonic_ns() + uint64_t(timeout_s * 1e9))
                  : Result<std::string>(fail("write: {}", std::strerror(errno)));
  close(fd);
  if (!line.ok()) return fail("lab {}: {}", lab_id, line.error().message);
  json reply = json::parse(*line, nullptr, false);
  if (!reply.is_object()) return fail("lab {}: an unreadable answer", lab_id);
  if (!reply.value("ok", false)) return fail("{}", reply.value("error", "failed"));
  return reply.value("out", "");
}

}  // namespace flowlab::lab

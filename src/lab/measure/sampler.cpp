// TestSampler (see sampler.h): one thread, one sample per interval, JSON out.
#include "lab/measure/sampler.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/clock.h"
#include "lab/host/process.h"
#include "lab/measure/sample_parse.h"

namespace flowlab::lab {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ino_t inode_of(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

// Tools the lab itself runs to look around: never "a process of the case".
bool lab_tool(const std::string& comm) {
  static const std::set<std::string> kTools = {"ss", "ip", "tc", "cat", "ethtool", "sh", "timeout", "sysctl"};
  return kTools.count(comm) > 0;
}

// "flowlab switch s1", "flowlab controller", "os-ken", "ovs-vswitchd", "iperf3 (h2)".
std::string process_label(pid_t pid, const std::string& comm, const std::string& role) {
  std::string cmd = read_file(fmt::format("/proc/{}/cmdline", pid));
  std::vector<std::string> argv;
  for (size_t b = 0; b < cmd.size();) {
    size_t e = cmd.find('\0', b);
    if (e == std::string::npos) e = cmd.size();
    argv.push_back(cmd.substr(b, e - b));
    b = e + 1;
  }
  auto base = [](const std::string& p) { return fs::path(p).filename().string(); };
  if (!argv.empty() && base(argv[0]) == "flowlab" && argv.size() > 1) {
    std::string l = "flowlab " + argv[1];
    for (size_t i = 2; i + 1 < argv.size(); ++i)
      if (argv[i] == "--name") l += " " + argv[i + 1];
    return l;
  }
  for (const auto& a : argv)
    if (base(a) == "osken-manager") return "os-ken";
  if (role == "core") return comm;
  return fmt::format("{} ({})", comm, role);
}

// The CPU limit of the process's cgroup and its ancestors, in % of one core.
std::optional<double> cgroup_cpu_limit(pid_t pid) {
  CgroupPaths cg = parse_proc_cgroup(read_file(fmt::format("/proc/{}/cgroup", pid)));
  std::optional<double> best;
  auto take = [&](std::optional<double> v) {
    if (v && (!best || *v < *best)) best = v;
  };
  auto walk = [&](const std::string& root, const std::string& rel, auto&& read_one) {
    if (root.empty()) return;
    fs::path p = fs::path(root) / fs::path(rel).relative_path();
    for (int depth = 0; depth < 32; ++depth) {
      take(read_one(p));
      if (p == fs::path(root) || !p.has_parent_path()) break;
      p = p.parent_path();
    }
  };
  std::string v2_root = fs::exists("/sys/fs/cgroup/cgroup.controllers")           ? "/sys/fs/cgroup"
                        : fs::exists("/sys/fs/cgroup/unified/cgroup.controllers") ? "/sys/fs/cgroup/unified"
                                                                                  : "";
  if (!cg.v2.empty())
    walk(v2_root, cg.v2,
         [](const fs::path& p) { return parse_cpu_max(read_file((p / "cpu.max").string())); });
  if (!cg.v1_cpu.empty()) {
    std::string v1_root = fs::exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") ? "/sys/fs/cgroup/cpu"
                          : fs::exists("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us")
                              ? "/sys/fs/cgroup/cpu,cpuacct"
                              : "";
    walk(v1_root, cg.v1_cpu, [](const fs::path& p) {
      return parse_cfs_quota(read_file((p / "cpu.cfs_quota_us").string()),
                             read_file((p / "cpu.cfs_period_us").string()));
    });
  }
  return best;
}

json counters_snapshot(const std::string& ns) {
  json j = json::object();
  for (const char* f : {"/proc/net/netstat", "/proc/net/snmp"}) {
    auto r = run_command({"cat", f}, in_ns(ns, 5));
    if (!r.ok()) continue;
    for (const auto& [k, v] : parse_netstat(r.out)) j[k] = v;
  }
  return j;
}

// Every qdisc (and htb class) of a namespace, keyed "role/dev/kind".
json qdisc_snapshot(const std::string& role, const std::string& ns) {
  json j = json::object();
  auto r = run_command({"tc", "-j", "-s", "qdisc", "show"}, in_ns(ns, 5));
  if (!r.ok()) return j;
  std::set<std::string> htb_devs;
  auto add = [&](const QdiscStat& q) {
    if (q.kind == "noqueue") return;
    j[fmt::format("{}/{}/{}", role, q.dev, q.kind)] = {
        {"ns", role},       {"dev", q.dev},         {"kind", q.kind},   {"rate_bps", q.rate_bps},
        {"drops", q.drops}, {"packets", q.packets}, {"bytes", q.bytes}, {"backlog", q.backlog}};
  };
  for (const auto& q : parse_tc_json(r.out)) {
    add(q);
    if (q.kind == "htb") htb_devs.insert(q.dev);
  }
  for (const auto& dev : htb_devs) {  // text: tc -j leaves the htb classes' rates out
    auto c = run_command({"tc", "-s", "class", "show", "dev", dev}, in_ns(ns, 5));
    if (!c.ok()) continue;
    for (auto q : parse_tc_class_text(c.out)) {
      q.dev = dev;
      add(q);
    }
  }
  return j;
}

// Receive-buffer drops of the packet sockets (the switches' ports) of a namespace,
// keyed "role/process/iface".
json packet_drops_snapshot(const std::string& role, const std::string& ns) {
  json j = json::object();
  auto r = run_command({"ss", "-0", "-m", "-n", "-a", "-p"}, in_ns(ns, 5));
  if (!r.ok()) return j;
  for (const auto& d : parse_ss_packet(r.out)) {
    std::string k = fmt::format("{}/{}/{}", role, d.process.empty() ? "?" : d.process, d.iface);
    j[k] = j.value(k, 0LL) + d.drops;
  }
  return j;
}

// Receive drops of every interface of a namespace (`ip -s -j link`: rx dropped,
// which counts the kernel's per-CPU backlog overflowing behind a veth,
// netdev_max_backlog), keyed "role/ifname". A veth's peer counts the same packet
// as tx dropped, so only rx is kept.
json iface_drops_snapshot(const std::string& role, const std::string& ns) {
  json j = json::object();
  auto r = run_command({"ip", "-s", "-j", "link", "show"}, in_ns(ns, 5));
  if (!r.ok()) return j;
  for (const auto& [ifname, rx_dropped] : parse_ip_link_rx_dropped(r.out))
    if (ifname != "lo") j[role + "/" + ifname] = rx_dropped;
  return j;
}

// The unixctl sockets of the ovs-vswitchd processes in the case's namespaces
// (their --unixctl=PATH argument; the lab starts them with one).
std::vector<std::string> ovs_unixctl_sockets(const SamplerConfig& c) {
  std::set<ino_t> inodes;
  for (const auto& [role, ns] : c.namespaces)
    if (ino_t i = inode_of("/run/netns/" + ns)) inodes.insert(i);
  std::vector<std::string> out;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      pid_t pid = pid_t(std::strtol(e->d_name, nullptr, 10));
      if (pid <= 0 || !inodes.count(inode_of(fmt::format("/proc/{}/ns/net", pid)))) continue;
      std::string cmd = read_file(fmt::format("/proc/{}/cmdline", pid));
      if (fs::path(cmd.substr(0, cmd.find('\0'))).filename() != "ovs-vswitchd") continue;
      for (size_t b = 0; b < cmd.size();) {
        size_t end = cmd.find('\0', b);
        if (end == std::string::npos) end = cmd.size();
        if (cmd.compare(b, 10, "--unixctl=") == 0) out.push_back(cmd.substr(b + 10, end - b - 10));
        b = end + 1;
      }
    }
    closedir(d);
  }
  return out;
}

// OVS's own counters: coverage events ("coverage.rconn_overflow": packet-ins dropped
// because the connection's queue to the controller was full) and the datapath's
// lookups and port drops (dpctl/show -s), summed over the case's vswitchd.
json ovs_snapshot(const SamplerConfig& c) {
  json j = json::object();
  for (const auto& sock : ovs_unixctl_sockets(c)) {
    auto add = [&](const std::string& prefix, const std::map<std::string, long long>& m) {
      for (const auto& [k, v] : m) j[prefix + k] = j.value(prefix + k, 0LL) + v;
    };
    if (auto r = run_command({"ovs-appctl", "-t", sock, "coverage/show"}, with_timeout(5)); r.ok())
      add("coverage.", parse_ovs_coverage(r.out));
    if (auto r = run_command({"ovs-appctl", "-t", sock, "dpctl/show", "-s"}, with_timeout(5)); r.ok())
      add("", parse_ovs_dpctl_show(r.out));
  }
  return j;
}

json snapshot(const SamplerConfig& c) {
  json j = {{"sender", counters_snapshot(c.sender_ns)},
            {"receiver", counters_snapshot(c.receiver_ns)},
            {"qdiscs", json::object()},
            {"ovs", ovs_snapshot(c)},
            {"packet_drops", json::object()},
            {"iface_drops", json::object()}};
  for (const auto& [role, ns] : c.namespaces) {
    if (c.processes_only.count(ns)) continue;
    j["qdiscs"].update(qdisc_snapshot(role, ns));
    j["packet_drops"].update(packet_drops_snapshot(role, ns));
    j["iface_drops"].update(iface_drops_snapshot(role, ns));
  }
  return j;
}

json delta(const json& before, const json& after) {
  json d = json::object();
  for (const auto& [k, v] : after.items()) {
    if (!v.is_number()) continue;
    long long b = before.contains(k) && before[k].is_number() ? before[k].get<long long>() : 0;
    if (long long x = v.get<long long>() - b; x != 0) d[k] = x;
  }
  return d;
}

// Pads a series with zeros to `n` entries (a process not running yet used no CPU).
void pad(json& arr, size_t n) {
  while (arr.size() < n) arr.push_back(0);
}

}  // namespace

// The mean of arr[lo, hi).
double series_mean(const json& arr, size_t lo, size_t hi) {
  if (!arr.is_array()) return 0;
  hi = std::min(hi, arr.size());
  if (lo >= hi) return 0;
  double s = 0;
  for (size_t i = lo; i < hi; ++i) s += arr[i].is_number() ? arr[i].get<double>() : 0;
  return s / double(hi - lo);
}

double series_mean(const json& arr) { return series_mean(arr, 0, arr.size()); }

// The samples a TCP stream ran through: from the tick after the first one that saw
// the sender's socket with data acked (that tick's interval began before the
// stream) to the last such tick. CPU means over [lo, hi) are the stream's, not the
// start-up's and wind-down's, which in a 2 s test are a fifth of the samples.
// Without a stream (UDP, ping) or with under two samples in it: all of them.
std::pair<size_t, size_t> stream_samples(const json& t_s, const json& tcp) {
  size_t n = t_s.is_array() ? t_s.size() : 0;
  if (!tcp.is_object() || !tcp.contains("t_s") || tcp["t_s"].size() < 3) return {0, n};
  double first = tcp["t_s"].front().get<double>(), last = tcp["t_s"].back().get<double>();
  size_t lo = n, hi = 0;
  for (size_t i = 0; i < n; ++i) {
    double t = t_s[i].get<double>();
    if (t > first && lo == n) lo = i;
    if (t <= last) hi = i + 1;
  }
  if (lo >= hi || hi - lo < 2) return {0, n};
  return {lo, hi};
}

double series_max(const json& arr) {
  double m = 0;
  if (arr.is_array())
    for (const auto& v : arr)
      if (v.is_number()) m = std::max(m, v.get<double>());
  return m;
}

json intervals_json(const std::string& out) {
  auto pts = parse_iperf3_intervals(out);
  if (pts.empty()) return json::object();
  json j = {{"t_s", json::array()}, {"mbps", json::array()}};
  for (const auto& p : pts) {
    j["t_s"].push_back(p.t_s);
    j["mbps"].push_back(p.bps / 1e6);
  }
  return j;
}

void add_stream_series(json& rec, const std::string& raw, double ping_interval_s) {
  if (rec.value("type", "") == "ping") {
    auto replies = parse_ping_replies(raw);
    if (!replies.empty()) {
      json p = {{"t_s", json::array()}, {"seq", json::array()}, {"rtt_ms", json::array()}};
      for (const auto& r : replies) {
        p["t_s"].push_back(double(r.seq - 1) * ping_interval_s);
        p["seq"].push_back(r.seq);
        p["rtt_ms"].push_back(r.rtt_ms);
      }
      rec["samples"]["ping"] = std::move(p);
    }
  }
  if (rec.contains("probe") && rec["probe"].is_object()) {
    const json& s = rec["probe"].value("series", json::object());
    if (s.is_object() && s.contains("t_s") && s.contains("delivered_pps"))
      rec["samples"]["probe"] = {
          {"t_s", s["t_s"]}, {"delivered_pps", s["delivered_pps"]}, {"bin_s", s.value("bin_s", 0.0)}};
  }
}

TestSampler::TestSampler(SamplerConfig cfg) : cfg_(std::move(cfg)) {
  before_ = snapshot(cfg_);
  series_ = {{"t_s", json::array()},
             {"procs", json::object()},
             {"cores", json::object()},
             {"tcp", json::object()},
             {"counters", json::object()}};
  thread_ = std::thread([this] { loop(); });
}

TestSampler::~TestSampler() { finish(); }

// Per core, each sample: busy (all but idle and iowait), its user (with nice),
// system and softirq parts, and steal.
constexpr const char* kCoreSeries[] = {"busy_pct", "user_pct", "system_pct", "softirq_pct", "steal_pct"};

void TestSampler::loop() {
  const double hz = double(sysconf(_SC_CLK_TCK));
  std::map<ino_t, std::string> ns_role;
  for (const auto& [role, ns] : cfg_.namespaces)
    if (ino_t i = inode_of("/run/netns/" + ns)) ns_role[i] = role;
  struct Seen {
    uint64_t utime = 0, stime = 0;
    std::string label;
  };
  std::map<pid_t, Seen> seen;  // pids of the previous sample
  std::map<std::string, CoreTimes> prev_cores = parse_proc_stat(read_file("/proc/stat"));
  uint64_t t0 = monotonic_ns(), prev_t = t0;
  bool first = true;
  size_t n = 0;
  while (!stop_) {
    uint64_t next = prev_t + uint64_t(cfg_.interval_s * 1e9);
    while (!stop_ && monotonic_ns() < next) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (stop_) break;
    uint64_t now = monotonic_ns();
    double dt = double(now - prev_t) / 1e9;
    prev_t = now;
    // Processes of the case, by network namespace.
    std::map<std::string, std::pair<double, double>> cpu;  // label -> user, system %
    std::map<pid_t, Seen> cur;
    if (DIR* d = opendir("/proc")) {
      while (dirent* e = readdir(d)) {
        pid_t pid = pid_t(std::strtol(e->d_name, nullptr, 10));
        if (pid <= 0) continue;
        auto role = ns_role.find(inode_of(fmt::format("/proc/{}/ns/net", pid)));
        if (role == ns_role.end()) continue;
        auto st = parse_proc_pid_stat(read_file(fmt::format("/proc/{}/stat", pid)));
        if (!st || lab_tool(st->comm)) continue;
        Seen s{st->utime, st->stime, {}};
        auto old = seen.find(pid);
        s.label = old != seen.end() ? old->second.label : process_label(pid, st->comm, role->second);
        cur[pid] = s;
        // A process new since the last sample started within it: all its time is new.
        auto& c = cpu[s.label];
        if (old != seen.end()) {
          c.first += double(st->utime - std::min(st->utime, old->second.utime)) / hz / dt * 100;
          c.second += double(st->stime - std::min(st->stime, old->second.stime)) / hz / dt * 100;
        } else if (!first) {
          c.first += double(st->utime) / hz / dt * 100;
          c.second += double(st->stime) / hz / dt * 100;
        }
        auto& p = series_["procs"][s.label];
        if (!p.contains("ns")) {
          p = {{"ns", role->second}, {"user_pct", json::array()}, {"system_pct", json::array()}};
        }
        if (auto lim = cgroup_cpu_limit(pid)) p["limit_pct"] = *lim;
      }
      closedir(d);
    }
    seen = std::move(cur);
    first = false;
    series_["t_s"].push_back(double(now - t0) / 1e9);
    ++n;
    for (auto& [label, p] : series_["procs"].items()) {
      pad(p["user_pct"], n - 1);
      pad(p["system_pct"], n - 1);
      auto it = cpu.find(label);
      p["user_pct"].push_back(it == cpu.end() ? 0.0 : it->second.first);
      p["system_pct"].push_back(it == cpu.end() ? 0.0 : it->second.second);
    }
    // Cores.
    auto cores = parse_proc_stat(read_file("/proc/stat"));
    for (const auto& [name, c] : cores) {
      auto pc = prev_cores.find(name);
      if (pc == prev_cores.end()) continue;
      double tot = double(c.total() - pc->second.total());
      auto pct = [&](uint64_t a, uint64_t b) { return tot > 0 ? 100.0 * double(a - b) / tot : 0.0; };
      auto& s = series_["cores"][name];
      for (const char* k : kCoreSeries) pad(s[k], n - 1);
      s["busy_pct"].push_back(pct(c.busy(), pc->second.busy()));
      s["user_pct"].push_back(pct(c.user + c.nice, pc->second.user + pc->second.nice));
      s["system_pct"].push_back(pct(c.system, pc->second.system));
      s["softirq_pct"].push_back(pct(c.softirq, pc->second.softirq));
      s["steal_pct"].push_back(pct(c.steal, pc->second.steal));
    }
    prev_cores = std::move(cores);
    // The sender's stream.
    auto r = run_command({"ss", "-tinH", "state", "established"}, in_ns(cfg_.sender_ns, 2));
    auto socks = parse_ss_tin(r.out);
    if (const SsSocket* s = stream_socket(socks); s && s->bytes_acked > 0) {
      auto& t = series_["tcp"];
      t["t_s"].push_back(double(now - t0) / 1e9);
      t["cwnd"].push_back(s->cwnd);
      t["mss"].push_back(s->mss);
      t["rtt_ms"].push_back(s->rtt_ms);
      t["min_rtt_ms"].push_back(s->min_rtt_ms);
      t["rto_ms"].push_back(s->rto_ms);
      t["delivery_mbps"].push_back(s->delivery_rate_bps / 1e6);
      t["retrans"].push_back(s->retrans_total);
      t["send_q"].push_back(s->send_q);
      t["inflight_bytes"].push_back(s->unacked * s->mss);
      t["snd_wnd"].push_back(s->snd_wnd);
      t["rwnd_limited_pct"].push_back(s->rwnd_limited_pct);
      t["sndbuf_limited_pct"].push_back(s->sndbuf_limited_pct);
    }
    // Switch / controller statistics files (rewritten by those processes).
    if (!cfg_.stats_dir.empty()) {
      std::error_code ec;
      auto& cs = series_["counters"];
      for (const auto& e : fs::directory_iterator(cfg_.stats_dir, ec)) {
        std::string name = e.path().filename().string();
        if (name.size() < 11 || name.compare(name.size() - 11, 11, "-stats.json") != 0) continue;
        auto j = json::parse(read_file(e.path().string()), nullptr, false);
        if (!j.is_object()) continue;
        std::string who = name.substr(0, name.size() - 11);
        auto put = [&](const std::string& key, const json& v) {
          if (!v.is_number()) return;
          auto& a = cs[who + "." + key];
          while (a.size() + 1 < n) a.push_back(nullptr);  // not written yet: unknown, not 0
          a.push_back(v);
        };
        put("packet_in.received", j.value("/packet_in/received"_json_pointer, json()));
        put("packet_in.dropped", j.value("/packet_in/dropped"_json_pointer, json()));
        put("packet_ins.sent", j.value("/packet_ins/sent"_json_pointer, json()));
        put("packet_ins.congested", j.value("/packet_ins/congested"_json_pointer, json()));
        put("to_controller.dropped", j.value("/to_controller/dropped"_json_pointer, json()));
        put("buffers.evicted", j.value("/buffers/evicted"_json_pointer, json()));
        put("buffers.expired", j.value("/buffers/expired"_json_pointer, json()));
        put("packet_outs", j.value("/packet_outs"_json_pointer, json()));
      }
    }
  }
}

json TestSampler::finish() {
  if (finished_) return result_;
  finished_ = true;
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  json after = snapshot(cfg_);
  json& s = series_;
  size_t n = s["t_s"].size();
  json out = {{"interval_s", cfg_.interval_s}, {"t_s", s["t_s"]}};
  auto [lo, hi] = stream_samples(s["t_s"], s["tcp"]);
  if (hi > lo) out["mean_window_s"] = {s["t_s"][lo], s["t_s"][hi - 1]};
  for (auto& [label, p] : s["procs"].items()) {
    pad(p["user_pct"], n);
    pad(p["system_pct"], n);
    json total = json::array();
    for (size_t i = 0; i < n; ++i)
      total.push_back(p["user_pct"][i].get<double>() + p["system_pct"][i].get<double>());
    p["mean_pct"] = series_mean(total, lo, hi);
    p["max_pct"] = series_max(total);
    p["user_mean_pct"] = series_mean(p["user_pct"], lo, hi);
    p["system_mean_pct"] = series_mean(p["system_pct"], lo, hi);
  }
  out["procs"] = s["procs"];
  for (auto& [name, c] : s["cores"].items())
    for (const char* k : kCoreSeries) {
      pad(c[k], n);
      c[std::string(k).replace(std::string(k).find("_pct"), 4, "_mean_pct")] = series_mean(c[k], lo, hi);
    }
  out["cores"] = s["cores"];
  json& t = s["tcp"];
  if (!t.empty()) {
    std::vector<double> mins;
    for (const auto& v : t["min_rtt_ms"])
      if (v.get<double>() > 0) mins.push_back(v.get<double>());
    // Window / RTT per sample (bytes in flight over the smoothed RTT), averaged: what a
    // window-limited stream can carry at the RTT it met.
    std::vector<double> wr;
    for (size_t i = 0; i < t["inflight_bytes"].size() && i < t["rtt_ms"].size(); ++i) {
      double w = t["inflight_bytes"][i].get<double>(), rtt = t["rtt_ms"][i].get<double>();
      if (w > 0 && rtt > 0) wr.push_back(w * 8 / (rtt / 1000) / 1e6);
    }
    double wr_mean = 0;
    for (double x : wr) wr_mean += x / double(wr.size());
    t["summary"] = {{"samples", t["t_s"].size()},
                    {"window_rate_mean_mbps", wr_mean},
                    {"cwnd_max", series_max(t["cwnd"])},
                    {"cwnd_mean", series_mean(t["cwnd"])},
                    {"mss", series_max(t["mss"])},
                    {"rtt_mean_ms", series_mean(t["rtt_ms"])},
                    {"min_rtt_ms", mins.empty() ? 0.0 : *std::min_element(mins.begin(), mins.end())},
                    {"rto_mean_ms", series_mean(t["rto_ms"])},
                    {"inflight_mean_bytes", series_mean(t["inflight_bytes"])},
                    {"snd_wnd_mean", series_mean(t["snd_wnd"])},
                    {"rwnd_limited_pct", t["rwnd_limited_pct"].back()},  // cumulative: the last sample
                    {"sndbuf_limited_pct", t["sndbuf_limited_pct"].back()},
                    {"rto_max_ms", series_max(t["rto_ms"])},
                    {"delivery_max_mbps", series_max(t["delivery_mbps"])},
                    {"retrans", series_max(t["retrans"])}};
  }
  out["tcp"] = t;
  for (auto& [k, a] : s["counters"].items())
    while (a.size() < n) a.push_back(nullptr);
  out["counters"] = s["counters"];
  out["tcp_ext"] = {{"sender", delta(before_["sender"], after["sender"])},
                    {"receiver", delta(before_["receiver"], after["receiver"])}};
  json q = json::array();
  for (const auto& [k, a] : after["qdiscs"].items()) {
    json e = a;
    const json& b = before_["qdiscs"].contains(k) ? before_["qdiscs"][k] : json::object();
    e["drops"] = a.value("drops", 0LL) - b.value("drops", 0LL);
    e["packets"] = a.value("packets", 0LL) - b.value("packets", 0LL);
    e["bytes"] = a.value("bytes", 0LL) - b.value("bytes", 0LL);
    q.push_back(e);
  }
  out["qdiscs"] = q;
  if (!after["ovs"].empty()) out["ovs"] = delta(before_["ovs"], after["ovs"]);
  json pd = json::array();  // only the sockets that dropped during the test
  const json dropped = delta(before_["packet_drops"], after["packet_drops"]);
  for (const auto& [k, d] : dropped.items()) {
    auto a = k.find('/'), b = k.rfind('/');
    pd.push_back({{"ns", k.substr(0, a)},
                  {"process", k.substr(a + 1, b - a - 1)},
                  {"iface", k.substr(b + 1)},
                  {"drops", d}});
  }
  out["packet_drops"] = pd;
  json idr = json::array();  // only the interfaces that dropped during the test
  const json iface_dropped = delta(before_["iface_drops"], after["iface_drops"]);
  for (const auto& [k, d] : iface_dropped.items()) {
    auto a = k.find('/');
    idr.push_back({{"ns", k.substr(0, a)}, {"dev", k.substr(a + 1)}, {"rx_dropped", d}});
  }
  out["iface_drops"] = idr;
  result_ = std::move(out);
  return result_;
}

}  // namespace flowlab::lab

// Parsers of sampled text (see sample_parse.h). Every parser tolerates truncated or
// unexpected input: a field it cannot read stays zero, a line it cannot read is
// skipped; nothing throws.
#include "lab/measure/sample_parse.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lab/format/json_access.h"

namespace flowlab::lab {

namespace {

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> w;
  std::istringstream in(line);
  std::string s;
  while (in >> s) w.push_back(s);
  return w;
}

uint64_t to_u64(const std::string& s) { return std::strtoull(s.c_str(), nullptr, 10); }

// "rtt:0.106/0.07" -> the text after "key:" up to the next space, or empty.
std::string field(const std::string& line, const std::string& key) {
  size_t p = 0;
  while ((p = line.find(key, p)) != std::string::npos) {
    bool starts = p == 0 || line[p - 1] == ' ' || line[p - 1] == '\t';
    if (starts) {
      size_t b = p + key.size(), e = line.find_first_of(" \t\n", b);
      return line.substr(b, e == std::string::npos ? std::string::npos : e - b);
    }
    p += key.size();
  }
  return {};
}

// "40329846152bps" -> 4.03e10; "12Mbps" -> 1.2e7.
double rate_bps(const std::string& s) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end && *end == 'K') v *= 1e3;
  if (end && *end == 'M') v *= 1e6;
  if (end && *end == 'G') v *= 1e9;
  return v;
}

}  // namespace

std::optional<ProcStat> parse_proc_pid_stat(const std::string& text) {
  auto open = text.find('('), close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  ProcStat s;
  s.comm = text.substr(open + 1, close - open - 1);
  auto w = words(text.substr(close + 1));
  // w[0] is field 3 (state); utime is field 14 -> w[11], stime w[12], threads w[17].
  if (w.size() < 18) return std::nullopt;
  s.utime = to_u64(w[11]);
  s.stime = to_u64(w[12]);
  s.threads = int(to_u64(w[17]));
  return s;
}

std::vector<std::pair<std::string, long long>> parse_ip_link_rx_dropped(const std::string& text) {
  std::vector<std::pair<std::string, long long>> out;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_array()) return out;
  for (const auto& l : j) {
    if (!l.is_object() || !l.contains("ifname") || !l["ifname"].is_string()) continue;
    const auto* st = l.contains("stats64") ? &l["stats64"] : l.contains("stats") ? &l["stats"] : nullptr;
    if (!st || !st->is_object() || !st->contains("rx") || !(*st)["rx"].is_object()) continue;
    const auto& rx = (*st)["rx"];
    if (!rx.contains("dropped") || !rx["dropped"].is_number_integer()) continue;
    out.emplace_back(l["ifname"].get<std::string>(), rx["dropped"].get<long long>());
  }
  return out;
}

std::map<std::string, CoreTimes> parse_proc_stat(const std::string& text) {
  std::map<std::string, CoreTimes> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
    auto w = words(line);
    if (w.size() < 9) continue;
    CoreTimes c;
    c.user = to_u64(w[1]);
    c.nice = to_u64(w[2]);
    c.system = to_u64(w[3]);
    c.idle = to_u64(w[4]);
    c.iowait = to_u64(w[5]);
    c.irq = to_u64(w[6]);
    c.softirq = to_u64(w[7]);
    c.steal = to_u64(w[8]);
    out[w[0]] = c;
  }
  return out;
}

std::map<std::string, long long> parse_netstat(const std::string& text) {
  std::map<std::string, long long> out;
  std::istringstream in(text);
  std::string head, vals;
  while (std::getline(in, head) && std::getline(in, vals)) {
    auto h = words(head), v = words(vals);
    if (h.empty() || v.empty() || h[0] != v[0] || h.size() != v.size()) continue;
    std::string prefix = h[0].substr(0, h[0].size() - 1);  // "TcpExt:" -> "TcpExt"
    for (size_t i = 1; i < h.size(); ++i) out[prefix + "." + h[i]] = std::strtoll(v[i].c_str(), nullptr, 10);
  }
  return out;
}

std::vector<SsSocket> parse_ss_tin(const std::string& text) {
  std::vector<SsSocket> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    bool info = line[0] == '\t' || line[0] == ' ';
    if (!info) {
      auto w = words(line);
      // "ESTAB 0 2621440 127.0.0.1:55442 127.0.0.1:5999" (-H: no header line); with a
      // state filter ss leaves the State column out.
      size_t b = !w.empty() && !w[0].empty() && std::isdigit((unsigned char)w[0][0]) ? 0 : 1;
      if (w.size() < b + 4 || w[0] == "State" || w[0] == "Recv-Q") continue;
      SsSocket s;
      s.send_q = std::strtoll(w[b + 1].c_str(), nullptr, 10);
      s.local = w[b + 2];
      s.peer = w[b + 3];
      out.push_back(s);
      continue;
    }
    if (out.empty()) continue;
    SsSocket& s = out.back();
    auto rtt = field(line, "rtt:");
    if (!rtt.empty()) {
      s.rtt_ms = std::strtod(rtt.c_str(), nullptr);
      if (auto slash = rtt.find('/'); slash != std::string::npos)
        s.rtt_var_ms = std::strtod(rtt.c_str() + slash + 1, nullptr);
    }
    s.min_rtt_ms = std::strtod(field(line, "minrtt:").c_str(), nullptr);
    s.rto_ms = std::strtod(field(line, "rto:").c_str(), nullptr);
    s.cwnd = std::strtoll(field(line, "cwnd:").c_str(), nullptr, 10);
    s.mss = std::strtoll(field(line, "mss:").c_str(), nullptr, 10);
    s.ssthresh = std::strtoll(field(line, "ssthresh:").c_str(), nullptr, 10);
    s.unacked = std::strtoll(field(line, "unacked:").c_str(), nullptr, 10);
    s.snd_wnd = std::strtoll(field(line, "snd_wnd:").c_str(), nullptr, 10);
    s.bytes_acked = std::strtoll(field(line, "bytes_acked:").c_str(), nullptr, 10);
    s.bytes_received = std::strtoll(field(line, "bytes_received:").c_str(), nullptr, 10);
    s.bytes_retrans = std::strtoll(field(line, "bytes_retrans:").c_str(), nullptr, 10);
    s.lost = std::strtoll(field(line, "lost:").c_str(), nullptr, 10);
    auto re = field(line, "retrans:");
    if (auto slash = re.find('/'); slash != std::string::npos)
      s.retrans_total = std::strtoll(re.c_str() + slash + 1, nullptr, 10);
    auto limited = [&](const char* key) {
      auto v = field(line, key);  // "80ms(42.1%)"
      auto p = v.find('(');
      return p == std::string::npos ? 0.0 : std::strtod(v.c_str() + p + 1, nullptr);
    };
    s.rwnd_limited_pct = limited("rwnd_limited:");
    s.sndbuf_limited_pct = limited("sndbuf_limited:");
    // "delivery_rate 123bps" is a key and a value separated by a space.
    if (auto p = line.find("delivery_rate "); p != std::string::npos)
      s.delivery_rate_bps = rate_bps(line.substr(p + 14));
  }
  return out;
}

const SsSocket* stream_socket(const std::vector<SsSocket>& sockets) {
  // Summed as unsigned: the counters are as ss printed them, and a corrupt line
  // can hold anything up to LLONG_MAX (the fuzzer found the signed overflow).
  auto volume = [](const SsSocket& s) {
    return uint64_t(std::max(s.bytes_acked, 0LL)) + uint64_t(std::max(s.bytes_received, 0LL));
  };
  const SsSocket* best = nullptr;
  for (const auto& s : sockets)
    if (!best || volume(s) > volume(*best)) best = &s;
  return best;
}

std::vector<QdiscStat> parse_tc_json(const std::string& text) {
  std::vector<QdiscStat> out;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_array()) return out;
  // Fields of another type read as absent (json::value would throw: the fuzzer found it).
  for (const auto& q : j) {
    if (!q.is_object()) continue;
    QdiscStat s;
    s.dev = str(q, "dev");
    s.kind = q.contains("kind") ? str(q, "kind") : str(q, "class");
    double rate = num(q, "rate");                             // an htb class
    if (rate == 0) rate = num(member(q, "options"), "rate");  // a qdisc (tbf)
    s.rate_bps = rate * 8;                                    // tc -j prints bytes per second
    const nlohmann::json* st = &q;
    if (auto it = q.find("stats"); it != q.end() && it->is_object()) st = &*it;  // classes nest them
    s.drops = (long long)num(*st, "drops");
    s.packets = (long long)num(*st, "packets");
    s.bytes = (long long)num(*st, "bytes");
    s.overlimits = (long long)num(*st, "overlimits");
    s.backlog = (long long)num(*st, "backlog");
    out.push_back(s);
  }
  return out;
}

std::vector<IntervalPoint> parse_iperf3_intervals(const std::string& json_text) {
  std::vector<IntervalPoint> out;
  auto b = json_text.find('{');
  if (b == std::string::npos) return out;
  auto j = nlohmann::json::parse(json_text.substr(b), nullptr, false);
  if (!j.is_object() || !j.contains("intervals") || !j["intervals"].is_array()) return out;
  for (const auto& iv : j["intervals"]) {
    if (!iv.is_object() || !iv.contains("sum") || !iv["sum"].is_object()) continue;
    const auto& s = iv["sum"];
    IntervalPoint p;
    p.t_s = s.value("end", 0.0);
    p.bps = s.value("bits_per_second", 0.0);
    out.push_back(p);
  }
  return out;
}

std::optional<double> parse_cpu_max(const std::string& text) {
  auto w = words(text);
  if (w.size() < 2 || w[0] == "max") return std::nullopt;
  double quota = std::strtod(w[0].c_str(), nullptr), period = std::strtod(w[1].c_str(), nullptr);
  if (quota <= 0 || period <= 0) return std::nullopt;
  return 100 * quota / period;
}

std::optional<double> parse_cfs_quota(const std::string& quota, const std::string& period) {
  double q = std::strtod(quota.c_str(), nullptr), p = std::strtod(period.c_str(), nullptr);
  if (q <= 0 || p <= 0) return std::nullopt;  // -1: unlimited
  return 100 * q / p;
}

CgroupPaths parse_proc_cgroup(const std::string& text) {
  CgroupPaths out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto a = line.find(':'), b = line.find(':', a == std::string::npos ? 0 : a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string ctrls = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (line.compare(0, a, "0") == 0 && ctrls.empty()) {
      out.v2 = path;
      continue;
    }
    std::istringstream cs(ctrls);
    std::string c;
    while (std::getline(cs, c, ','))
      if (c == "cpu") out.v1_cpu = path;
  }
  return out;
}

std::map<std::string, long long> parse_ovs_coverage(const std::string& text) {
  std::map<std::string, long long> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto t = line.rfind("total: ");
    auto w = words(line);
    if (t == std::string::npos || w.empty()) continue;
    out[w[0]] = std::strtoll(line.c_str() + t + 7, nullptr, 10);
  }
  return out;
}

std::map<std::string, long long> parse_ovs_dpctl_show(const std::string& text) {
  std::map<std::string, long long> out;
  std::istringstream in(text);
  std::string line, port;  // the current port, "" when it is left out
  auto fields = [&](const std::string& prefix, const std::string& rest) {
    for (const auto& w : words(rest)) {
      auto c = w.find(':');
      if (c == std::string::npos || c + 1 >= w.size()) continue;
      char* end = nullptr;
      long long v = std::strtoll(w.c_str() + c + 1, &end, 10);
      if (end == w.c_str() + c + 1) continue;
      out[prefix + w.substr(0, c)] = v;
    }
  };
  while (std::getline(in, line)) {
    auto w = words(line);
    if (w.empty()) continue;
    if (w[0] == "lookups:") {
      fields("lookups.", line.substr(line.find(':') + 1));
    } else if (w[0] == "port" && w.size() >= 3) {
      port = w[2];
      bool skip = w.size() >= 4 && (w[3].rfind("(tap", 0) == 0 || w[3].rfind("(internal", 0) == 0);
      if (skip) port.clear();
    } else if (!port.empty() && (w[0] == "RX" || w[0] == "TX") && w.size() > 1 &&
               w[1].rfind("packets:", 0) == 0) {
      std::string dir = w[0] == "RX" ? "rx_" : "tx_";
      fields("port." + port + "." + dir, line.substr(line.find(w[0]) + 2));
    }
  }
  return out;
}

std::vector<PingReply> parse_ping_replies(const std::string& text) {
  std::vector<PingReply> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto s = line.find("icmp_seq="), t = line.find(" time=");
    if (s == std::string::npos || t == std::string::npos) continue;
    PingReply r;
    r.seq = int(std::strtol(line.c_str() + s + 9, nullptr, 10));
    r.rtt_ms = std::strtod(line.c_str() + t + 6, nullptr);
    if (r.seq > 0 && r.rtt_ms >= 0) out.push_back(r);
  }
  return out;
}

// "100Mbit" -> 1e8, "1Gbit" -> 1e9, "800Kbit" -> 8e5, "96bit" -> 96 (tc's SI units).
static double tc_rate_bps(const std::string& w) {
  char* end = nullptr;
  double v = std::strtod(w.c_str(), &end);
  if (end == w.c_str()) return 0;
  std::string unit(end);
  if (unit.rfind("Kbit", 0) == 0) return v * 1e3;
  if (unit.rfind("Mbit", 0) == 0) return v * 1e6;
  if (unit.rfind("Gbit", 0) == 0) return v * 1e9;
  if (unit.rfind("Tbit", 0) == 0) return v * 1e12;
  if (unit.rfind("bit", 0) == 0) return v;
  return 0;
}

std::vector<QdiscStat> parse_tc_class_text(const std::string& text) {
  std::vector<QdiscStat> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto w = words(line);
    if (w.size() >= 3 && w[0] == "class" && w[1] == "htb") {
      QdiscStat q;
      q.kind = "htb-class";
      for (size_t i = 2; i + 1 < w.size(); ++i)
        if (w[i] == "rate") q.rate_bps = tc_rate_bps(w[i + 1]);
      out.push_back(q);
    } else if (!out.empty() && w.size() >= 5 && w[0] == "Sent" && w[2] == "bytes") {
      out.back().bytes = std::strtoll(w[1].c_str(), nullptr, 10);
      out.back().packets = std::strtoll(w[3].c_str(), nullptr, 10);
      if (auto d = line.find("(dropped "); d != std::string::npos)
        out.back().drops = std::strtoll(line.c_str() + d + 9, nullptr, 10);
      if (auto o = line.find("overlimits "); o != std::string::npos)
        out.back().overlimits = std::strtoll(line.c_str() + o + 11, nullptr, 10);
    } else if (!out.empty() && w.size() >= 2 && w[0] == "backlog") {
      out.back().backlog = std::strtoll(w[1].c_str(), nullptr, 10);  // "1514b 1p": bytes, as tc -j
    }
  }
  return out;
}

std::vector<PacketSocketDrops> parse_ss_packet(const std::string& text) {
  std::vector<PacketSocketDrops> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto w = words(line);
    if (w.size() < 5 || w[0].rfind("p_", 0) != 0) continue;  // p_raw, p_dgr
    PacketSocketDrops d;
    auto c = w[4].rfind(':');
    d.iface = c == std::string::npos ? w[4] : w[4].substr(c + 1);
    if (auto u = line.find("users:((\""); u != std::string::npos) {
      auto e = line.find('"', u + 9);
      if (e != std::string::npos) d.process = line.substr(u + 9, e - u - 9);
    }
    if (auto m = line.find("skmem:("); m != std::string::npos) {
      auto e = line.find(')', m);
      std::string mem = line.substr(m + 7, e == std::string::npos ? std::string::npos : e - m - 7);
      std::istringstream ms(mem);
      std::string f;
      while (std::getline(ms, f, ','))
        if (f.size() > 1 && f[0] == 'd') d.drops = std::strtoll(f.c_str() + 1, nullptr, 10);
    }
    out.push_back(d);
  }
  return out;
}

}  // namespace flowlab::lab

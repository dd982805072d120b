// pingall: every ordered host pair, concurrently in bounded batches (see pingall.h).
#include "lab/traffic/pingall.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>

#include "lab/format/json_access.h"
#include "lab/format/svg_chart.h"
#include "lab/host/netns.h"
#include "lab/host/process.h"
#include "lab/traffic/pingall_hosts.h"

namespace flowlab::lab {

using nlohmann::json;

namespace {

// "h1->h2, h1->h3, ..." : the first five pairs of a list, for a reason line.
std::string first_pairs(const std::vector<std::string>& pairs) {
  std::string list;
  for (size_t k = 0; k < pairs.size() && k < 5; ++k) list += (k ? ", " : "") + pairs[k];
  return pairs.size() > 5 ? list + ", ..." : list;
}

}  // namespace

PingallOutcome summarize_pingall(const std::vector<std::string>& hosts,
                                 const std::vector<std::vector<json>>& per_pair) {
  PingallOutcome r;
  size_t n = hosts.size();
  json loss = json::array(), rtt = json::array();
  long long sent = 0, received = 0, pairs = 0, reached = 0;
  double rtt_sum = 0, rtt_max = 0;
  std::vector<std::string> unreachable;
  for (size_t i = 0; i < n; ++i) {
    json lrow = json::array(), rrow = json::array();
    for (size_t j = 0; j < n; ++j) {
      const json& m = per_pair[i][j];
      if (i == j || !m.is_object()) {
        lrow.push_back(nullptr);
        rrow.push_back(nullptr);
        continue;
      }
      ++pairs;
      int s = m.value("sent", 0), got = m.value("received", 0);
      sent += s;
      received += got;
      lrow.push_back(m.value("loss_pct", 100.0));
      if (got > 0 && m.contains("rtt_avg_ms")) {
        ++reached;
        double v = m["rtt_avg_ms"].get<double>();
        rtt_sum += v;
        rtt_max = std::max(rtt_max, v);
        rrow.push_back(v);
      } else {
        if (got > 0) ++reached;
        rrow.push_back(nullptr);
        if (got == 0) unreachable.push_back(hosts[i] + "->" + hosts[j]);
      }
    }
    loss.push_back(std::move(lrow));
    rtt.push_back(std::move(rrow));
  }
  r.matrix = {{"hosts", hosts}, {"loss_pct", std::move(loss)}, {"rtt_ms", std::move(rtt)}};
  auto& m = r.outcome.metrics;
  m["pairs"] = pairs;
  m["pairs_reached"] = reached;
  m["dropped_pct"] = sent ? 100.0 * double(sent - received) / double(sent) : 0.0;
  if (reached) {
    m["rtt_avg_ms"] = rtt_sum / double(reached);
    m["rtt_max_ms"] = rtt_max;
  }
  if (!unreachable.empty()) {
    r.outcome.status = "failed";
    r.outcome.reason =
        fmt::format("{} of {} pairs got no echo ({})", unreachable.size(), pairs, first_pairs(unreachable));
  }
  return r;
}

std::map<std::string, std::vector<double>> parse_fping(const std::string& text) {
  std::map<std::string, std::vector<double>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto colon = line.find(" : ");
    if (colon == std::string::npos) continue;
    std::string addr = line.substr(0, line.find(' '));
    std::istringstream vs(line.substr(colon + 3));
    std::vector<double> v;
    for (std::string x; vs >> x;) {
      char* end = nullptr;
      double ms = std::strtod(x.c_str(), &end);
      v.push_back(x == "-" || *end ? -1.0 : ms);
    }
    out[addr] = std::move(v);
  }
  return out;
}

namespace {

// ping's own summary from fping's per-echo RTTs: min/avg/max/mdev (mdev as ping
// computes it, sqrt(mean(x^2) - mean(x)^2)).
json pair_metrics(const std::vector<double>& rtts, int count) {
  int got = 0;
  double sum = 0, sq = 0, mn = 0, mx = 0;
  for (double r : rtts)
    if (r >= 0) {
      mn = got ? std::min(mn, r) : r;
      mx = got ? std::max(mx, r) : r;
      ++got, sum += r, sq += r * r;
    }
  json m = {{"sent", count}, {"received", got}, {"loss_pct", 100.0 * (count - got) / count}};
  if (got) {
    double avg = sum / got;
    m["rtt_avg_ms"] = avg;
    m["rtt_min_ms"] = mn;
    m["rtt_max_ms"] = mx;
    m["rtt_mdev_ms"] = std::sqrt(std::max(0.0, sq / got - avg * avg));
  }
  return m;
}

// One fping per source host, paced (pingall_pacing).
void fping_all(const TestSpec& t, const std::vector<PingallHost>& hosts, const PingallPacing& pacing,
               double interval, std::vector<std::vector<json>>& per_pair) {
  size_t n = hosts.size();
  // Plain variables, not a structured binding: lambdas may capture those only from
  // C++20 on, and clang 14 (the fuzz build) does not allow it yet.
  const size_t sources = pacing.sources;
  const int gap_ms = pacing.gap_ms;
  const int timeout_ms = pacing.timeout_ms;
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n && !interrupted();) {
      // -p: between echoes to one target; -i: between any two packets (below 10 ms needs root).
      std::vector<std::string> argv = {"fping", "-q",
                                       "-C",    std::to_string(t.count),
                                       "-p",    std::to_string(std::max(10, int(interval * 1000))),
                                       "-i",    std::to_string(gap_ms),
                                       "-t",    std::to_string(timeout_ms)};
      for (size_t j = 0; j < n; ++j)
        if (j != i) argv.push_back(hosts[j].addr);
      double bound = t.count * interval + double(n * size_t(t.count) * size_t(gap_ms)) * 0.002 +
                     timeout_ms / 1000.0 + 10;
      auto r = run_command(argv, in_ns(hosts[i].ns, bound));
      auto got = parse_fping(r.err);
      for (size_t j = 0; j < n; ++j) {
        if (j == i) continue;
        auto it = got.find(hosts[j].addr);
        per_pair[i][j] = pair_metrics(it == got.end() ? std::vector<double>{} : it->second, t.count);
      }
    }
  };
  std::vector<std::thread> workers;
  for (size_t w = 0; w < std::min(n, sources); ++w) workers.emplace_back(work);
  for (auto& w : workers) w.join();
}

}  // namespace

PingallPacing pingall_pacing(size_t n, int parallel, const PingallPath& path) {
  PingallPacing p;
  p.gap_ms = n > 50 ? 2 : 1;
  double budget = 1000.0 / double(std::max<size_t>(n, 1)) * p.gap_ms;
  p.sources = size_t(std::clamp(int(budget), 1, std::max(parallel, 1)));
  p.announce = n >= kAnnounceHosts;
  if (p.announce && path.controller_switches == 0) {
    p.gap_ms = 1;  // unicast only: an echo and its reply cross the bridges, nothing floods
    p.sources = size_t(std::max(parallel, 1));
  }
  if (path.controller_switches > 0) {
    double s = double(path.controller_switches);
    // One source alone must stay within the budget: widen its gap if not.
    p.gap_ms = std::max(p.gap_ms, int(std::ceil(s * 1000.0 / kPacketInBudget)));
    double per_source = s * 1000.0 / p.gap_ms;  // packet-ins a second while it floods
    p.sources = std::min(p.sources, size_t(std::max(1.0, std::floor(kPacketInBudget / per_source))));
    p.timeout_ms = 10000;
    p.arp_retrans_ms = 3000;
  }
  return p;
}

namespace {

using PairList = std::vector<std::pair<size_t, size_t>>;

// `ping -c count` for each pair, `workers` at a time: workers take pairs from a
// shared index, each ping bounded by its own timeout; every cell is written by
// one worker only.
void ping_pairs(const PairList& pairs, const std::vector<PingallHost>& hosts, int count, double interval,
                int wait_s, size_t workers, std::vector<std::vector<json>>& per_pair) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k; (k = next.fetch_add(1)) < pairs.size() && !interrupted();) {
      auto [i, j] = pairs[k];
      std::vector<std::string> argv = {"ping",
                                       "-q",
                                       "-n",
                                       "-c",
                                       std::to_string(count),
                                       "-i",
                                       fmt::format("{}", interval),
                                       "-W",
                                       std::to_string(wait_s),
                                       hosts[j].addr};
      auto r = run_command(argv, in_ns(hosts[i].ns, count * interval + wait_s + 3));
      auto m = parse_ping(r.out);
      per_pair[i][j] = m.ok() ? *m : json{{"sent", count}, {"received", 0}, {"loss_pct", 100.0}};
    }
  };
  std::vector<std::thread> threads;
  for (size_t w = 0; w < std::min(pairs.size(), std::max<size_t>(workers, 1)); ++w)
    threads.emplace_back(work);
  for (auto& w : threads) w.join();
}

// Pairs that got no echo are tried once more, kRetryEchoes echoes each: through
// a controller the first echoes of a pair can be shed while its flows are being
// learned (a switch drops packet-ins its controller has not caught up with,
// agent.h), which is not a missing path. The matrix and dropped_pct stay those
// of the first try, as Mininet's pingall counts; the test fails only for pairs
// that get no echo on the retry either.
void retry_unreached(PingallOutcome& out, const std::vector<PingallHost>& hosts,
                     const std::vector<std::vector<json>>& first, size_t workers) {
  constexpr int kRetryEchoes = 3;
  PairList pairs;
  for (size_t i = 0; i < hosts.size(); ++i)
    for (size_t j = 0; j < hosts.size(); ++j)
      if (i != j && first[i][j].is_object() && first[i][j].value("received", 0) == 0)
        pairs.emplace_back(i, j);
  if (pairs.empty()) return;
  std::vector<std::vector<json>> again(hosts.size(), std::vector<json>(hosts.size()));
  ping_pairs(pairs, hosts, kRetryEchoes, 0.2, 2, workers, again);
  std::vector<std::string> still;
  for (auto [i, j] : pairs)
    if (again[i][j].value("received", 0) == 0) still.push_back(hosts[i].name + "->" + hosts[j].name);
  auto& m = out.outcome.metrics;
  size_t reached = pairs.size() - still.size();
  m["retried_pairs"] = pairs.size();
  m["reached_on_retry"] = reached;
  m["pairs_reached"] = m.value("pairs_reached", 0) + int64_t(reached);
  out.outcome.command += fmt::format(
      "; then ping -c {} -i 0.2 -W 2 for each of the {} pairs that got no echo", kRetryEchoes, pairs.size());
  if (still.empty()) {
    out.outcome.status = "ok";
    out.outcome.reason.clear();
    return;
  }
  out.outcome.status = "failed";
  out.outcome.reason = fmt::format("{} of {} pairs got no echo, also on a retry ({})", still.size(),
                                   m.value("pairs", 0), first_pairs(still));
}

}  // namespace

PingallOutcome run_pingall(const TestSpec& t, const std::vector<PingallHost>& hosts, int parallel,
                           const PingallPath& path) {
  size_t n = hosts.size();
  std::vector<std::vector<json>> per_pair(n, std::vector<json>(n));
  double interval = std::max(t.interval, 0.01);
  // Room for every pair plus what else the machine has (other namespaces, other labs).
  NeighbourTableRoom room(n * n + 1024);
  const PingallPacing pacing = pingall_pacing(n, parallel, path);
  HostArpPatience arp(hosts, pacing.arp_retrans_ms);
  HostsAnnounced announced(hosts, pacing.announce);
  std::string command;
  // Through controlled switches, as many pings at once as fping would have sources.
  const size_t workers = path.controller_switches ? pacing.sources : size_t(std::max(parallel, 1));
  if (have_program("fping")) {
    fping_all(t, hosts, pacing, interval, per_pair);
    command = fmt::format(
        "fping -q -C {} -p {} -i {} -t {} <every other host> (from each of {} hosts, {} at a time{})",
        t.count, std::max(10, int(interval * 1000)), pacing.gap_ms, pacing.timeout_ms, n,
        std::min(n, pacing.sources),
        path.controller_switches
            ? fmt::format("; paced for {} controller switches on the path", path.controller_switches)
            : "");
  } else {
    const int wait_s = pacing.timeout_ms / 1000;
    PairList pairs;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        if (i != j) pairs.emplace_back(i, j);
    ping_pairs(pairs, hosts, t.count, interval, wait_s, workers, per_pair);
    command = fmt::format("ping -q -n -c {} -i {} -W {} (every ordered pair of {} hosts, {} at a time)",
                          t.count, interval, wait_s, n, std::min(pairs.size(), workers));
  }
  std::vector<std::string> names;
  for (const auto& h : hosts) names.push_back(h.name);
  PingallOutcome out = summarize_pingall(names, per_pair);
  out.outcome.command = command;
  if (!interrupted()) retry_unreached(out, hosts, per_pair, std::min<size_t>(workers, 4));
  if (t.full) {  // Mininet's pingallfull: every pair's first try, in host order
    out.pairs = json::array();
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) {
        if (i == j || !per_pair[i][j].is_object()) continue;
        json p = per_pair[i][j];
        p["from"] = names[i];
        p["to"] = names[j];
        out.pairs.push_back(std::move(p));
      }
  }
  out.outcome.command += room.note() + arp.note() + announced.note();
  if (interrupted()) {
    out.outcome.status = "failed";
    out.outcome.reason = "interrupted";
  }
  return out;
}

double wait_reachable(const std::vector<PingallHost>& hosts, double timeout_s, int parallel) {
  if (hosts.size() < 2) return 0;
  auto t0 = std::chrono::steady_clock::now();
  auto since = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  std::vector<char> answered(hosts.size(), 0);
  answered[0] = 1;
  while (!interrupted()) {
    std::atomic<size_t> next{1};
    auto work = [&] {
      for (size_t k; (k = next.fetch_add(1)) < hosts.size() && !interrupted();)
        if (!answered[k])
          answered[k] =
              run_command({"ping", "-q", "-n", "-c", "1", "-W", "1", hosts[k].addr}, in_ns(hosts[0].ns, 3))
                  .ok();
    };
    std::vector<std::thread> workers;
    for (size_t w = 0; w < std::min(hosts.size() - 1, size_t(std::max(parallel, 1))); ++w)
      workers.emplace_back(work);
    for (auto& w : workers) w.join();
    if (std::all_of(answered.begin(), answered.end(), [](char a) { return a != 0; })) return since();
    if (since() > timeout_s || !sleep_unless_interrupted(0.5)) break;
  }
  return -1;
}

namespace {

// A results.json read back may have been edited or truncated: operator[] on a
// const json is undefined for a missing key or index, so the matrix is
// checked whole first (hosts: strings; loss_pct, rtt_ms: N x N arrays).
bool square(const json& mx, const char* key, size_t n) {
  auto it = mx.find(key);
  if (it == mx.end() || !it->is_array() || it->size() != n) return false;
  return std::all_of(it->begin(), it->end(),
                     [n](const json& row) { return row.is_array() && row.size() == n; });
}
bool matrix_ok(const json& result) {
  auto it = result.find("matrix");
  if (it == result.end() || !it->is_object()) return false;
  auto h = it->find("hosts");
  if (h == it->end() || !h->is_array() ||
      !std::all_of(h->begin(), h->end(), [](const json& x) { return x.is_string(); }))
    return false;
  return square(*it, "loss_pct", h->size()) && square(*it, "rtt_ms", h->size());
}

}  // namespace

std::string render_pingall_html(const json& result, size_t max_hosts) {
  if (!result.is_object() || !matrix_ok(result)) return {};
  const json& mx = result["matrix"];
  const json& hosts = mx["hosts"];
  const json& loss = mx["loss_pct"];
  const json& rtt = mx["rtt_ms"];
  std::string h;
  if (hosts.size() > max_hosts) {
    h += fmt::format("<p>{} hosts: matrix too large to show; unreachable pairs:</p><ul>", hosts.size());
    size_t shown = 0;
    for (size_t i = 0; i < hosts.size(); ++i)
      for (size_t j = 0; j < hosts.size(); ++j)
        if (loss[i][j].is_number() && loss[i][j].get<double>() >= 100 && shown++ < 50)
          h += "<li>" + markup_escape(hosts[i].get<std::string>() + " → " + hosts[j].get<std::string>()) +
               "</li>";
    return h + (shown ? "" : "<li>none</li>") + "</ul>";
  }
  h += "<table class=\"pingall\"><tr><th>from \\ to</th>";
  for (const auto& x : hosts) h += "<th>" + markup_escape(x.get<std::string>()) + "</th>";
  h += "</tr>";
  for (size_t i = 0; i < hosts.size(); ++i) {
    h += "<tr><th>" + markup_escape(hosts[i].get<std::string>()) + "</th>";
    for (size_t j = 0; j < hosts.size(); ++j) {
      if (!loss[i][j].is_number()) {
        h += "<td>—</td>";
        continue;
      }
      double l = loss[i][j].get<double>();
      std::string bg = l <= 0 ? "#dfd" : l >= 100 ? "#fbb" : "#ffd";
      std::string cell = rtt[i][j].is_number() ? fmt::format("{:.2f} ms", rtt[i][j].get<double>()) : "×";
      if (l > 0 && l < 100) cell += fmt::format(" ({:.0f}% lost)", l);
      h += fmt::format("<td style=\"background:{}\" title=\"loss {:.0f}%\">{}</td>", bg, l, cell);
    }
    h += "</tr>";
  }
  return h + "</table>";
}

std::string render_pingall_text(const json& result, size_t max_pairs) {
  if (!result.is_object() || !matrix_ok(result)) return {};
  const json& m = member(result, "metrics");
  std::string out =
      fmt::format("{} / {}: pingall {}/{} pairs reached, {:.1f}% dropped", result.value("case", ""),
                  result.value("test", ""), m.value("pairs_reached", 0), m.value("pairs", 0),
                  m.value("dropped_pct", 0.0));
  if (m.contains("rtt_avg_ms") && m["rtt_avg_ms"].is_number())
    out += fmt::format(", rtt avg {:.3f} ms", m["rtt_avg_ms"].get<double>());
  out += "\n";
  // pingallfull: every pair as Mininet prints it (sent/received, then ping's summary).
  if (result.contains("pairs") && result["pairs"].is_array()) {
    for (const auto& p : result["pairs"]) {
      if (!p.is_object()) continue;
      out += fmt::format(" {}->{}: {}/{}, ", p.value("from", "?"), p.value("to", "?"), p.value("sent", 0),
                         p.value("received", 0));
      if (p.contains("rtt_avg_ms") && p["rtt_avg_ms"].is_number())
        out +=
            fmt::format("rtt min/avg/max/mdev {:.3f}/{:.3f}/{:.3f}/{:.3f} ms\n", p.value("rtt_min_ms", 0.0),
                        p.value("rtt_avg_ms", 0.0), p.value("rtt_max_ms", 0.0), p.value("rtt_mdev_ms", 0.0));
      else
        out += "no echo\n";
    }
    return out;
  }
  const json& mx = result["matrix"];
  size_t shown = 0;
  for (size_t i = 0; i < mx["hosts"].size(); ++i)
    for (size_t j = 0; j < mx["hosts"].size(); ++j) {
      const json& l = mx["loss_pct"][i][j];
      if (l.is_number() && l.get<double>() >= 100 && shown++ < max_pairs)
        out += fmt::format("  no echo {} -> {}\n", mx["hosts"][i].get<std::string>(),
                           mx["hosts"][j].get<std::string>());
    }
  return out;
}

}  // namespace flowlab::lab

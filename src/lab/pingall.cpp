// pingall: every ordered host pair, concurrently in bounded batches (see pingall.h).
#include "lab/pingall.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "lab/process.h"

namespace flowlab::lab {

using nlohmann::json;

namespace {

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else o += c;
  }
  return o;
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
    std::string list;
    for (size_t k = 0; k < unreachable.size() && k < 5; ++k) list += (k ? ", " : "") + unreachable[k];
    r.outcome.reason = fmt::format("{} of {} pairs got no echo ({}{})", unreachable.size(), pairs, list,
                                   unreachable.size() > 5 ? ", ..." : "");
  }
  return r;
}

PingallOutcome run_pingall(const TestSpec& t, const std::vector<PingallHost>& hosts, int parallel) {
  size_t n = hosts.size();
  std::vector<std::vector<json>> per_pair(n, std::vector<json>(n));
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i != j) pairs.emplace_back(i, j);
  // Workers take pairs from a shared index: at most `parallel` pings in flight,
  // each bounded by its own timeout; every cell is written by one worker only.
  std::atomic<size_t> next{0};
  double interval = std::max(t.interval, 0.01);
  auto work = [&] {
    for (size_t k; (k = next.fetch_add(1)) < pairs.size() && !interrupted();) {
      auto [i, j] = pairs[k];
      std::vector<std::string> argv = {"ping", "-q", "-n", "-c", std::to_string(t.count), "-i",
                                       fmt::format("{}", interval), "-W", "2", hosts[j].addr};
      auto r = run_command(argv, in_ns(hosts[i].ns, t.count * interval + 5));
      auto m = parse_ping(r.out);
      per_pair[i][j] = m.ok() ? *m : json{{"sent", t.count}, {"received", 0}, {"loss_pct", 100.0}};
    }
  };
  std::vector<std::thread> workers;
  size_t count = std::min(pairs.size(), size_t(std::max(parallel, 1)));
  for (size_t w = 0; w < count; ++w) workers.emplace_back(work);
  for (auto& w : workers) w.join();
  std::vector<std::string> names;
  for (const auto& h : hosts) names.push_back(h.name);
  PingallOutcome out = summarize_pingall(names, per_pair);
  out.outcome.command = fmt::format("ping -q -n -c {} -i {} -W 2 (every ordered pair of {} hosts, {} at a time)",
                                    t.count, interval, n, count);
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
          answered[k] = run_command({"ping", "-q", "-n", "-c", "1", "-W", "1", hosts[k].addr}, in_ns(hosts[0].ns, 3)).ok();
    };
    std::vector<std::thread> workers;
    for (size_t w = 0; w < std::min(hosts.size() - 1, size_t(std::max(parallel, 1))); ++w) workers.emplace_back(work);
    for (auto& w : workers) w.join();
    if (std::all_of(answered.begin(), answered.end(), [](char a) { return a != 0; })) return since();
    if (since() > timeout_s || !sleep_unless_interrupted(0.5)) break;
  }
  return -1;
}

std::string render_pingall_html(const json& result, size_t max_hosts) {
  if (!result.contains("matrix") || !result["matrix"].is_object()) return {};
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
          h += "<li>" + esc(hosts[i].get<std::string>() + " → " + hosts[j].get<std::string>()) + "</li>";
    return h + (shown ? "" : "<li>none</li>") + "</ul>";
  }
  h += "<table class=\"pingall\"><tr><th>from \\ to</th>";
  for (const auto& x : hosts) h += "<th>" + esc(x.get<std::string>()) + "</th>";
  h += "</tr>";
  for (size_t i = 0; i < hosts.size(); ++i) {
    h += "<tr><th>" + esc(hosts[i].get<std::string>()) + "</th>";
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
  if (!result.contains("matrix") || !result["matrix"].is_object()) return {};
  const json& m = result["metrics"];
  std::string out = fmt::format("{} / {}: pingall {}/{} pairs reached, {:.1f}% dropped", result.value("case", ""),
                                result.value("test", ""), m.value("pairs_reached", 0), m.value("pairs", 0),
                                m.value("dropped_pct", 0.0));
  if (m.contains("rtt_avg_ms")) out += fmt::format(", rtt avg {:.3f} ms", m["rtt_avg_ms"].get<double>());
  out += "\n";
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

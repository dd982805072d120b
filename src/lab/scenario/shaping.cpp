// Link shaping keys and their units (see shaping.h).
#include "lab/scenario/shaping.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "lab/scenario/scenario_yaml.h"

namespace flowlab::lab {

namespace {

using yaml_parse::key_error;

constexpr uint64_t kMaxRate = 400'000'000'000ULL;  // 400 Gbit/s: more is a typo
constexpr uint64_t kMaxDelay = 60'000'000'000ULL;  // 60 s
constexpr int kMaxQueue = 1'000'000;

// "1.5" -> 1.5 with the rest of the text in `rest`; nullopt if no number leads.
std::optional<double> leading_number(std::string_view t, std::string_view& rest) {
  std::string s(t);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !std::isfinite(v)) return std::nullopt;
  rest = t.substr(size_t(end - s.c_str()));
  return v;
}

Status parse_field(const YAML::Node& v, const std::string& path, const std::string& key, LinkShape& s) {
  if (!v.IsScalar()) return key_error(v, path, key, "expected a scalar");
  const std::string& text = v.Scalar();
  auto wrap = [&](const Error& e) {
    return key_error(v, path, key, fmt::format("'{}': {}", text, e.message));
  };
  if (key == "bw") {
    auto r = parse_rate_bps(text);
    if (!r.ok()) return wrap(r.error());
    s.bw_bps = *r;
  } else if (key == "delay" || key == "jitter") {
    auto r = parse_duration_ns(text);
    if (!r.ok()) return wrap(r.error());
    (key == "delay" ? s.delay_ns : s.jitter_ns) = *r;
  } else if (key == "loss") {
    auto r = parse_percent(text);
    if (!r.ok()) return wrap(r.error());
    s.loss_pct = *r;
  } else if (key == "queue") {
    char* end = nullptr;
    long q = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end || q < 1 || q > kMaxQueue)
      return key_error(v, path, key, fmt::format("'{}': expected packets, 1..{}", text, kMaxQueue));
    s.queue = int(q);
  }
  return ok_status();
}

Result<LinkShape> parse_flat(const YAML::Node& map, const std::string& path, std::string_view where,
                             bool allow_directions) {
  LinkShape s;
  if (!map.IsMap())
    return key_error(map, path, where, "expected a mapping of bw, delay, jitter, loss, queue");
  for (const auto& kv : map) {
    auto k = kv.first.as<std::string>();
    if (k == "bw" || k == "delay" || k == "jitter" || k == "loss" || k == "queue") {
      FLOWLAB_TRY(parse_field(kv.second, path, k, s));
    } else if (!allow_directions) {  // a link's other keys are the topology parser's
      return key_error(kv.first, path, k,
                       fmt::format("unknown key in {} (allowed: bw, delay, jitter, loss, queue)", where));
    }
  }
  if (s.jitter_ns.value_or(0) > 0 && s.jitter_ns > s.delay_ns.value_or(0))
    return key_error(map["jitter"] ? map["jitter"] : map, path, "jitter",
                     "jitter must not exceed delay (a frame cannot leave before it arrived)");
  return s;
}

}  // namespace

bool is_shape_key(std::string_view key) {
  return std::find(std::begin(kShapeKeys), std::end(kShapeKeys), key) != std::end(kShapeKeys);
}

void LinkShape::merge(const LinkShape& o) {
  if (o.bw_bps) bw_bps = o.bw_bps;
  if (o.delay_ns) delay_ns = o.delay_ns;
  if (o.jitter_ns) jitter_ns = o.jitter_ns;
  if (o.loss_pct) loss_pct = o.loss_pct;
  if (o.queue) queue = o.queue;
}

nlohmann::json LinkShape::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  if (bw_bps) j["bw_bps"] = *bw_bps;
  if (delay_ns) j["delay_ms"] = double(*delay_ns) / 1e6;
  if (jitter_ns) j["jitter_ms"] = double(*jitter_ns) / 1e6;
  if (loss_pct) j["loss_pct"] = *loss_pct;
  if (queue) j["queue"] = *queue;
  return j;
}

nlohmann::json LinkShape::to_wire() const {
  nlohmann::json j = nlohmann::json::object();
  if (bw_bps) j["bw_bps"] = *bw_bps;
  if (delay_ns) j["delay_ns"] = *delay_ns;
  if (jitter_ns) j["jitter_ns"] = *jitter_ns;
  if (loss_pct) j["loss_pct"] = *loss_pct;
  if (queue) j["queue"] = *queue;
  return j;
}

Result<LinkShape> link_shape_from_wire(const nlohmann::json& j) {
  if (!j.is_object()) return fail("a link shape: not a JSON object");
  LinkShape s;
  for (const auto& [k, v] : j.items()) {
    if (k == "loss_pct") {
      if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= 100))
        return fail("a link shape: loss_pct must be a number 0..100");
      s.loss_pct = v.get<double>();
      continue;
    }
    if (!v.is_number_unsigned()) return fail("a link shape: {} must be a non-negative integer", k);
    uint64_t n = v.get<uint64_t>();
    if (k == "bw_bps") {
      if (n == 0 || n > kMaxRate) return fail("a link shape: bw_bps {} out of range 1..{}", n, kMaxRate);
      s.bw_bps = n;
    } else if (k == "delay_ns" || k == "jitter_ns") {
      if (n > kMaxDelay) return fail("a link shape: {} {} past 60 s", k, n);
      (k == "delay_ns" ? s.delay_ns : s.jitter_ns) = n;
    } else if (k == "queue") {
      if (n < 1 || n > uint64_t(kMaxQueue))
        return fail("a link shape: queue {} out of range 1..{}", n, kMaxQueue);
      s.queue = int(n);
    } else {
      return fail("a link shape: unknown key '{}'", k);
    }
  }
  return s;
}

Result<LinkShapes> parse_link_shapes(const YAML::Node& link, const std::string& path) {
  LinkShapes out;
  FLOWLAB_ASSIGN_OR_RETURN(LinkShape both, parse_flat(link, path, "link", true));
  out.a_to_b = both;
  out.b_to_a = both;
  for (const char* dir : {"a_to_b", "b_to_a"}) {
    if (!link[dir]) continue;
    FLOWLAB_ASSIGN_OR_RETURN(LinkShape d, parse_flat(link[dir], path, dir, false));
    (std::string_view(dir) == "a_to_b" ? out.a_to_b : out.b_to_a).merge(d);
  }
  for (const LinkShape* s : {&out.a_to_b, &out.b_to_a})
    if (s->jitter_ns.value_or(0) > s->delay_ns.value_or(0))
      return key_error(link, path, "jitter", "jitter must not exceed delay in either direction");
  return out;
}

Result<LinkShape> parse_shape_map(const YAML::Node& map, const std::string& path, std::string_view where) {
  return parse_flat(map, path, where, false);
}

Result<uint64_t> parse_rate_bps(std::string_view t) {
  std::string_view rest;
  auto v = leading_number(t, rest);
  if (!v || *v <= 0) return fail("expected a positive rate with a unit (10M, 1G, 10G)");
  double mult = 0;
  std::string u(rest);
  if (u.size() >= 3 && u.substr(u.size() - 3) == "bit") u.resize(u.size() - 3);
  if (u == "k" || u == "K")
    mult = 1e3;
  else if (u == "m" || u == "M")
    mult = 1e6;
  else if (u == "g" || u == "G")
    mult = 1e9;
  else if (u == "t" || u == "T")
    mult = 1e12;
  else if (u.empty() && rest.size() == 3)  // "1000bit"
    mult = 1;
  else
    return fail("unknown rate unit (use k, M, G: 10M, 1G, 10G)");
  double bps = *v * mult;
  if (bps < 8000 || bps > double(kMaxRate)) return fail("rate must be 8k..400G");
  return uint64_t(std::llround(bps));
}

Result<uint64_t> parse_duration_ns(std::string_view t) {
  std::string_view rest;
  auto v = leading_number(t, rest);
  if (!v) return fail("expected a duration (100us, 5ms, 1s)");
  if (*v < 0) return fail("a duration cannot be negative");
  double mult;
  if (rest == "ns")
    mult = 1;
  else if (rest == "us")
    mult = 1e3;
  else if (rest == "ms")
    mult = 1e6;
  else if (rest == "s")
    mult = 1e9;
  else if (rest.empty() && *v == 0)
    mult = 0;
  else
    return fail("a duration needs a unit (us, ms, s)");
  double ns = *v * mult;
  if (ns > double(kMaxDelay)) return fail("at most 60 s");
  return uint64_t(std::llround(ns));
}

Result<double> parse_percent(std::string_view t) {
  std::string_view rest;
  auto v = leading_number(t, rest);
  if (!v || !(rest.empty() || rest == "%")) return fail("expected a percentage (0.5%, 5%)");
  if (*v < 0 || *v > 100) return fail("a percentage must be 0..100");
  return *v;
}

std::string format_rate(uint64_t bps) {
  if (bps >= 1'000'000'000 && bps % 1'000'000 == 0) return fmt::format("{:g}G", double(bps) / 1e9);
  if (bps >= 1'000'000 && bps % 1'000 == 0) return fmt::format("{:g}M", double(bps) / 1e6);
  if (bps >= 1'000) return fmt::format("{:g}k", double(bps) / 1e3);
  return fmt::format("{}bit", bps);
}

std::string format_duration(uint64_t ns) {
  if (ns >= 1'000'000'000 && ns % 1'000'000 == 0) return fmt::format("{:g}s", double(ns) / 1e9);
  if (ns >= 1'000'000 || ns == 0) return fmt::format("{:g}ms", double(ns) / 1e6);
  return fmt::format("{:g}us", double(ns) / 1e3);
}

}  // namespace flowlab::lab

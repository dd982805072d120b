// static-flows app (see static_flows.h).
#include "controller/apps/static_flows.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/log.h"
#include "openflow/codec.h"
#include "openflow/errors.h"
#include "openflow/of13/bundle.h"
#include "openflow/text/flow_text.h"

namespace flowlab::controller {

namespace {

of::FlowParseOptions parse_options(uint8_t version) {
  of::FlowParseOptions o;
  o.version = version;
  o.require_actions = true;
  return o;
}

std::string describe(const of::Message& m) {
  const auto& e = m.as<of::ErrorMsg>();
  if (of::BundleFailedCode bc{}; of::bundle_error_code(e, bc)) return std::string(of::to_string(bc));
  if (e.type == 0xffff) return fmt::format("experimenter error {:#x} type {}", e.experimenter, e.code);
  of::ErrorType t = static_cast<of::ErrorType>(e.type);
  uint16_t code = e.code;
  if (m.version == of::kOf10) of::error_from_of10(e.type, e.code, t, code);
  return std::string(of::error_code_name(t, code));
}

}  // namespace

Result<std::unique_ptr<StaticFlows>> StaticFlows::load(const std::string& file, size_t bundle_size) {
  std::ifstream in(file);
  if (!in) return fail("app 'static-flows': cannot read {}", file);
  std::vector<std::string> lines;
  std::vector<uint32_t> numbers;
  Bytes wire13;
  std::vector<size_t> at13{0};
  std::string line;
  uint32_t n = 0;
  const auto o13 = parse_options(of::kOf13);
  while (std::getline(in, line)) {
    ++n;
    size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos || line[b] == '#') continue;
    size_t e = line.find_last_not_of(" \t\r");
    std::string text = line.substr(b, e - b + 1);
    auto fm = of::parse_flow_mod(text, o13);
    if (!fm.ok()) return fail("{}:{}: {}", file, n, fm.error().message);
    if (auto st = of::encode_message_to(of::Message{of::kOf13, 0, std::move(*fm)}, wire13); !st.ok())
      return fail("{}:{}: cannot encode it: {}", file, n, st.error().to_string());
    at13.push_back(wire13.size());
    lines.push_back(std::move(text));
    numbers.push_back(n);
  }
  if (in.bad()) return fail("app 'static-flows': error reading {}", file);
  lines.shrink_to_fit();
  numbers.shrink_to_fit();
  wire13.shrink_to_fit();
  at13.shrink_to_fit();
  return std::unique_ptr<StaticFlows>(
      new StaticFlows(std::move(lines), std::move(numbers), std::move(wire13), std::move(at13), bundle_size));
}

void StaticFlows::switch_connected(Datapath& dp) {
  std::lock_guard lock(mu_);
  Progress& p = progress_[&dp];
  p = Progress{};
  p.start = std::chrono::steady_clock::now();
  log::info("static-flows", "{}: installing {} flows ({})", dp.name(), lines_.size(),
            dp.is_of13() && bundle_size_ ? fmt::format("bundles of {}", bundle_size_)
                                         : std::string("flow-mods and barriers"));
  send_more(dp);
}

Verdict StaticFlows::error(Datapath& dp, const of::Message&, const of::ErrorMsg&) {
  std::lock_guard lock(mu_);
  if (auto it = progress_.find(&dp); it != progress_.end() && it->second.in_flight > 0) ++it->second.errors;
  return Verdict::kContinue;
}

void StaticFlows::switch_disconnected(Datapath& dp) {
  std::lock_guard lock(mu_);
  progress_.erase(&dp);
}

// mu_ held.
void StaticFlows::send_more(Datapath& dp) {
  Progress& p = progress_[&dp];
  const bool bundles = dp.is_of13() && bundle_size_ > 0;
  const size_t chunk = bundle_size_ ? bundle_size_ : kDefaultBundleSize;
  while (p.in_flight < kInFlight && p.next < lines_.size()) {
    const size_t first = p.next, count = std::min(chunk, lines_.size() - first);
    auto cb = [this, first, count](Datapath& d, const of::Message& reply) {
      std::lock_guard lock(mu_);
      chunk_answered(d, first, count, reply);
    };
    auto r = bundles ? send_bundle(dp, first, count, cb) : send_plain(dp, p, first, count, cb);
    if (!r.ok()) {
      log::warn("static-flows", "{}: cannot send flows of lines {}-{}: {}", dp.name(), line_numbers_[first],
                line_numbers_[first + count - 1], r.error().message);
      return;
    }
    p.next = first + count;
    ++p.in_flight;
    ++p.chunks;
  }
}

// OF1.3: the flow-mods encoded at load, wrapped in bundle adds.
Result<uint32_t> StaticFlows::send_bundle(Datapath& dp, size_t first, size_t count,
                                          Datapath::ReplyCallback cb) {
  const ByteSpan wire = ByteSpan(wire13_).subspan(at13_[first], at13_[first + count] - at13_[first]);
  return dp.bundle_flow_mods_wire(wire, std::move(cb));
}

// The lines parsed for this switch's version, as flow-mods, then a barrier;
// lines the version cannot take are counted in p.skipped.
Result<uint32_t> StaticFlows::send_plain(Datapath& dp, Progress& p, size_t first, size_t count,
                                         Datapath::ReplyCallback cb) {
  const auto opts = parse_options(dp.version());
  for (size_t i = first; i < first + count; ++i) {
    auto fm = of::parse_flow_mod(lines_[i], opts);
    if (!fm.ok()) {  // checked as OF1.3 at load; OF1.0 may refuse what 1.3 has
      log::warn("static-flows", "{}: line {}: {}", dp.name(), line_numbers_[i], fm.error().message);
      ++p.skipped;
      continue;
    }
    if (auto st = dp.flow_mod(std::move(*fm)); !st.ok())
      return fail("flow-mod refused by the connection: {}", st.error().message);
  }
  return dp.barrier(std::move(cb));
}

// mu_ held.
void StaticFlows::chunk_answered(Datapath& dp, size_t first, size_t count, const of::Message& reply) {
  auto it = progress_.find(&dp);
  if (it == progress_.end()) return;
  Progress& p = it->second;
  --p.in_flight;
  ++p.answered;
  if (reply.is<of::ErrorMsg>()) {
    ++p.refused;
    p.refused_flows += count;
    log::warn("static-flows", "{}: flows of lines {}-{} refused, none of them applied: {}", dp.name(),
              line_numbers_[first], line_numbers_[first + count - 1], describe(reply));
  }
  if (p.next < lines_.size()) return send_more(dp);
  if (p.in_flight > 0) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - p.start).count();
  const bool bundles = dp.is_of13() && bundle_size_ > 0;
  const size_t sent = lines_.size() - p.skipped - p.refused_flows;
  if (p.refused == 0 && p.errors == 0 && p.skipped == 0)
    log::info("static-flows", "{}: {} flows installed in {} {} in {:.2f} s", dp.name(), sent, p.chunks,
              bundles ? "bundles" : "chunks", s);
  else
    log::warn("static-flows",
              "{}: {} of {} flows sent in {:.2f} s; {} {} refused, {} errors from the switch, {} lines not "
              "valid in this OpenFlow version",
              dp.name(), sent, lines_.size(), s, p.refused, bundles ? "bundles" : "chunks", p.errors,
              p.skipped);
}

}  // namespace flowlab::controller

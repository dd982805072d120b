// etcd's JSON gateway: requests encoded, replies decoded (etcd_json.h).
#include "coord/etcd_json.h"

#include <charconv>
#include <nlohmann/json.hpp>

namespace flowlab::coord {

using nlohmann::json;

namespace {

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int b64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

// A member read as a 64-bit integer: proto3 JSON writes them as strings, but a
// number is accepted too; absent, null or mistyped reads as 0.
template <typename Int>
Int int_member(const json& j, const char* key) {
  if (!j.is_object()) return 0;
  auto it = j.find(key);
  if (it == j.end()) return 0;
  if (it->is_number_integer()) return it->get<Int>();
  if (it->is_number_unsigned()) return static_cast<Int>(it->get<uint64_t>());
  if (!it->is_string()) return 0;
  const auto& s = it->get_ref<const std::string&>();
  Int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() ? v : 0;
}

bool bool_member(const json& j, const char* key) {
  if (!j.is_object()) return false;
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

std::string str_member(const json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const json& obj_member(const json& j, const char* key) {
  static const json kEmpty = json::object();
  if (!j.is_object()) return kEmpty;
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kEmpty;
}

const json& arr_member(const json& j, const char* key) {
  static const json kEmpty = json::array();
  if (!j.is_object()) return kEmpty;
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

Result<std::string> b64_member(const json& j, const char* key) {
  if (!j.is_object()) return std::string();
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::string();
  if (!it->is_string()) return fail("etcd reply: \"{}\" is not a base64 string", key);
  auto r = base64_decode(it->get_ref<const std::string&>());
  if (!r) return fail("etcd reply: \"{}\": {}", key, r.error().message);
  return r;
}

ReplyHeader header_of(const json& j) {
  const json& h = obj_member(j, "header");
  return {int_member<int64_t>(h, "revision"), int_member<uint64_t>(h, "member_id"),
          int_member<uint64_t>(h, "raft_term")};
}

Result<KeyValue> kv_of(const json& j) {
  if (!j.is_object()) return fail("etcd reply: a key-value is not an object");
  KeyValue kv;
  FLOWLAB_ASSIGN_OR_RETURN(kv.key, b64_member(j, "key"));
  FLOWLAB_ASSIGN_OR_RETURN(kv.value, b64_member(j, "value"));
  kv.create_revision = int_member<int64_t>(j, "create_revision");
  kv.mod_revision = int_member<int64_t>(j, "mod_revision");
  kv.version = int_member<int64_t>(j, "version");
  kv.lease = int_member<int64_t>(j, "lease");
  return kv;
}

Result<RangeReply> range_of(const json& j) {
  RangeReply r;
  r.header = header_of(j);
  for (const auto& e : arr_member(j, "kvs")) {
    FLOWLAB_ASSIGN_OR_RETURN(auto kv, kv_of(e));
    r.kvs.push_back(std::move(kv));
  }
  r.count = int_member<int64_t>(j, "count");
  return r;
}

// Parses `text` as a JSON object; an etcd error object becomes the error.
Result<json> parse_reply(std::string_view text) {
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) return fail("etcd reply is not JSON: {:.120}", text);
  if (!j.is_object()) return fail("etcd reply is not a JSON object: {:.120}", text);
  if (auto e = reply_error(text); e) return fail("etcd: {} (code {})", e->message, e->code);
  return j;
}

const char* compare_target(Compare::Target t) {
  switch (t) {
    case Compare::Target::kValue:
      return "VALUE";
    case Compare::Target::kVersion:
      return "VERSION";
    case Compare::Target::kCreateRevision:
      return "CREATE";
    case Compare::Target::kModRevision:
      return "MOD";
    case Compare::Target::kLease:
      return "LEASE";
  }
  return "VALUE";
}

const char* compare_op(Compare::Op op) {
  switch (op) {
    case Compare::Op::kEqual:
      return "EQUAL";
    case Compare::Op::kGreater:
      return "GREATER";
    case Compare::Op::kLess:
      return "LESS";
    case Compare::Op::kNotEqual:
      return "NOT_EQUAL";
  }
  return "EQUAL";
}

json op_json(const TxnOp& op) {
  switch (op.kind) {
    case TxnOp::Kind::kGet: {
      json r = {{"key", base64_encode(op.key)}};
      if (op.prefix) r["range_end"] = base64_encode(prefix_range_end(op.key));
      return {{"request_range", r}};
    }
    case TxnOp::Kind::kPut: {
      json r = {{"key", base64_encode(op.key)}, {"value", base64_encode(op.value)}};
      if (op.lease) r["lease"] = std::to_string(op.lease);
      return {{"request_put", r}};
    }
    case TxnOp::Kind::kDelete: {
      json r = {{"key", base64_encode(op.key)}};
      if (op.prefix) r["range_end"] = base64_encode(prefix_range_end(op.key));
      return {{"request_delete_range", r}};
    }
  }
  return json::object();
}

}  // namespace

std::string base64_encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    out += kB64[(v >> 18) & 63];
    out += kB64[(v >> 12) & 63];
    out += kB64[(v >> 6) & 63];
    out += kB64[v & 63];
  }
  if (i + 1 == in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    out += kB64[(v >> 18) & 63];
    out += kB64[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += kB64[(v >> 18) & 63];
    out += kB64[(v >> 12) & 63];
    out += kB64[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

Result<std::string> base64_decode(std::string_view in) {
  std::string out;
  out.reserve(in.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0;
  size_t pad = 0;
  for (char c : in) {
    if (c == '=') {
      ++pad;
      continue;
    }
    if (pad) return fail("bad base64: data after padding");
    int v = b64_value(c);
    if (v < 0) return fail("bad base64: character 0x{:02x}", static_cast<unsigned>(uint8_t(c)));
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  if (pad > 2 || bits >= 6) return fail("bad base64: truncated");
  return out;
}

std::string prefix_range_end(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    if (static_cast<uint8_t>(end.back()) < 0xff) {
      end.back() = static_cast<char>(static_cast<uint8_t>(end.back()) + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key
}

Compare Compare::value_is(std::string key, Op op, std::string value) {
  Compare c;
  c.key = std::move(key);
  c.target = Target::kValue;
  c.op = op;
  c.value = std::move(value);
  return c;
}
static Compare number_compare(std::string key, Compare::Target t, Compare::Op op, int64_t n) {
  Compare c;
  c.key = std::move(key);
  c.target = t;
  c.op = op;
  c.number = n;
  return c;
}
Compare Compare::version_is(std::string key, Op op, int64_t v) {
  return number_compare(std::move(key), Target::kVersion, op, v);
}
Compare Compare::create_revision_is(std::string key, Op op, int64_t v) {
  return number_compare(std::move(key), Target::kCreateRevision, op, v);
}
Compare Compare::mod_revision_is(std::string key, Op op, int64_t v) {
  return number_compare(std::move(key), Target::kModRevision, op, v);
}
Compare Compare::lease_is(std::string key, Op op, int64_t v) {
  return number_compare(std::move(key), Target::kLease, op, v);
}

TxnOp TxnOp::get(std::string key, bool prefix) {
  TxnOp o;
  o.kind = Kind::kGet;
  o.key = std::move(key);
  o.prefix = prefix;
  return o;
}
TxnOp TxnOp::put(std::string key, std::string value, int64_t lease) {
  TxnOp o;
  o.kind = Kind::kPut;
  o.key = std::move(key);
  o.value = std::move(value);
  o.lease = lease;
  return o;
}
TxnOp TxnOp::erase(std::string key, bool prefix) {
  TxnOp o;
  o.kind = Kind::kDelete;
  o.key = std::move(key);
  o.prefix = prefix;
  return o;
}

std::string encode_range(const RangeRequest& r) {
  json j = {{"key", base64_encode(r.key)}};
  if (!r.range_end.empty()) j["range_end"] = base64_encode(r.range_end);
  if (r.limit) j["limit"] = std::to_string(r.limit);
  if (r.revision) j["revision"] = std::to_string(r.revision);
  if (r.sort_by_create_ascending) {
    j["sort_order"] = "ASCEND";
    j["sort_target"] = "CREATE";
  }
  if (r.count_only) j["count_only"] = true;
  if (r.serializable) j["serializable"] = true;
  return j.dump();
}

std::string encode_put(std::string_view key, std::string_view value, int64_t lease, bool prev_kv) {
  json j = {{"key", base64_encode(key)}, {"value", base64_encode(value)}};
  if (lease) j["lease"] = std::to_string(lease);
  if (prev_kv) j["prev_kv"] = true;
  return j.dump();
}

std::string encode_delete(std::string_view key, std::string_view range_end) {
  json j = {{"key", base64_encode(key)}};
  if (!range_end.empty()) j["range_end"] = base64_encode(range_end);
  return j.dump();
}

std::string encode_txn(const Txn& txn) {
  json cmp = json::array();
  for (const auto& c : txn.compare) {
    json e = {
        {"key", base64_encode(c.key)}, {"target", compare_target(c.target)}, {"result", compare_op(c.op)}};
    switch (c.target) {
      case Compare::Target::kValue:
        e["value"] = base64_encode(c.value);
        break;
      case Compare::Target::kVersion:
        e["version"] = std::to_string(c.number);
        break;
      case Compare::Target::kCreateRevision:
        e["create_revision"] = std::to_string(c.number);
        break;
      case Compare::Target::kModRevision:
        e["mod_revision"] = std::to_string(c.number);
        break;
      case Compare::Target::kLease:
        e["lease"] = std::to_string(c.number);
        break;
    }
    cmp.push_back(std::move(e));
  }
  json ok = json::array(), ko = json::array();
  for (const auto& o : txn.success) ok.push_back(op_json(o));
  for (const auto& o : txn.failure) ko.push_back(op_json(o));
  return json{{"compare", cmp}, {"success", ok}, {"failure", ko}}.dump();
}

std::string encode_lease_grant(int64_t ttl_seconds) {
  return json{{"TTL", std::to_string(ttl_seconds)}}.dump();
}
std::string encode_lease_id(int64_t id) { return json{{"ID", std::to_string(id)}}.dump(); }

std::string encode_watch_create(std::string_view key, std::string_view range_end, int64_t start_revision,
                                bool prev_kv) {
  json c = {{"key", base64_encode(key)}};
  if (!range_end.empty()) c["range_end"] = base64_encode(range_end);
  if (start_revision) c["start_revision"] = std::to_string(start_revision);
  if (prev_kv) c["prev_kv"] = true;
  return json{{"create_request", c}}.dump();
}

std::optional<EtcdErrorInfo> reply_error(std::string_view text) {
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (!j.is_object()) return std::nullopt;
  // The gateway's error object; a watch stream wraps it in "error" too.
  const json* e = &j;
  if (j.contains("error") && j["error"].is_object()) e = &j["error"];
  if (!e->contains("error") && !e->contains("message")) return std::nullopt;
  if (e == &j && !j.contains("code")) return std::nullopt;  // a reply with an "error" text of its own
  EtcdErrorInfo info;
  info.message = str_member(*e, "message");
  if (info.message.empty()) info.message = str_member(*e, "error");
  info.code = static_cast<int>(int_member<int64_t>(*e, "code"));
  if (info.message.empty()) info.message = "unknown error";
  return info;
}

Result<RangeReply> decode_range(std::string_view text) {
  FLOWLAB_ASSIGN_OR_RETURN(json j, parse_reply(text));
  return range_of(j);
}

Result<PutReply> decode_put(std::string_view text) {
  FLOWLAB_ASSIGN_OR_RETURN(json j, parse_reply(text));
  PutReply r;
  r.header = header_of(j);
  if (j.contains("prev_kv")) {
    FLOWLAB_ASSIGN_OR_RETURN(auto kv, kv_of(j["prev_kv"]));
    r.prev_kv = std::move(kv);
  }
  return r;
}

Result<DeleteReply> decode_delete(std::string_view text) {
  FLOWLAB_ASSIGN_OR_RETURN(json j, parse_reply(text));
  return DeleteReply{header_of(j), int_member<int64_t>(j, "deleted")};
}

Result<TxnReply> decode_txn(std::string_view text) {
  FLOWLAB_ASSIGN_OR_RETURN(json j, parse_reply(text));
  TxnReply r;
  r.header = header_of(j);
  r.succeeded = bool_member(j, "succeeded");
  for (const auto& e : arr_member(j, "responses")) {
    TxnOpReply op;
    if (e.contains("response_range")) {
      op.kind = TxnOp::Kind::kGet;
      FLOWLAB_ASSIGN_OR_RETURN(op.range, range_of(obj_member(e, "response_range")));
      op.header = op.range.header;
    } else if (e.contains("response_put")) {
      op.kind = TxnOp::Kind::kPut;
      op.header = header_of(obj_member(e, "response_put"));
    } else if (e.contains("response_delete_range")) {
      op.kind = TxnOp::Kind::kDelete;
      const json& d = obj_member(e, "response_delete_range");
      op.header = header_of(d);
      op.deleted = int_member<int64_t>(d, "deleted");
    } else {
      return fail("etcd txn reply: a response of no known kind");
    }
    r.responses.push_back(std::move(op));
  }
  return r;
}

Result<LeaseGrantReply> decode_lease_grant(std::string_view text) {
  FLOWLAB_ASSIGN_OR_RETURN(json j, parse_reply(text));
  LeaseGrantReply r{header_of(j), int_member<int64_t>(j, "ID"), int_member<int64_t>(j, "TTL"),
                    str_member(j, "error")};
  if (!r.error.empty()) return fail("etcd lease grant: {}", r.error);
  if (r.id == 0) return fail("etcd lease grant: the reply has no lease ID");
  return r;
}

Result<LeaseKeepaliveReply> decode_lease_keepalive(std::string_view text) {
  FLOWLAB_ASSIGN_OR_RETURN(json j, parse_reply(text));
  const json& body = j.contains("result") ? obj_member(j, "result") : j;
  return LeaseKeepaliveReply{header_of(body), int_member<int64_t>(body, "ID"),
                             int_member<int64_t>(body, "TTL")};
}

Result<LeaseListReply> decode_lease_list(std::string_view text) {
  FLOWLAB_ASSIGN_OR_RETURN(json j, parse_reply(text));
  LeaseListReply r;
  r.header = header_of(j);
  for (const auto& e : arr_member(j, "leases")) r.ids.push_back(int_member<int64_t>(e, "ID"));
  return r;
}

Result<WatchMessage> decode_watch_message(std::string_view text) {
  FLOWLAB_ASSIGN_OR_RETURN(json j, parse_reply(text));
  if (!j.contains("result")) return fail("etcd watch: a message without \"result\": {:.120}", text);
  const json& r = obj_member(j, "result");
  WatchMessage m;
  m.header = header_of(r);
  m.created = bool_member(r, "created");
  m.canceled = bool_member(r, "canceled");
  m.compact_revision = int_member<int64_t>(r, "compact_revision");
  m.cancel_reason = str_member(r, "cancel_reason");
  for (const auto& e : arr_member(r, "events")) {
    WatchEvent ev;
    ev.type = str_member(e, "type") == "DELETE" ? WatchEvent::Type::kDelete : WatchEvent::Type::kPut;
    FLOWLAB_ASSIGN_OR_RETURN(ev.kv, kv_of(obj_member(e, "kv")));
    if (e.contains("prev_kv")) {
      FLOWLAB_ASSIGN_OR_RETURN(auto p, kv_of(obj_member(e, "prev_kv")));
      ev.prev_kv = std::move(p);
    }
    m.events.push_back(std::move(ev));
  }
  return m;
}

Result<MemberStatus> decode_member_status(std::string_view text) {
  FLOWLAB_ASSIGN_OR_RETURN(json j, parse_reply(text));
  MemberStatus s;
  s.header = header_of(j);
  s.version = str_member(j, "version");
  s.leader = int_member<uint64_t>(j, "leader");
  s.raft_index = int_member<uint64_t>(j, "raftIndex");
  for (const auto& e : arr_member(j, "errors"))
    if (e.is_string()) s.errors.push_back(e.get<std::string>());
  return s;
}

std::vector<std::string> split_json_objects(std::string& buf) {
  std::vector<std::string> out;
  size_t start = std::string::npos, i = 0, consumed = 0;
  int depth = 0;
  bool in_str = false, esc = false;
  for (; i < buf.size(); ++i) {
    char c = buf[i];
    if (in_str) {
      if (esc)
        esc = false;
      else if (c == '\\')
        esc = true;
      else if (c == '"')
        in_str = false;
      continue;
    }
    if (c == '"') {
      in_str = depth > 0;
      continue;
    }
    if (c == '{') {
      if (depth++ == 0) start = i;
    } else if (c == '}' && depth > 0) {
      if (--depth == 0) {
        out.emplace_back(buf, start, i + 1 - start);
        consumed = i + 1;
      }
    } else if (depth == 0) {
      consumed = i + 1;  // whitespace or junk between objects
    }
  }
  buf.erase(0, consumed);
  return out;
}

}  // namespace flowlab::coord

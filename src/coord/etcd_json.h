// The data model of etcd's v3 API and its JSON gateway encoding (etcd 3.4,
// `/v3/...`): requests are encoded here, replies decoded here, nothing else.
// Keys and values travel base64-encoded; 64-bit integers travel as strings
// (proto3 JSON) and fields at their default value (0, false, empty) are
// omitted by the gateway, so every field is optional when decoding.
// Pure: text in, structs out. Every decoder returns an error for malformed
// text or an etcd error object ({"error":..., "code":N}), never throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace flowlab::coord {

std::string base64_encode(std::string_view bytes);
Result<std::string> base64_decode(std::string_view text);

// The end of the range of keys that start with `prefix` (etcd's range_end):
// the prefix with its last byte incremented, "\0" for the empty prefix.
std::string prefix_range_end(std::string_view prefix);

struct ReplyHeader {
  int64_t revision = 0;
  uint64_t member_id = 0;
  uint64_t raft_term = 0;
};

struct KeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t version = 0;
  int64_t lease = 0;
};

struct RangeReply {
  ReplyHeader header;
  std::vector<KeyValue> kvs;
  int64_t count = 0;
};

struct PutReply {
  ReplyHeader header;
  std::optional<KeyValue> prev_kv;
};

struct DeleteReply {
  ReplyHeader header;
  int64_t deleted = 0;
};

// One comparison of a transaction (etcd's Compare).
struct Compare {
  enum class Target { kValue, kVersion, kCreateRevision, kModRevision, kLease };
  enum class Op { kEqual, kGreater, kLess, kNotEqual };
  std::string key;
  Target target = Target::kValue;
  Op op = Op::kEqual;
  std::string value;   // Target::kValue
  int64_t number = 0;  // the other targets

  static Compare value_is(std::string key, Op op, std::string value);
  static Compare version_is(std::string key, Op op, int64_t version);
  static Compare create_revision_is(std::string key, Op op, int64_t revision);
  static Compare mod_revision_is(std::string key, Op op, int64_t revision);
  static Compare lease_is(std::string key, Op op, int64_t lease);
  // The key does not exist (its create revision is 0).
  static Compare absent(std::string key) { return create_revision_is(std::move(key), Op::kEqual, 0); }
};

// One operation of a transaction's success or failure branch.
struct TxnOp {
  enum class Kind { kGet, kPut, kDelete };
  Kind kind = Kind::kGet;
  std::string key;
  std::string value;
  int64_t lease = 0;
  bool prefix = false;  // kGet/kDelete: every key starting with `key`

  static TxnOp get(std::string key, bool prefix = false);
  static TxnOp put(std::string key, std::string value, int64_t lease = 0);
  static TxnOp erase(std::string key, bool prefix = false);
};

struct Txn {
  std::vector<Compare> compare;
  std::vector<TxnOp> success;
  std::vector<TxnOp> failure;
};

// The reply of one op of the branch that ran, in the order of the request.
struct TxnOpReply {
  TxnOp::Kind kind = TxnOp::Kind::kGet;
  RangeReply range;     // kGet
  int64_t deleted = 0;  // kDelete
  ReplyHeader header;
};

struct TxnReply {
  ReplyHeader header;
  bool succeeded = false;
  std::vector<TxnOpReply> responses;
};

struct LeaseGrantReply {
  ReplyHeader header;
  int64_t id = 0;
  int64_t ttl = 0;
  std::string error;  // the gateway's own error field, if set
};

// A keepalive's answer: ttl 0 means the lease is gone (expired or revoked).
struct LeaseKeepaliveReply {
  ReplyHeader header;
  int64_t id = 0;
  int64_t ttl = 0;
};

struct LeaseListReply {
  ReplyHeader header;
  std::vector<int64_t> ids;
};

struct WatchEvent {
  enum class Type { kPut, kDelete };
  Type type = Type::kPut;
  KeyValue kv;
  std::optional<KeyValue> prev_kv;
};

// One message of a watch stream.
struct WatchMessage {
  ReplyHeader header;
  bool created = false;
  bool canceled = false;
  int64_t compact_revision = 0;  // set when the start revision was compacted
  std::string cancel_reason;
  std::vector<WatchEvent> events;
};

// A member's status (/v3/maintenance/status).
struct MemberStatus {
  ReplyHeader header;
  std::string version;
  uint64_t leader = 0;
  uint64_t raft_index = 0;
  std::vector<std::string> errors;
};

struct RangeRequest {
  std::string key;
  std::string range_end;  // empty: the one key
  int64_t limit = 0;
  int64_t revision = 0;
  bool sort_by_create_ascending = false;
  bool count_only = false;
  bool serializable = false;  // answered by the member itself, without quorum
};

// Requests.
std::string encode_range(const RangeRequest& r);
std::string encode_put(std::string_view key, std::string_view value, int64_t lease, bool prev_kv);
std::string encode_delete(std::string_view key, std::string_view range_end);
std::string encode_txn(const Txn& txn);
std::string encode_lease_grant(int64_t ttl_seconds);
std::string encode_lease_id(int64_t id);  // keepalive, revoke
std::string encode_watch_create(std::string_view key, std::string_view range_end, int64_t start_revision,
                                bool prev_kv);

// Replies. An etcd error object decodes to an Error "etcd: MESSAGE (code N)".
Result<RangeReply> decode_range(std::string_view json);
Result<PutReply> decode_put(std::string_view json);
Result<DeleteReply> decode_delete(std::string_view json);
Result<TxnReply> decode_txn(std::string_view json);
Result<LeaseGrantReply> decode_lease_grant(std::string_view json);
Result<LeaseKeepaliveReply> decode_lease_keepalive(std::string_view json);  // {"result":{...}} or bare
Result<LeaseListReply> decode_lease_list(std::string_view json);
Result<WatchMessage> decode_watch_message(std::string_view json);  // one {"result":{...}} object
Result<MemberStatus> decode_member_status(std::string_view json);
// Any reply: empty on success, the etcd error's message and gRPC code otherwise.
struct EtcdErrorInfo {
  std::string message;
  int code = 0;
};
std::optional<EtcdErrorInfo> reply_error(std::string_view json);

// A watch stream is a sequence of JSON objects; this splits complete ones off
// the front of `buffer` (what arrived so far) and leaves a partial one there.
std::vector<std::string> split_json_objects(std::string& buffer);

}  // namespace flowlab::coord

// etcd's JSON gateway encoding: replies as etcd 3.4 writes them, malformed ones.
#include "coord/etcd_json.h"

#include <gtest/gtest.h>

namespace flowlab::coord {
namespace {

TEST(EtcdJson, Base64RoundTripsEveryLength) {
  std::string bytes;
  for (int i = 0; i < 40; ++i) {
    auto r = base64_decode(base64_encode(bytes));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(*r, bytes);
    bytes += static_cast<char>(i * 37);
  }
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_FALSE(base64_decode("Zm9v!").ok());
  EXPECT_FALSE(base64_decode("Zm=9").ok());
}

TEST(EtcdJson, PrefixRangeEnd) {
  EXPECT_EQ(prefix_range_end("/a/"), "/a0");
  EXPECT_EQ(prefix_range_end(std::string("a\xff", 2)), "b");
  EXPECT_EQ(prefix_range_end(""), std::string(1, '\0'));
}

TEST(EtcdJson, DecodesARangeReplyAsEtcdWritesIt) {
  auto r = decode_range(
      R"({"header":{"cluster_id":"1","member_id":"13668033151171901709","revision":"7","raft_term":"2"},)"
      R"("kvs":[{"key":"Zm9v","create_revision":"2","mod_revision":"5","version":"3","value":"YmFy","lease":"99"}],"count":"1"})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->header.revision, 7);
  EXPECT_EQ(r->header.member_id, 13668033151171901709ull);
  ASSERT_EQ(r->kvs.size(), 1u);
  EXPECT_EQ(r->kvs[0].key, "foo");
  EXPECT_EQ(r->kvs[0].value, "bar");
  EXPECT_EQ(r->kvs[0].create_revision, 2);
  EXPECT_EQ(r->kvs[0].mod_revision, 5);
  EXPECT_EQ(r->kvs[0].version, 3);
  EXPECT_EQ(r->kvs[0].lease, 99);
  // No kvs, count omitted: an empty range.
  auto e = decode_range(R"({"header":{"revision":"2"}})");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->kvs.empty());
}

TEST(EtcdJson, TxnReplyOmitsSucceededWhenFalse) {
  auto r = decode_txn(
      R"({"header":{"revision":"2"},"responses":[{"response_range":{"header":{"revision":"2"},)"
      R"("kvs":[{"key":"Zm9v","create_revision":"2","mod_revision":"2","version":"1","value":"YmFy"}],"count":"1"}}]})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->succeeded);
  ASSERT_EQ(r->responses.size(), 1u);
  EXPECT_EQ(r->responses[0].range.kvs.at(0).value, "bar");
  auto ok = decode_txn(
      R"({"header":{"revision":"3"},"succeeded":true,"responses":[{"response_put":{"header":{}}}]})");
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->succeeded);
  EXPECT_EQ(ok->responses.at(0).kind, TxnOp::Kind::kPut);
}

TEST(EtcdJson, WatchMessagesAndCompaction) {
  auto m = decode_watch_message(
      R"({"result":{"header":{"revision":"4"},"events":[{"type":"DELETE","kv":{"key":"Zm9v","mod_revision":"4"}}]}})");
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m->events.size(), 1u);
  EXPECT_EQ(m->events[0].type, WatchEvent::Type::kDelete);
  EXPECT_EQ(m->events[0].kv.key, "foo");
  auto c = decode_watch_message(
      R"({"result":{"header":{"raft_term":"2"},"canceled":true,"compact_revision":"3"}})");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->canceled);
  EXPECT_EQ(c->compact_revision, 3);
}

TEST(EtcdJson, SplitsAStreamIntoObjects) {
  std::string buf = R"({"result":{"a":"}{"}}
{"result":{"b":1}}
{"result":)";
  auto objs = split_json_objects(buf);
  ASSERT_EQ(objs.size(), 2u);
  EXPECT_EQ(objs[0], R"({"result":{"a":"}{"}})");
  EXPECT_EQ(buf, R"({"result":)");
  buf += "{}}";
  EXPECT_EQ(split_json_objects(buf).size(), 1u);
  EXPECT_TRUE(buf.empty());
}

TEST(EtcdJson, EtcdErrorsAndMalformedRepliesAreErrors) {
  auto e = decode_lease_grant(
      R"({"error":"etcdserver: requested lease not found","message":"etcdserver: requested lease not found","code":5})");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("lease not found"), std::string::npos);
  EXPECT_NE(e.error().message.find("code 5"), std::string::npos);
  EXPECT_FALSE(decode_range("").ok());
  EXPECT_FALSE(decode_range("[1,2]").ok());
  EXPECT_FALSE(decode_range(R"({"kvs":[{"key":"!!"}]})").ok());
  EXPECT_FALSE(decode_range(R"({"kvs":[{"key":7}]})").ok());
  EXPECT_FALSE(decode_range(R"({"kvs":[1]})").ok());
  EXPECT_FALSE(decode_watch_message(R"({"header":{}})").ok());
  // Mistyped numbers read as 0, not as an exception.
  auto r = decode_range(R"({"header":{"revision":{"x":1}},"count":"12x"})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->header.revision, 0);
  EXPECT_EQ(r->count, 0);
  // An expired lease's keepalive: TTL omitted.
  auto k = decode_lease_keepalive(R"({"result":{"header":{"revision":"4"},"ID":"4111120407365463560"}})");
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->ttl, 0);
  EXPECT_EQ(k->id, 4111120407365463560);
}

TEST(EtcdJson, EncodesATxn) {
  Txn t;
  t.compare.push_back(Compare::absent("k"));
  t.success.push_back(TxnOp::put("k", "v", 42));
  t.failure.push_back(TxnOp::get("k"));
  EXPECT_EQ(
      encode_txn(t),
      R"({"compare":[{"create_revision":"0","key":"aw==","result":"EQUAL","target":"CREATE"}],)"
      R"("failure":[{"request_range":{"key":"aw=="}}],"success":[{"request_put":{"key":"aw==","lease":"42","value":"dg=="}}]})");
}

}  // namespace
}  // namespace flowlab::coord

// The ONF bundle extension for OF1.3 (openflow/of13/bundle.h): exact wire bytes of
// bundle control, bundle add (with and without properties) and bundle errors,
// and the OFPBFC_* code of every malformed body.
#include "openflow/of13/bundle.h"

#include <gtest/gtest.h>

#include "openflow/codec.h"

namespace flowlab::of {
namespace {

Bytes hex(std::string_view s) {
  Bytes b;
  EXPECT_TRUE(from_hex(s, b)) << s;
  return b;
}

ExperimenterMsg decode_exp(const Bytes& wire) {
  auto m = decode_message(wire);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().to_string());
  return m.ok() && m->is<ExperimenterMsg>() ? m->as<ExperimenterMsg>() : ExperimenterMsg{};
}

std::string wire_hex(uint32_t xid, ExperimenterMsg e) {
  auto b = encode_message(make_message(kOf13, xid, std::move(e)));
  EXPECT_TRUE(b.ok());
  return b.ok() ? to_hex(*b) : "";
}

// OPEN_REQUEST, bundle 5, atomic|ordered, as ovs-ofctl --bundle sends it.
constexpr std::string_view kOpen = "04040018000000074f4e4600000008fc0000000500000003";

TEST(Bundle, ControlWireBytes) {
  auto c = decode_bundle_control(decode_exp(hex(kOpen)));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->bundle_id, 5u);
  EXPECT_EQ(c->type, BundleCtrlType::kOpenRequest);
  EXPECT_EQ(c->flags, bundle_flags::kAtomic | bundle_flags::kOrdered);
  EXPECT_TRUE(c->properties.empty());
  EXPECT_EQ(wire_hex(7, encode_bundle_control(*c)), kOpen);

  BundleControl reply{5, BundleCtrlType::kCommitReply, bundle_flags::kOrdered, {}};
  EXPECT_EQ(wire_hex(9, encode_bundle_control(reply)), "04040018000000094f4e4600000008fc0000000500050002");
}

TEST(Bundle, AddWireBytesWithInnerFlowMod) {
  // The inner message: a barrier request with the add's xid (any message decodes here).
  const Bytes inner = hex("0414000800000011");
  BundleAdd a{0x01020304, bundle_flags::kAtomic, inner, {}};
  const std::string w = wire_hex(0x11, encode_bundle_add(a));
  EXPECT_EQ(w, "04040020000000114f4e4600000008fd01020304000000010414000800000011");
  auto back = decode_bundle_add(decode_exp(hex(w)));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, a);
}

TEST(Bundle, AddsEncodedInPlaceAreTheSameBytes) {
  // A flow-mod encoded inside its add (encode_bundle_add_to), or copied in
  // already encoded with its xid set (encode_bundle_add_wire_to), gives the
  // bytes of the plain path: encode the flow-mod, wrap it, encode the add.
  FlowMod fm;
  fm.priority = 20;
  fm.match.add(OxmField::basic(OxmId::kEthType, 0x0800)).add(OxmField::basic(OxmId::kIpv4Dst, 0x0b000001));
  fm.instructions.push_back(Instruction::apply({Action::output(2)}));
  auto inner = encode_message(make_message(kOf13, 0x55, fm));
  ASSERT_TRUE(inner.ok());
  const std::string plain = wire_hex(0x55, encode_bundle_add({9, bundle_flags::kAtomic, *inner, {}}));

  Bytes out = hex("aabb");  // appended after what is there
  ASSERT_TRUE(encode_bundle_add_to(9, bundle_flags::kAtomic, make_message(kOf13, 0x55, fm), out).ok());
  EXPECT_EQ(to_hex(out), "aabb" + plain);

  auto zero = encode_message(make_message(kOf13, 0, fm));  // as static-flows keeps it
  ASSERT_TRUE(zero.ok());
  Bytes out2;
  ASSERT_TRUE(encode_bundle_add_wire_to(9, bundle_flags::kAtomic, 0x55, *zero, out2).ok());
  EXPECT_EQ(to_hex(out2), plain);
  // Not one whole OF1.3 message: refused, nothing written.
  Bytes bad = *zero;
  bad.pop_back();
  EXPECT_FALSE(encode_bundle_add_wire_to(9, bundle_flags::kAtomic, 1, bad, out2).ok());
  EXPECT_EQ(to_hex(out2), plain);

  // Read back without a copy: the inner message is where it lies.
  const ExperimenterMsg e = decode_exp(out2);
  auto v = decode_bundle_add_view(e);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->bundle_id, 9u);
  EXPECT_EQ(v->flags, bundle_flags::kAtomic);
  EXPECT_EQ(v->message.data(), e.data.data() + 8);
  EXPECT_EQ(v->message.size(), inner->size());
  EXPECT_TRUE(v->properties.empty());
}

TEST(Bundle, AddPropertiesStartAtTheNextEightByteBoundary) {
  // A 12-byte inner message, 4 bytes of padding, one 12-byte experimenter property (padded to 16).
  Bytes msg = hex("0402000c00000021aabbccdd");  // echo request with 4 bytes of data
  Bytes props = hex("ffff000c000000010000000200000000");
  BundleAdd a{1, 0, msg, props};
  const std::string w = wire_hex(0x21, encode_bundle_add(a));
  EXPECT_EQ(w,
            "04040038000000214f4e4600000008fd0000000100000000"
            "0402000c00000021aabbccdd00000000ffff000c000000010000000200000000");
  auto back = decode_bundle_add(decode_exp(hex(w)));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->message, msg);
  EXPECT_EQ(back->properties, props);
}

BundleFailedCode control_error(std::string_view body_hex) {
  ExperimenterMsg e{kOnfExperimenter, kOnfBundleControl, hex(body_hex)};
  auto r = decode_bundle_control(e);
  EXPECT_FALSE(r.ok()) << "decoded " << body_hex;
  return r.ok() ? BundleFailedCode::kUnknown : r.error().code;
}
BundleFailedCode add_error(std::string_view body_hex) {
  ExperimenterMsg e{kOnfExperimenter, kOnfBundleAdd, hex(body_hex)};
  auto r = decode_bundle_add(e);
  EXPECT_FALSE(r.ok()) << "decoded " << body_hex;
  return r.ok() ? BundleFailedCode::kUnknown : r.error().code;
}

TEST(Bundle, MalformedBodiesGetTheirBundleErrorCode) {
  EXPECT_EQ(control_error("00000005"), BundleFailedCode::kMsgBadLen);                      // short
  EXPECT_EQ(control_error("0000000500080000"), BundleFailedCode::kBadType);                // type 8
  EXPECT_EQ(control_error("0000000500000004"), BundleFailedCode::kBadFlags);               // flag bit 2
  EXPECT_EQ(control_error("0000000500000000ff"), BundleFailedCode::kMsgBadLen);            // 1-byte property
  EXPECT_EQ(control_error("0000000500000000ffff0002"), BundleFailedCode::kMsgBadLen);      // length 2
  EXPECT_EQ(control_error("0000000500000000ffff0010"), BundleFailedCode::kMsgBadLen);      // past the end
  EXPECT_EQ(add_error("000000010000"), BundleFailedCode::kMsgBadLen);                      // short
  EXPECT_EQ(add_error("0000000100000000"), BundleFailedCode::kMsgBadLen);                  // no inner message
  EXPECT_EQ(add_error("000000010000000004140004"), BundleFailedCode::kMsgBadLen);          // inner header cut
  EXPECT_EQ(add_error("00000001000000000414000400000001"), BundleFailedCode::kMsgBadLen);  // inner len 4
  EXPECT_EQ(add_error("00000001000000000414001000000001"), BundleFailedCode::kMsgBadLen);  // inner len 16
  EXPECT_EQ(add_error("00000001000000080414000800000001"), BundleFailedCode::kBadFlags);
  EXPECT_EQ(add_error("000000010000000004140008000000010000000000000000ffff0003"),
            BundleFailedCode::kMsgBadLen);  // property length 3
  // Not a bundle message at all.
  EXPECT_FALSE(
      decode_bundle_control(ExperimenterMsg{0x2320, kOnfBundleControl, hex("0000000500000000")}).ok());
  EXPECT_FALSE(decode_bundle_add(ExperimenterMsg{kOnfExperimenter, kOnfBundleControl, {}}).ok());
}

TEST(Bundle, ErrorIsAnOnfExperimenterError) {
  Message m = make_bundle_error(BundleFailedCode::kBadId, hex(kOpen));
  EXPECT_EQ(m.xid, 7u);
  auto w = encode_message(m);
  ASSERT_TRUE(w.ok());
  // type 0xffff, exp_code 2302 (2300 + OFPBFC_BAD_ID), experimenter ONF, then the request.
  EXPECT_EQ(to_hex(*w), "0401002800000007ffff08fe4f4e4600" + std::string(kOpen));
  BundleFailedCode code{};
  ASSERT_TRUE(bundle_error_code(m.as<ErrorMsg>(), code));
  EXPECT_EQ(code, BundleFailedCode::kBadId);
  EXPECT_EQ(to_string(code), "OFPBFC_BAD_ID");
  EXPECT_FALSE(bundle_error_code(ErrorMsg{1, 2, 0, {}}, code));
}

}  // namespace
}  // namespace flowlab::of

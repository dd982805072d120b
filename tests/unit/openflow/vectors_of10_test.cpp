// Outside check of the OF1.0 codec against the Ryu/os-ken test vectors in
// shared/testdata/openflow-vectors/of10: every *.packet decodes, matches its
// .json (os-ken's OF1.0 JSON shape, built here from our model by a test-only
// converter), and re-encodes to identical bytes. A second test mutates the
// vectors a few thousand times: decoding must never crash or read past the
// buffer (run under ASan), and what decodes and re-encodes must be stable.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "openflow/codec.h"

namespace flowlab::of {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kVectorDir = fs::path(FLOWLAB_SHARED_DIR) / "testdata/openflow-vectors/of10";

Bytes read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string base64(const Bytes& b) {
  static constexpr char kAlpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < b.size(); i += 3) {
    uint32_t v = uint32_t(b[i]) << 16 | uint32_t(b[i + 1]) << 8 | b[i + 2];
    for (int s = 18; s >= 0; s -= 6) out += kAlpha[(v >> s) & 63];
  }
  if (i + 1 == b.size()) {
    uint32_t v = uint32_t(b[i]) << 16;
    out += kAlpha[(v >> 18) & 63];
    out += kAlpha[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == b.size()) {
    uint32_t v = uint32_t(b[i]) << 16 | uint32_t(b[i + 1]) << 8;
    out += kAlpha[(v >> 18) & 63];
    out += kAlpha[(v >> 12) & 63];
    out += kAlpha[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

// Model port -> OF1.0 16-bit number (the vectors print the wire numbers).
uint32_t port10(uint32_t p) { return p >= 0xffffff00u ? (p & 0xffff) : p; }

std::string ipv4(uint64_t v) { return Ipv4Addr{static_cast<uint32_t>(v)}.to_string(); }

// ---- model -> os-ken OF1.0 JSON (independent of the codec's own tables) ----

json match_json(const Match& m) {
  // Wildcard bits, OF1.0 numbering.
  uint32_t wc = (1u << 22) - 1;                                           // everything wildcarded...
  wc = (wc & ~(0x3fu << 8) & ~(0x3fu << 14)) | (32u << 8) | (32u << 14);  // ...nw counts 32
  json j = {{"in_port", 0},
            {"dl_src", "00:00:00:00:00:00"},
            {"dl_dst", "00:00:00:00:00:00"},
            {"dl_vlan", 0},
            {"dl_vlan_pcp", 0},
            {"dl_type", 0},
            {"nw_tos", 0},
            {"nw_proto", 0},
            {"nw_src", "0.0.0.0"},
            {"nw_dst", "0.0.0.0"},
            {"tp_src", 0},
            {"tp_dst", 0}};
  auto prefix_bits = [](const OxmField& f) {
    return f.has_mask ? 32u - static_cast<uint32_t>(__builtin_popcount(static_cast<uint32_t>(f.mask_u64())))
                      : 0u;
  };
  for (const OxmField& f : m.fields) {
    const uint64_t v = f.value_u64();
    switch (f.id()) {
      case OxmId::kInPort:
        wc &= ~1u;
        j["in_port"] = port10(static_cast<uint32_t>(v));
        break;
      case OxmId::kEthDst:
        wc &= ~8u;
        j["dl_dst"] = MacAddr::from_u64(v).to_string();
        break;
      case OxmId::kEthSrc:
        wc &= ~4u;
        j["dl_src"] = MacAddr::from_u64(v).to_string();
        break;
      case OxmId::kEthType:
        wc &= ~16u;
        j["dl_type"] = v;
        break;
      case OxmId::kVlanVid:
        wc &= ~2u;
        j["dl_vlan"] = v == 0 ? 0xffff : (v & 0xfff);
        break;
      case OxmId::kVlanPcp:
        wc &= ~(1u << 20);
        j["dl_vlan_pcp"] = v;
        break;
      case OxmId::kIpDscp:
        wc &= ~(1u << 21);
        j["nw_tos"] = v << 2;
        break;
      case OxmId::kIpProto:
      case OxmId::kArpOp:
        wc &= ~32u;
        j["nw_proto"] = v;
        break;
      case OxmId::kIpv4Src:
      case OxmId::kArpSpa:
        wc = (wc & ~(0x3fu << 8)) | (prefix_bits(f) << 8);
        j["nw_src"] = ipv4(v);
        break;
      case OxmId::kIpv4Dst:
      case OxmId::kArpTpa:
        wc = (wc & ~(0x3fu << 14)) | (prefix_bits(f) << 14);
        j["nw_dst"] = ipv4(v);
        break;
      case OxmId::kTcpSrc:
      case OxmId::kUdpSrc:
      case OxmId::kSctpSrc:
      case OxmId::kIcmpv4Type:
        wc &= ~64u;
        j["tp_src"] = v;
        break;
      case OxmId::kTcpDst:
      case OxmId::kUdpDst:
      case OxmId::kSctpDst:
      case OxmId::kIcmpv4Code:
        wc &= ~128u;
        j["tp_dst"] = v;
        break;
      default:
        ADD_FAILURE() << "field OF1.0 cannot carry: " << int(f.field);
    }
  }
  j["wildcards"] = wc;
  return {{"OFPMatch", j}};
}

json action_json(const Action& a) {
  switch (a.type) {
    case ActionType::kOutput:
      return {{"OFPActionOutput", {{"port", port10(a.port)}, {"max_len", a.max_len}}}};
    case ActionType::kEnqueue:
      return {{"OFPActionEnqueue", {{"port", port10(a.port)}, {"queue_id", a.queue_id}}}};
    case ActionType::kPopVlan:
      return {{"OFPActionStripVlan", json::object()}};
    case ActionType::kExperimenter: {
      // Opaque vendor action: compared by vendor id and (Nicira) subtype.
      json j = {{"vendor", a.experimenter}};
      if (a.data.size() >= 2) j["subtype"] = load_be16(a.data.data());
      return {{"NXOpaque", j}};
    }
    case ActionType::kSetField: {
      const uint64_t v = a.field.value_u64();
      switch (a.field.id()) {
        case OxmId::kVlanVid:
          return {{"OFPActionVlanVid", {{"vlan_vid", v & 0xfff}}}};
        case OxmId::kVlanPcp:
          return {{"OFPActionVlanPcp", {{"vlan_pcp", v}}}};
        case OxmId::kEthSrc:
          return {{"OFPActionSetDlSrc", {{"dl_addr", MacAddr::from_u64(v).to_string()}}}};
        case OxmId::kEthDst:
          return {{"OFPActionSetDlDst", {{"dl_addr", MacAddr::from_u64(v).to_string()}}}};
        case OxmId::kIpv4Src:
          return {{"OFPActionSetNwSrc", {{"nw_addr", ipv4(v)}}}};
        case OxmId::kIpv4Dst:
          return {{"OFPActionSetNwDst", {{"nw_addr", ipv4(v)}}}};
        case OxmId::kIpDscp:
          return {{"OFPActionSetNwTos", {{"tos", v << 2}}}};
        case OxmId::kTcpSrc:
          return {{"OFPActionSetTpSrc", {{"tp", v}}}};
        case OxmId::kTcpDst:
          return {{"OFPActionSetTpDst", {{"tp", v}}}};
        default:
          break;
      }
      break;
    }
    default:
      break;
  }
  ADD_FAILURE() << "action OF1.0 cannot carry: " << to_string(a.type);
  return {};
}

json actions_json(const ActionList& actions) {
  json arr = json::array();
  for (const Action& a : actions) arr.push_back(action_json(a));
  return arr;
}

json message_json(const Message& m) {
  if (m.is<FeaturesRequest>()) return {{"OFPFeaturesRequest", json::object()}};
  if (m.is<PacketOut>()) {
    const auto& p = m.as<PacketOut>();
    return {{"OFPPacketOut",
             {{"buffer_id", p.buffer_id},
              {"in_port", port10(p.in_port)},
              {"actions", actions_json(p.actions)},
              {"data", base64(p.data)}}}};
  }
  if (m.is<PacketIn>()) {
    const auto& p = m.as<PacketIn>();
    const OxmField* in = p.match.find(OxmId::kInPort);
    return {{"OFPPacketIn",
             {{"buffer_id", p.buffer_id},
              {"total_len", p.total_len},
              {"in_port", in ? port10(static_cast<uint32_t>(in->value_u64())) : 0},
              {"reason", p.reason},
              {"data", base64(p.data)}}}};
  }
  if (m.is<FlowMod>()) {
    const auto& f = m.as<FlowMod>();
    ActionList actions;
    if (!f.instructions.empty()) {
      EXPECT_EQ(f.instructions.size(), 1u);
      EXPECT_EQ(f.instructions[0].type, InstructionType::kApplyActions);
      actions = f.instructions[0].actions;
    }
    return {{"OFPFlowMod",
             {{"match", match_json(f.match)},
              {"cookie", f.cookie},
              {"command", static_cast<int>(f.command)},
              {"idle_timeout", f.idle_timeout},
              {"hard_timeout", f.hard_timeout},
              {"priority", f.priority},
              {"buffer_id", f.buffer_id},
              {"out_port", port10(f.out_port)},
              {"flags", f.flags},
              {"actions", actions_json(actions)}}}};
  }
  if (m.is<FeaturesReply>()) {
    const auto& f = m.as<FeaturesReply>();
    json ports = json::object();
    auto feat10 = [](uint32_t x) { return (x & 0x7f) | ((x >> 4) & 0xf80); };
    for (const PortDesc& p : f.ports) {
      ports[std::to_string(port10(p.port_no))] = {{"OFPPhyPort",
                                                   {{"port_no", port10(p.port_no)},
                                                    {"hw_addr", p.hw_addr.to_string()},
                                                    {"name", p.name},
                                                    {"config", p.config},
                                                    {"state", p.state},
                                                    {"curr", feat10(p.curr)},
                                                    {"advertised", feat10(p.advertised)},
                                                    {"supported", feat10(p.supported)},
                                                    {"peer", feat10(p.peer)}}}};
    }
    return {{"OFPSwitchFeatures",
             {{"datapath_id", f.datapath_id},
              {"n_buffers", f.n_buffers},
              {"n_tables", f.n_tables},
              {"capabilities", f.capabilities},
              {"actions", f.reserved},
              {"ports", ports}}}};
  }
  ADD_FAILURE() << "no JSON converter for " << to_string(m.type());
  return {};
}

// Wildcards compare by meaning: nw_src/nw_dst counts >= 32 all mean "any".
uint32_t normalize_wildcards(uint32_t wc) {
  uint32_t src = std::min<uint32_t>((wc >> 8) & 0x3f, 32), dst = std::min<uint32_t>((wc >> 14) & 0x3f, 32);
  return (wc & ~(0x3fu << 8) & ~(0x3fu << 14)) | src << 8 | dst << 14;
}

void compare(const json& want, const json& got, const std::string& path) {
  if (want.is_object()) {
    ASSERT_TRUE(got.is_object()) << path << ": got " << got.dump();
    // Opaque vendor actions: os-ken decodes the Nicira ones; we keep bytes.
    if (want.size() == 1 && want.begin().key().rfind("NX", 0) == 0) {
      ASSERT_TRUE(got.contains("NXOpaque")) << path << ": got " << got.dump();
      const json& w = want.begin().value();
      const json& g = got["NXOpaque"];
      EXPECT_EQ(w["vendor"], g["vendor"]) << path;
      EXPECT_EQ(w["subtype"], g["subtype"]) << path;
      return;
    }
    for (auto it = want.begin(); it != want.end(); ++it) {
      const std::string sub = path + "/" + it.key();
      // A decoded packet (libofproto vector): our model keeps the raw bytes.
      if (it.key() == "data" && it.value().is_object()) continue;
      ASSERT_TRUE(got.contains(it.key())) << sub << " missing; got " << got.dump();
      if (it.key() == "wildcards") {
        EXPECT_EQ(normalize_wildcards(it.value().get<uint32_t>()),
                  normalize_wildcards(got[it.key()].get<uint32_t>()))
            << sub;
        continue;
      }
      compare(it.value(), got[it.key()], sub);
    }
    for (auto it = got.begin(); it != got.end(); ++it)
      EXPECT_TRUE(want.contains(it.key())) << path << "/" << it.key() << " not in the vector";
  } else if (want.is_array()) {
    ASSERT_TRUE(got.is_array()) << path;
    ASSERT_EQ(want.size(), got.size()) << path;
    for (size_t i = 0; i < want.size(); ++i) compare(want[i], got[i], path + "/" + std::to_string(i));
  } else {
    EXPECT_EQ(want, got) << path;
  }
}

std::vector<std::string> vector_names() {
  std::vector<std::string> names;
  if (!fs::is_directory(kVectorDir)) return names;
  for (const auto& e : fs::directory_iterator(kVectorDir))
    if (e.path().extension() == ".packet") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(Of10Vectors, DirectoryHasVectors) {
  ASSERT_TRUE(fs::is_directory(kVectorDir)) << kVectorDir;
  EXPECT_GE(vector_names().size(), 13u);
}

class Of10Vector : public ::testing::TestWithParam<std::string> {};

TEST_P(Of10Vector, DecodesMatchesJsonAndReencodesIdentically) {
  const fs::path packet = kVectorDir / (GetParam() + ".packet");
  const Bytes wire = read_file(packet);
  ASSERT_GE(wire.size(), 8u);
  ASSERT_EQ(wire[0], kOf10);

  auto msg = decode_message(wire);
  ASSERT_TRUE(msg.ok()) << msg.error().to_string();
  EXPECT_EQ(msg->version, kOf10);

  std::ifstream jin(kVectorDir / (GetParam() + ".packet.json"));
  const json want = json::parse(jin);
  compare(want, message_json(*msg), "");

  auto again = encode_message(*msg);
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(to_hex(*again), to_hex(wire));

  auto redecoded = decode_message(*again);
  ASSERT_TRUE(redecoded.ok());
  EXPECT_EQ(*redecoded, *msg);
}

INSTANTIATE_TEST_SUITE_P(All, Of10Vector, ::testing::ValuesIn(vector_names()), [](const auto& info) {
  std::string n = info.param;
  for (char& c : n)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
});

// Random mutations of the vectors: no crash, no read past the buffer (ASan), and
// anything that decodes and re-encodes is a fixed point after one round.
TEST(Of10Vectors, SurviveRandomMutation) {
  std::vector<Bytes> seeds;
  for (const auto& n : vector_names()) seeds.push_back(read_file(kVectorDir / (n + ".packet")));
  ASSERT_FALSE(seeds.empty());
  std::mt19937 rng(12345);
  int decoded = 0, reencoded = 0;
  constexpr int kRounds = 4000;
  for (int i = 0; i < kRounds; ++i) {
    Bytes b = seeds[rng() % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      switch (rng() % 5) {
        case 0:
          b[rng() % b.size()] = static_cast<uint8_t>(rng());
          break;
        case 1:
          b[rng() % b.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
          break;
        case 2:
          b.resize(rng() % (b.size() + 1));
          break;
        case 3:
          b.insert(b.begin() + static_cast<std::ptrdiff_t>(rng() % (b.size() + 1)),
                   static_cast<uint8_t>(rng()));
          break;
        case 4:
          if (b.size() > 12) b[8 + rng() % 4] = static_cast<uint8_t>(rng());
          break;
      }
      if (b.empty()) b.push_back(kOf10);
    }
    // Mostly keep the header consistent so the mutation reaches the body.
    if (b.size() >= 8 && rng() % 4 != 0) {
      b[0] = kOf10;
      store_be16(&b[2], static_cast<uint16_t>(b.size()));
    }
    auto m = decode_message(b);
    if (!m.ok()) {
      EXPECT_FALSE(m.error().message.empty());
      EXPECT_LE(m.error().offset, b.size());
      continue;
    }
    ++decoded;
    auto e1 = encode_message(*m);
    if (!e1.ok()) continue;
    ++reencoded;
    auto m2 = decode_message(*e1);
    ASSERT_TRUE(m2.ok()) << "our own encoding did not decode: " << m2.error().to_string() << "\ninput "
                         << to_hex(b);
    auto e2 = encode_message(*m2);
    ASSERT_TRUE(e2.ok()) << e2.error().to_string();
    ASSERT_EQ(to_hex(*e2), to_hex(*e1)) << "input " << to_hex(b);
  }
  // The mutations must exercise both paths, not only early rejections.
  EXPECT_GT(decoded, kRounds / 20);
  EXPECT_GT(reencoded, kRounds / 40);
}

}  // namespace
}  // namespace flowlab::of

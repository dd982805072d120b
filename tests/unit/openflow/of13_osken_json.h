// Test-only: converts our OF1.3 message model to the JSON shape of os-ken's
// to_jsondict() (the shape of the *.packet.json vectors), for the fields we model.
//
// The vector test compares this JSON as a subset of the vector's JSON: every key
// we emit must be present there with an equal value. Things we keep opaque
// (non-basic OXMs, Nicira/ONF experimenter actions) are emitted with only the
// fields we know, so they compare on those alone.
#pragma once

#include <arpa/inet.h>

#include <nlohmann/json.hpp>
#include <string>

#include "openflow/codec.h"
#include "openflow/of13/wire.h"

namespace flowlab::of::testing {

using nlohmann::json;

inline std::string base64(const Bytes& b) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < b.size(); i += 3) {
    uint32_t v = uint32_t(b[i]) << 16 | uint32_t(b[i + 1]) << 8 | b[i + 2];
    for (int s = 18; s >= 0; s -= 6) out += k[v >> s & 63];
  }
  if (b.size() - i == 1) {
    uint32_t v = uint32_t(b[i]) << 16;
    out += k[v >> 18 & 63];
    out += k[v >> 12 & 63];
    out += "==";
  } else if (b.size() - i == 2) {
    uint32_t v = uint32_t(b[i]) << 16 | uint32_t(b[i + 1]) << 8;
    out += k[v >> 18 & 63];
    out += k[v >> 12 & 63];
    out += k[v >> 6 & 63];
    out += '=';
  }
  return out;
}

inline json wrap(const char* cls, json body) { return json{{cls, std::move(body)}}; }

inline json oxm_value(OxmId id, const Bytes& v) {
  char buf[64];
  switch (id) {
    case OxmId::kEthDst:
    case OxmId::kEthSrc:
    case OxmId::kArpSha:
    case OxmId::kArpTha:
    case OxmId::kIpv6NdSll:
    case OxmId::kIpv6NdTll:
      if (v.size() != 6) return nullptr;
      snprintf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", v[0], v[1], v[2], v[3], v[4], v[5]);
      return buf;
    case OxmId::kIpv4Src:
    case OxmId::kIpv4Dst:
    case OxmId::kArpSpa:
    case OxmId::kArpTpa:
      if (v.size() != 4) return nullptr;
      return inet_ntop(AF_INET, v.data(), buf, sizeof buf);
    case OxmId::kIpv6Src:
    case OxmId::kIpv6Dst:
    case OxmId::kIpv6NdTarget:
      if (v.size() != 16) return nullptr;
      return inet_ntop(AF_INET6, v.data(), buf, sizeof buf);
    default: {
      uint64_t x = 0;
      for (uint8_t c : v) x = x << 8 | c;
      return x;
    }
  }
}

inline json oxm_json(const OxmField& f) {
  if (!f.is_basic() || !oxm_info(f.id())) return wrap("OXMTlv", json::object());
  json j{{"field", oxm_info(f.id())->name}, {"value", oxm_value(f.id(), f.value)}};
  j["mask"] = f.has_mask ? oxm_value(f.id(), f.mask) : json(nullptr);
  return wrap("OXMTlv", j);
}

inline json match_json(const Match& m) {
  json fields = json::array();
  size_t len = 4;
  for (const auto& f : m.fields) {
    fields.push_back(oxm_json(f));
    len += 4 + f.value.size() + f.mask.size();
  }
  return wrap("OFPMatch", {{"type", 1}, {"length", len}, {"oxm_fields", fields}});
}

inline size_t action_len(const Action& a) {
  ByteWriter w;
  (void)of13::encode_actions({a}, w);
  return w.size();
}

inline json action_json(const Action& a) {
  json j{{"type", static_cast<int>(a.type)}, {"len", action_len(a)}};
  switch (a.type) {
    case ActionType::kOutput:
      j["port"] = a.port;
      j["max_len"] = a.max_len;
      return wrap("OFPActionOutput", j);
    case ActionType::kCopyTtlOut:
      return wrap("OFPActionCopyTtlOut", j);
    case ActionType::kCopyTtlIn:
      return wrap("OFPActionCopyTtlIn", j);
    case ActionType::kSetMplsTtl:
      j["mpls_ttl"] = a.ttl;
      return wrap("OFPActionSetMplsTtl", j);
    case ActionType::kDecMplsTtl:
      return wrap("OFPActionDecMplsTtl", j);
    case ActionType::kPushVlan:
      j["ethertype"] = a.ethertype;
      return wrap("OFPActionPushVlan", j);
    case ActionType::kPopVlan:
      return wrap("OFPActionPopVlan", j);
    case ActionType::kPushMpls:
      j["ethertype"] = a.ethertype;
      return wrap("OFPActionPushMpls", j);
    case ActionType::kPopMpls:
      j["ethertype"] = a.ethertype;
      return wrap("OFPActionPopMpls", j);
    case ActionType::kSetQueue:
      j["queue_id"] = a.queue_id;
      return wrap("OFPActionSetQueue", j);
    case ActionType::kGroup:
      j["group_id"] = a.group_id;
      return wrap("OFPActionGroup", j);
    case ActionType::kSetNwTtl:
      j["nw_ttl"] = a.ttl;
      return wrap("OFPActionSetNwTtl", j);
    case ActionType::kDecNwTtl:
      return wrap("OFPActionDecNwTtl", j);
    case ActionType::kSetField:
      j["field"] = oxm_json(a.field);
      return wrap("OFPActionSetField", j);
    case ActionType::kPushPbb:
      j["ethertype"] = a.ethertype;
      return wrap("OFPActionPushPbb", j);
    case ActionType::kPopPbb:
      return wrap("OFPActionPopPbb", j);
    case ActionType::kExperimenter:
      j["experimenter"] = a.experimenter;
      j["data"] = base64(a.data);
      return wrap("OFPActionExperimenterUnknown", j);
    case ActionType::kCopyField:  // OF1.5 (the ONF extension at 1.3)
    case ActionType::kEnqueue:
      break;
  }
  return wrap("Unknown", j);
}

inline json actions_json(const ActionList& l) {
  json a = json::array();
  for (const auto& x : l) a.push_back(action_json(x));
  return a;
}

inline json instructions_json(const InstructionList& l) {
  json out = json::array();
  for (const auto& i : l) {
    ByteWriter w;
    (void)of13::encode_instructions({i}, w);
    json j{{"type", static_cast<int>(i.type)}, {"len", w.size()}};
    switch (i.type) {
      case InstructionType::kGotoTable:
        j["table_id"] = i.table_id;
        out.push_back(wrap("OFPInstructionGotoTable", j));
        break;
      case InstructionType::kWriteMetadata:
        j["metadata"] = i.metadata;
        j["metadata_mask"] = i.metadata_mask;
        out.push_back(wrap("OFPInstructionWriteMetadata", j));
        break;
      case InstructionType::kWriteActions:
      case InstructionType::kApplyActions:
      case InstructionType::kClearActions:
        j["actions"] = actions_json(i.actions);
        out.push_back(wrap("OFPInstructionActions", j));
        break;
      case InstructionType::kMeter:
        j["meter_id"] = i.meter_id;
        out.push_back(wrap("OFPInstructionMeter", j));
        break;
      default:
        out.push_back(wrap("OFPInstructionExperimenter", j));
        break;
    }
  }
  return out;
}

inline json bucket_json(const Bucket& b) {
  ByteWriter w;
  (void)of13::encode_buckets({b}, w);
  return wrap("OFPBucket", {{"len", w.size()},
                            {"weight", b.weight},
                            {"watch_port", b.watch_port},
                            {"watch_group", b.watch_group},
                            {"actions", actions_json(b.actions)}});
}
inline json buckets_json(const std::vector<Bucket>& v) {
  json a = json::array();
  for (const auto& b : v) a.push_back(bucket_json(b));
  return a;
}

inline json bands_json(const std::vector<MeterBand>& v) {
  json a = json::array();
  for (const auto& b : v) {
    ByteWriter w;
    (void)of13::encode_bands({b}, w);
    json j{{"type", static_cast<int>(b.type)},
           {"len", w.size()},
           {"rate", b.rate},
           {"burst_size", b.burst_size}};
    if (b.type == MeterBandType::kDrop)
      a.push_back(wrap("OFPMeterBandDrop", j));
    else if (b.type == MeterBandType::kDscpRemark) {
      j["prec_level"] = b.prec_level;
      a.push_back(wrap("OFPMeterBandDscpRemark", j));
    } else {
      j["experimenter"] = b.experimenter;
      a.push_back(wrap("OFPMeterBandExperimenter", j));
    }
  }
  return a;
}

inline json port_json(const PortDesc& p) {
  const auto& m = p.hw_addr.b;
  char mac[32];
  snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
  return wrap("OFPPort", {{"port_no", p.port_no},
                          {"hw_addr", mac},
                          {"name", p.name},
                          {"config", p.config},
                          {"state", p.state},
                          {"curr", p.curr},
                          {"advertised", p.advertised},
                          {"supported", p.supported},
                          {"peer", p.peer},
                          {"curr_speed", p.curr_speed},
                          {"max_speed", p.max_speed}});
}

inline json oxm_ids_json(const std::vector<uint32_t>& ids) {
  json a = json::array();
  for (uint32_t h : ids) {
    json j = json::object();
    if (h >> 16 == kOxmClassBasic && oxm_info(OxmId(h >> 9 & 0x7f))) {
      j["type"] = oxm_info(OxmId(h >> 9 & 0x7f))->name;
      j["hasmask"] = int(h >> 8 & 1);
    }
    a.push_back(wrap("OFPOxmId", j));
  }
  return a;
}

inline json table_features_json(const std::vector<TableFeatures>& v) {
  json a = json::array();
  for (const auto& t : v) {
    json props = json::array();
    size_t total = 64;
    for (const auto& p : t.properties) {
      auto type = static_cast<uint16_t>(p.type);
      json j{{"type", type}};
      size_t len = 4;
      if (type >= 0xfffe) {
        json data = json::array();
        for (size_t i = 0; i + 4 <= p.data.size(); i += 4) data.push_back(load_be32(&p.data[i]));
        j["experimenter"] = p.experimenter;
        j["exp_type"] = p.exp_type;
        j["data"] = data;
        len = 12 + p.data.size();
        props.push_back(wrap("OFPTableFeaturePropExperimenter", j));
      } else if (!p.data.empty()) {
        len += p.data.size();
        props.push_back(wrap("Opaque", json::object()));
      } else if (type <= 1 || (type >= 4 && type <= 7)) {
        bool inst = type <= 1;
        json ids = json::array();
        for (uint32_t id : p.ids)
          ids.push_back(wrap(inst ? "OFPInstructionId" : "OFPActionId", {{"type", id}, {"len", 4}}));
        j[inst ? "instruction_ids" : "action_ids"] = ids;
        len += 4 * p.ids.size();
        props.push_back(wrap(inst ? "OFPTableFeaturePropInstructions" : "OFPTableFeaturePropActions", j));
      } else if (type == 2 || type == 3) {
        j["table_ids"] = p.ids;
        len += p.ids.size();
        props.push_back(wrap("OFPTableFeaturePropNextTables", j));
      } else {
        j["oxm_ids"] = oxm_ids_json(p.ids);
        len += 4 * p.ids.size();
        props.push_back(wrap("OFPTableFeaturePropOxm", j));
      }
      props.back().begin().value()["length"] = len;
      total += len + of13::pad8(len);
    }
    a.push_back(wrap("OFPTableFeaturesStats", {{"table_id", t.table_id},
                                               {"name", t.name},
                                               {"metadata_match", t.metadata_match},
                                               {"metadata_write", t.metadata_write},
                                               {"config", t.config},
                                               {"max_entries", t.max_entries},
                                               {"length", total},
                                               {"properties", props}}));
  }
  return a;
}

json message_json(const Message& m);  // vectors_of13_test.cpp

}  // namespace flowlab::of::testing

// Names of OpenFlow message, action and instruction types (OF1.3 spelling),
// used in logs, error messages and `flowlab ofctl` output.
#include "openflow/constants.h"

namespace flowlab::of {

std::string_view to_string(MsgType t) {
  switch (t) {
    case MsgType::kHello:
      return "OFPT_HELLO";
    case MsgType::kError:
      return "OFPT_ERROR";
    case MsgType::kEchoRequest:
      return "OFPT_ECHO_REQUEST";
    case MsgType::kEchoReply:
      return "OFPT_ECHO_REPLY";
    case MsgType::kExperimenter:
      return "OFPT_EXPERIMENTER";
    case MsgType::kFeaturesRequest:
      return "OFPT_FEATURES_REQUEST";
    case MsgType::kFeaturesReply:
      return "OFPT_FEATURES_REPLY";
    case MsgType::kGetConfigRequest:
      return "OFPT_GET_CONFIG_REQUEST";
    case MsgType::kGetConfigReply:
      return "OFPT_GET_CONFIG_REPLY";
    case MsgType::kSetConfig:
      return "OFPT_SET_CONFIG";
    case MsgType::kPacketIn:
      return "OFPT_PACKET_IN";
    case MsgType::kFlowRemoved:
      return "OFPT_FLOW_REMOVED";
    case MsgType::kPortStatus:
      return "OFPT_PORT_STATUS";
    case MsgType::kPacketOut:
      return "OFPT_PACKET_OUT";
    case MsgType::kFlowMod:
      return "OFPT_FLOW_MOD";
    case MsgType::kGroupMod:
      return "OFPT_GROUP_MOD";
    case MsgType::kPortMod:
      return "OFPT_PORT_MOD";
    case MsgType::kTableMod:
      return "OFPT_TABLE_MOD";
    case MsgType::kMultipartRequest:
      return "OFPT_MULTIPART_REQUEST";
    case MsgType::kMultipartReply:
      return "OFPT_MULTIPART_REPLY";
    case MsgType::kBarrierRequest:
      return "OFPT_BARRIER_REQUEST";
    case MsgType::kBarrierReply:
      return "OFPT_BARRIER_REPLY";
    case MsgType::kQueueGetConfigRequest:
      return "OFPT_QUEUE_GET_CONFIG_REQUEST";
    case MsgType::kQueueGetConfigReply:
      return "OFPT_QUEUE_GET_CONFIG_REPLY";
    case MsgType::kRoleRequest:
      return "OFPT_ROLE_REQUEST";
    case MsgType::kRoleReply:
      return "OFPT_ROLE_REPLY";
    case MsgType::kGetAsyncRequest:
      return "OFPT_GET_ASYNC_REQUEST";
    case MsgType::kGetAsyncReply:
      return "OFPT_GET_ASYNC_REPLY";
    case MsgType::kSetAsync:
      return "OFPT_SET_ASYNC";
    case MsgType::kMeterMod:
      return "OFPT_METER_MOD";
    case MsgType::kRoleStatus:
      return "OFPT_ROLE_STATUS";
    case MsgType::kTableStatus:
      return "OFPT_TABLE_STATUS";
    case MsgType::kRequestForward:
      return "OFPT_REQUESTFORWARD";
    case MsgType::kControllerStatus:
      return "OFPT_CONTROLLER_STATUS";
  }
  return "OFPT_UNKNOWN";
}

std::string_view to_string(ActionType t) {
  switch (t) {
    case ActionType::kOutput:
      return "OFPAT_OUTPUT";
    case ActionType::kCopyTtlOut:
      return "OFPAT_COPY_TTL_OUT";
    case ActionType::kCopyTtlIn:
      return "OFPAT_COPY_TTL_IN";
    case ActionType::kSetMplsTtl:
      return "OFPAT_SET_MPLS_TTL";
    case ActionType::kDecMplsTtl:
      return "OFPAT_DEC_MPLS_TTL";
    case ActionType::kPushVlan:
      return "OFPAT_PUSH_VLAN";
    case ActionType::kPopVlan:
      return "OFPAT_POP_VLAN";
    case ActionType::kPushMpls:
      return "OFPAT_PUSH_MPLS";
    case ActionType::kPopMpls:
      return "OFPAT_POP_MPLS";
    case ActionType::kSetQueue:
      return "OFPAT_SET_QUEUE";
    case ActionType::kGroup:
      return "OFPAT_GROUP";
    case ActionType::kSetNwTtl:
      return "OFPAT_SET_NW_TTL";
    case ActionType::kDecNwTtl:
      return "OFPAT_DEC_NW_TTL";
    case ActionType::kSetField:
      return "OFPAT_SET_FIELD";
    case ActionType::kPushPbb:
      return "OFPAT_PUSH_PBB";
    case ActionType::kPopPbb:
      return "OFPAT_POP_PBB";
    case ActionType::kCopyField:
      return "OFPAT_COPY_FIELD";
    case ActionType::kEnqueue:
      return "OFPAT_ENQUEUE";
    case ActionType::kExperimenter:
      return "OFPAT_EXPERIMENTER";
  }
  return "OFPAT_UNKNOWN";
}

std::string_view to_string(InstructionType t) {
  switch (t) {
    case InstructionType::kGotoTable:
      return "OFPIT_GOTO_TABLE";
    case InstructionType::kWriteMetadata:
      return "OFPIT_WRITE_METADATA";
    case InstructionType::kWriteActions:
      return "OFPIT_WRITE_ACTIONS";
    case InstructionType::kApplyActions:
      return "OFPIT_APPLY_ACTIONS";
    case InstructionType::kClearActions:
      return "OFPIT_CLEAR_ACTIONS";
    case InstructionType::kMeter:
      return "OFPIT_METER";
    case InstructionType::kExperimenter:
      return "OFPIT_EXPERIMENTER";
  }
  return "OFPIT_UNKNOWN";
}

}  // namespace flowlab::of

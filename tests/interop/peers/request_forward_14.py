# An os-ken app at OpenFlow 1.4 that asks the switch for request forwards,
# for tests/interop/switch_of14_test.cpp:
#   osken-manager --ofp-tcp-listen-port PORT request_forward_14.py
# On connect: a set-async with the request-forward properties (master and
# slave: group-mod and meter-mod), then a barrier; its reply logs
# "request forward asked". Each OFPT_REQUESTFORWARD received logs the
# request inside: "forwarded group_mod group_id=N" or "forwarded meter_mod
# meter_id=N".
from os_ken.base import app_manager
from os_ken.controller import ofp_event
from os_ken.controller.handler import CONFIG_DISPATCHER, MAIN_DISPATCHER
from os_ken.controller.handler import set_ev_cls
from os_ken.ofproto import ofproto_v1_4


class RequestForward14(app_manager.OSKenApp):
    OFP_VERSIONS = [ofproto_v1_4.OFP_VERSION]

    @set_ev_cls(ofp_event.EventOFPSwitchFeatures, CONFIG_DISPATCHER)
    def on_features(self, ev):
        dp = ev.msg.datapath
        ofp, p = dp.ofproto, dp.ofproto_parser
        both = (1 << ofp.OFPRFR_GROUP_MOD) | (1 << ofp.OFPRFR_METER_MOD)
        props = [p.OFPAsyncConfigPropReasons(ofp.OFPACPT_REQUESTFORWARD_MASTER, mask=both),
                 p.OFPAsyncConfigPropReasons(ofp.OFPACPT_REQUESTFORWARD_SLAVE, mask=both)]
        dp.send_msg(p.OFPSetAsync(dp, props))
        dp.send_msg(p.OFPBarrierRequest(dp))

    @set_ev_cls(ofp_event.EventOFPBarrierReply, [CONFIG_DISPATCHER, MAIN_DISPATCHER])
    def on_barrier(self, ev):
        self.logger.info("request forward asked")

    @set_ev_cls(ofp_event.EventOFPRequestForward, [CONFIG_DISPATCHER, MAIN_DISPATCHER])
    def on_forward(self, ev):
        req = ev.msg.request
        ofp = ev.msg.datapath.ofproto
        if req.msg_type == ofp.OFPT_GROUP_MOD:
            self.logger.info("forwarded group_mod group_id=%d", req.group_id)
        elif req.msg_type == ofp.OFPT_METER_MOD:
            self.logger.info("forwarded meter_mod meter_id=%d", req.meter_id)
        else:
            self.logger.info("forwarded something else: type %d", req.msg_type)

    @set_ev_cls(ofp_event.EventOFPErrorMsg, [CONFIG_DISPATCHER, MAIN_DISPATCHER])
    def on_error(self, ev):
        self.logger.info("switch error type=%d code=%d", ev.msg.type, ev.msg.code)

# An os-ken app at OpenFlow 1.4 that subscribes to the switch's flow changes
# (a flow monitor), for tests/interop/flow_monitor_test.cpp:
#   osken-manager --ofp-tcp-listen-port PORT flow_monitor_14.py
# On connect it sends one OFPFlowMonitorRequest (monitor 1, every table, flags
# INITIAL|ADD|REMOVED|MODIFY|INSTRUCTIONS) and logs every update it gets:
#   "flow update xid=X event=E table=T reason=R priority=P idle=I hard=H
#    cookie=0xC match={...} instructions=[...]"
# ("flow monitor reply xid=X updates=N" before them), an ABBREV's xid, and
# switch errors. os-ken's parser reads only INITIAL full updates unless
# patched (osken_flow_updates.py, beside this file).
import os
import sys

from os_ken.base import app_manager
from os_ken.controller import ofp_event
from os_ken.controller.handler import CONFIG_DISPATCHER, MAIN_DISPATCHER
from os_ken.controller.handler import set_ev_cls
from os_ken.ofproto import ofproto_v1_4
from os_ken.ofproto import ofproto_v1_4_parser

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import osken_flow_updates  # noqa: E402

osken_flow_updates.use(ofproto_v1_4_parser, ofproto_v1_4)


class FlowMonitor14(app_manager.OSKenApp):
    OFP_VERSIONS = [ofproto_v1_4.OFP_VERSION]

    @set_ev_cls(ofp_event.EventOFPSwitchFeatures, CONFIG_DISPATCHER)
    def on_features(self, ev):
        dp = ev.msg.datapath
        ofp, p = dp.ofproto, dp.ofproto_parser
        flags = (ofp.OFPFMF_INITIAL | ofp.OFPFMF_ADD | ofp.OFPFMF_REMOVED | ofp.OFPFMF_MODIFY |
                 ofp.OFPFMF_INSTRUCTIONS)
        dp.send_msg(p.OFPFlowMonitorRequest(dp, 0, 1, ofp.OFPP_ANY, ofp.OFPG_ANY, flags, ofp.OFPTT_ALL,
                                            ofp.OFPFMC_ADD, p.OFPMatch()))

    @set_ev_cls(ofp_event.EventOFPFlowMonitorReply, [CONFIG_DISPATCHER, MAIN_DISPATCHER])
    def on_updates(self, ev):
        msg = ev.msg
        ofp = msg.datapath.ofproto
        self.logger.info("flow monitor reply xid=%d updates=%d", msg.xid, len(msg.body))
        for u in msg.body:
            if u.event == ofp.OFPFME_ABBREV:
                self.logger.info("flow update xid=%d event=%d abbrev_xid=%d", msg.xid, u.event, u.xid)
            elif u.event in (ofp.OFPFME_PAUSED, ofp.OFPFME_RESUMED):
                self.logger.info("flow update xid=%d event=%d", msg.xid, u.event)
            else:
                self.logger.info(
                    "flow update xid=%d event=%d table=%d reason=%d priority=%d idle=%d hard=%d cookie=%#x "
                    "match=%s instructions=%s", msg.xid, u.event, u.table_id, u.reason, u.priority,
                    u.idle_timeout, u.hard_timeout, u.cookie, dict(u.match.items()),
                    [str(i) for i in u.instructions])

    @set_ev_cls(ofp_event.EventOFPErrorMsg, [CONFIG_DISPATCHER, MAIN_DISPATCHER])
    def on_error(self, ev):
        self.logger.info("switch error type=%d code=%d", ev.msg.type, ev.msg.code)

# An os-ken app at OpenFlow 1.5 that watches the switch's controller
# connections, for tests/interop/switch_of15_controller_status_test.cpp:
#   osken-manager --ofp-tcp-listen-port PORT controller_status_15.py
# On connect and after each OFPT_CONTROLLER_STATUS: an OFPMP_CONTROLLER_STATUS
# request. Logs each status message as "controller status short_id=N role=R
# reason=R channel=C uri=U" and each reply as "status reply N: short_id=...
# role=R reason=R channel=C uri=U; ..." (os-ken's parsed fields).
from os_ken.base import app_manager
from os_ken.controller import ofp_event
from os_ken.controller.handler import CONFIG_DISPATCHER, MAIN_DISPATCHER
from os_ken.controller.handler import set_ev_cls
from os_ken.ofproto import ofproto_v1_5


def describe(st):
    uris = [p.uri.decode() if isinstance(p.uri, bytes) else p.uri for p in st.properties if hasattr(p, "uri")]
    return "short_id=%d role=%d reason=%d channel=%d uri=%s" % (
        st.short_id, st.role, st.reason, st.channel_status, uris[0] if uris else "-")


class ControllerStatus15(app_manager.OSKenApp):
    OFP_VERSIONS = [ofproto_v1_5.OFP_VERSION]

    def ask(self, dp):
        dp.send_msg(dp.ofproto_parser.OFPControllerStatusStatsRequest(dp, 0))

    @set_ev_cls(ofp_event.EventOFPSwitchFeatures, CONFIG_DISPATCHER)
    def on_features(self, ev):
        self.ask(ev.msg.datapath)

    @set_ev_cls(ofp_event.EventOFPControllerStatus, [CONFIG_DISPATCHER, MAIN_DISPATCHER])
    def on_status(self, ev):
        self.logger.info("controller status %s", describe(ev.msg.status))
        self.ask(ev.msg.datapath)

    @set_ev_cls(ofp_event.EventOFPControllerStatusStatsReply, [CONFIG_DISPATCHER, MAIN_DISPATCHER])
    def on_reply(self, ev):
        self.logger.info("status reply %d: %s", len(ev.msg.body), "; ".join(describe(s) for s in ev.msg.body))

    @set_ev_cls(ofp_event.EventOFPErrorMsg, [CONFIG_DISPATCHER, MAIN_DISPATCHER])
    def on_error(self, ev):
        self.logger.info("switch error type=%d code=%d", ev.msg.type, ev.msg.code)

# An os-ken learning switch that speaks OpenFlow 1.4 only, for the interop
# tests (tests/interop/switch_osken_test.cpp):
#   osken-manager --ofp-tcp-listen-port PORT learning_switch_14.py
# On connect: asks for the port descriptions and logs each port's ethernet
# property ("port N NAME curr_speed=K max_speed=K"), then installs the
# priority-0 table-miss flow (importance 7) sending whole packets to the
# controller. On packet-in: learns the source MAC's port; a known destination
# gets a priority-1 flow (in_port, eth_src, eth_dst; importance 3) and the
# packet, an unknown one a flood.
from os_ken.base import app_manager
from os_ken.controller import ofp_event
from os_ken.controller.handler import CONFIG_DISPATCHER, MAIN_DISPATCHER
from os_ken.controller.handler import set_ev_cls
from os_ken.lib.packet import ethernet, ether_types, packet
from os_ken.ofproto import ofproto_v1_4


class LearningSwitch14(app_manager.OSKenApp):
    OFP_VERSIONS = [ofproto_v1_4.OFP_VERSION]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.ports_by_mac = {}

    @staticmethod
    def _flow(dp, priority, importance, match, actions):
        ofp, p = dp.ofproto, dp.ofproto_parser
        inst = [p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, actions)]
        dp.send_msg(p.OFPFlowMod(datapath=dp, priority=priority, importance=importance,
                                 match=match, instructions=inst))

    @set_ev_cls(ofp_event.EventOFPSwitchFeatures, CONFIG_DISPATCHER)
    def on_features(self, ev):
        dp = ev.msg.datapath
        ofp, p = dp.ofproto, dp.ofproto_parser
        self.logger.info("switch %#x speaks OpenFlow version %#x", dp.id, ev.msg.version)
        dp.send_msg(p.OFPPortDescStatsRequest(dp, 0))
        to_controller = p.OFPActionOutput(ofp.OFPP_CONTROLLER, ofp.OFPCML_NO_BUFFER)
        self._flow(dp, 0, 7, p.OFPMatch(), [to_controller])

    @set_ev_cls(ofp_event.EventOFPPortDescStatsReply, [CONFIG_DISPATCHER, MAIN_DISPATCHER])
    def on_port_desc(self, ev):
        for port in ev.msg.body:
            for prop in port.properties:
                if prop.type == ev.msg.datapath.ofproto.OFPPDPT_ETHERNET:
                    self.logger.info("port %d %s curr_speed=%d max_speed=%d", port.port_no,
                                     port.name.decode(), prop.curr_speed, prop.max_speed)

    @set_ev_cls(ofp_event.EventOFPErrorMsg, [CONFIG_DISPATCHER, MAIN_DISPATCHER])
    def on_error(self, ev):
        self.logger.info("switch error type %d code %d", ev.msg.type, ev.msg.code)

    @set_ev_cls(ofp_event.EventOFPPacketIn, MAIN_DISPATCHER)
    def on_packet_in(self, ev):
        msg = ev.msg
        dp = msg.datapath
        ofp, p = dp.ofproto, dp.ofproto_parser
        in_port = msg.match['in_port']
        eth = packet.Packet(msg.data).get_protocols(ethernet.ethernet)[0]
        if eth.ethertype == ether_types.ETH_TYPE_LLDP:
            return
        table = self.ports_by_mac.setdefault(dp.id, {})
        table[eth.src] = in_port
        out_port = table.get(eth.dst, ofp.OFPP_FLOOD)
        actions = [p.OFPActionOutput(out_port)]
        if out_port != ofp.OFPP_FLOOD:
            match = p.OFPMatch(in_port=in_port, eth_dst=eth.dst, eth_src=eth.src)
            self._flow(dp, 1, 3, match, actions)
        data = msg.data if msg.buffer_id == ofp.OFP_NO_BUFFER else None
        dp.send_msg(p.OFPPacketOut(datapath=dp, buffer_id=msg.buffer_id,
                                   in_port=in_port, actions=actions, data=data))

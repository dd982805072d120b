"""os-ken's flow monitor reply parser, made to read every event.

os-ken (python3-os-ken 2.x, ofproto_v1_4/v1_5_parser) registers one class,
OFPFlowUpdateFull, for the four full events (INITIAL, ADDED, REMOVED,
MODIFIED) and one, OFPFlowUpdatePaused, for PAUSED and RESUMED; each
registration overwrites the class's cls_flow_update_event, and the parser
asserts the event it reads equals it. So os-ken reads INITIAL and PAUSED
updates and drops every reply with ADDED, REMOVED, MODIFIED or RESUMED
("Encountered an error while parsing OpenFlow packet from switch").
use(parser_module, ofproto_module) gives each event a subclass of its own,
registered the same way, so the parser accepts every event; the objects are
still OFPFlowUpdateFull / OFPFlowUpdatePaused instances.
"""


def use(p, ofp):
    full = [ofp.OFPFME_INITIAL, ofp.OFPFME_ADDED, ofp.OFPFME_REMOVED, ofp.OFPFME_MODIFIED]
    paused = [ofp.OFPFME_PAUSED, ofp.OFPFME_RESUMED]
    for base, events, size in ((p.OFPFlowUpdateFull, full, ofp.OFP_FLOW_UPDATE_FULL_SIZE),
                               (p.OFPFlowUpdatePaused, paused, ofp.OFP_FLOW_UPDATE_PAUSED_SIZE)):
        for ev in events:
            if getattr(p.OFPFlowUpdateHeader._EVENT.get(ev), "cls_flow_update_event", ev) == ev:
                continue  # already parses this event
            sub = type("%s_%d" % (base.__name__, ev), (base,), {})
            p.OFPFlowUpdateHeader.register_flow_update_event(ev, size)(sub)

"""os-ken's switch tester (os_ken/tests/switch/tester.py) with what it lacks to
judge a target switch at OpenFlow 1.4 and 1.5; scripts/conformance.sh runs it
in place of tester.py for --version 14 and 15 (the tester switch stays at 1.3).

What it adds:
- OpenFlow 1.5 targets: os-ken's tester asks for flows with
  OFPFlowStatsRequest and for meters with OFPMeterConfigStatsRequest. At 1.5
  the first is the new OFPMP_FLOW_STATS (counters only: no cookie, timeouts or
  instructions to compare) and the second no longer exists (its check of
  groups names it too and stops); the flow, meter and group checks here ask
  for OFPMP_FLOW_DESC, OFPMP_METER_DESC and OFPMP_GROUP_DESC instead, and
  compare them as the tester does.
- Standard bundles (1.4 and 1.5): a case whose description carries
  "[bundle FLAGS]" has each flow-mod sent to the target in a bundle of its
  own: OPEN_REQUEST, ADD_MESSAGE, COMMIT_REQUEST, then the tester's barrier.
  "[one bundle FLAGS]" sends every flow-mod of the case in one bundle, with
  the first. FLAGS are words among "atomic" and "ordered". The case fails
  unless the switch answers OPEN_REPLY and COMMIT_REPLY for the bundle (and
  then, as always, unless the flows are there and forward as expected).
- Table-mods (1.4 and 1.5): an OFPTableMod in a case's prerequisites (the
  tester skips them) is sent to the target after the tester has emptied its
  tables, before the flows, and must be answered by no error; the tables it
  configured are set back to config 0 after the case.
- Egress tables (1.5): an OFPTableFeaturesStatsRequest in a case's
  prerequisites (the tester skips it; it marks the first egress table) is
  sent like a table-mod, before the flows, and must be answered by no error.
  The next case first ends egress processing (OFPTFC_REPLACE naming no first
  egress table) once the tester has emptied the target's tables (a table that
  holds flows cannot change sides).
- os-ken's 1.5 parsers of a bucket and of a group description read the
  properties up to the bucket's (group's) length counted from the end of its
  actions (buckets) instead of from its start, so they run into the next
  bucket (group) and, at the first zero-length "property", loop forever: the
  whole controller hangs on a group description with two buckets that have
  weights or watch ports, or with two groups. `_parse_bucket_15` and
  `_parse_group_desc_15` below bound them and are installed in their place.
  Its copy-field parser likewise reads OXM ids past the action (its padding
  and the next action) and then asserts there are two: no flow with a
  copy-field can be read back; `_parse_copy_field_15` reads the two ids.

Run: osken-manager ... tests/conformance/tester_ext.py (see the script).
"""
import re
import struct

from os_ken.controller import handler
from os_ken.controller import ofp_event
from os_ken.controller.handler import set_ev_cls
from os_ken.exception import OSKenException
from os_ken.lib import hub
from os_ken.ofproto import ofproto_v1_5
from os_ken.ofproto import ofproto_v1_5_parser
from os_ken.tests.switch import tester

_BUNDLE_TAG = re.compile(r"\[(one )?bundle((?: [a-z]+)*)\]")
_BUNDLE_FLAGS = {"atomic": "OFPBF_ATOMIC", "ordered": "OFPBF_ORDERED"}


def _parse_bucket_15(cls, buf, offset):
    """ofp_bucket at 1.5: len, action_array_len, bucket_id, actions, then
    properties up to len bytes from the bucket's start."""
    start = offset
    b = cls()
    (b.len, b.action_array_len, b.bucket_id) = struct.unpack_from(ofproto_v1_5.OFP_BUCKET_PACK_STR, buf, offset)
    offset += ofproto_v1_5.OFP_BUCKET_SIZE
    actions_end = offset + b.action_array_len
    b.actions = []
    while offset < actions_end:
        action = ofproto_v1_5_parser.OFPAction.parser(buf, offset)
        b.actions.append(action)
        offset += action.len
    b.properties = _properties(bytes(buf[actions_end:start + b.len]), ofproto_v1_5_parser.OFPGroupBucketProp,
                               "bucket %d" % b.bucket_id)
    return b


def _properties(rest, prop_cls, what):
    props = []
    while len(rest) >= 4:
        (_, length) = struct.unpack_from("!HH", rest, 0)
        if length < 4:
            raise ValueError("%s: a property of length %d" % (what, length))
        prop, rest = prop_cls.parse(rest)
        props.append(prop)
    return props


def _parse_group_desc_15(cls, buf, offset):
    """ofp_group_desc at 1.5: length, type, group_id, bucket_array_len,
    buckets, then properties up to length bytes from the entry's start."""
    start = offset
    g = cls()
    (g.length, g.type, g.group_id, g.bucket_array_len) = struct.unpack_from(
        ofproto_v1_5.OFP_GROUP_DESC_STATS_PACK_STR, buf, offset)
    offset += ofproto_v1_5.OFP_GROUP_DESC_STATS_SIZE
    buckets_end = offset + g.bucket_array_len
    g.buckets = []
    while offset < buckets_end:
        bucket = ofproto_v1_5_parser.OFPBucket.parser(buf, offset)
        if bucket.len < ofproto_v1_5.OFP_BUCKET_SIZE:
            raise ValueError("group %d: a bucket of length %d" % (g.group_id, bucket.len))
        g.buckets.append(bucket)
        offset += bucket.len
    g.properties = _properties(bytes(buf[buckets_end:start + g.length]), ofproto_v1_5_parser.OFPGroupProp,
                               "group %d" % g.group_id)
    return g


def _parse_copy_field_15(cls, buf, offset):
    """ofp_action_copy_field: type, len, n_bits, src_offset, dst_offset, then
    the source and destination OXM ids, padded to len."""
    (type_, len_, n_bits, src_offset, dst_offset) = struct.unpack_from(ofproto_v1_5.OFP_ACTION_COPY_FIELD_PACK_STR,
                                                                       buf, offset)
    rest = bytes(buf[offset + ofproto_v1_5.OFP_ACTION_COPY_FIELD_SIZE:offset + len_])
    oxm_ids = []
    for _ in range(2):
        if len(rest) < 4:
            raise ValueError("copy_field of length %d: fewer than two OXM ids" % len_)
        oxm_id, rest = ofproto_v1_5_parser.OFPOxmId.parse(rest)
        oxm_ids.append(oxm_id)
    action = cls(n_bits, src_offset, dst_offset, oxm_ids, type_, len_)
    action.len = len_  # the constructor sets the fixed part's length
    return action


ofproto_v1_5_parser.OFPBucket.parser = classmethod(_parse_bucket_15)
ofproto_v1_5_parser.OFPActionCopyField.parser = classmethod(_parse_copy_field_15)
ofproto_v1_5_parser.OFPGroupDescStats.parser = classmethod(_parse_group_desc_15)


class ExtFailure(tester.TestFailure):
    """A failure with its own message (the tester's table of messages has
    none for bundles)."""

    def __init__(self, msg):
        OSKenException.__init__(self, msg=msg)


class OfTesterExt(tester.OfTester):
    def __init__(self):
        super().__init__()
        self._case = None  # the running case
        self._bundle = None  # (one bundle for the case?, flag names) or None
        self._bundle_done = False  # the case's one bundle was committed
        self._bundle_id = 0
        self._bundle_replies = []  # (xid, type) of bundle control replies
        self._egress_set = False  # a case set a first egress table: the next one ends it

    def _test_execute(self, test, description):
        m = _BUNDLE_TAG.search(test.description or "")
        self._case = test
        self._bundle = (bool(m.group(1)), m.group(2).split()) if m else None
        self._bundle_done = False
        try:
            return super()._test_execute(test, description)
        finally:
            self._reset_tables()
            self._case = None
            self._bundle = None

    # ---- table-mods ----
    def _table_mods(self, sw):
        parser = sw.dp.ofproto_parser
        if self._case is None or not hasattr(parser, "OFPTableMod"):
            return []
        kinds = (parser.OFPTableMod,) + ((parser.OFPTableFeaturesStatsRequest,)
                                         if hasattr(parser, "OFPTableFeaturesStatsRequest") and
                                         sw.dp.ofproto.OFP_VERSION >= 6 else ())
        return [m for m in self._case.prerequisite if isinstance(m, kinds)]

    def _test_initialize_flow(self, datapath):
        super()._test_initialize_flow(datapath)
        if datapath is not self.target_sw:
            return
        parser = datapath.dp.ofproto_parser
        mods = self._table_mods(datapath)
        if self._egress_set:
            ofp = datapath.dp.ofproto
            mods = [parser.OFPTableFeaturesStatsRequest(datapath.dp, 0, [parser.OFPTableFeaturesStats(
                0, ofp.OFPTFC_REPLACE, ofp.OFPTFF_INGRESS_TABLE, b"ingress", 0, 0, 0, 0, [])])] + mods
            self._egress_set = False
        for mod in mods:
            self.send_msg_xids = []
            mod.xid = None
            self.send_msg_xids.append(datapath.send_msg(mod))
            self.send_msg_xids.append(datapath.send_barrier_request())
            try:
                self._wait()
            except tester.TestReceiveError as err:
                raise ExtFailure("Failed to modify table %s: %s" % (getattr(mod, "table_id", "features"),
                                                                    str(err).split(": ", 1)[-1]))
            assert isinstance(self.rcv_msgs[0], datapath.dp.ofproto_parser.OFPBarrierReply)
            if mod in self._case.prerequisite and not isinstance(mod, parser.OFPTableMod):
                self._egress_set = True  # a first egress table is set

    def _reset_tables(self):
        sw = self.target_sw
        if isinstance(sw.dp, tester.DummyDatapath):
            return  # the target left; the next case waits for it
        try:
            for mod in self._table_mods(sw):
                if isinstance(mod, sw.dp.ofproto_parser.OFPTableMod):
                    sw.send_msg(sw.dp.ofproto_parser.OFPTableMod(sw.dp, mod.table_id, 0, []))
        except tester.TestError:
            pass  # the target left; the next case waits for it

    # ---- bundles ----
    def _test_msg_install(self, datapath, message):
        parser = datapath.dp.ofproto_parser
        if (self._bundle is None or datapath is not self.target_sw or
                not isinstance(message, parser.OFPFlowMod)):
            return super()._test_msg_install(datapath, message)
        one, names = self._bundle
        if not one:
            mods = [message]
        elif not self._bundle_done:
            mods = [m for m in self._case.prerequisite if isinstance(m, parser.OFPFlowMod)]
        else:
            mods = []  # committed with the case's first flow-mod
        self._bundle_done = True
        ofp = datapath.dp.ofproto
        flags = 0
        for name in names:
            if name not in _BUNDLE_FLAGS:
                raise ExtFailure("unknown bundle flag %r in the case's description" % name)
            flags |= getattr(ofp, _BUNDLE_FLAGS[name])
        commit_xid = None
        if mods:
            self._bundle_id += 1
            bid = self._bundle_id
            self._bundle_replies = []
            ctrl = parser.OFPBundleCtrlMsg
            self.send_msg_xids.append(datapath.send_msg(ctrl(datapath.dp, bid, ofp.OFPBCT_OPEN_REQUEST, flags, [])))
            for mod in mods:
                mod.xid = None  # the add message gives it its own xid
                self.send_msg_xids.append(datapath.send_msg(parser.OFPBundleAddMsg(datapath.dp, bid, flags, mod, [])))
            commit_xid = datapath.send_msg(ctrl(datapath.dp, bid, ofp.OFPBCT_COMMIT_REQUEST, flags, []))
            self.send_msg_xids.append(commit_xid)
        self.send_msg_xids.append(datapath.send_barrier_request())
        self._wait()
        assert len(self.rcv_msgs) == 1
        assert isinstance(self.rcv_msgs[0], parser.OFPBarrierReply)
        if commit_xid is not None:
            types = [t for (_, t) in self._bundle_replies]
            if ofp.OFPBCT_OPEN_REPLY not in types or (commit_xid, ofp.OFPBCT_COMMIT_REPLY) not in self._bundle_replies:
                raise ExtFailure("Failed to add flows in bundle %d (flags %#x): bundle control replies %s, "
                                 "expected OPEN_REPLY and COMMIT_REPLY" % (bid, flags, types))

    @set_ev_cls(ofp_event.EventOFPBundleCtrlMsg, handler.MAIN_DISPATCHER)
    def bundle_ctrl_reply_handler(self, ev):
        if ev.msg.xid in self.send_msg_xids:
            self._bundle_replies.append((ev.msg.xid, ev.msg.type))

    # ---- OpenFlow 1.5: flow and meter descriptions ----
    def _test_exist_check(self, method, message):
        sw = method.__self__
        ofp, parser = sw.dp.ofproto, sw.dp.ofproto_parser
        if ofp.OFP_VERSION != ofproto_v1_5.OFP_VERSION:
            return super()._test_exist_check(method, message)
        if method.__name__ == tester.OpenFlowSw.send_flow_stats.__name__:
            req = parser.OFPFlowDescStatsRequest(sw.dp, 0, ofp.OFPTT_ALL, ofp.OFPP_ANY, ofp.OFPG_ANY, 0, 0,
                                                 parser.OFPMatch())
            reply, compare, key = parser.OFPFlowDescStatsReply, self._compare_flow, "flows"
        elif method.__name__ == tester.OpenFlowSw.send_meter_config_stats.__name__:
            req = parser.OFPMeterDescStatsRequest(sw.dp, 0, ofp.OFPM_ALL)
            reply, compare, key = parser.OFPMeterDescStatsReply, self._compare_meter, "meters"
        else:  # group descriptions (the tester's own check names 1.3's meter classes)
            req = parser.OFPGroupDescStatsRequest(sw.dp, 0, ofp.OFPG_ALL)
            reply, compare, key = parser.OFPGroupDescStatsReply, self._compare_group, "groups"
        self.send_msg_xids.append(sw.send_msg(req))
        self._wait()
        ng = []
        for msg in self.rcv_msgs:
            assert isinstance(msg, reply)
            for stats in msg.body:
                ok, detail = compare(stats, message)
                if ok:
                    return
                ng.append(detail)
        raise tester.TestFailure(self.state, **{key: ", ".join(ng)})

    @set_ev_cls([ofp_event.EventOFPFlowDescStatsReply, ofp_event.EventOFPMeterDescStatsReply],
                handler.MAIN_DISPATCHER)
    def desc_reply_handler(self, ev):
        states = {ofp_event.EventOFPFlowDescStatsReply: [tester.STATE_FLOW_EXIST_CHK],
                  ofp_event.EventOFPMeterDescStatsReply: [tester.STATE_METER_EXIST_CHK]}
        if self.state in states[ev.__class__] and self.waiter and ev.msg.xid in self.send_msg_xids:
            self.rcv_msgs.append(ev.msg)
            if not ev.msg.flags:
                self.waiter.set()
                hub.sleep(0)

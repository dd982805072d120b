#!/usr/bin/python3
"""Checks the conformance cases without a switch (ctest `conformance_cases`):
- each generator (gen_of13/14/15.py) writes exactly the JSON that is committed;
- os-ken's switch tester parses every case of of13/, of14/, of15/ and the smoke
  directories with the target at that directory's version (a case it cannot
  read is skipped by the tester with a warning, never run);
- tester_ext.py's 1.5 bucket and group description parsers read a group of
  two buckets with properties and a description of two groups (os-ken's own
  loop forever on both) and refuse a property of length 0 instead of looping;
  its copy-field parser reads the action as it was sent (os-ken's asserts).
Exit 0 when all hold, 1 otherwise, 77 (skipped) without os-ken.
"""
import filecmp
import glob
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # nothing written into the source tree

HERE = os.path.dirname(os.path.abspath(__file__))
DIRS = {"of13": 13, "smoke": 13, "of14": 14, "smoke14": 14, "of15": 15, "smoke15": 15}
# flowlab's group descriptions at 1.5: one group of two buckets (ids 0 and 1),
# each output:2 and a weight property (3, then 1); two groups (1: indirect to
# group 2; 2: all, output:2).
GROUP_DESC_15 = ("06130060000004f300070000000000000050010000000001004000000000000000200010000000000000001000000002ffe5"
                 "000000000000000000080003000000200010000000010000001000000002ffe50000000000000000000800010000")
TWO_GROUPS_15 = ("0613005800000068000700000000000000200200000000010010000000000000001000080000000000160008000000020028"
                 "000000000002001800000000000000180010000000000000001000000002ffe5000000000000")


def generators_in_sync(failures):
    tmp = tempfile.mkdtemp(prefix="flowlab-cases-")
    try:
        for f in glob.glob(os.path.join(HERE, "*.py")):
            shutil.copy(f, tmp)
        for gen in ("gen_of13.py", "gen_of14.py", "gen_of15.py"):
            subprocess.run([sys.executable, os.path.join(tmp, gen)], check=True, stdout=subprocess.DEVNULL)
        for d in DIRS:
            new, old = sorted(os.listdir(os.path.join(tmp, d))), sorted(os.listdir(os.path.join(HERE, d)))
            if new != old:
                failures.append("%s: the generator writes %s, the directory holds %s" % (d, new, old))
                continue
            _, diff, errors = filecmp.cmpfiles(os.path.join(tmp, d), os.path.join(HERE, d), new, shallow=False)
            if diff or errors:
                failures.append("%s: %s differ from what the generator writes (rerun it)" % (d, diff + errors))
    finally:
        shutil.rmtree(tmp)


def cases_parse(failures):
    from os_ken import cfg
    from os_ken.ofproto import ofproto_v1_3, ofproto_v1_4, ofproto_v1_5
    from os_ken.tests.switch import tester
    cfg.CONF([], project="os_ken")
    versions = {13: ofproto_v1_3.OFP_VERSION, 14: ofproto_v1_4.OFP_VERSION, 15: ofproto_v1_5.OFP_VERSION}
    warnings = []

    class Collect(logging.Handler):
        def emit(self, record):
            warnings.append(record.getMessage())

    log = logging.getLogger("check_cases")
    log.addHandler(Collect())
    log.propagate = False
    tester.OfTester.tester_ver = ofproto_v1_3.OFP_VERSION
    total = 0
    for d, v in DIRS.items():
        tester.OfTester.target_ver = versions[v]
        for path in sorted(glob.glob(os.path.join(HERE, d, "*.json"))):
            total += len(tester.TestFile(path, log).tests)
    failures.extend("tester: " + w for w in warnings)
    return total


def bucket_parser(failures):
    import struct
    sys.path.insert(0, HERE)
    import tester_ext  # noqa: F401 (installs the bounded 1.5 bucket parser)
    from os_ken.ofproto import ofproto_parser, ofproto_protocol, ofproto_v1_5, ofproto_v1_5_parser
    dp = ofproto_protocol.ProtocolDesc(ofproto_v1_5.OFP_VERSION)
    signal.alarm(10)  # os-ken's own parser loops forever here
    buf = bytes.fromhex(GROUP_DESC_15)
    msg = ofproto_parser.msg(dp, *struct.unpack("!BBHI", buf[:8]), buf)
    buckets = msg.body[0].buckets
    got = [(b.bucket_id, [p.weight for p in b.properties], [a.port for a in b.actions]) for b in buckets]
    if got != [(0, [3], [2]), (1, [1], [2])]:
        failures.append("1.5 group description parsed as %s" % got)
    buf = bytes.fromhex(TWO_GROUPS_15)
    msg = ofproto_parser.msg(dp, *struct.unpack("!BBHI", buf[:8]), buf)
    got = [(g.group_id, g.type, [[a.type for a in b.actions] for b in g.buckets]) for g in msg.body]
    if got != [(1, 2, [[22]]), (2, 0, [[0]])]:
        failures.append("1.5 description of two groups parsed as %s" % got)
    # Open vSwitch's copy_field ipv4_dst -> ipv4_src (32 bits, padded to 24
    # bytes) followed by output:2, as it reports the action in a 1.5 flow description.
    acts = bytes.fromhex("001c001800200000000000008000180480001604000000000000001000000002ffe5000000000000")
    copy_field = ofproto_v1_5_parser.OFPAction.parser(acts, 0)
    want = ofproto_v1_5_parser.OFPActionCopyField(32, 0, 0, ["ipv4_dst", "ipv4_src"])
    want.serialize(bytearray(), 0)
    if str(copy_field) != str(want):
        failures.append("copy_field parsed as %s, sent as %s" % (copy_field, want))
    # The first bucket (bytes 32..63) with its weight property's length 0:
    # an error, not a loop.
    bad = bytearray(bytes.fromhex(GROUP_DESC_15)[32:64])
    bad[26:28] = b"\x00\x00"
    try:
        ofproto_v1_5_parser.OFPBucket.parser(bytes(bad), 0)
        failures.append("a bucket property of length 0 was accepted")
    except ValueError:
        pass
    signal.alarm(0)


def main():
    try:
        import os_ken  # noqa: F401
    except ImportError:
        print("os-ken is not installed: skipped")
        return 77
    failures = []
    generators_in_sync(failures)
    total = cases_parse(failures)
    bucket_parser(failures)
    for f in failures:
        print("FAIL:", f)
    print("%d cases parsed in %d directories, %d failures" % (total, len(DIRS), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

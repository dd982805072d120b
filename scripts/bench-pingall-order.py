#!/usr/bin/python3
# Benchmark (not a test): `flowlab lab ping-pairs` with and without --by-source (Mininet's order of
# sources, what the Mininet API's pingAll sends) on a tree,2,8 of Linux bridges, interleaved, 3 runs.
#   sudo FLOWLAB_BIN=build/release/flowlab scripts/bench-pingall-order.py
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'python', 'mininet_api'))
from mininet.net import Mininet  # noqa: E402
from mininet.topolib import TreeTopo
from mininet.nodelib import LinuxBridge
from mininet.lab import flowlab_bin
from mininet.log import setLogLevel
setLogLevel('warning')
net = Mininet(topo=TreeTopo(depth=2, fanout=8), switch=LinuxBridge, controller=None)
net.start()
try:
    net.pingAll()  # warm ARP
    for rnd in range(3):
        for order in (['--by-source'], []):
            argv = [flowlab_bin(), 'lab', 'ping-pairs'] + order + [net.lab.id] + ['%s=%s' % (h.name, h.IP()) for h in net.hosts]
            t = time.time(); out = subprocess.run(argv, stdout=subprocess.PIPE, text=True).stdout; dt = time.time() - t
            j = json.loads(out)
            print(rnd, order or ['all-at-once'], '%.3f s' % dt, '%d/%d' % (j['received'], j['sent']), flush=True)
finally:
    net.stop()

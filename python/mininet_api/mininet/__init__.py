"""Mininet's Python API on flowlab's lab engine (`flowlab mininet SCRIPT.py`).

Scripts written for Mininet 2.3.0 import `mininet.net`, `mininet.topo`,
`mininet.node`, `mininet.link`, `mininet.cli`, `mininet.log` and `mininet.util`
and run unchanged: the network they describe is built by `flowlab lab up`
(namespaces, veths, flowlab's switch or Open vSwitch or the Linux bridge,
controllers) at `net.start()` and removed by `net.stop()`. What cannot be
honoured raises an error naming the call; nothing is silently ignored.
docs/MININET.md lists every class and call and what differs.
"""
VERSION = '2.3.0+flowlab'

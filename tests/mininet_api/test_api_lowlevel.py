#!/usr/bin/python3
"""flowlab's Mininet API: Mininet's low-level API and what mobility.py and hwintf.py do.
Nodes and a Link made by hand outside any network (their namespaces and veth at once), an
interface of the machine given to a switch with Intf(name, node=switch) carrying traffic both
ways and given back at stop; a network of Mininet's reference controller that learns again
after `dpctl del-flows` and a host moved from switch to switch, as Mininet's does.

Run by ctest (label lab) as: test_api_lowlevel.py FLOWLAB_BINARY; needs root (exit 77: skipped).
"""
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'python', 'mininet_api'))

from mininet.link import Intf, Link  # noqa: E402
from mininet.log import setLogLevel  # noqa: E402
from mininet.net import Mininet  # noqa: E402
from mininet.node import Controller, Node, OVSSwitch  # noqa: E402
from mininet.topo import LinearTopo  # noqa: E402
from mininet.topolib import TreeTopo  # noqa: E402
from mininet.util import errRun, quietRun  # noqa: E402

TAG = os.getpid() % 100000  # node names, hence interface and namespace names, unique per run


def machine_links():
    """This run's interfaces in the machine's namespace (others come and go there)."""
    out = subprocess.run(['ip', '-o', 'link', 'show'], stdout=subprocess.PIPE, text=True).stdout
    names = set(line.split(':')[1].strip().split('@')[0] for line in out.splitlines() if ':' in line)
    return set(n for n in names if str(TAG) in n)


def namespaces():
    """This run's namespaces."""
    names = subprocess.run(['ip', 'netns', 'list'], stdout=subprocess.PIPE, text=True).stdout.split()
    return set(n for n in names if str(TAG) in n)


def received(out):
    m = re.search(r'(\d+) packets transmitted, (\d+) received', out)
    return int(m.group(2)) if m else -1


class LowLevel(unittest.TestCase):
    def setUp(self):
        setLogLevel('warning')
        self.nets, self.nodes = [], []

    def tearDown(self):
        for net in self.nets:
            net.stop()
        for node in self.nodes:
            node.stop(deleteIntfs=True)

    def test_nodes_and_a_link_made_by_hand_have_their_namespace_and_veth_at_once(self):
        before_ns, before_links = namespaces(), machine_links()
        a = Node('ta%d' % TAG, ip='10.9.0.1/24')
        b = Node('tb%d' % TAG, ip='10.9.0.2/24')
        root = Node('tr%d' % TAG, inNamespace=False)
        self.nodes += [a, b, root]
        Link(a, b)
        Link(a, root)
        a.configDefault()
        b.configDefault()
        self.assertIn('inet 10.9.0.1/24', a.cmd('ip addr show dev ta%d-eth0' % TAG))
        self.assertEqual(received(a.cmd('ping -c1 -W2 10.9.0.2')), 1)
        # the root node's end is in the machine's namespace, the others' are not
        self.assertEqual(machine_links() - before_links, {'tr%d-eth0' % TAG})
        self.assertIn('tr%d-eth0' % TAG, root.cmd('ip -o link show'))
        a.cmd('cd /tmp; X=kept')  # one shell per node, as Mininet's
        self.assertEqual(a.cmd('echo $X $PWD').strip(), 'kept /tmp')
        for node in (a, b, root):
            node.stop(deleteIntfs=True)
        self.nodes = []
        self.assertEqual(machine_links() - before_links, set())
        self.assertEqual(namespaces() - before_ns, set())

    def test_quiet_run_takes_mininets_shell_and_echo(self):
        # hwintf.py's checkIntf: quietRun('ifconfig %s 2>/dev/null' % intf, shell=True)
        self.assertEqual(quietRun('echo a b 2>/dev/null', shell=True), 'a b\n')
        self.assertEqual(quietRun(['echo', 'c'], echo=False), 'c\n')
        self.assertEqual(errRun('echo d; exit 3', shell=True), ('d\n', '', 3))

    def test_a_link_outside_a_network_to_a_switch_is_refused(self):
        a = Node('tc%d' % TAG)
        self.nodes.append(a)
        with self.assertRaisesRegex(NotImplementedError, 'links Nodes and Hosts only'):
            Link(a, OVSSwitch('s9'))

    def test_a_machine_interface_given_to_a_switch_carries_traffic_and_is_given_back(self):
        # hwintf's test: t0 behind a veth whose other end, in the machine's namespace, is the
        # "hardware" interface given to the network's switch
        outside = Node('tx%d' % TAG, ip='10.0.0.3/8')
        machine = Node('ty%d' % TAG, inNamespace=False)
        self.nodes += [outside, machine]
        Link(outside, machine)
        outside.configDefault()
        hw = str(machine.intf())
        net = Mininet(topo=TreeTopo(depth=1, fanout=2), waitConnected=True)
        self.nets.append(net)
        s1 = net.switches[0]
        intf = Intf(hw, node=s1)
        self.assertEqual(s1.ports[intf], 3)
        net.start()
        self.assertNotIn(hw, machine_links())  # in the lab's namespace, a port of s1
        self.assertEqual(s1.cmd('ovs-vsctl get Interface %s ofport' % hw).strip(), '3')
        h1 = net.get('h1')
        self.assertEqual(received(outside.cmd('ping -c1 -W5 10.0.0.1')), 1)
        self.assertEqual(received(h1.cmd('ping -c1 -W5 10.0.0.3')), 1)
        self.assertEqual(net.pingAll(), 0.0)
        net.stop()
        self.assertIn(hw, machine_links())  # given back, its peer still there
        self.assertIn('tx%d-eth0' % TAG, outside.cmd('ip -o link show'))

    def test_an_interface_the_machine_does_not_have_is_refused(self):
        net = Mininet(topo=TreeTopo(depth=1, fanout=2))
        self.nets.append(net)
        with self.assertRaisesRegex(Exception, "no interface nosuch%d in the machine's namespace" % TAG):
            Intf('nosuch%d' % TAG, node=net.switches[0])

    def test_the_reference_controller_learns_again_after_del_flows_and_a_move(self):
        net = Mininet(topo=LinearTopo(3), switch=OVSSwitch, controller=Controller)
        self.nets.append(net)
        net.start()
        self.assertEqual(net.pingAll(), 0.0)
        for sw in net.switches:
            sw.dpctl('del-flows')
            self.assertNotIn('actions=', sw.dpctl('dump-flows'))
        self.assertEqual(net.pingAll(), 0.0)  # a miss goes to the controller without a flow (OpenFlow 1.0)
        # mobility.py's move: h1's port leaves s1 and joins s3 as port 12, renamed
        h1, s1, s3 = net.get('h1', 's1', 's3')
        (hintf, sintf), = h1.connectionsTo(s1)
        s1.detach(sintf)
        s1.cmd('ip link set %s down; ip link set %s name s3-eth12; ip link set s3-eth12 up' % (sintf, sintf))
        s3.cmd('ovs-vsctl add-port s3 s3-eth12 -- set Interface s3-eth12 ofport_request=12')
        for sw in net.switches:
            sw.dpctl('del-flows')
        self.assertEqual(net.pingAll(), 0.0)  # Mininet's order: h1's own echoes teach the switches first

    def test_del_flows_holds_in_the_ovs_datapath_when_dpctl_returns(self):
        # mobility.py deletes every flow and pings at once: Open vSwitch's datapath keeps a cache
        # of the flows it was forwarding by, revalidated by its own threads later; until then an
        # echo reply went the way the moved host was before (a lost echo on an idle machine)
        net = Mininet(topo=LinearTopo(2), switch=OVSSwitch, controller=Controller)
        self.nets.append(net)
        net.start()
        self.assertEqual(net.pingAll(), 0.0)
        s1 = net.get('s1')
        dump = 'ovs-appctl -t $OVS_RUNDIR/ovs-vswitchd.ctl dpctl/dump-flows'
        forwarding = re.compile(r'eth_type\(0x0800\).*actions:\d')  # IPv4 sent out of a port
        self.assertRegex(s1.cmd(dump), forwarding)  # the echoes' flows, cached
        for sw in net.switches:
            sw.dpctl('del-flows')
        cached = s1.cmd(dump)
        self.assertNotRegex(cached, forwarding, 'the datapath still forwards by deleted flows')
        self.assertEqual(net.pingAll(), 0.0)  # learnt again through the controller


if __name__ == '__main__':
    if os.geteuid() != 0:
        print('test_api_lowlevel: needs root (skipped)')
        sys.exit(77)
    if len(sys.argv) > 1:
        os.environ['FLOWLAB_BIN'] = os.path.abspath(sys.argv.pop(1))
    unittest.main()

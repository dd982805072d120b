#!/usr/bin/python3
"""flowlab's Mininet API: what Mininet's own examples do to a network as it runs, checked
in the namespaces and on the wire: a link re-shaped by intf.config, switch ports numbered
with gaps, controllers chosen per switch by start() (and nodes used after build()),
privateDirs, pmonitor's last lines.

Run by ctest (label lab) as: test_api_runtime.py FLOWLAB_BINARY; needs root (exit 77: skipped).
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'python', 'mininet_api'))

from mininet.cpulimit import CPULimitedHost  # noqa: E402
from mininet.link import TCIntf, TCLink  # noqa: E402
from mininet.log import setLogLevel  # noqa: E402
from mininet.net import Mininet  # noqa: E402
from mininet.node import Controller, FlowlabSwitch, Host, LinuxBridge, Node, OVSSwitch  # noqa: E402
from mininet.util import custom, pmonitor, waitListening  # noqa: E402


def leftovers(lab_id):
    left = ['/run/flowlab/' + lab_id] if os.path.exists(os.path.join('/run/flowlab', lab_id)) else []
    names = subprocess.run(['ip', 'netns', 'list'], stdout=subprocess.PIPE, text=True).stdout.split()
    return left + [n for n in names if n.startswith('fl%s-' % lab_id)]


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def rtt_min(host, dst):
    """The smallest round trip of 5 echoes (the machine's load adds to the others)."""
    out = host.cmd('ping -c5 -i0.2 -W2', dst.IP())
    m = re.search(r'= ([\d.]+)/', out)
    return float(m.group(1)) if m else None, out


class Runtime(unittest.TestCase):
    def setUp(self):
        setLogLevel('warning')
        self.nets = []

    def tearDown(self):
        for net in self.nets:
            net.stop()
            if net.labId:
                self.assertEqual(leftovers(net.labId), [], 'lab %s left these' % net.labId)

    def net(self, **kwargs):
        net = Mininet(**kwargs)
        self.nets.append(net)
        return net

    def two_hosts(self, switch, tclink=True):
        net = self.net(switch=switch, controller=Controller)
        net.addController('c0')
        h1, h2, s1 = net.addHost('h1'), net.addHost('h2'), net.addSwitch('s1')
        link = net.addLink(h1, s1, cls=TCLink) if tclink else net.addLink(h1, s1)
        net.addLink(h2, s1)
        return net, link

    def test_intf_config_replaces_the_shaping_of_a_running_link(self):
        net, link = self.two_hosts(FlowlabSwitch)
        net.start()
        h1, h2 = net.get('h1', 'h2')
        self.assertEqual(net.pingAll(), 0.0)
        before, out = rtt_min(h1, h2)
        self.assertLess(before, 20.0, out)
        link.intf1.config(delay='40ms')  # h1 -> s1 only: 40 ms on each round trip
        after, out = rtt_min(h1, h2)
        self.assertGreater(after, 38.0, out)
        self.assertLess(after, 200.0, out)
        link.intf1.config(loss=100)  # replaces the delay, as a TCIntf.config replaces its qdiscs
        self.assertIn(' 0 received', h1.cmd('ping -c2 -i0.2 -W1', h2.IP()))
        link.intf1.config(bw=5)
        back, out = rtt_min(h1, h2)
        self.assertLess(back, 20.0, out)
        server, _ = net.iperf([h1, h2], seconds=3)
        value, unit = server.split()
        mbps = float(value) * {'Kbits/sec': 1e-3, 'Mbits/sec': 1, 'Gbits/sec': 1e3}[unit]
        self.assertLess(mbps, 6.0, server)
        self.assertGreater(mbps, 2.5, server)
        plain = net.links[1]
        with self.assertRaisesRegex(ValueError, 'TCLink'):
            plain.intf1.config(bw=1)

    def test_switch_ports_keep_the_numbers_given(self):
        for switch in (OVSSwitch, FlowlabSwitch):
            net = self.net(switch=switch, controller=Controller)
            net.addController('c0')
            s1 = net.addSwitch('s1')
            hosts = [net.addHost('h%d' % i) for i in (1, 2, 3)]
            net.addLink(hosts[0], s1)
            net.addLink(hosts[1], s1)
            net.addLink(hosts[2], s1, port2=9)
            net.start()
            self.assertEqual(s1.ports[s1.intf('s1-eth9')], 9)
            if switch is OVSSwitch:  # the switch's shell reaches the lab's Open vSwitch
                self.assertEqual(s1.cmd('ovs-vsctl get Interface s1-eth9 ofport').strip(), '9')
                self.assertEqual(s1.cmd('ovs-vsctl get Interface s1-eth2 ofport').strip(), '2')
            else:
                shown = s1.dpctl('show')
                self.assertRegex(shown, r'\b9\(s1-eth9\)', shown)
                self.assertNotRegex(shown, r'\b3\(', shown)
            self.assertEqual(net.pingAll(), 0.0)
            net.stop()
        bridged = self.net(switch=LinuxBridge, controller=None)
        h1, s1 = bridged.addHost('h1'), bridged.addSwitch('s1')
        bridged.addLink(h1, s1, port2=4)
        with self.assertRaisesRegex(NotImplementedError, 'no OpenFlow port numbers'):
            bridged.start()

    def test_switches_connect_to_the_controllers_their_start_names(self):
        p1, p2 = free_port(), free_port()
        net = self.net(controller=Controller, switch=OVSSwitch)
        c1 = net.addController('c1', port=p1)
        c2 = net.addController('c2', port=p2)
        s1, s2 = net.addSwitch('s1'), net.addSwitch('s2')
        for n in (3, 4):
            net.addLink(s1, net.addHost('h%d' % n))
        for n in (5, 6):
            net.addLink(s2, net.addHost('h%d' % n))
        net.addLink(s1, s2)
        net.build()
        c1.start()
        c2.start()
        s1.start([c1])
        s2.start([c2])
        self.assertEqual(net.pingAll(), 0.0)  # the lab comes up at the first use after build()
        self.assertTrue(net.started)
        self.assertEqual(s1.cmd('ovs-vsctl get-controller s1').strip(), 'tcp:127.0.0.1:%d' % p1)
        self.assertEqual(s2.cmd('ovs-vsctl get-controller s2').strip(), 'tcp:127.0.0.1:%d' % p2)
        for port in (p1, p2):  # one switch on each controller
            out = c1.cmd("ss -tnH state established '( sport = :%d )'" % port)
            self.assertEqual(len(out.strip().splitlines()), 1, out)

    def test_private_dirs_are_the_hosts_own(self):
        tmp = tempfile.mkdtemp(prefix='flowlab-privdirs-')
        try:
            private = [(tmp + '/log', tmp + '/%(name)s/log'), tmp + '/scratch']
            net = self.net(host=lambda name, **kw: Host(name, privateDirs=private, **kw), switch=FlowlabSwitch,
                           controller=Controller)
            net.addController('c0')
            s1 = net.addSwitch('s1')
            h1, h2 = net.addHost('h1'), net.addHost('h2')
            net.addLink(h1, s1)
            net.addLink(h2, s1)
            net.start()
            for d in ('log', 'scratch'):
                h1.cmd('echo one > %s/%s/f' % (tmp, d))
                self.assertIn('No such file', h2.cmd('cat %s/%s/f' % (tmp, d)))
                self.assertEqual(h1.cmd('cat %s/%s/f' % (tmp, d)), 'one\n')
                self.assertFalse(os.path.exists('%s/%s/f' % (tmp, d)))  # not in the machine's view
                p = h1.popen(['cat', '%s/%s/f' % (tmp, d)])  # popen joins the shell's mounts
                self.assertEqual(p.communicate()[0], b'one\n')
            with open(tmp + '/h1/log/f') as f:  # the bind mount's backing directory
                self.assertEqual(f.read(), 'one\n')
        finally:
            for net in self.nets:
                net.stop()
            shutil.rmtree(tmp, ignore_errors=True)

    def test_real_time_limited_hosts_get_their_share_and_tc_intfs_shape_their_way_out(self):
        # limit.py's network: hosts limited with sched='rt', every interface a TCIntf of 5 Mbit/s
        net = self.net(host=custom(CPULimitedHost, sched='rt', cpu=0.1), intf=custom(TCIntf, bw=5),
                       switch=FlowlabSwitch, controller=Controller)
        net.addController('c0')
        s1 = net.addSwitch('s1')
        h1, h2 = net.addHost('h1'), net.addHost('h2')
        net.addLink(h1, s1)
        net.addLink(h2, s1)
        net.start()
        with open(os.path.join(h1.cgroup, 'cpu.rt_runtime_us')) as f:
            self.assertEqual(int(f.read()), int(100000 * 0.1 * (os.cpu_count() or 1)))
        self.assertIn('SCHED_RR', h1.cmd('chrt -p $$'))
        shares = net.runCpuLimitTest(cpu=0.1, duration=3)
        self.assertEqual(len(shares), 6)
        for pct in shares:  # real-time: the machine's load does not take the share away
            self.assertGreater(pct, 7.0, shares)
            self.assertLess(pct, 13.0, shares)
        server, _ = net.iperf([h1, h2], seconds=3)
        value, unit = server.split()
        mbps = float(value) * {'Kbits/sec': 1e-3, 'Mbits/sec': 1, 'Gbits/sec': 1e3}[unit]
        self.assertLess(mbps, 6.0, server)
        self.assertGreater(mbps, 2.5, server)

    def test_a_real_time_limit_the_kernel_refuses_fails_mininet_and_leaves_no_cgroup(self):
        if not os.path.exists('/sys/fs/cgroup/cpu/cpu.rt_runtime_us'):
            self.skipTest('no real-time group scheduling in this kernel')
        import glob
        from mininet.cpulimit import release_idle
        from mininet.topolib import TreeTopo
        mine = '/sys/fs/cgroup/cpu/flowlab-mn-%d-*' % os.getpid()
        before = set(glob.glob(mine))
        share = 0.6 / (os.cpu_count() or 1)  # 60% of each CPU's time a host: two pass the kernel's 95%
        with self.assertRaisesRegex(Exception, 'h2: sched=rt.*the kernel refuses'):
            # cpu.py catches this around Mininet() to skip a scheduler, as under Mininet
            Mininet(topo=TreeTopo(depth=1, fanout=2), host=custom(CPULimitedHost, sched='rt', cpu=share),
                    switch=LinuxBridge, controller=None)
        self.assertEqual(len(set(glob.glob(mine)) - before), 1)  # h1's, made before h2's was refused
        release_idle()  # mininet.clean.cleanup()'s part for them
        self.assertEqual(set(glob.glob(mine)) - before, set())

    def test_wait_listening_connects_as_mininets_does(self):
        net, _ = self.two_hosts(FlowlabSwitch, tclink=False)
        net.start()
        h1, h2 = net.get('h1', 'h2')
        self.assertFalse(waitListening(h1, h2, 5001, timeout=0.5))
        # the server prints the peer of each connection it takes: the probe's must be h1's
        server = h2.popen(['timeout', '20', 'socat', 'TCP-LISTEN:5001,fork,reuseaddr',
                           'SYSTEM:echo peer $SOCAT_PEERADDR >&2'])
        try:
            self.assertTrue(waitListening(h1, h2, 5001, timeout=10))
            self.assertEqual(server.stderr.readline().decode().strip(), 'peer %s' % h1.IP())
        finally:
            server.terminate()
            server.communicate()

    def test_a_node_subclass_routes_between_subnets_with_its_interfaces_addresses(self):
        class Router(Node):  # linuxrouter.py's: set up in config(), which net.start() calls
            def config(self, **params):
                Node.config(self, **params)
                self.cmd('sysctl -q net.ipv4.ip_forward=1')

        net = self.net(switch=LinuxBridge, controller=None)
        r0 = net.addHost('r0', cls=Router, ip='192.168.1.1/24')
        h1 = net.addHost('h1', ip='192.168.1.100/24', defaultRoute='via 192.168.1.1')
        h2 = net.addHost('h2', ip='172.16.0.100/12', defaultRoute='via 172.16.0.1')
        s1, s2 = net.addSwitch('s1'), net.addSwitch('s2')
        net.addLink(s1, r0, intfName2='r0-eth1', params2={'ip': '192.168.1.1/24'})
        net.addLink(s2, r0, intfName2='r0-eth2', params2={'ip': '172.16.0.1/12'})
        net.addLink(h1, s1)
        net.addLink(h2, s2)
        net.start()
        self.assertEqual(r0.IP(), '192.168.1.1')
        self.assertEqual(r0.intf('r0-eth2').IP(), '172.16.0.1')
        self.assertIn('ttl=63', h1.cmd('ping -c1 -W2', h2.IP()))  # one router on the way
        self.assertEqual([i.name for i in s1.intfList()][0], 'lo')  # Mininet's port 0 of a switch
        self.assertEqual(s1.ports[s1.intf('s1-eth1')], 1)

    def test_commands_a_hosts_constructor_runs_are_run_first_in_its_own_namespace(self):
        class V4Host(Host):  # treeping64's HostV4: sysctls in the constructor, before any namespace
            def __init__(self, *args, **kwargs):
                Host.__init__(self, *args, **kwargs)
                for ttl in (33, 44):  # in order: the last one stays
                    self.cmd('sysctl -w net.ipv4.ip_default_ttl=%d' % ttl)

        with open('/proc/sys/net/ipv4/ip_default_ttl') as f:
            machine_ttl = f.read().strip()
        net = self.net(switch=LinuxBridge, controller=None, host=V4Host)
        h1, h2, s1 = net.addHost('h1'), net.addHost('h2'), net.addSwitch('s1')
        net.addLink(h1, s1)
        net.addLink(h2, s1)
        net.start()
        self.assertEqual(h1.cmd('sysctl -n net.ipv4.ip_default_ttl').strip(), '44')
        self.assertIn('ttl=44', h2.cmd('ping -c1 -W2', h1.IP()))  # h1's echo replies leave with it
        with open('/proc/sys/net/ipv4/ip_default_ttl') as f:
            self.assertEqual(f.read().strip(), machine_ttl)
        # a node of no network (Mininet's low-level API) runs in a namespace of its own, made at its first use
        alone = Node('x%d' % os.getpid())
        try:
            self.assertEqual(re.findall(r'^\d+: (\S+):', alone.cmd('ip -o link show'), re.M), ['lo'])
        finally:
            alone.stop(deleteIntfs=True)

    def test_monitor_reads_what_background_commands_print_later(self):
        net, _ = self.two_hosts(FlowlabSwitch, tclink=False)
        net.start()
        h1 = net.get('h1')
        h1.cmd('(sleep 0.3; echo later) &')  # multiping.py's loops print after their cmd() returned
        seen = ''
        for _ in range(20):
            seen += h1.monitor(timeoutms=500)
            if 'later' in seen:
                break
        self.assertIn('later', seen)
        self.assertEqual(h1.cmd('echo next'), 'next\n')

    def test_pmonitor_yields_the_last_lines_of_a_process(self):
        net, _ = self.two_hosts(FlowlabSwitch, tclink=False)
        net.start()
        h1 = net.get('h1')
        popens = {h1: h1.popen(['sh', '-c', 'printf "a\\nb\\nc\\n"'])}
        lines = [line.strip() for host, line in pmonitor(popens) if host]
        self.assertEqual(lines, ['a', 'b', 'c'])


if __name__ == '__main__':
    if os.geteuid() != 0:
        print('needs root (skipped)')
        sys.exit(77)
    if len(sys.argv) > 1 and not sys.argv[1].startswith('-'):
        os.environ['FLOWLAB_BIN'] = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)

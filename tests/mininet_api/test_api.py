#!/usr/bin/python3
"""flowlab's Mininet API (python/mininet_api) on real labs: scripts' calls and what
they must do, checked on the wire and in the namespaces.

Run by ctest (label lab) as: test_api.py FLOWLAB_BINARY; needs root (exit 77: skipped).
"""
import io
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
API = os.path.join(HERE, '..', '..', 'python', 'mininet_api')
sys.path.insert(0, API)

from mininet.cli import CLI  # noqa: E402
from mininet.link import TCLink  # noqa: E402
from mininet.log import setLogLevel  # noqa: E402
from mininet.net import Mininet  # noqa: E402
from mininet.lab import RUN_DIR  # noqa: E402
from mininet.node import (CPULimitedHost, Controller, FlowlabSwitch, LinuxBridge, OVSSwitch,  # noqa: E402
                          RemoteController)
from mininet.topo import LinearTopo, SingleSwitchTopo, Topo  # noqa: E402


def leftovers(lab_id):
    """What a lab left: its record and its namespaces (fl<ID>-...)."""
    left = []
    if os.path.exists(os.path.join('/run/flowlab', lab_id)):
        left.append('/run/flowlab/' + lab_id)
    names = subprocess.run(['ip', 'netns', 'list'], stdout=subprocess.PIPE, text=True).stdout.split()
    return left + [n for n in names if n.startswith('fl%s-' % lab_id)]


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def port_status_seen(net):
    """Port-status messages the lab's controller has handled (its stats file), -1 if none yet."""
    for root, _, files in os.walk(net.lab.workdir):
        for name in files:
            if name.endswith('-stats.json') and '-switch-stats' not in name:
                try:
                    with open(os.path.join(root, name)) as f:
                        stats = json.load(f)
                except (OSError, ValueError):
                    continue
                return stats.get('handling_time', {}).get('port_status', {}).get('count', 0)
    return -1


def wait_port_status_above(net, n, timeout=15):
    """Waits (bounded) until the controller counted more than n port-status messages."""
    end = time.time() + timeout
    seen = port_status_seen(net)
    while seen <= n and time.time() < end:
        time.sleep(0.2)
        seen = port_status_seen(net)
    return seen


def started(net):
    """net.start(), its lab remembered for the leftover check."""
    net.start()
    MininetApi.lab_ids.append(net.labId)
    return net


class TwoHosts(Topo):
    def build(self, bw=None, delay=None):
        s1 = self.addSwitch('s1')
        opts = {}
        if bw:
            opts['bw'] = bw
        if delay:
            opts['delay'] = delay
        for h in ('h1', 'h2'):
            self.addLink(self.addHost(h), s1, **opts)


class MininetApi(unittest.TestCase):
    lab_ids = []

    def setUp(self):
        setLogLevel('warning')
        MininetApi.lab_ids = []

    def tearDown(self):
        for lab_id in MininetApi.lab_ids:
            self.assertEqual(leftovers(lab_id), [], 'lab %s left these' % lab_id)

    def test_host_shell_persists_and_a_command_reading_stdin_gets_nothing_extra(self):
        net = Mininet(topo=SingleSwitchTopo(2), switch=FlowlabSwitch)
        started(net)
        try:
            h1, h2 = net.get('h1', 'h2')
            self.assertEqual(h1.IP(), '10.0.0.1')
            self.assertEqual(h2.IP(), '10.0.0.2')
            self.assertEqual(h1.cmd('cd /tmp; X=42'), '')
            self.assertEqual(h1.cmd('echo $X; pwd'), '42\n/tmp\n')
            self.assertEqual(h2.cmd('echo $X'), '\n')  # another host, another shell
            # telnet reads stdin: the next command must still run and its output come back alone
            out = h1.cmd('telnet', h2.IP(), '5001')
            self.assertIn('refused', out)
            self.assertEqual(h1.cmd('echo next'), 'next\n')
            self.assertIn('h1-eth0', h1.cmd('ip -o link'))
            self.assertIn('1 received', h1.cmd('ping -c1 -W2', h2.IP()))
            out, err, code = h1.pexec('sh -c "echo out; echo err >&2; exit 3"', shell=True)
            self.assertEqual((out, err, code), ('out\n', 'err\n', 3))
            p = h2.popen(['ip', '-o', '-4', 'addr', 'show', 'dev', 'h2-eth0'])
            self.assertIn('10.0.0.2/8', p.communicate()[0].decode())
            self.assertEqual(net.pingAll(), 0.0)
        finally:
            net.stop()

    def test_tclink_holds_its_delay_and_rate(self):
        net = Mininet(topo=TwoHosts(bw=10, delay='20ms'), switch=FlowlabSwitch, link=TCLink)
        started(net)
        try:
            h1, h2 = net.get('h1', 'h2')
            h1.cmd('ping -c1 -W2', h2.IP())  # the learning switch's flows in place
            out = h1.cmd('ping -c5 -i0.2 -W2', h2.IP())
            avg = float(re.search(r'= [\d.]+/([\d.]+)/', out).group(1))
            self.assertGreater(avg, 75.0, out)   # 20 ms each way on each of the two links
            self.assertLess(avg, 250.0, out)
            server_bw, _ = net.iperf([h1, h2], seconds=3)
            value, unit = server_bw.split()
            mbps = float(value) * {'Kbits/sec': 1e-3, 'Mbits/sec': 1, 'Gbits/sec': 1e3}[unit]
            self.assertLess(mbps, 11.5, server_bw)
            self.assertGreater(mbps, 5.0, server_bw)
        finally:
            net.stop()

    def test_config_link_status_cuts_the_carrier_and_restores_it(self):
        net = Mininet(topo=LinearTopo(2), switch=FlowlabSwitch)
        started(net)
        try:
            h1, h2, s1 = net.get('h1', 'h2', 's1')
            self.assertIn('1 received', h1.cmd('ping -c1 -W2', h2.IP()))
            before = wait_port_status_above(net, -1)
            net.configLinkStatus('s1', 's2', 'down')
            self.assertIn('state DOWN', s1.cmd('ip -o link show dev s1-eth2'))
            # Both switches tell the controller (Mininet's own sends nothing: #1139).
            down = wait_port_status_above(net, before + 1)
            self.assertGreaterEqual(down, before + 2, 'port-status of s1-eth2 and s2-eth2')
            self.assertIn('0 received', h1.cmd('ping -c1 -W1', h2.IP()))
            net.configLinkStatus('s1', 's2', 'up')
            self.assertGreaterEqual(wait_port_status_above(net, down + 1), down + 2, 'port-status on the way up')
            ok = any('1 received' in h1.cmd('ping -c1 -W1', h2.IP()) for _ in range(10))
            self.assertTrue(ok, 'no ping through s1-s2 after the link came back')
        finally:
            net.stop()

    def test_ping_all_counts_each_pairs_first_echo_as_mininet(self):
        # 20 hosts: past the count from which the hosts announce themselves first.
        net = Mininet(topo=SingleSwitchTopo(20), switch=LinuxBridge, controller=None)
        started(net)
        try:
            h1, h2, h3, h20 = net.get('h1', 'h2', 'h3', 'h20')
            buf = io.StringIO()
            setLogLevel('output')
            with redirect_stdout(buf):
                self.assertEqual(net.pingAll(), 0.0)
            text = buf.getvalue()
            self.assertIn('*** Ping: testing ping reachability\n', text)
            self.assertIn('h1 -> %s \n' % ' '.join('h%d' % k for k in range(2, 21)), text)
            self.assertIn('*** Results: 0% dropped (380/380 received)\n', text)
            full = net.pingFull(hosts=[h1, h2, h3])
            self.assertEqual([(a.name, b.name) for a, b, _ in full],
                             [('h1', 'h2'), ('h1', 'h3'), ('h2', 'h1'), ('h2', 'h3'), ('h3', 'h1'), ('h3', 'h2')])
            for _, _, (sent, received, rmin, ravg, rmax, rdev) in full:
                self.assertEqual((sent, received), (1, 1))
                self.assertTrue(0 < rmin == ravg == rmax, full)
            self.assertEqual(net.ping(hosts=[h1, h2], manualdestip=h3.IP()), 0.0)
            # h20 cut off: its 19 pairs each way get no echo, 38 of 380.
            net.configLinkStatus('s1', 'h20', 'down')
            buf = io.StringIO()
            with redirect_stdout(buf):
                self.assertAlmostEqual(net.pingAll(timeout=1), 10.0)
            text = buf.getvalue()
            self.assertIn('h20 -> %s\n' % ('X ' * 19), text)
            self.assertIn('h1 -> %s X \n' % ' '.join('h%d' % k for k in range(2, 20)), text)
            self.assertIn('*** Results: 10% dropped (342/380 received)\n', text)
            self.assertEqual(net.ping(hosts=[h1, h20], timeout=1), 100.0)
            # The test's sysctls are put back: arp_accept is the kernel's 0 again.
            self.assertEqual(h1.cmd('sysctl -n net.ipv4.conf.all.arp_accept').strip(), '0')
        finally:
            setLogLevel('warning')
            net.stop()

    def test_switch_stop_start_and_dpctl_act_on_the_lab(self):
        net = Mininet(topo=SingleSwitchTopo(2), switch=FlowlabSwitch)
        started(net)
        try:
            h1, h2, s1 = net.get('h1', 'h2', 's1')
            self.assertIn('1 received', h1.cmd('ping -c1 -W2', h2.IP()))
            flows = s1.dpctl('dump-flows')
            self.assertIn('actions=', flows)
            self.assertNotIn('*** s1', flows)  # one switch's answer, no header
            s1.stop(deleteIntfs=False)
            self.assertIn('0 received', h1.cmd('ping -c2 -i0.2 -W1', h2.IP()))
            s1.start(net.controllers)
            ok = any('1 received' in h1.cmd('ping -c1 -W1', h2.IP()) for _ in range(20))
            self.assertTrue(ok, 'no ping after s1 started again')
        finally:
            net.stop()

    def test_remote_controller_outside_the_lab_carries_the_traffic(self):
        # A flowlab controller started here, on loopback, outside any lab: the lab's
        # switches reach it through the lab's relay, as Mininet's reach a controller elsewhere.
        port = free_port()
        ctl = subprocess.Popen([MininetScripts.flowlab, 'controller', '--listen', 'ptcp:%d:127.0.0.1' % port,
                                '--app', 'learning-switch'], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            for _ in range(200):  # until it listens
                with socket.socket() as probe:
                    if probe.connect_ex(('127.0.0.1', port)) == 0:
                        break
                time.sleep(0.05)
            net = Mininet(topo=SingleSwitchTopo(3), switch=FlowlabSwitch, build=False)
            net.addController('c0', controller=RemoteController, ip='127.0.0.1', port=port)
            net.build()
            self.assertEqual(net.scenario()['controllers']['c0'],
                             {'kind': 'remote', 'address': '127.0.0.1', 'port': port})
            started(net)
            try:
                # a flowlab switch forwards nothing without its controller's flows (fail-secure)
                self.assertEqual(net.pingAll(timeout=2), 0.0)
            finally:
                net.stop()
        finally:
            ctl.terminate()
            ctl.communicate(timeout=10)

    def test_ovs_switch_connects_to_each_of_two_controllers_out_of_band(self):
        net = Mininet(topo=SingleSwitchTopo(2), switch=OVSSwitch, controller=None, build=False)
        net.addController('c0', controller=Controller)
        net.addController('c1', controller=Controller)
        net.build()
        started(net)
        try:
            self.assertEqual(net.pingAll(timeout=2), 0.0)
            rows = net.switches[0].cmd('ovs-vsctl --db=unix:%s/%s/0/ovs/db.sock --columns=connection_mode,target '
                                       'list controller' % (RUN_DIR, net.labId))
            self.assertEqual(rows.count('out-of-band'), 2, rows)
            self.assertEqual(len(set(re.findall(r'tcp:[\d.]+:\d+', rows))), 2, rows)
        finally:
            net.stop()

    def test_cli_reads_commands_and_replaces_node_names(self):
        net = Mininet(topo=SingleSwitchTopo(3), switch=LinuxBridge, controller=None)
        started(net)
        try:
            buf = io.StringIO()
            setLogLevel('output')
            with redirect_stdout(buf):
                CLI(net, stdin=io.StringIO('nodes\npingall\nh1 ping -c1 -W2 h3\nh2 echo $((6*7))\nlinks\n'
                                           'bogus\nexit\n'))
            text = buf.getvalue()
            self.assertIn('available nodes are: \nh1 h2 h3 s1', text)
            self.assertIn('*** Results: 0% dropped (6/6 received)', text)
            self.assertIn('PING 10.0.0.3', text)   # h3 became its address
            self.assertIn('1 received', text)
            self.assertIn('42', text)
            self.assertIn('h1-eth0<->s1-eth1 (OK OK)', text)
        finally:
            setLogLevel('warning')
            net.stop()

    def test_cpu_limited_host_runs_in_a_cgroup_with_its_quota(self):
        net = Mininet(topo=SingleSwitchTopo(2), switch=LinuxBridge, controller=None, host=CPULimitedHost)
        net.hosts[0].setCPUFrac(0.25)
        started(net)
        try:
            h1 = net.hosts[0]
            group = h1.cgroup
            with open(os.path.join(group, 'cpu.cfs_quota_us')) as f:
                self.assertEqual(int(f.read()), int(100000 * 0.25 * (os.cpu_count() or 1)))
            pid = h1.cmd('echo $$').strip()
            with open(os.path.join(group, 'cgroup.procs')) as f:
                self.assertIn(pid, f.read().split())
        finally:
            net.stop()
        self.assertFalse(os.path.exists(group), 'the cgroup was left')

    def test_bad_topology_and_refused_calls_name_what_is_wrong(self):
        t = Topo()
        t.addHost('h1')
        with self.assertRaisesRegex(KeyError, "no node named 'nope'"):
            t.addLink('h1', 'nope')
        with self.assertRaisesRegex(NotImplementedError, 'CPU limits|pinning'):
            CPULimitedHost('h9', cores=1)
        from mininet.nodelib import NAT
        with self.assertRaisesRegex(NotImplementedError, r'NAT\(nat0, inNamespace=False\): a NAT to the outside'):
            NAT('nat0', inNamespace=False)
        net = Mininet(topo=SingleSwitchTopo(2), switch=LinuxBridge, controller=None, build=False)
        net.addHost('h1')
        with self.assertRaisesRegex(Exception, 'not built'):  # used after build(), it brings the lab up
            net.hosts[0].cmd('true')
        net = Mininet(topo=SingleSwitchTopo(2), switch=LinuxBridge, controller=None)
        started(net)
        try:
            with self.assertRaisesRegex(NotImplementedError, 'running network'):
                net.addHost('h9')
        finally:
            net.stop()


class MininetScripts(unittest.TestCase):
    """Whole scripts through `flowlab mininet`."""

    flowlab = None

    def run_script(self, text, stdin=''):
        with tempfile.NamedTemporaryFile('w', suffix='.py', delete=False) as f:
            f.write(textwrap.dedent(text))
        try:
            return subprocess.run([self.flowlab, 'mininet', f.name], input=stdin, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, timeout=120)
        finally:
            os.unlink(f.name)

    def test_script_that_raises_leaves_nothing_behind(self):
        p = self.run_script('''
            from mininet.net import Mininet
            from mininet.topo import SingleSwitchTopo
            from mininet.node import FlowlabSwitch
            net = Mininet(topo=SingleSwitchTopo(2), switch=FlowlabSwitch)
            net.start()
            print('up', net.labId, net.hosts[0].cmd('echo $((1+1))').strip())
            raise ValueError('the script failed here')
        ''')
        self.assertEqual(p.returncode, 1, p.stdout)
        m = re.search(r'^up (\w+) 2$', p.stdout, re.M)
        self.assertTrue(m, p.stdout)
        self.assertIn('ValueError: the script failed here', p.stdout)
        self.assertEqual(leftovers(m.group(1)), [])

    def test_cli_of_a_script_reads_a_pipe_until_eof(self):
        p = self.run_script('''
            from mininet.net import Mininet
            from mininet.topolib import TreeTopo
            from mininet.node import LinuxBridge
            from mininet.cli import CLI
            net = Mininet(topo=TreeTopo(depth=2, fanout=2), switch=LinuxBridge, controller=None)
            net.start()
            CLI(net)
            net.stop()
        ''', stdin='pingall\nh1 ping -c1 -W2 h4\n')
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('*** Results: 0% dropped (12/12 received)', p.stdout)
        self.assertIn('PING 10.0.0.4', p.stdout)

    def test_cli_of_a_script_in_a_terminal(self):
        """CLI(net) at a prompt in a pseudo-terminal (pexpect), as a user types at it."""
        try:
            import pexpect
        except ImportError:
            self.skipTest('needs python3-pexpect (scripts/install-deps.sh)')
        with tempfile.NamedTemporaryFile('w', suffix='.py', delete=False) as f:
            f.write(textwrap.dedent('''
                from mininet.net import Mininet
                from mininet.topo import LinearTopo
                from mininet.node import FlowlabSwitch
                from mininet.cli import CLI
                net = Mininet(topo=LinearTopo(3), switch=FlowlabSwitch)
                net.start()
                print('lab', net.labId)
                CLI(net)
                net.stop()
                print('stopped')
            '''))
        try:
            child = pexpect.spawn(self.flowlab, ['mininet', f.name], encoding='utf-8', timeout=120,
                                  dimensions=(50, 200))
            child.expect(r'lab (\w+)\r\n')
            lab_id = child.match.group(1)
            child.expect_exact('mininet> ')
            child.sendline('pingall')
            child.expect_exact('*** Results: 0% dropped (6/6 received)')
            child.expect_exact('mininet> ')
            child.sendline('h1 ping -c1 h3')
            child.expect_exact('PING 10.0.0.3')  # h3 became its address
            child.expect_exact('1 packets transmitted, 1 received')
            child.expect_exact('mininet> ')
            child.sendline('nodes')
            child.expect_exact('h1 h2 h3 s1 s2 s3')
            child.expect_exact('mininet> ')
            child.sendline('nosuchcommand')
            child.expect_exact('*** Unknown command: nosuchcommand')
            child.expect_exact('mininet> ')
            child.sendeof()  # Ctrl-D leaves the CLI; the script goes on to net.stop()
            child.expect_exact('stopped')
            child.expect(pexpect.EOF)
            child.close()
            self.assertEqual(child.exitstatus, 0)
            self.assertEqual(leftovers(lab_id), [])
        finally:
            os.unlink(f.name)

    def test_a_missing_script_is_an_error(self):
        p = subprocess.run([self.flowlab, 'mininet', '/nonexistent/x.py'], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn('cannot read /nonexistent/x.py', p.stdout)


if __name__ == '__main__':
    if os.geteuid() != 0:
        print('needs root')
        sys.exit(77)
    MininetScripts.flowlab = os.path.abspath(sys.argv.pop(1))
    os.environ['FLOWLAB_BIN'] = MininetScripts.flowlab
    unittest.main(verbosity=2)

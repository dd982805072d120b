#!/usr/bin/python3
"""flowlab's Mininet API: what controlnet.py needs. A Controller made as a host of a network
runs flowlab's controller at its address in its namespace, and another network's switches
reach it there (through that network's `root` host, inNamespace=False: its interface in the
machine's namespace); a UserSwitch talks to one controller at a time and moves to the next
when its controller is killed or cut off, logging each connection to /tmp/NAME-ofp.log as
ofprotocol does; the root host's interface leaves the machine's namespace at stop, and when
the script is killed outright.

Run by ctest (label lab) as: test_api_controlnet.py FLOWLAB_BINARY; needs root (exit 77: skipped).
"""
import os
import re
import signal
import subprocess
import sys
import time
import unittest
from functools import partial

HERE = os.path.dirname(os.path.abspath(__file__))
API = os.path.join(HERE, '..', '..', 'python', 'mininet_api')
sys.path.insert(0, API)

from mininet.log import setLogLevel  # noqa: E402
from mininet.net import Mininet  # noqa: E402
from mininet.node import Controller, LinuxBridge, UserSwitch  # noqa: E402
from mininet.topo import Topo  # noqa: E402

TAG = os.getpid() % 100000  # node names, hence interface names and logs, unique per run
SUBNET = '198.18.%d' % (TAG % 250)  # the control network (benchmarking range: no machine's own)


class ControlNet(Topo):
    """controlnet.py's control network: controller hosts and a root host on one switch."""

    def build(self, n=2):
        cs = self.addSwitch('cs%d' % TAG, cls=LinuxBridge)
        for i in range(n):
            self.addLink(self.addHost('c%s%d' % ('abcd'[i], TAG), cls=Controller, inNamespace=True), cs)
        self.addLink(self.addHost('r%d' % TAG, inNamespace=False), cs)


class OneSwitch(Topo):
    def build(self):
        s = self.addSwitch('s%d' % TAG)
        for i in (1, 2):
            self.addLink(self.addHost('h%d' % i), s)


def machine_links():
    """This run's interfaces in the machine's namespace."""
    out = subprocess.run(['ip', '-o', 'link', 'show'], stdout=subprocess.PIPE, text=True).stdout
    names = set(line.split(':')[1].strip().split('@')[0] for line in out.splitlines() if ':' in line)
    return set(n for n in names if n.startswith('r%d' % TAG))


def wait_for(pattern, path, timeout):
    deadline = time.time() + timeout
    text = ''
    while time.time() < deadline:
        with open(path) as f:
            text = f.read()
        if re.search(pattern, text):
            return text
        time.sleep(0.2)
    raise AssertionError('%s: no %r within %d s:\n%s' % (path, pattern, timeout, text))


class ControlNetTest(unittest.TestCase):
    def setUp(self):
        setLogLevel('warning')
        self.nets = []
        self.log = '/tmp/s%d-ofp.log' % TAG

    def tearDown(self):
        for net in self.nets:  # the data network first, as controlnet.py stops them
            net.stop()
        if os.path.exists(self.log):
            os.remove(self.log)

    def networks(self, probe=1):
        cnet = Mininet(topo=ControlNet(n=2), ipBase=SUBNET + '.0/24', controller=None)
        self.nets.append(cnet)
        cnet.start()
        sw = partial(UserSwitch, opts='--inactivity-probe=%d --max-backoff=1' % probe)
        net = Mininet(topo=OneSwitch(), switch=sw, controller=None)
        for host in cnet.hosts:
            if isinstance(host, Controller):
                net.addController(host)
        self.nets.insert(0, net)  # stopped first, as controlnet.py does
        net.start()
        return cnet, net

    def connections(self, net):
        """The data switch's established OpenFlow connections (in the lab's core namespace)."""
        out = net.get('s%d' % TAG).cmd('ss -Htn state established "dport = :6653"')
        return [line for line in out.splitlines() if line.strip()]

    def test_controller_host_has_its_address_and_runs_a_controller_there(self):
        cnet, net = self.networks()
        ca = cnet.get('ca%d' % TAG)
        self.assertEqual(ca.IP(), SUBNET + '.1')
        self.assertIn('inet %s.1/24' % SUBNET, ca.cmd('ip -o -4 addr show'))
        self.assertRegex(ca.cmd('ss -Hltn "sport = :6653"'), r'LISTEN')
        root = cnet.get('r%d' % TAG)
        rootif = root.intfNames()[0]
        self.assertEqual(machine_links(), {rootif})  # the root host's interface is in the machine's namespace
        self.assertIn('inet %s.3/24' % SUBNET, subprocess.run(['ip', '-o', '-4', 'addr', 'show', 'dev', rootif],
                                                                stdout=subprocess.PIPE, text=True).stdout)
        self.assertEqual(net.pingAll(), 0.0)  # through the switch, taught by the controller host
        # one connection, to the first controller's own address (controlnet's switches log it)
        conns = self.connections(net)
        self.assertEqual(len(conns), 1, conns)
        self.assertIn('%s.1:6653' % SUBNET, conns[0])
        wait_for(r'tcp:%s\.1:6653: connected' % re.escape(SUBNET), self.log, 10)
        for n in self.nets:
            n.stop()
        self.nets = []
        self.assertEqual(machine_links(), set())  # gone with its network

    def test_switch_moves_to_the_next_controller_when_its_controller_is_killed(self):
        cnet, net = self.networks()
        ca, cb = cnet.get('ca%d' % TAG, 'cb%d' % TAG)
        wait_for(r'tcp:%s\.1:6653: connected' % re.escape(SUBNET), self.log, 10)
        with open(self.log) as f:
            self.assertNotIn('%s.2:6653: connected' % SUBNET, f.read())
        ca.cmd('kill -9 %d' % ca.controllerPid)
        text = wait_for(r'tcp:%s\.2:6653: connected' % re.escape(SUBNET), self.log, 20)
        self.assertLess(text.index('%s.1:6653: connected' % SUBNET), text.index('%s.2:6653: connected' % SUBNET))
        conns = self.connections(net)
        self.assertEqual(len(conns), 1, conns)
        self.assertIn('%s.2:6653' % SUBNET, conns[0])
        net.get('s%d' % TAG).dpctl('del-flows')
        self.assertEqual(net.pingAll(), 0.0)  # the second controller teaches it

    def test_switch_moves_on_when_its_controller_is_cut_off(self):
        # controlnet.py's failover test: the controller's interface goes down, nothing closes the
        # connection; the switch's unanswered echoes (--inactivity-probe) end it
        cnet, net = self.networks()
        ca = cnet.get('ca%d' % TAG)
        wait_for(r'tcp:%s\.1:6653: connected' % re.escape(SUBNET), self.log, 10)
        ca.cmd('ifconfig ca%d-eth0 down' % TAG)
        wait_for(r'tcp:%s\.2:6653: connected' % re.escape(SUBNET), self.log, 20)

    def test_root_host_interface_goes_when_the_script_is_killed(self):
        script = '''
import sys, time
from mininet.net import Mininet
from mininet.node import LinuxBridge
from mininet.topo import Topo
class T(Topo):
    def build(self):
        s = self.addSwitch('ks%d', cls=LinuxBridge)
        self.addLink(self.addHost('h1'), s)
        self.addLink(self.addHost('r%d', inNamespace=False), s)
net = Mininet(topo=T(), ipBase='%s.0/24', controller=None)
net.start()
print('UP', net.get('r%d').intfNames()[0], flush=True)
time.sleep(600)
''' % (TAG, TAG, SUBNET, TAG)
        env = dict(os.environ, PYTHONPATH=API)
        p = subprocess.Popen(['/usr/bin/python3', '-c', script], stdout=subprocess.PIPE, text=True, env=env)
        try:
            line = p.stdout.readline()
            self.assertTrue(line.startswith('UP '), line)
            self.assertEqual(machine_links(), {line.split()[1]})
        finally:
            p.send_signal(signal.SIGKILL)
            p.wait()
            p.stdout.close()
        deadline = time.time() + 30
        while machine_links() and time.time() < deadline:
            time.sleep(0.2)
        self.assertEqual(machine_links(), set())


if __name__ == '__main__':
    if os.geteuid() != 0:
        print('test_api_controlnet: needs root (skipped)')
        sys.exit(77)
    if len(sys.argv) > 1:
        os.environ['FLOWLAB_BIN'] = os.path.abspath(sys.argv.pop(1))
    unittest.main()

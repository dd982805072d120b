"""mininet.net: Mininet, the network of a script. Nodes and links are kept as
Mininet keeps them; start() writes them as a flowlab scenario and brings the lab
up, stop() takes it down. pingAll and iperf run in the hosts' namespaces."""
import atexit
import json
import os
import re
import resource
import signal
import subprocess
import time

from mininet.lab import Lab, flowlab_bin
from mininet.link import Intf, Link
from mininet.log import debug, error, info, output
from mininet.basenode import MACHINE_NS, making_node
from mininet.rootns import move_to_machine, return_from_machine
from mininet.hwintf import attach_all, release_all
from mininet.node import Controller, DefaultController, Host, OVSKernelSwitch
from mininet.scenario import endpoint_name, scenario_of
from mininet.util import ipAdd, macColonHex, netParse, waitListening

_started_nets = []


@atexit.register
def _stop_leftovers():
    """A script that raised, was stopped or forgot net.stop() leaves nothing behind."""
    for net in list(_started_nets):
        net.stop()


def _exit_on_signal(signum, _frame):
    raise SystemExit(128 + signum)  # unwinds through finally blocks, then atexit


def _raise_fd_limit():
    """Two pipes a host's shell: a large lab needs more than the usual 1024 descriptors (as Mininet's fixLimits)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass


_raise_fd_limit()

for _sig in (signal.SIGTERM, signal.SIGHUP):
    if signal.getsignal(_sig) == signal.SIG_DFL:
        signal.signal(_sig, _exit_on_signal)


class Mininet:
    """Mininet's network object on a flowlab lab."""

    @classmethod
    def init(cls):
        """Mininet's one-time set-up (root, limits): the lab does it at start()."""
        if os.geteuid() != 0:
            raise Exception('Mininet must run as root.')

    def __init__(self, topo=None, switch=OVSKernelSwitch, host=Host, controller=DefaultController, link=Link,
                 intf=Intf, build=True, xterms=False, cleanup=False, ipBase='10.0.0.0/8', inNamespace=False,
                 autoSetMacs=False, autoStaticArp=False, autoPinCpus=False, listenPort=None,
                 waitConnected=False):
        if xterms:
            raise NotImplementedError('Mininet(xterms=True): flowlab does not open xterms')
        if inNamespace:
            raise NotImplementedError('Mininet(inNamespace=True): controllers and switches share the lab\'s core '
                                      'namespace already')
        self.topo, self.switch, self.host, self.controller, self.link, self.intf = \
            topo, switch, host, controller, link, intf
        self.ipBase = ipBase
        self.ipBaseNum, self.prefixLen = netParse(ipBase)
        self.nextIP = 1
        self.autoSetMacs, self.autoStaticArp = autoSetMacs, autoStaticArp
        self.waitConn = waitConnected
        self.hosts, self.switches, self.controllers, self.links = [], [], [], []
        self.nameToNode = {}
        self.built = False
        self.started = False
        self.stopped = False
        self.lab = None
        self.labId = None
        if topo and build:
            self.build()

    # ---- nodes and links ----
    def _add(self, node):
        if self.started:
            node.terminate()
            raise NotImplementedError('adding %s to a running network: flowlab builds every node at net.start()' %
                                      node.name)
        if node.name in self.nameToNode:
            raise Exception('a node named %s exists already' % node.name)
        node.net = self
        self.nameToNode[node.name] = node
        return node

    def addHost(self, name, cls=None, **params):
        defaults = {'ip': ipAdd(self.nextIP, ipBaseNum=self.ipBaseNum, prefixLen=self.prefixLen) +
                    '/%s' % self.prefixLen}
        if self.autoSetMacs:
            defaults['mac'] = macColonHex(self.nextIP)
        self.nextIP += 1
        defaults.update(params)
        with making_node(self):
            h = (cls or self.host)(name, **defaults)
        self.hosts.append(self._add(h))
        return h

    def addSwitch(self, name, cls=None, **params):
        params.pop('isSwitch', None)
        with making_node(self):
            sw = (cls or self.switch)(name, **params)
        self.switches.append(self._add(sw))
        return sw

    def addController(self, name='c0', controller=None, **params):
        if not controller:
            controller = self.controller
        if isinstance(controller, (list, tuple)):
            controller = controller[0]
        if isinstance(name, Controller) and name.net is not None and name.net is not self:
            # A node of another network (controlnet.py's DataController hosts): this network's
            # switches connect to it at its address; it stays its own network's node.
            if self.started:
                raise NotImplementedError('adding %s to a running network: flowlab builds every node at '
                                          'net.start()' % name.name)
            if name.name in self.nameToNode:
                raise Exception('a node named %s exists already' % name.name)
            self.nameToNode[name.name] = name
            self.controllers.append(name)
            return name
        with making_node(self):
            c = name if isinstance(name, Controller) else controller(name, **params)
        self.controllers.append(self._add(c))
        return c

    def ownControllers(self):
        """This network's controllers, without the nodes of other networks it uses as controllers."""
        return [c for c in self.controllers if c.net is self]

    def foreignControllers(self):
        """The controllers that are nodes of another network (each runs in its own namespace there)."""
        return [c for c in self.controllers if c.net is not self]

    def addLink(self, node1, node2, port1=None, port2=None, cls=None, **params):
        n1 = node1 if not isinstance(node1, str) else self[node1]
        n2 = node2 if not isinstance(node2, str) else self[node2]
        options = dict(params)
        if port1 is not None:
            options['port1'] = port1
        if port2 is not None:
            options['port2'] = port2
        options.setdefault('intf', self.intf)
        link = (cls or self.link)(n1, n2, **options)
        self.links.append(link)
        return link

    def addNAT(self, *args, **kwargs):
        raise NotImplementedError('addNAT: flowlab labs do not reach outside the machine')

    def get(self, *args):
        nodes = [self.nameToNode[n] for n in args]
        return nodes[0] if len(nodes) == 1 else nodes

    getNodeByName = get

    def __getitem__(self, key):
        if key not in self.nameToNode:
            raise KeyError('no node named %s' % key)
        return self.nameToNode[key]

    def __contains__(self, item):
        return item in self.nameToNode

    def __iter__(self):
        for node in self.hosts + self.switches + self.controllers:
            yield node.name

    def __len__(self):
        return len(self.hosts) + len(self.switches) + len(self.controllers)

    def keys(self):
        return list(self)

    def values(self):
        return [self[n] for n in self]

    def items(self):
        return zip(self.keys(), self.values())

    def buildFromTopo(self, topo=None):
        topo = topo or self.topo
        if not self.controllers and self.controller:
            classes = self.controller if isinstance(self.controller, (list, tuple)) else [self.controller]
            for i, cls in enumerate(classes):
                if isinstance(cls, Controller):
                    self.addController(cls)
                else:
                    self.addController('c%d' % i, cls)
        info('*** Adding hosts:\n')
        for name in topo.hosts():
            self.addHost(name, **topo.nodeInfo(name))
            info(name + ' ')
        info('\n*** Adding switches:\n')
        for name in topo.switches():
            self.addSwitch(name, **topo.nodeInfo(name))
            info(name + ' ')
        info('\n*** Adding links:\n')
        for src, dst, params in topo.links(sort=True, withInfo=True):
            params = dict(params)
            params.pop('node1'), params.pop('node2')
            self.addLink(src, dst, **params)
            info('(%s, %s) ' % (src, dst))
        info('\n')

    def build(self):
        if self.built:
            return
        if self.topo:
            self.buildFromTopo(self.topo)
        self.built = True

    # ---- the lab ----
    def scenario(self):
        """This network as a flowlab scenario (mininet.scenario)."""
        return scenario_of(self)

    def endpoint_name(self, intf):
        """An interface as the scenario names a link's end: h1:h1-eth0, s1:eth1."""
        return endpoint_name(intf)

    def start(self):
        if self.started:
            return
        self.build()
        for c in self.foreignControllers():  # running, and listening, before the lab's switches connect
            c.start()
        for s in self.switches:  # each records its controllers (a subclass may choose its own)
            s.start(self.controllers)
        self._up()

    def upForNode(self, node):
        """A node used after build() and before start(): the lab comes up with the controllers each
        switch's start() named (every controller for a switch not started by the script)."""
        if self.built and not self.started and not self.stopped:
            info('*** %s used before net.start(): bringing the network up\n' % node.name)
            self._up()

    def _up(self):
        info('*** Starting %s controllers, %s switches and %s hosts (flowlab lab up)\n' %
             (len(self.controllers), len(self.switches), len(self.hosts)))
        self.lab = Lab(self.scenario())
        self.labId = self.lab.id  # kept after stop(), to look for leftovers
        self.started = True
        _started_nets.append(self)
        core = self.lab.core_namespace()
        for h in self.hosts:
            h.ns = self.lab.host_namespace(h.name)
        for node in self.switches + self.ownControllers():
            node.ns = core
        for h in self.hosts:
            if not h.inNamespace:  # Mininet's root-namespace node: its interfaces go to the machine's
                move_to_machine(h)
        for h in self.hosts:  # every shell started, then their first prompts read
            h.startShell(wait=False)
        for h in self.hosts:
            h.waitOutput()
        self._run_deferred()
        for h in self.hosts:
            if getattr(h, 'privateDirs', None):
                h.mountPrivateDirs()
        for h in self.hosts:
            route = h.params.get('defaultRoute')
            if route:
                h.setDefaultRoute(route)
            h.config(**h.params)  # a subclass's own set-up, as Mininet's configHosts (linuxrouter.py)
        if self.autoStaticArp:
            self.staticArp()
        attach_all(self)  # the machine's interfaces given to nodes (Intf(eth1, node=s1))
        info('*** lab %s is up\n' % self.lab.id)

    def _run_deferred(self):
        """The commands nodes' constructors gave before their namespaces existed, each node's in
        order, the nodes at once; what they print is logged (debug)."""
        nodes = [n for n in self.hosts + self.switches + self.ownControllers() if n.deferred]
        if nodes:
            info('*** Running %d commands the nodes\' constructors gave\n' % sum(len(n.deferred) for n in nodes))
        while nodes:
            for n in nodes:
                n.sendCmd(n.deferred[0])
            for n in nodes:
                out = n.waitOutput()
                debug('*** %s : %s\n%s' % (n.name, n.deferred.pop(0), out))
            nodes = [n for n in nodes if n.deferred]

    def stop(self):
        for c in self.foreignControllers():  # their controller processes (Mininet's controller.stop())
            c.stop()
        if not self.started:
            for node in self.hosts + self.switches + self.ownControllers():
                node.terminate()  # what a node holds before the lab is up (a CPULimitedHost's cgroups)
            return
        info('*** Stopping %s nodes (flowlab lab down %s)\n' % (len(self), self.lab.id))
        nodes = self.hosts + self.switches + self.ownControllers()
        for node in nodes:  # every shell killed, then each reaped
            node.kill()
        release_all(self)
        for h in self.hosts:
            if not h.inNamespace:  # its interfaces back where the lab made them, before it takes them down
                return_from_machine(h)
        for node in nodes:
            node.terminate()
            node.ns = None
        self.lab.down()
        self.started = False
        self.stopped = True
        if self in _started_nets:
            _started_nets.remove(self)
        info('*** Done\n')

    def run(self, test, *args, **kwargs):
        self.start()
        try:
            return test(*args, **kwargs)
        finally:
            self.stop()

    def waitConnected(self, timeout=None, delay=.5):
        return self.started

    def staticArp(self):
        for src in self.hosts:
            for dst in self.hosts:
                if src is not dst and dst.IP():
                    src.setARP(ip=dst.IP(), mac=dst.MAC())

    def configLinkStatus(self, src, dst, status):
        """Sets the links between src and dst up or down (a carrier change each end sees)."""
        if src not in self.nameToNode:
            error('src not in network: %s\n' % src)
        elif dst not in self.nameToNode:
            error('dst not in network: %s\n' % dst)
        elif status not in ('up', 'down'):
            error('status must be up or down: %s\n' % status)
        else:
            connections = self[src].connectionsTo(self[dst])
            if not connections:
                error('src and dst not connected: %s %s\n' % (src, dst))
            for a, b in connections:
                for intf in (a, b):
                    out = intf.ifconfig(status)
                    if out:
                        error('link %s %s: %s' % (intf.name, status, out))

    # ---- tests ----
    def ping(self, hosts=None, timeout=None, manualdestip=None):
        """Pings every pair of hosts (each source's pings run at once in its shell); % lost."""
        hosts = hosts or self.hosts
        if hosts:
            hosts[0]._started()
        output('*** Ping: testing ping reachability\n')
        sent, received = 0, 0
        results = self._ping_matrix(hosts, timeout, manualdestip, count=1)
        for src in hosts:
            output('%s -> ' % src.name)
            for dst, (s, r, _) in results[src.name]:
                sent += s
                received += r
                output(('%s ' % dst.name) if r else 'X ')
            output('\n')
        ploss = 100.0 * (sent - received) / sent if sent else 0
        output('*** Results: %i%% dropped (%d/%d received)\n' % (ploss, received, sent))
        return ploss

    PING_SOURCES_AT_ONCE = 8  # sources pinging at the same time (Mininet: one)

    def _ping_matrix(self, hosts, timeout, manualdestip, count):
        """{source name: [(destination, (sent, received, (sent, received, rtt min, avg, max, mdev)))]}:
        one echo per pair, each pair's first try counted, as Mininet's ping -c1 per pair."""
        if self.started and count == 1 and all(h.ns and h.ns != MACHINE_NS and h.IP() for h in hosts):
            return self._ping_matrix_lab(hosts, timeout, manualdestip)
        return self._ping_matrix_shell(hosts, timeout, manualdestip, count)

    def _ping_matrix_lab(self, hosts, timeout, manualdestip):
        """The lab's sweep (`flowlab lab ping-pairs`): the echoes sent from one process, in Mininet's
        order of sources (each source's echoes at once, its replies awaited before the next source's):
        what a source's echoes teach a learning switch (a host that moved, mobility.py) holds before
        the others' echoes toward it, as in Mininet's pingAll."""
        argv = [flowlab_bin(), 'lab', 'ping-pairs', '--by-source', self.lab.id] + \
            ['%s=%s' % (h.name, h.IP()) for h in hosts]
        if timeout:
            argv += ['--timeout', str(float(timeout))]
        if manualdestip:
            argv += ['--to', str(manualdestip)]
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise Exception('pingAll: flowlab lab ping-pairs: %s' % (p.stderr.strip() or 'exit %d' % p.returncode))
        got = {}
        for src, dst, received, rtt in json.loads(p.stdout)['pairs']:
            got[(src, dst)] = (1, received, rtt, rtt, rtt, 0.0) if received else (1, 0, 0, 0, 0, 0)
        results = {}
        for src in hosts:
            if manualdestip:
                dsts = [(type('Dst', (), {'name': manualdestip})(), manualdestip)]
            else:
                dsts = [(d, d.name) for d in hosts if d is not src]
            row = []
            for d, key in dsts:
                r = got.get((src.name, key), (1, 0, 0, 0, 0, 0))
                row.append((d, (r[0], r[1], r)))
            results[src.name] = row
        return results

    def _ping_matrix_shell(self, hosts, timeout, manualdestip, count):
        """Each source pings its destinations one after the other in its shell; a few sources at once."""
        wait = '-W %s ' % int(timeout) if timeout else ''
        texts = {}
        for first in range(0, len(hosts), self.PING_SOURCES_AT_ONCE):
            batch = hosts[first:first + self.PING_SOURCES_AT_ONCE]
            for src in batch:
                targets = [manualdestip] if manualdestip else [d.IP() for d in hosts if d is not src]
                src.sendCmd('for d in %s; do printf "FLOWLAB-PING %%s\\n" $d; ping -c%d %s$d 2>&1; done' %
                            (' '.join(targets), count, wait))
            for src in batch:
                texts[src.name] = src.waitOutput()
        results = {}
        for src in hosts:
            text = texts[src.name]
            blocks = dict((b.split('\n', 1)[0].strip(), b) for b in text.split('FLOWLAB-PING ')[1:])
            dsts = [None] if manualdestip else [d for d in hosts if d is not src]
            row = []
            for d in dsts:
                ip = manualdestip or d.IP()
                row.append((d or type('Dst', (), {'name': ip})(), self._parsePingFull(blocks.get(ip, ''))))
            results[src.name] = [(d, (r[0], r[1], r)) for d, r in row]
        return results

    @staticmethod
    def _parsePingFull(text):
        m = re.search(r'(\d+) packets transmitted, (\d+) (?:packets )?received', text)
        if not m:
            return (1, 0, 0, 0, 0, 0)
        sent, received = int(m.group(1)), int(m.group(2))
        rtt = re.search(r'= ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms', text)
        vals = [float(x) for x in rtt.groups()] if rtt else [0, 0, 0, 0]
        return (sent, received, *vals)

    def pingAll(self, timeout=None):
        return self.ping(timeout=timeout)

    def pingPair(self):
        return self.ping(hosts=self.hosts[:2])

    def pingFull(self, hosts=None, timeout=None, manualdestip=None):
        hosts = hosts or self.hosts
        output('*** Ping: testing ping reachability\n')
        all_outputs = []
        results = self._ping_matrix(hosts, timeout, manualdestip, count=1)
        for src in hosts:
            output('%s -> ' % src.name)
            for dst, (_, r, full) in results[src.name]:
                all_outputs.append((src, dst, full))
                output(('%s ' % dst.name) if r else 'X ')
            output('\n')
        output('*** Results: \n')
        for src, dst, (sent, received, rmin, ravg, rmax, rdev) in all_outputs:
            output(' %s->%s: %s/%s, ' % (src, dst, sent, received))
            output('rtt min/avg/max/mdev %0.3f/%0.3f/%0.3f/%0.3f ms\n' % (rmin, ravg, rmax, rdev))
        return all_outputs

    def pingAllFull(self):
        return self.pingFull()

    def pingPairFull(self):
        return self.pingFull(hosts=self.hosts[:2])

    @staticmethod
    def _parseIperf(iperfOutput):
        r = r'([\d\.]+ \w+/sec)'
        m = re.findall(r, iperfOutput)
        if m:
            return m[-1]
        error('could not parse iperf output: ' + iperfOutput)
        return ''

    def iperf(self, hosts=None, l4Type='TCP', udpBw='10M', fmt=None, seconds=5, port=5001):
        """iperf (2) between two hosts, as Mininet: [server's rate, client's rate]."""
        hosts = hosts or [self.hosts[0], self.hosts[-1]]
        if len(hosts) != 2:
            raise ValueError('iperf: two hosts, not %d' % len(hosts))
        client, server = hosts
        output('*** Iperf: testing %s bandwidth between %s and %s\n' % (l4Type, client.name, server.name))
        args = 'iperf -p %d ' % port
        bw = ''
        if l4Type == 'UDP':
            args += '-u '
            bw = '-b %s ' % udpBw
        elif l4Type != 'TCP':
            raise Exception('Unexpected l4 type: %s' % l4Type)
        if fmt:
            args += '-f %s ' % fmt
        srv = server.popen(args + '-s', stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            if l4Type == 'TCP':
                waitListening(client, server, port, timeout=5)
            else:
                time.sleep(0.3)
            cliout = client.cmd(args + '-t %d -c %s %s' % (seconds, server.IP(), bw))
            time.sleep(0.5 if l4Type == 'TCP' else 1.0)
        finally:
            srv.terminate()
            servout = srv.communicate()[0].decode(errors='replace')
        result = [self._parseIperf(servout), self._parseIperf(cliout)]
        if l4Type == 'UDP':
            result.insert(0, udpBw)
        output('*** Results: %s\n' % result)
        return result

    def runCpuLimitTest(self, cpu, duration=5):
        """Each host's CPU use, per second, as a % of the machine (its hosts: CPULimitedHost)."""
        from mininet.cpulimit import run_cpu_limit_test
        return run_cpu_limit_test(self, cpu, duration)

    def interact(self):
        from mininet.cli import CLI
        self.start()
        try:
            CLI(self)
        finally:
            self.stop()

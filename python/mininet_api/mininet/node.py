"""mininet.node: hosts, switches and controllers. Each maps to a node of a flowlab
lab; a host's commands run in its network namespace through one bash kept per
host, as Mininet keeps one shell per node (cd and variables persist)."""
import os
import re
import select
import subprocess
import time

from mininet.link import Intf

SENTINEL = b'\x7f'


class Node:
    """A node of the lab: its interfaces, and once started its namespace and shell."""

    portBase = 0
    outToNode = {}  # the shells' stdout fds -> their nodes (select() over several nodes)
    inToNode = {}

    def __init__(self, name, inNamespace=True, **params):
        self.name = str(name)
        self.inNamespace = inNamespace
        self.params = params
        self.intfs = {}        # port -> Intf
        self.ports = {}        # Intf -> port
        self.nameToIntf = {}
        self.net = None        # the Mininet this node belongs to
        self.ns = None         # its namespace, once the lab is up
        self.shell = None
        self.waiting = False
        self.lastCmd = None
        self.pid = None
        self.stdin = self.stdout = None
        self._buf = b''

    # ---- interfaces ----
    def newPort(self):
        return max(self.ports.values()) + 1 if self.ports else self.portBase

    def addIntf(self, intf, port=None, moveIntf=True):
        if port is None:
            port = self.newPort()
        self.intfs[port] = intf
        self.ports[intf] = port
        self.nameToIntf[intf.name] = intf

    def intfList(self):
        return [self.intfs[p] for p in sorted(self.intfs)]

    def intfNames(self):
        return [str(i) for i in self.intfList()]

    def defaultIntf(self):
        ports = sorted(self.intfs)
        return self.intfs[ports[0]] if ports else None

    def intf(self, intf=None):
        if not intf:
            return self.defaultIntf()
        if isinstance(intf, str):
            return self.nameToIntf.get(intf)
        return intf

    def connectionsTo(self, node):
        out = []
        for intf in self.intfList():
            link = intf.link
            if link:
                other = link.intf2 if link.intf1 is intf else link.intf1
                if other.node is node:
                    out.append((intf, other))
        return out

    def IP(self, intf=None):
        i = self.intf(intf)
        return i.IP() if i else None

    def MAC(self, intf=None):
        i = self.intf(intf)
        return i.MAC() if i else None

    def setIP(self, ip, prefixLen=8, intf=None, **kwargs):
        i = self.intf(intf)
        if i is None:
            raise Exception('%s.setIP: no interface %s' % (self.name, intf))
        return i.setIP(ip, prefixLen)

    def setMAC(self, mac, intf=None):
        return self.intf(intf).setMAC(mac)

    def setARP(self, ip, mac):
        return self.cmd('ip neigh replace %s lladdr %s dev %s nud permanent' % (ip, mac, self.defaultIntf()))

    def setHostRoute(self, ip, intf):
        return self.cmd('ip route add %s dev %s' % (ip, intf))

    def setDefaultRoute(self, intf=None):
        if isinstance(intf, str) and ' ' in intf:
            params = intf
        else:
            params = 'dev %s' % (intf or self.defaultIntf())
        return self.cmd('ip route flush default; ip route add default %s' % params)

    def config(self, **params):
        return {}

    # ---- the shell ----
    def _started(self):
        """The node's namespace exists: a node used after net.build() brings the lab up (Mininet
        creates its nodes at build()); before build() or after stop() it is an error."""
        if not self.ns and self.net is not None:
            self.net.upForNode(self)
        if not self.ns:
            raise Exception('%s: the network is not built or was stopped: flowlab builds its namespaces at '
                            'net.build()/net.start() and removes them at net.stop()' % self.name)

    def _ensure_shell(self):
        self._started()
        if self.shell is None or self.shell.poll() is not None:
            # An interactive bash whose prompt is the end marker, as Mininet's: nothing but the
            # command is written to its stdin, so a command reading stdin finds nothing extra.
            self.shell = subprocess.Popen(['ip', 'netns', 'exec', self.ns, 'env', 'PS1=' + SENTINEL.decode(),
                                           'bash', '--norc', '--noediting', '-is', 'mininet:' + self.name],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, bufsize=0, start_new_session=True,
                                          **self._spawn_options())
            self.pid = self.shell.pid
            self.stdin, self.stdout = self.shell.stdin, self.shell.stdout
            Node.outToNode[self.stdout.fileno()] = self
            Node.inToNode[self.stdin.fileno()] = self
            self._buf = b''
            self.waiting = True  # until bash's first prompt

    def _spawn_options(self):
        """Extra subprocess.Popen options of this node's processes."""
        return {}

    def startShell(self, wait=True):
        """Starts the node's shell; wait=False returns before its first prompt (waitOutput reads it)."""
        self._ensure_shell()
        if wait:
            self.waitOutput()

    def sendCmd(self, *args, **kwargs):
        """Starts a command in the node's shell; waitOutput() reads what it printed."""
        if self.shell is None or self.shell.poll() is not None:
            self.startShell()
        if self.waiting:
            raise Exception('%s: sendCmd while a command is still running (call waitOutput first)' % self.name)
        if len(args) == 1 and isinstance(args[0], list):
            cmd = ' '.join(str(c) for c in args[0])
        else:
            cmd = ' '.join(str(c) for c in args)
        self.lastCmd = cmd
        # A command ending in & runs in the background; the sentinel still comes at once.
        self.shell.stdin.write(('%s\n' % cmd).encode())
        self.shell.stdin.flush()
        self.waiting = True

    def monitor(self, timeoutms=None, findPid=True):
        """What the shell printed so far (up to timeoutms), without the end marker: the running
        command's output, or as Mininet's what commands left in the background print later."""
        self._started()
        if not self.waitReadable(timeoutms):
            return ''
        data = os.read(self.shell.stdout.fileno(), 65536)
        if not data:
            self.waiting = False
            raise Exception('%s: its shell ended (the lab was taken down?)' % self.name)
        self._buf += data
        if SENTINEL in self._buf:
            out, _, self._buf = self._buf.partition(SENTINEL)
            self.waiting = False
        else:
            out, self._buf = self._buf, b''
        return out.decode(errors='replace')

    def waitReadable(self, timeoutms=None):
        """True once the shell has output (poll: a lab of 1,000 hosts has fds past select's 1024)."""
        poller = select.poll()
        poller.register(self.shell.stdout, select.POLLIN | select.POLLHUP)
        return bool(poller.poll(timeoutms))

    def waitOutput(self, verbose=False, findPid=True):
        out = []
        while self.waiting:
            piece = self.monitor()
            if verbose and piece:
                from mininet.log import info
                info(piece)
            out.append(piece)
        return ''.join(out)

    def cmd(self, *args, **kwargs):
        """Runs a command in the node's shell and returns its output (stdout and stderr)."""
        verbose = kwargs.get('verbose', False)
        from mininet.log import debug, info
        (info if verbose else debug)('*** %s : %s\n' % (self.name, args))  # as Mininet's
        self.sendCmd(*args, **kwargs)
        return self.waitOutput(verbose)

    def cmdPrint(self, *args):
        return self.cmd(*args, verbose=True)

    def sendInt(self, intr='\x03'):
        """Interrupts the running command (SIGINT to the shell's children)."""
        if self.shell is not None:
            subprocess.run(['pkill', '-INT', '-P', str(self.shell.pid)], check=False)

    def popen(self, *args, **kwargs):
        """A subprocess.Popen in the node's namespace: popen([cmd, arg...]), popen(cmd, arg...) or
        popen("cmd arg...") (split on spaces, as Mininet; shell=True runs the string by sh -c)."""
        self._started()
        shell = kwargs.pop('shell', False)
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            cmd = [str(a) for a in args[0]]
        elif len(args) == 1 and isinstance(args[0], str):
            cmd = ['sh', '-c', args[0]] if shell else args[0].split()
        else:
            cmd = [str(a) for a in args]
        kwargs.pop('mncmd', None)
        enter = kwargs.pop('_enter', None) or ['ip', 'netns', 'exec', self.ns]
        defaults = {'stdout': subprocess.PIPE, 'stderr': subprocess.PIPE}
        defaults.update(self._spawn_options())
        defaults.update(kwargs)
        return subprocess.Popen(enter + cmd, **defaults)

    def pexec(self, *args, **kwargs):
        """(stdout, stderr, exit code) of a command run to its end in the node's namespace."""
        p = self.popen(*args, **kwargs)
        out, err = p.communicate()
        dec = lambda b: b.decode(errors='replace') if isinstance(b, bytes) else (b or '')
        return dec(out), dec(err), p.returncode

    def kill(self):
        """Kills the shell's process group without waiting (terminate() then reaps it)."""
        if self.shell is not None:
            try:
                os.killpg(self.shell.pid, 9)
            except OSError:
                pass

    def terminate(self):
        if self.shell is not None:
            Node.outToNode.pop(self.stdout.fileno(), None)
            Node.inToNode.pop(self.stdin.fileno(), None)
            try:
                self.shell.stdin.close()
            except OSError:
                pass
            try:
                os.killpg(self.shell.pid, 9)
            except OSError:
                pass
            self.shell.wait()
            self.shell.stdout.close()
            self.shell = None
        self.waiting = False

    def stop(self, deleteIntfs=False):
        self.terminate()

    def __repr__(self):
        return '<%s %s: %s pid=%s> ' % (self.__class__.__name__, self.name,
                                        ','.join('%s:%s' % (i.name, i.ip) for i in self.intfList()), self.pid)

    def __str__(self):
        return self.name


class Host(Node):
    """A host: a network namespace of the lab. Its `ip` and `mac` go on its first interface.
    privateDirs (Mininet's): each a directory mounted in the host's shell alone (its own mount
    namespace): (mount point, private dir) bind-mounts the private dir, '%(name)s' being the
    host's name; a plain path gets a tmpfs. popen'd processes join the shell's mounts."""
    lab_kind = 'host'

    def __init__(self, name, inNamespace=True, privateDirs=None, **params):
        Node.__init__(self, name, inNamespace=inNamespace, **params)
        self.privateDirs = privateDirs or []

    def mountPrivateDirs(self):
        for d in self.privateDirs:
            if isinstance(d, tuple):
                mount, private = d[0], d[1] % self.__dict__
                out = self.cmd('mkdir -p %s %s && mount --bind %s %s && echo mounted' %
                               (private, mount, private, mount))
            else:
                mount = d
                out = self.cmd('mkdir -p %s && mount -n -t tmpfs tmpfs %s && echo mounted' % (mount, mount))
            if 'mounted' not in out:
                raise Exception('%s: private directory %s: %s' % (self.name, mount, out.strip()))

    def popen(self, *args, **kwargs):
        if not self.privateDirs:
            return Node.popen(self, *args, **kwargs)
        self._ensure_shell()  # the shell holds the mounts: its mount and network namespaces are joined
        return Node.popen(self, *args, _enter=['nsenter', '--target', str(self.shell.pid), '--mount',
                                               '--net', '--'], **kwargs)

    def addIntf(self, intf, port=None, moveIntf=True):
        first = not self.intfs
        Node.addIntf(self, intf, port=port, moveIntf=moveIntf)
        if first:
            ip = self.params.get('ip')
            if ip and intf.ip is None:
                addr, _, plen = str(ip).partition('/')
                intf.ip, intf.prefixLen = addr, int(plen or 8)
            if self.params.get('mac') and intf.mac is None:
                intf.mac = self.params['mac']


class Switch(Node):
    """A switch of the lab. Its ports are numbered from 1 as Mininet's; cmd() runs in the lab's
    core namespace, where its ports are."""

    portBase = 1
    dpidLen = 16
    lab_kind = 'flowlab'

    def __init__(self, name, dpid=None, opts='', listenPort=None, **params):
        Node.__init__(self, name, **params)
        self.dpid = self.defaultDpid(dpid)
        self.opts = opts
        self.listenPort = listenPort
        # Mininet's switches are in the machine's namespace and list its loopback as port 0;
        # here it is the loopback of the lab's core namespace, where the switches are.
        self.controlIntf = Intf('lo', self, port=0)
        self.controlIntf.ip, self.controlIntf.prefixLen = '127.0.0.1', 8
        self.controllers = None  # the ones start() named before the lab came up; None: every one of the net

    def defaultDpid(self, dpid=None):
        if dpid:
            dpid = str(dpid).replace(':', '')
            if dpid.startswith('0x'):
                dpid = dpid[2:]
        else:
            nums = re.findall(r'\d+', self.name)
            if not nums:
                raise Exception('Unable to derive default datapath ID - please either specify a dpid or use a '
                                'canonical switch name such as s23.')
            dpid = hex(int(nums[0]))[2:]
        return '0' * (self.dpidLen - len(dpid)) + dpid

    def lab_spec(self):
        return {'kind': self.lab_kind}

    def _spawn_options(self):
        """ovs-vsctl and ovs-ofctl in the switch's shell reach the lab's Open vSwitch (its own
        database and sockets), as in Mininet they reach the machine's."""
        rundir = self.net.lab.record.get('ovs_rundir') if self.net is not None and self.net.lab else None
        return {'env': dict(os.environ, OVS_RUNDIR=rundir)} if rundir else {}

    def start(self, controllers):
        """Before the lab is up: the controllers this switch connects to when the lab starts it
        (net.start() calls it with every controller of the net, as Mininet's; a subclass or the
        script may name others). In a running lab: starts the stopped switch again."""
        if self.ns:
            self.net.lab.control({'op': 'switch', 'name': self.name, 'start': True})
        else:
            self.controllers = list(controllers)

    def stop(self, deleteIntfs=True):
        """Stops the switch's process in a running lab (its ports stay: deleteIntfs is not honoured)."""
        if self.ns:
            self.net.lab.control({'op': 'switch', 'name': self.name, 'start': False})
        else:
            self.terminate()

    def dpctl(self, *args):
        """ovs-ofctl syntax on this switch (flowlab's ofctl for flowlab switches, ovs-ofctl for OVS)."""
        self._started()
        return self.net.lab.control({'op': 'dpctl', 'args': [str(a) for a in args], 'switch': self.name})

    def connected(self):
        return self.ns is not None


class FlowlabSwitch(Switch):
    """flowlab's own OpenFlow switch (eBPF fast path)."""
    lab_kind = 'flowlab'


class UserSwitch(FlowlabSwitch):
    """Mininet's user-space switch: flowlab's switch here."""


class OVSSwitch(Switch):
    """Open vSwitch: its user-space datapath here (this machine has no openvswitch.ko)."""
    lab_kind = 'ovs'

    def __init__(self, name, failMode='secure', datapath='kernel', inband=False, protocols=None, **params):
        Switch.__init__(self, name, **params)
        if failMode != 'secure':
            raise NotImplementedError('%s: failMode=%s: the lab runs OVS in secure mode with its controller; '
                                      'use OVSBridge or LinuxBridge for a learning bridge' % (name, failMode))
        self.protocols = protocols

    @classmethod
    def isOldOVS(cls):
        """Open vSwitch before 1.10 (Mininet's test of what ofport_request needs)."""
        import subprocess
        out = subprocess.run(['ovs-vsctl', '--version'], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True).stdout
        m = re.search(r'(\d+)\.(\d+)', out)
        return not m or (int(m.group(1)), int(m.group(2))) < (1, 10)

    @classmethod
    def setup(cls):
        """Mininet checks that Open vSwitch is installed."""
        import shutil
        if not shutil.which('ovs-vswitchd') and not os.path.exists('/usr/sbin/ovs-vswitchd'):
            raise Exception('Open vSwitch (ovs-vswitchd) is not installed: apt-get install openvswitch-switch')

    def lab_spec(self):
        spec = {'kind': 'ovs'}
        if self.protocols:
            spec['protocols'] = self.protocols
        return spec


OVSKernelSwitch = OVSSwitch


class LinuxBridge(Switch):
    """The Linux bridge (no controller); stp=True turns on its spanning tree."""
    lab_kind = 'linux-bridge'

    def __init__(self, name, stp=False, prio=None, **kwargs):
        Switch.__init__(self, name, **kwargs)
        self.stp = stp

    def lab_spec(self):
        spec = {'kind': 'linux-bridge'}
        if self.stp:
            spec['stp'] = True
        return spec


class OVSBridge(LinuxBridge):
    """Mininet's OVS in standalone mode, a learning bridge: the Linux bridge here (same forwarding)."""

    def __init__(self, name, stp=False, **kwargs):
        kwargs.pop('failMode', None)
        LinuxBridge.__init__(self, name, stp=stp, **kwargs)


class IVSSwitch(Switch):
    def __init__(self, name, **params):
        raise NotImplementedError('IVSSwitch(%s): Indigo Virtual Switch is not available; use OVSSwitch or '
                                  'FlowlabSwitch' % name)


class Controller(Node):
    """An OpenFlow controller the lab starts: flowlab's controller with its learning switch."""

    def __init__(self, name, inNamespace=False, command='controller', cargs='ptcp:%d', cdir=None,
                 ip='127.0.0.1', port=6653, protocol='tcp', **params):
        Node.__init__(self, name, inNamespace=inNamespace, **params)
        self.ip, self.port, self.protocol = ip, port, protocol

    def lab_spec(self):
        spec = {'kind': 'flowlab', 'apps': ['learning-switch']}
        if self.port != 6653:  # OpenFlow's port: the lab's default (and its next ones for more controllers)
            spec['port'] = int(self.port)
        return spec

    def start(self):
        pass

    def stop(self, *args, **kwargs):
        self.terminate()

    def IP(self, intf=None):
        return self.ip

    def checkListening(self):
        return True


class OVSController(Controller):
    """ovs-testcontroller's learning switch: flowlab's learning switch here."""


class NOX(Controller):
    def __init__(self, name, *noxArgs, **kwargs):
        raise NotImplementedError('NOX(%s): NOX is not available; use Controller or RemoteController' % name)


class Ryu(Controller):
    """Ryu apps run as os-ken apps (Debian's python3-os-ken): Ryu('c0', 'app.py')."""

    def __init__(self, name, *ryuArgs, **kwargs):
        Controller.__init__(self, name, **kwargs)
        apps = [a for a in ryuArgs if a.endswith('.py')]
        if len(apps) != 1 or len(ryuArgs) != 1:
            raise NotImplementedError('Ryu(%s, %s): give one app as a .py file (run by os-ken)' %
                                      (name, ', '.join(ryuArgs)))
        self.app = os.path.abspath(apps[0])

    def lab_spec(self):
        return {'kind': 'os-ken', 'app': self.app}


class RemoteController(Controller):
    """A controller running elsewhere, at ip:port; the lab does not start it."""

    def __init__(self, name, ip='127.0.0.1', port=None, **kwargs):
        Controller.__init__(self, name, ip=ip, port=port or 6653, **kwargs)

    def lab_spec(self):
        return {'kind': 'remote', 'address': self.ip, 'port': int(self.port)}


DefaultController = Controller
DefaultControllers = (Controller, OVSController)


def __getattr__(name):
    """mininet.node.CPULimitedHost, Mininet's name of mininet.cpulimit's (loaded when asked for)."""
    if name == 'CPULimitedHost':
        from mininet.cpulimit import CPULimitedHost
        return CPULimitedHost
    raise AttributeError("module 'mininet.node' has no attribute '%s'" % name)

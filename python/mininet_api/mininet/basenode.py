"""Node and Host (re-exported by mininet.node): each maps to a node of a flowlab
lab; a host's commands run in its network namespace through one bash kept per
host, as Mininet keeps one shell per node (cd and variables persist)."""
import atexit
import contextlib
import os
import select
import subprocess


SENTINEL = b'\x7f'
MACHINE_NS = '(machine)'  # the namespace of a Node(inNamespace=False) made outside any network

# Nodes made outside any network (Mininet's low-level API: Node(), Link() by hand) that hold a
# namespace of their own: removed at exit if the script did not stop them.
_standalone = []


@atexit.register
def _stop_standalone():
    for node in list(_standalone):
        node.stop(deleteIntfs=True)

# The nets making a node now (Mininet.addHost/addSwitch/addController): a command the node's
# constructor runs (treeping64's HostV4: sysctls) waits until its namespace exists.
_making = []


@contextlib.contextmanager
def making_node(net):
    """While a net calls a node class: commands before the node's namespace exists are kept."""
    _making.append(net)
    try:
        yield
    finally:
        _making.pop()


class Node:
    """A node of the lab: its interfaces, and once started its namespace and shell. A Node or
    Host made outside any network is Mininet's low-level API: its namespace (a unique one, or
    the machine's with inNamespace=False) and shell exist from its first use on, Link()
    between two such nodes makes their veth pair at once (hwintf's test)."""

    portBase = 0
    standalone = True  # a node of this class made outside a network gets its own namespace
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
        self.deferred = []     # commands its constructor gave before its namespace existed

    # ---- interfaces ----
    def newPort(self):
        return max(self.ports.values()) + 1 if self.ports else self.portBase

    def addIntf(self, intf, port=None, moveIntf=True):
        """The node's `ip` and `mac` go on its first interface (Mininet's defaultIntf), unless its
        link gave that interface its own."""
        first = not self.intfs
        if port is None:
            port = self.newPort()
        self.intfs[port] = intf
        self.ports[intf] = port
        self.nameToIntf[intf.name] = intf
        if first:
            ip = self.params.get('ip')
            if ip and intf.ip is None:
                addr, _, plen = str(ip).partition('/')
                intf.ip, intf.prefixLen = addr, int(plen or 8)
            if self.params.get('mac') and intf.mac is None:
                intf.mac = self.params['mac']

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

    def configDefault(self, **moreParams):
        """Mininet's configDefault: on a node made outside any network, its first interface gets
        its `ip` and comes up, with lo; in a network the lab configured it already."""
        self.params.update(moreParams)
        if self.net is not None:
            return {}
        self._started()
        intf = self.defaultIntf()
        out = {}
        if intf is not None:
            if intf.ip:
                out['ip'] = intf.setIP(intf.ip, intf.prefixLen)
            out['up'] = intf.ifconfig('up')
        self.cmd('ip link set lo up')
        return out

    # ---- a node outside any network (Mininet's low-level API) ----
    def _standalone_start(self):
        """Its own namespace, unique per run (or the machine's), made at its first use."""
        if not self.inNamespace:
            self.ns = MACHINE_NS
        else:
            ns = 'flowlab-mn-%s-%d' % (self.name, os.getpid())
            p = subprocess.run(['ip', 'netns', 'add', ns], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
            if p.returncode != 0:
                raise Exception('%s: cannot make its namespace %s: %s' % (self.name, ns, p.stdout.strip()))
            self.ns = ns
        _standalone.append(self)

    def _ns_command(self):
        """The command that runs a process in the node's namespace (nothing: the machine's)."""
        return [] if self.ns == MACHINE_NS else ['ip', 'netns', 'exec', self.ns]

    # ---- the shell ----
    def _started(self):
        """The node's namespace exists: a node used after net.build() brings the lab up (Mininet
        creates its nodes at build()); before build() or after stop() it is an error."""
        if not self.ns and self.net is not None:
            self.net.upForNode(self)
        if not self.ns and self.net is None and self.standalone and self not in _standalone:
            self._standalone_start()
        if not self.ns:
            raise Exception('%s: the network is not built or was stopped: flowlab builds its namespaces at '
                            'net.build()/net.start() and removes them at net.stop()' % self.name)

    def _ensure_shell(self):
        self._started()
        if self.shell is None or self.shell.poll() is not None:
            # An interactive bash whose prompt is the end marker, as Mininet's: nothing but the
            # command is written to its stdin, so a command reading stdin finds nothing extra.
            self.shell = subprocess.Popen(self._ns_command() + ['env', 'PS1=' + SENTINEL.decode(),
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
        if self.ns is None and self.net is None and _making:
            # In Mininet the node's shell exists from its constructor on; flowlab makes the
            # namespaces at net.start(), which runs these first, in order (their output is logged).
            self.deferred.append(' '.join(str(c) for c in (args[0] if len(args) == 1 and
                                                             isinstance(args[0], list) else args)))
            debug('*** %s: run when its namespace is made: %s\n' % (self.name, self.deferred[-1]))
            return ''
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
        enter = kwargs.pop('_enter', None) or self._ns_command()
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
        if self in _standalone:  # a node of no network: its interfaces and namespace
            if deleteIntfs:
                for intf in self.intfList():
                    subprocess.run(self._ns_command() + ['ip', 'link', 'del', intf.name], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
            if self.ns != MACHINE_NS:
                subprocess.run(['ip', 'netns', 'del', self.ns], stderr=subprocess.DEVNULL)
            self.ns = None
            _standalone.remove(self)

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


"""mininet.util: the helpers scripts use."""
import functools
import re
import subprocess


def decode(s):
    return s.decode(errors='replace') if isinstance(s, bytes) else s


def encode(s):
    return s.encode() if isinstance(s, str) else s


def numCores():
    import os
    return os.cpu_count() or 1


def irange(start, end):
    """Inclusive range, as Mininet's."""
    return range(start, end + 1)


def natural(text):
    """Sort key for node names: h2 before h10."""
    return [int(p) if p.isdigit() else p for p in re.split(r'(\d+)', str(text))]


def naturalSeq(seq):
    return [natural(x) for x in seq]


def quietRun(cmd, **kwargs):
    """Runs cmd (a string through sh, or a list) in the machine's namespace; stdout and stderr.
    Mininet's shell= is taken (hwintf.py passes shell=True), echo= is dropped."""
    shell = kwargs.pop('shell', None) or isinstance(cmd, str)
    kwargs.pop('echo', None)
    p = subprocess.run(cmd, shell=shell, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs)
    return p.stdout


def errRun(cmd, **kwargs):
    """(stdout, stderr, exit code) of cmd."""
    shell = kwargs.pop('shell', None) or isinstance(cmd, str)
    kwargs.pop('echo', None)
    p = subprocess.run(cmd, shell=shell, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)
    return p.stdout, p.stderr, p.returncode


def errFail(cmd, **kwargs):
    out, err, ret = errRun(cmd, **kwargs)
    if ret:
        raise Exception('errFail: %s failed with return code %s: %s' % (cmd, ret, err))
    return out, err, ret


def custom(cls, **params):
    """A constructor of cls with params as defaults (the call's own keywords win)."""
    def make(*args, **kwargs):
        merged = dict(params)
        merged.update(kwargs)
        return cls(*args, **merged)
    make.func = cls
    make.keywords = params
    return make


def specialClass(cls, prepend=None, append=None, defaults=None, override=None):
    """A subclass of cls whose constructor adds arguments, as Mininet's."""
    prepend, append = prepend or [], append or []
    defaults, override = defaults or {}, override or {}

    class CustomClass(cls):
        def __init__(self, *args, **params):
            merged = dict(defaults)
            merged.update(params)
            merged.update(override)
            cls.__init__(self, *(list(prepend) + list(args) + list(append)), **merged)

    CustomClass.__name__ = '%s%s' % (cls.__name__, defaults)
    return CustomClass


def ipNum(w, x, y, z):
    return (w << 24) | (x << 16) | (y << 8) | z


def ipStr(ip):
    return '%d.%d.%d.%d' % ((ip >> 24) & 0xff, (ip >> 16) & 0xff, (ip >> 8) & 0xff, ip & 0xff)


def ipParse(ip):
    parts = [int(p) for p in ip.split('.')]
    while len(parts) < 4:
        parts.insert(len(parts) - 1, 0)
    return ipNum(*parts)


def netParse(ipstr):
    """'10.0.0.0/8' -> (base number, prefix length)."""
    prefix = 0
    if '/' in ipstr:
        ip, pf = ipstr.split('/')
        prefix = int(pf)
    else:
        ip = ipstr
    return ipParse(ip), prefix


def ipAdd(i, prefixLen=8, ipBaseNum=0x0a000000):
    imax = 0xffffffff >> prefixLen
    if i > imax:
        raise Exception('Not enough IP addresses in the subnet')
    mask = 0xffffffff ^ imax
    return ipStr((ipBaseNum & mask) + i)


def macColonHex(mac):
    return ':'.join('%02x' % ((mac >> (8 * i)) & 0xff) for i in range(5, -1, -1))


def dumpNodeConnections(nodes):
    """Prints each node's interfaces and what they connect to, as Mininet's."""
    from mininet.log import output
    for node in nodes:
        output(node.name)
        for intf in node.intfList():
            output(' %s:' % intf)
            if intf.link:
                other = intf.link.intf1 if intf.link.intf2 is intf else intf.link.intf2
                output(other.name)
            else:
                output(' ')
        output('\n')


def dumpNetConnections(net):
    dumpNodeConnections(net.controllers + net.switches + net.hosts)


def dumpPorts(switches):
    from mininet.log import output
    for switch in switches:
        output('==== %s ====\n' % switch.name)
        for intf in switch.intfList():
            output('%s:%d\n' % (intf.name, switch.ports[intf]))


def waitListening(client=None, server='127.0.0.1', port=80, timeout=None):
    """Waits until a TCP connection from client (a node; None: this machine) to server (a node or
    an address) at port succeeds, as Mininet's (which connects with telnet: the server sees one
    empty connection); False after timeout seconds."""
    import time
    ip = server.IP() if hasattr(server, 'IP') else str(server)
    probe = "bash -c 'exec 3<>/dev/tcp/%s/%d' 2>/dev/null && echo Connected" % (ip, port)
    deadline = None if timeout is None else time.time() + timeout
    while 'Connected' not in (client.cmd(probe) if client is not None else quietRun(probe)):
        if deadline is not None and time.time() > deadline:
            return False
        time.sleep(0.05)
    return True


def moveIntf(*args, **kwargs):
    raise NotImplementedError('mininet.util.moveIntf: flowlab places interfaces when the lab is built')


def pmonitor(popens, timeoutms=500, readline=True, readmax=1024):
    """Yields (host, line) from a dict {host: Popen} as the processes print, and (None, '')
    when nothing came within timeoutms, until every process has ended (Mininet's pmonitor)."""
    import os
    import select
    poller = select.poll()
    fdToHost = {}
    for host, popen in popens.items():
        fd = popen.stdout.fileno()
        fdToHost[fd] = host
        poller.register(fd, select.POLLIN | select.POLLHUP)
        if not readline:
            os.set_blocking(fd, False)
    while popens:
        fds = poller.poll(timeoutms)
        if not fds:
            yield None, ''
            continue
        for fd, event in fds:
            host = fdToHost[fd]
            popen = popens[host]
            if event & select.POLLIN:
                line = popen.stdout.readline() if readline else popen.stdout.read(readmax)
                if line:
                    yield host, line.decode(errors='replace') if isinstance(line, bytes) else line
                    continue
            if event & (select.POLLHUP | select.POLLIN):
                # The process closed its end: what its reader still buffers (the last lines, a
                # ping's statistics) is yielded before the host is dropped.
                for rest in popen.stdout.readlines() if readline else [popen.stdout.read()]:
                    if rest:
                        yield host, rest.decode(errors='replace') if isinstance(rest, bytes) else rest
                poller.unregister(fd)
                del popens[host]


partial = functools.partial


def ensureRoot():
    """Exits with a message unless run as root, as Mininet's."""
    import os
    import sys
    if os.getuid() != 0:
        print('*** Mininet must run as root.')
        sys.exit(1)


class _Pexpect:
    """mininet.util.pexpect: pexpect whose spawn reads text (utf-8) unless told otherwise,
    so that tests match and compare str as Mininet's tests do."""

    @staticmethod
    def spawn(*args, **kwargs):
        import pexpect as module
        kwargs.setdefault('encoding', 'utf-8')
        return module.spawn(*args, **kwargs)

    def __getattr__(self, name):
        import pexpect as module
        return getattr(module, name)


pexpect = _Pexpect()

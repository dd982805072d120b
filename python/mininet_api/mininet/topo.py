"""mininet.topo: Topo (nodes with options, links with per-end ports) and the
single-switch and linear topologies, named and numbered as Mininet 2.3.0 does."""
from mininet.util import irange, natural


class Topo:
    """Mininet's Topo contract: build(**params) adds hosts, switches and links."""

    def __init__(self, *args, **params):
        self._nodes = {}   # name -> options, in the order added
        self._links = []   # [key, options] in the order added
        self.ports = {}    # node -> {port: (other node, other port)}
        self.hopts = params.pop('hopts', {})
        self.sopts = params.pop('sopts', {})
        self.lopts = params.pop('lopts', {})
        self.build(*args, **params)

    def build(self, *args, **params):
        """Override to add nodes and links."""

    def addNode(self, name, **opts):
        self._nodes[name] = opts
        return name

    def addHost(self, name, **opts):
        if not opts and self.hopts:
            opts = self.hopts
        return self.addNode(name, **opts)

    def addSwitch(self, name, **opts):
        if not opts and self.sopts:
            opts = self.sopts
        return self.addNode(name, isSwitch=True, **opts)

    def isSwitch(self, n):
        return bool(self._nodes.get(n, {}).get('isSwitch', False))

    def addPort(self, src, dst, sport=None, dport=None):
        self.ports.setdefault(src, {})
        self.ports.setdefault(dst, {})
        if sport is None:
            sport = len(self.ports[src]) + (1 if self.isSwitch(src) else 0)
        if dport is None:
            dport = len(self.ports[dst]) + (1 if self.isSwitch(dst) else 0)
        self.ports[src][sport] = (dst, dport)
        self.ports[dst][dport] = (src, sport)
        return sport, dport

    def addLink(self, node1, node2, port1=None, port2=None, key=None, **opts):
        if not opts and self.lopts:
            opts = self.lopts
        for n in (node1, node2):
            if n not in self._nodes:
                raise KeyError('addLink: no node named %r in the topology (add it first)' % n)
        port1, port2 = self.addPort(node1, node2, port1, port2)
        opts = dict(opts)
        opts.update(node1=node1, node2=node2, port1=port1, port2=port2)
        if key is None:
            key = sum(1 for _, o in self._links if {o['node1'], o['node2']} == {node1, node2})
        self._links.append([key, opts])
        return key

    def nodes(self, sort=True):
        return self.sorted(self._nodes) if sort else list(self._nodes)

    def hosts(self, sort=True):
        return [n for n in self.nodes(sort) if not self.isSwitch(n)]

    def switches(self, sort=True):
        return [n for n in self.nodes(sort) if self.isSwitch(n)]

    def iterLinks(self, withKeys=False, withInfo=False):
        for key, info in self._links:
            row = (info['node1'], info['node2'])
            if withKeys:
                row += (key,)
            if withInfo:
                row += (info,)
            yield row if (withKeys or withInfo) else row

    def links(self, sort=False, withKeys=False, withInfo=False):
        rows = list(self.iterLinks(withKeys, withInfo))
        if sort:
            rows.sort(key=lambda r: (natural(r[0]), natural(r[1])))
        return rows

    def port(self, src, dst):
        """(src's port, dst's port) of the first link between them."""
        for sport, (node, dport) in sorted(self.ports.get(src, {}).items()):
            if node == dst:
                return sport, dport
        raise KeyError('no link between %s and %s' % (src, dst))

    def _link(self, src, dst, key=None):
        for k, info in self._links:
            if {info['node1'], info['node2']} == {src, dst} and (key is None or k == key):
                return info
        raise KeyError('no link between %s and %s' % (src, dst))

    def linkInfo(self, src, dst, key=None):
        return self._link(src, dst, key)

    def setlinkInfo(self, src, dst, info, key=None):
        self._link(src, dst, key).update(info)

    def nodeInfo(self, name):
        return self._nodes[name]

    def setNodeInfo(self, name, info):
        self._nodes[name] = dict(info)

    @staticmethod
    def sorted(items):
        return sorted(items, key=natural)


class SingleSwitchTopo(Topo):
    """k hosts on one switch."""

    def build(self, k=2, **_opts):
        self.k = k
        switch = self.addSwitch('s1')
        for h in irange(1, k):
            self.addLink(self.addHost('h%s' % h), switch)


class SingleSwitchReversedTopo(Topo):
    """k hosts on one switch, host i on port k - i + 1."""

    def build(self, k=2, **_opts):
        self.k = k
        switch = self.addSwitch('s1')
        for h in irange(1, k):
            self.addLink(self.addHost('h%s' % h), switch, port1=0, port2=k - h + 1)


class MinimalTopo(SingleSwitchTopo):
    """Two hosts, one switch."""

    def build(self, **_opts):
        return SingleSwitchTopo.build(self, k=2)


class LinearTopo(Topo):
    """k switches in a line, n hosts on each (h1..hk, or hJsI when n > 1)."""

    def build(self, k=2, n=1, **_opts):
        self.k, self.n = k, n
        last = None
        for i in irange(1, k):
            switch = self.addSwitch('s%s' % i)
            for j in irange(1, n):
                host = self.addHost('h%s' % i if n == 1 else 'h%ss%d' % (j, i))
                self.addLink(host, switch)
            if last:
                self.addLink(switch, last)
            last = switch

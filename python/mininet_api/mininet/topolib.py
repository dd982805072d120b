"""mininet.topolib: the tree and torus topologies, and TreeNet."""
from mininet.net import Mininet
from mininet.topo import Topo


class TreeTopo(Topo):
    """A tree of switches depth deep, fanout wide; hosts at the leaves, numbered in pre-order."""

    def build(self, depth=1, fanout=2):
        self.hostNum = 1
        self.switchNum = 1
        self.addTree(depth, fanout)

    def addTree(self, depth, fanout):
        if depth <= 0:
            node = self.addHost('h%s' % self.hostNum)
            self.hostNum += 1
            return node
        node = self.addSwitch('s%s' % self.switchNum)
        self.switchNum += 1
        for _ in range(fanout):
            self.addLink(node, self.addTree(depth - 1, fanout))
        return node


def TreeNet(depth=1, fanout=2, **kwargs):
    """A Mininet of a TreeTopo."""
    return Mininet(TreeTopo(depth, fanout), **kwargs)


class TorusTopo(Topo):
    """An x by y torus of switches (loops: needs a spanning tree), n hosts on each."""

    def build(self, x, y, n=1):
        if x < 3 or y < 3:
            raise Exception('Please use 3x3 or greater for compatibility with 2.1')
        switches = {}
        for i in range(x):
            for j in range(y):
                loc = '%dx%d' % (i + 1, j + 1)
                sw = switches[i, j] = self.addSwitch('s' + loc, dpid='%x' % ((i + 1) * 256 + j + 1))
                for k in range(n):
                    self.addLink(self.addHost('h%s' % loc if n == 1 else 'h%sx%d' % (loc, k + 1)), sw)
        for i in range(x):
            for j in range(y):
                self.addLink(switches[i, j], switches[i, (j + 1) % y])
                self.addLink(switches[i, j], switches[(i + 1) % x, j])

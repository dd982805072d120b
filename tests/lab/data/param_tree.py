"""A parameterised tree written by hand (mn --custom param_tree.py --topo ptree,2,3)."""
from mininet.topo import Topo


class ParamTree(Topo):
    def build(self, depth=1, fanout=2):
        self.hosts_made = 0
        self.switches_made = 0
        self.subtree(depth, fanout)

    def subtree(self, depth, fanout):
        if depth == 0:
            self.hosts_made += 1
            return self.addHost('h%d' % self.hosts_made)
        self.switches_made += 1
        switch = self.addSwitch('s%d' % self.switches_made)
        for _ in range(fanout):
            self.addLink(switch, self.subtree(depth - 1, fanout))
        return switch


topos = {'ptree': ParamTree, 'pline': lambda n=2: ParamTree(depth=1, fanout=n)}

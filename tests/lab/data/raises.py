"""A custom file whose topology raises (for the error path)."""
from mininet.topo import Topo


class Broken(Topo):
    def build(self, n=1):
        self.addSwitch('s1')
        raise ValueError('no hosts for n=%d' % n)


topos = {'broken': Broken}

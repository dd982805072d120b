"""The shape of Mininet's custom/topo-2sw-2host.py (Debian's package does not ship
Mininet's custom/ folder): h1 - s3 - s4 - h2, built in build() with no arguments,
offered as a lambda under the name mytopo (mn --custom FILE --topo mytopo)."""
from mininet.topo import Topo


class HostSwitchSwitchHost(Topo):
    def build(self):
        first, second = self.addHost('h1'), self.addHost('h2')
        near, far = self.addSwitch('s3'), self.addSwitch('s4')
        self.addLink(first, near)
        self.addLink(near, far)
        self.addLink(far, second)


topos = {'mytopo': (lambda: HostSwitchSwitchHost())}

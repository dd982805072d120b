"""Two switches, two hosts each side, shaped links (mn --custom ... --topo twoswitch)."""
from mininet.topo import Topo
from mininet.link import TCLink


class TwoSwitchTopo(Topo):
    "h1, h2 -- s1 ==(bw 10, delay 5ms)== s2 -- h3"

    def build(self, delay='5ms'):
        s1 = self.addSwitch('s1')
        s2 = self.addSwitch('s2', dpid='00000000000000a2')
        h1 = self.addHost('h1')
        h2 = self.addHost('h2', ip='10.0.0.22/8', mac='00:00:00:00:00:22')
        h3 = self.addHost('h3')
        self.addLink(h1, s1)
        self.addLink(h2, s1)
        self.addLink(s1, s2, cls=TCLink, bw=10, delay=delay, loss=0, max_queue_size=500)
        self.addLink(h3, s2)


topos = {'twoswitch': TwoSwitchTopo}

"""mininet.nodelib: LinuxBridge (the Linux bridge of the lab) and NAT, a node of the lab
that forwards and masquerades between its local subnet and the rest of the lab."""
from mininet.node import LinuxBridge, Node  # noqa: F401 (LinuxBridge: what scripts import from here)


class NAT(Node):
    """Mininet's NAT in a namespace of its own (natnet.py: private subnets behind NATs, all
    inside the lab): at net.start() it forwards what its local subnet sends elsewhere,
    masqueraded as its other interfaces' addresses, and drops what the subnet sends to itself
    through it, with Mininet's rules (iptables in its namespace: they go with it at stop).
    A NAT in the machine's namespace, to the outside (Mininet's addNAT), is refused."""

    def __init__(self, name, subnet='10.0/8', localIntf=None, flush=False, inNamespace=True, **params):
        if not inNamespace:
            raise NotImplementedError('NAT(%s, inNamespace=False): a NAT to the outside of the machine; flowlab '
                                      'labs stay inside it (a NAT in its own namespace works)' % name)
        Node.__init__(self, name, inNamespace=True, **params)
        self.subnet, self.localIntf, self.flush = subnet, localIntf, flush

    def config(self, **params):
        Node.config(self, **params)
        local = str(self.localIntf or self.defaultIntf())
        steps = []
        if self.flush:  # the namespace is the NAT's own: it starts with no rules
            steps += ['iptables -F', 'iptables -t nat -F', 'iptables -P FORWARD DROP']
        steps += ['iptables -I FORWARD -i %s -d %s -j DROP' % (local, self.subnet),
                  'iptables -A FORWARD -i %s -s %s -j ACCEPT' % (local, self.subnet),
                  'iptables -A FORWARD -o %s -d %s -j ACCEPT' % (local, self.subnet),
                  "iptables -t nat -A POSTROUTING -s %s '!' -d %s -j MASQUERADE" % (self.subnet, self.subnet),
                  'sysctl -q net.ipv4.ip_forward=1']
        for step in steps:
            out = self.cmd(step + ' && echo FLOWLAB-OK')
            if 'FLOWLAB-OK' not in out:
                raise Exception('%s: NAT: `%s`: %s' % (self.name, step, out.strip()))

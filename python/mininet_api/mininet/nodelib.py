"""mininet.nodelib: LinuxBridge (the Linux bridge of the lab) and NAT (refused)."""
from mininet.node import LinuxBridge, Node  # noqa: F401 (LinuxBridge: what scripts import from here)


class NAT(Node):
    def __init__(self, name, **params):
        raise NotImplementedError('NAT(%s): flowlab labs do not reach outside the machine' % name)

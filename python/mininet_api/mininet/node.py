"""mininet.node: hosts, switches and controllers, Mininet's names. Each maps to a node
of a flowlab lab: Node and Host in mininet.basenode, the switches in mininet.switch,
the controllers in mininet.controller."""
from mininet.basenode import SENTINEL, Host, Node  # noqa: F401
from mininet.switch import (FlowlabSwitch, IVSSwitch, LinuxBridge, OVSBridge, OVSKernelSwitch,  # noqa: F401
                            OVSSwitch, Switch, UserSwitch)
from mininet.controller import (Controller, DefaultController, DefaultControllers, NOX,  # noqa: F401
                                OVSController, RemoteController, Ryu)


def __getattr__(name):
    """mininet.node.CPULimitedHost, Mininet's name of mininet.cpulimit's (loaded when asked for)."""
    if name == 'CPULimitedHost':
        from mininet.cpulimit import CPULimitedHost
        return CPULimitedHost
    raise AttributeError("module 'mininet.node' has no attribute '%s'" % name)

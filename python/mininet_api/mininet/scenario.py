"""A Mininet network as the flowlab scenario `flowlab lab up` builds: its hosts with their
addresses, its switches with their ports and the controllers each one's start() named,
its links with their shaping."""
from mininet.node import Controller, RemoteController, Ryu, Switch, UserSwitch


def port_name(switch, intf):
    """A switch port's name in the scenario: its interface name without the switch's prefix."""
    prefix = switch.name + '-'
    if not intf.name.startswith(prefix):
        raise NotImplementedError('%s: interface %s: a switch port is named %sNAME in flowlab\'s lab' %
                                  (switch.name, intf.name, prefix))
    return intf.name[len(prefix):]


def endpoint_name(intf):
    """An interface as the scenario names a link's end: h1:h1-eth0, s1:eth1."""
    node = intf.node
    return '%s:%s' % (node.name, port_name(node, intf) if isinstance(node, Switch) else intf.name)


def _controller_name(net, c, controllers):
    """The scenario's name of a controller a switch's start() named. A RemoteController at the
    address and port of one of the net's own controllers is that controller (in Mininet both
    listen on the machine's loopback; here the net's controllers listen in the lab's core
    namespace, where the switches are)."""
    if c in net.controllers:
        return c.name
    if not isinstance(c, Controller):
        raise TypeError('a switch started with %r: not a Controller' % (c,))
    if isinstance(c, RemoteController):
        for own in net.controllers:
            if not isinstance(own, RemoteController) and own.port == c.port and \
                    c.ip in ('127.0.0.1', 'localhost', own.ip):
                return own.name
    controllers.setdefault(c.name, c.lab_spec())
    return c.name


def _switch_spec(net, s, controllers):
    spec = s.lab_spec()
    spec['dpid'] = '0x' + s.dpid.lstrip('0') if s.dpid.strip('0') else '0x0'
    ports = sorted(p for p in s.intfs if s.intfs[p] is not getattr(s, 'controlIntf', None) and
                   not getattr(s.intfs[p], 'existing', False))  # the machine's: joined once up
    if ports == list(range(1, len(ports) + 1)):
        spec['ports'] = [port_name(s, s.intfs[p]) for p in ports]
    elif s.lab_kind == 'linux-bridge':
        raise NotImplementedError('%s: ports %s: a Linux bridge has no OpenFlow port numbers; its ports are '
                                  'numbered 1..n' % (s.name, ports))
    else:  # OpenFlow numbers as given (gaps kept): {name: number}
        spec['ports'] = dict((port_name(s, s.intfs[p]), p) for p in ports)
    if s.lab_kind != 'linux-bridge':
        chosen = s.controllers if s.controllers is not None else net.controllers
        names = []
        for c in chosen:
            name = _controller_name(net, c, controllers)
            if name not in names:
                names.append(name)
        spec['controller'] = (names[0] if len(names) == 1 else names) if names else 'none'
        if names and isinstance(s, UserSwitch):  # ofprotocol's way: one at a time, the next when it dies
            spec['controller_failover'] = True
        if names and 'protocols' not in spec and all(_reference(c) for c in chosen):
            spec['protocols'] = 'OpenFlow10'
    return spec


def _reference(c):
    """True for Mininet's own controller (Controller, OVSController and their subclasses): the
    reference controller, ovs-testcontroller, speaks OpenFlow 1.0 alone, so Mininet's switches talk
    1.0 to it, where a table miss goes to the controller without a flow. A script's `dpctl del-flows`
    (mobility.py, after moving a host) then leaves a network that learns again, as in Mininet; over
    OpenFlow 1.3 it would remove the learning switch's table-miss flow with the rest and nothing
    would reach the controller. A RemoteController or Ryu app negotiates as the switch allows."""
    return isinstance(c, Controller) and not isinstance(c, (RemoteController, Ryu))


def scenario_of(net):
    """The network as a flowlab scenario (a dict `flowlab lab up` reads as YAML)."""
    hosts, switches, controllers, links = {}, {}, {}, []
    for c in net.controllers:
        controllers[c.name] = c.lab_spec()
    for h in net.hosts:
        ifaces = {}
        for intf in h.intfList():
            if getattr(intf, 'existing', False):
                continue  # the machine's interface: moved in once the lab is up (mininet.hwintf)
            entry = {}
            if intf.ip:
                entry['addr'] = '%s/%s' % (intf.ip, intf.prefixLen or net.prefixLen)
            if intf.mac:
                entry['mac'] = intf.mac
            ifaces[intf.name] = entry
        hosts[h.name] = {'interfaces': ifaces} if ifaces else {}
    for s in net.switches:
        switches[s.name] = _switch_spec(net, s, controllers)
    for link in net.links:
        entry = {'endpoints': [endpoint_name(link.intf1), endpoint_name(link.intf2)]}
        entry.update(link.shape())
        links.append(entry)
    scenario = {'name': 'mininet', 'description': 'a Mininet script on flowlab\'s lab', 'hosts': hosts,
                'switches': switches, 'links': links}
    if controllers:
        scenario['controllers'] = controllers
    if any(s.lab_kind == 'ovs' for s in net.switches):
        # OVS's user-space datapath forwards a veth's partial checksums as they are: TCP
        # would break, so the hosts' offloads are off (docs/LAB.md, container-switch.yaml).
        scenario['cases'] = [{'name': 'default', 'offloads': False}]
    return scenario

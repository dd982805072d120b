#!/usr/bin/python3
"""Mininet's --custom topologies as JSON, for `flowlab lab run --custom F.py --topo NAME,ARGS`.

Usage: flowlab_custom_topo.py FILE.py[,FILE2.py] NAME[,ARG...][,KEY=VAL...]

Each FILE is executed as `mn --custom` does (one namespace per file; `topos` dicts
merged), the NAME entry is called with the arguments (numbers made numeric, as
mn's splitArgs does) and the Topo it returns is printed as one JSON object:
  {"flowlab_custom_topo": 1, "topo_module": ..., "hosts": [{"name", "opts"}],
   "switches": [{"name", "opts"}], "links": [{"node1", "node2", "port1", "port2", "opts"}]}
hosts and switches in Mininet's (natural) order, links in the order Mininet's
buildFromTopo creates them. A class in the options is {"class": NAME, "mro": [...]}.
Any failure prints {"flowlab_custom_topo": 1, "error": MESSAGE, "traceback": TEXT}
and exits 1.

The Topo is Debian's mininet.topo (no root, no OVS needed to import it); when that
module is absent, or FLOWLAB_TOPO_STANDIN=1, a small stand-in with the same
addHost/addSwitch/addLink behaviour is installed as `mininet.*` instead.
"""
import json
import os
import re
import sys
import traceback
import types


def _natural_key(text):
    return [int(p) if p.isdigit() else p for p in re.split(r'(\d+)', str(text))]


def _install_standin():
    """Registers stand-in mininet.{topo,util,log,link,node} modules."""
    util = types.ModuleType('mininet.util')
    util.irange = lambda start, end: range(start, end + 1)
    util.natural = _natural_key
    util.naturalSeq = lambda seq: [_natural_key(x) for x in seq]

    log = types.ModuleType('mininet.log')
    for name in ('info', 'output', 'warn', 'error', 'debug'):
        setattr(log, name, lambda *a, **k: None)
    log.setLogLevel = lambda *a, **k: None
    log.lg = types.SimpleNamespace(setLogLevel=log.setLogLevel)

    topo = types.ModuleType('mininet.topo')

    class Topo:
        """Mininet's Topo contract: nodes with options, links with per-end ports."""

        def __init__(self, *args, **params):
            self._nodes = {}        # name -> options, in insertion order
            self._links = []        # (key, options)
            self.hopts = params.pop('hopts', {})
            self.sopts = params.pop('sopts', {})
            self.lopts = params.pop('lopts', {})
            self.ports = {}
            self.build(*args, **params)

        def build(self, *args, **params):
            pass

        def addNode(self, name, **opts):
            self._nodes[name] = opts
            return name

        def addHost(self, name, **opts):
            return self.addNode(name, **(opts or dict(self.hopts)))

        def addSwitch(self, name, **opts):
            return self.addNode(name, isSwitch=True, **(opts or dict(self.sopts)))

        def isSwitch(self, n):
            return self._nodes[n].get('isSwitch', False)

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
            opts = dict(opts or self.lopts)
            self._nodes.setdefault(node1, {})
            self._nodes.setdefault(node2, {})
            port1, port2 = self.addPort(node1, node2, port1, port2)
            opts.update(node1=node1, node2=node2, port1=port1, port2=port2)
            self._links.append((key, opts))
            return key

        def nodes(self, sort=True):
            return sorted(self._nodes, key=_natural_key) if sort else list(self._nodes)

        def hosts(self, sort=True):
            return [n for n in self.nodes(sort) if not self.isSwitch(n)]

        def switches(self, sort=True):
            return [n for n in self.nodes(sort) if self.isSwitch(n)]

        def nodeInfo(self, name):
            return self._nodes[name]

        def links(self, sort=False, withKeys=False, withInfo=False):
            out = []
            for key, info in self._links:
                row = (info['node1'], info['node2'])
                if withKeys:
                    row += (key,)
                if withInfo:
                    row += (info,)
                out.append(row)
            if sort:
                out.sort(key=lambda r: [_natural_key(r[0]), _natural_key(r[1])])
            return out

        @staticmethod
        def sorted(items):
            return sorted(items, key=_natural_key)

    topo.Topo = Topo

    link = types.ModuleType('mininet.link')
    node = types.ModuleType('mininet.node')
    classes = {
        link: {'Intf': (), 'Link': (), 'TCIntf': ('Intf',), 'TCLink': ('Link',), 'TCULink': ('TCLink',),
               'OVSLink': ('Link',)},
        node: {'Node': (), 'Host': ('Node',), 'CPULimitedHost': ('Host',), 'Switch': ('Node',),
               'UserSwitch': ('Switch',), 'OVSSwitch': ('Switch',), 'OVSKernelSwitch': ('OVSSwitch',),
               'OVSBridge': ('OVSSwitch',), 'LinuxBridge': ('Switch',), 'Controller': ('Node',),
               'RemoteController': ('Controller',), 'OVSController': ('Controller',)},
    }
    for module, table in classes.items():
        for name, bases in table.items():
            parents = tuple(getattr(module, b) for b in bases) or (object,)
            setattr(module, name, type(name, parents, {}))

    root = types.ModuleType('mininet')
    root.__path__ = []
    for name, module in (('topo', topo), ('util', util), ('log', log), ('link', link), ('node', node)):
        setattr(root, name, module)
        sys.modules['mininet.' + name] = module
    sys.modules['mininet'] = root
    return 'flowlab stand-in'


def _topo_module():
    if os.environ.get('FLOWLAB_TOPO_STANDIN') != '1':
        try:
            import mininet.topo  # noqa: F401  (Debian's python3 mininet)
            return 'mininet.topo ' + os.path.dirname(mininet.topo.__file__)
        except ImportError:
            pass
    return _install_standin()


def _number(text):
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def _split_args(spec):
    """mn's --topo syntax: NAME,ARG,...,KEY=VAL (values numeric when they parse)."""
    parts = spec.split(',')
    args = [_number(p) for p in parts[1:] if '=' not in p]
    kwargs = dict((k, _number(v)) for k, v in (p.split('=', 1) for p in parts[1:] if '=' in p))
    return parts[0], args, kwargs


def _value(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return [_value(x) for x in v]
    if isinstance(v, dict):
        return dict((str(k), _value(x)) for k, x in v.items())
    if isinstance(v, type):
        return {'class': v.__name__, 'mro': [c.__name__ for c in v.__mro__ if c is not object]}
    func = getattr(v, 'func', None)  # functools.partial(TCLink, bw=10)
    if isinstance(func, type):
        return {'class': func.__name__, 'mro': [c.__name__ for c in func.__mro__ if c is not object],
                'partial': _value(dict(getattr(v, 'keywords', {}) or {}))}
    return {'repr': repr(v)}


def _export(files, spec):
    module = _topo_module()
    from mininet.topo import Topo
    topos = {}
    for name in files.split(','):
        if not os.path.isfile(name):
            raise Exception('could not find custom file: %s' % name)
        scope = {'__file__': name, '__name__': 'custom'}
        with open(name) as f:
            code = compile(f.read(), name, 'exec')
        sys.path.insert(0, os.path.dirname(os.path.abspath(name)))
        exec(code, scope, scope)  # what mn --custom does
        topos.update(scope.get('topos', {}))
    topo_name, args, kwargs = _split_args(spec)
    if topo_name not in topos:
        known = ', '.join(sorted(topos)) or 'none: the files define no topos = {...}'
        raise Exception('Invalid topo name %s (the custom files define: %s)' % (topo_name, known))
    topo = topos[topo_name](*args, **kwargs)
    if not isinstance(topo, Topo):
        raise Exception("topos['%s'] returned %s, not a mininet.topo.Topo" % (topo_name, type(topo).__name__))

    def opts(name):
        return dict((k, _value(v)) for k, v in topo.nodeInfo(name).items() if k != 'isSwitch')
    links = []
    for _src, _dst, info in topo.links(sort=True, withInfo=True):
        rest = dict((k, _value(v)) for k, v in info.items() if k not in ('node1', 'node2', 'port1', 'port2'))
        links.append({'node1': info['node1'], 'node2': info['node2'], 'port1': _value(info['port1']),
                      'port2': _value(info['port2']), 'opts': rest})
    return {'flowlab_custom_topo': 1, 'topo_module': module, 'topo': topo_name,
            'hosts': [{'name': h, 'opts': opts(h)} for h in topo.hosts()],
            'switches': [{'name': s, 'opts': opts(s)} for s in topo.switches()],
            'links': links}


def main(argv):
    if len(argv) != 3:
        sys.stderr.write('usage: flowlab_custom_topo.py FILE.py[,FILE.py] NAME[,ARG...]\n')
        return 2
    stdout = sys.stdout
    sys.stdout = sys.stderr  # what the custom files print stays off the JSON
    try:
        out = _export(argv[1], argv[2])
    except BaseException as e:  # a custom file may raise anything, SystemExit included
        frames = traceback.extract_tb(e.__traceback__)
        user = [f for f in frames if f.filename != __file__]
        where = ''
        if isinstance(e, SyntaxError) and e.filename:
            where = '%s:%s: ' % (e.filename, e.lineno)
        elif user:
            where = '%s:%s: in %s: ' % (user[-1].filename, user[-1].lineno, user[-1].name)
        tb = ''.join(traceback.format_list(user)) + ''.join(traceback.format_exception_only(type(e), e))
        msg = '%s%s: %s' % (where, type(e).__name__, e) if str(e) else where + type(e).__name__
        if type(e) is Exception:
            msg = where + str(e)
        stdout.write(json.dumps({'flowlab_custom_topo': 1, 'error': msg, 'traceback': tb}) + '\n')
        return 1
    stdout.write(json.dumps(out) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

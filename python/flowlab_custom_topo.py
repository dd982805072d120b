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
module is absent, or FLOWLAB_TOPO_STANDIN=1, flowlab's Mininet API (python/mininet_api,
the same addHost/addSwitch/addLink behaviour) is imported as `mininet` instead.
"""
import json
import os
import sys
import traceback


API_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'mininet_api')


def _install_standin():
    """Puts flowlab's Mininet API (python/mininet_api) first on the path as `mininet`."""
    for name in [m for m in sys.modules if m == 'mininet' or m.startswith('mininet.')]:
        del sys.modules[name]
    sys.path.insert(0, API_DIR)
    import mininet.topo  # noqa: F401
    return 'flowlab stand-in ' + API_DIR


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
        user = [f for f in frames if f.filename != __file__ and not f.filename.startswith(API_DIR)]
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

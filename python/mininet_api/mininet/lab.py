"""The flowlab side: `flowlab lab up` of a scenario written from a Mininet's nodes,
the lab's record (namespaces, addresses), `flowlab lab down`."""
import json
import os
import shutil
import socket
import subprocess
import tempfile

RUN_DIR = os.environ.get('FLOWLAB_STATE_DIR') or '/run/flowlab'  # where `flowlab lab` keeps its labs


def flowlab_bin():
    path = os.environ.get('FLOWLAB_BIN') or shutil.which('flowlab')
    if not path:
        raise Exception('flowlab: the flowlab binary is not found (run scripts with `flowlab mininet SCRIPT.py` '
                        'or put flowlab on PATH)')
    return path


class Lab:
    """One lab that is up: its id, its record, its folder."""

    def __init__(self, scenario):
        self.workdir = tempfile.mkdtemp(prefix='flowlab-mininet-')
        path = os.path.join(self.workdir, 'scenario.yaml')
        with open(path, 'w') as f:
            json.dump(scenario, f, indent=1)  # YAML reads JSON
        # --owner: the lab goes down by itself when this process exits on any path
        # (SIGKILL included), not only through stop() or atexit.
        p = subprocess.run([flowlab_bin(), 'lab', 'up', path, '--out', os.path.join(self.workdir, 'out'),
                            '--owner', str(os.getpid())],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        words = p.stdout.split()
        if p.returncode != 0 or len(words) < 2 or words[0] != 'lab':
            shutil.rmtree(self.workdir, ignore_errors=True)
            raise Exception('flowlab lab up failed (exit %d): %s' %
                            (p.returncode, (p.stderr.strip() or p.stdout.strip()).splitlines()[-1:]))
        self.id = words[1]
        record = os.path.join(RUN_DIR, self.id, 'lab.json')
        try:
            with open(record) as f:
                self.record = json.load(f)
        except (OSError, ValueError) as e:
            lab_id = self.id
            self.down()
            raise Exception('flowlab lab %s: its record %s: %s' % (lab_id, record, e))

    def host_namespace(self, name):
        return self.record['hosts'][name]

    def core_namespace(self):
        """The namespace of the lab's switches and controllers, as its record names it."""
        return self.record['core_ns']

    def control(self, request, timeout=90):
        """One request to the lab's supervisor on its control socket; its "out", or an exception."""
        path = os.path.join(RUN_DIR, self.id, 'control.sock')
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(path)
            s.sendall((json.dumps(request) + '\n').encode())
            data = b''
            while not data.endswith(b'\n'):
                piece = s.recv(65536)
                if not piece:
                    break
                data += piece
        reply = json.loads(data.decode() or '{}')
        if not reply.get('ok'):
            raise Exception('lab %s: %s' % (self.id, reply.get('error', 'no answer on ' + path)))
        return reply.get('out', '')

    def down(self):
        if self.id:
            subprocess.run([flowlab_bin(), 'lab', 'down', self.id], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, check=False)
            self.id = None
        shutil.rmtree(self.workdir, ignore_errors=True)

"""mininet.examples: Mininet's own examples as installed (Debian's python3-mininet, or the
folder $FLOWLAB_MININET_EXAMPLES names), run on flowlab's API:
`python3 -m mininet.examples.emptynet` with python/mininet_api first on the path, or
`flowlab mininet EXAMPLES/emptynet.py`. Nothing of them is copied here."""
import os

__path__ = [os.environ.get('FLOWLAB_MININET_EXAMPLES') or '/usr/lib/python3/dist-packages/mininet/examples']

# Sphinx configuration of vgpu's documentation (`make htmldocs`).
#
# The ``kernel-doc`` directive is the kernel's own Sphinx extension, taken
# from the test kernel's source tree (VGPU_KDIR, set by the make target):
# the uapi headers and the driver's structures and functions are rendered
# from their kernel-doc comments, so they cannot drift from the code.
import os
import sys

kdir = os.environ.get('VGPU_KDIR')
if not kdir:
    sys.exit('conf.py: VGPU_KDIR must name the test kernel source (make htmldocs sets it)')
sys.path.insert(0, os.path.join(kdir, 'Documentation', 'sphinx'))

project = 'vgpu'
copyright = 'the vgpu developers'
extensions = ['kerneldoc']
kerneldoc_bin = os.path.join(kdir, 'scripts', 'kernel-doc')
kerneldoc_srctree = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
primary_domain = 'c'
highlight_language = 'none'
exclude_patterns = ['results', 'ABI']
html_theme = 'alabaster'

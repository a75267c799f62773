"""``python -m kernelkit``: the same as the ``kernelkit`` command."""

import sys

from kernelkit.cli import main

if __name__ == "__main__":
    sys.exit(main())

"""``python -m kernelkit``: the same as the ``kernelkit`` command."""

from kernelkit.cli import run

if __name__ == "__main__":
    run()

"""kernelkit benchmarks: each bench times kernelkit and its peer in one process."""

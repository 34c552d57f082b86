"""The `homefabric` command line: a thin composition layer over the emulator, bridges and benchmark."""

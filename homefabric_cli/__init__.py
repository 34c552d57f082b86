"""The `homefabric` command line: a thin composition layer over the emulator, bridges and benchmark."""

from homefabric_cli.tls_on_demand import defer_tls

defer_tls()  # before any command imports asyncio: TLS is loaded by its first use (tls_on_demand's docstring)

"""The command-line options that choose where units of work run (``dataset build``, ``episodes generate``, ``bench
run``, ``speech render``): one declaration, so the four commands say the same. Imports typer alone (the CLI loads
this on every start)."""

from __future__ import annotations

from typing import Annotated

import typer

ExecutorOption = Annotated[
    str,
    typer.Option(
        "--executor", help="local (this process) or ray (units of work as Ray tasks; the same output, byte for byte)."
    ),
]
AddressOption = Annotated[
    str | None, typer.Option("--address", help="ray: a running cluster (host:port); none: a local one.")
]
WorkersOption = Annotated[
    int | None, typer.Option("--workers", help="ray without --address: CPUs of the local cluster.")
]

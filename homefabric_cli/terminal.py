"""How the command line looks: output consoles that do not wrap tables at 80 columns in a pipe or a log, ``-h``
beside ``--help``, and no ``<bool>`` type label on flags (a flag takes no value)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from typer.core import TyperOption

if TYPE_CHECKING:
    from rich.console import Console

HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}  # context_settings of the top Typer (sub-commands inherit)
LOG_WIDTH = 1000  # a table in a pipe or a log keeps one line per row


def output_console(*, stderr: bool = False, soft_wrap: bool = False) -> Console:
    """A terminal's own width; in a pipe or a log (no terminal, no COLUMNS) wide enough never to wrap a table."""
    from rich.console import Console  # here: a command that never prints through rich does not load it

    stream = sys.stderr if stderr else sys.stdout
    interactive = hasattr(stream, "isatty") and stream.isatty()
    width = None if interactive or os.environ.get("COLUMNS") else LOG_WIDTH
    return Console(stderr=stderr, soft_wrap=soft_wrap, width=width)


def _flag_label_hidden(option: TyperOption, ctx: Any) -> str | None:
    if option.is_flag and not option.count:
        return None  # a flag's "type" is not something the user types
    return _typer_display_type(option, ctx)


_typer_display_type = TyperOption.display_type_rich
TyperOption.display_type_rich = _flag_label_hidden  # type: ignore[method-assign,assignment]


def runnable_command() -> str:
    """How to run this program again in a fresh shell: ``homefabric`` when that name on PATH is this program,
    else its path (relative when under the working directory, e.g. ``.venv/bin/homefabric`` after `make run`)."""
    import shlex
    import shutil
    from pathlib import Path

    me = Path(sys.argv[0]).absolute()
    on_path = shutil.which("homefabric")
    if on_path is not None and Path(on_path).resolve() == me.resolve():
        return "homefabric"
    try:
        shown = str(me.relative_to(Path.cwd()))
    except ValueError:
        shown = str(me)
    return shlex.quote(shown)

"""Where `serve` keeps a home's rules between runs: ``<state-dir>/automations.json``, rewritten atomically
after every change (a rule added, removed, enabled, disabled, or fired), so a crash (kill -9) loses nothing
that was acknowledged. When the file exists it is the truth and replaces the home file's rules."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from emulator.automations.model import AutomationRule
from emulator.emulated_home import EmulatedHome
from emulator.files import write_atomically
from emulator.home_config import json_path

STORE_NAME = "automations.json"
_RULES = TypeAdapter(list[AutomationRule])


class AutomationStoreError(ValueError):
    """An unreadable or invalid rules file; the message names the file and the first problem."""


def load_rules(path: Path) -> list[AutomationRule]:
    try:
        return _RULES.validate_json(path.read_bytes())
    except OSError as error:
        raise AutomationStoreError(f"{path}: cannot read the rules file: {error}") from None
    except ValidationError as error:
        first = error.errors()[0]
        where = json_path(first["loc"])
        raise AutomationStoreError(
            f"{path}: invalid rules file: {where + ': ' if where else ''}{first['msg']}"
        ) from None


def dump_rules(rules: list[AutomationRule]) -> str:
    return json.dumps(_RULES.dump_python(rules, mode="json"), indent=2, ensure_ascii=False) + "\n"


def keep_automations(fabric: EmulatedHome, state_dir: Path, *, fresh: bool = False) -> Callable[[], None]:
    """Load the stored rules into ``fabric`` (if any; not when ``fresh``: then the home file's rules replace
    them, as ``serve --fresh`` promises) and save them on every change; returns the unhook."""
    path = state_dir / STORE_NAME
    if path.exists() and not fresh:
        fabric.replace_automations(load_rules(path))

    def save() -> None:
        write_atomically(path, dump_rules(fabric.automations()))

    save()
    return fabric.on_automations_changed(save)

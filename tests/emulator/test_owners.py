"""The home engine stays a front over small owners: no class in emulator/ over 300 lines, and the rule engine
works against its narrow ``RuleHost`` protocol, never the home (no emulated_home ↔ automations file cycle)."""

from __future__ import annotations

import ast
from pathlib import Path

from emulator.automations.host import RuleHost
from emulator.emulated_home import EmulatedHome
from tests.emulator.helpers import fabric

EMULATOR = Path(__file__).resolve().parents[2] / "emulator"
MAX_CLASS_LINES = 300


def _classes(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.name, node.end_lineno - node.lineno + 1)  # type: ignore[operator]  # a parsed class has its end
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    ]


def _imported_modules(path: Path) -> set[str]:
    """Every module a file imports, TYPE_CHECKING blocks and function bodies included."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return out


def test_no_class_in_the_emulator_is_over_300_lines() -> None:
    sizes = {
        f"{path.relative_to(EMULATOR.parent)}:{name}": lines
        for path in sorted(EMULATOR.rglob("*.py"))
        for name, lines in _classes(path)
    }
    assert sizes, "no classes found: wrong folder"
    too_big = {where: lines for where, lines in sizes.items() if lines > MAX_CLASS_LINES}
    assert not too_big, f"classes over {MAX_CLASS_LINES} lines (split them into owners): {too_big}"


def test_the_class_size_check_sees_a_big_class(tmp_path: Path) -> None:
    planted = tmp_path / "big.py"
    planted.write_text("class Big:\n" + "    x = 1\n" * MAX_CLASS_LINES, encoding="utf-8")
    assert _classes(planted) == [("Big", MAX_CLASS_LINES + 1)]


def test_the_rule_engine_knows_a_protocol_not_the_home() -> None:
    # what the home itself imports of the rules (equivalence.py and domains.py sit above the home: they build one)
    for name in ("engine", "crossings", "host", "home_rules", "model", "cron"):
        imported = _imported_modules(EMULATOR / "automations" / f"{name}.py")
        assert "emulator.emulated_home" not in imported, f"emulator/automations/{name}.py imports the home"
    home = fabric([("lamp", "dimmable_light", "living_room")])
    assert isinstance(home, EmulatedHome)
    host: RuleHost = home  # the home offers exactly the narrow view the engine needs
    assert host.read("lamp", 1, "OnOff", "OnOff") is False
    assert host.physics_source("lamp", "1.OnOff.OnOff") is None

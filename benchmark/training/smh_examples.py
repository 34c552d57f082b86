"""SMH-Bench examples: instances of one (subcategory, tier), solved by the suite's oracle in the EIA setting.

A unit generates its instances with the SMH generator (``generate_instances(seed, {tier: n}, (subcategory,))``:
every instance has its own seeded draw, so a unit never depends on the others), runs the oracle through the
``smh`` tool profile (``query_device``, ``control_device``, ``create_automation``, ``ask_user``) on the instance's
initial home, records each call with what it returned, and keeps the verifier's verdict. The home is the
instance's home config (all complex-tier instances share the suite's one complex home, so the split rule keeps
them in one split); the template is the sequence of phrase templates (strings with ``{…}`` slots) the
generator's scene picked.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmark.training.examples import RecordingTools, TrainingExample, chat_messages


class RecordingOracle:
    """The SMH oracle (EIA) with its tool calls recorded; keeps the messages and schemas it was given."""

    name = "oracle"

    def __init__(self) -> None:
        self.recorder: RecordingTools | None = None
        self.messages: list[dict[str, Any]] = []

    async def run(self, instance: Any, tools: Any, messages: list[dict[str, Any]]) -> Any:
        from benchmark.suites.smh.agents import OracleEia

        self.recorder = RecordingTools(tools, [])
        self.messages = messages
        return await OracleEia().run(instance, self.recorder, messages)  # type: ignore[arg-type]  # RecordingTools stands in for the EIA tools


@contextmanager
def _picked_phrases() -> Iterator[list[str]]:
    """The phrase templates (strings with a ``{`` slot) the SMH scene picks while this is open."""
    from benchmark.generation.grammar import PICKED_TEMPLATES

    picked: list[str] = []
    token = PICKED_TEMPLATES.set(picked)
    try:
        yield picked
    finally:
        PICKED_TEMPLATES.reset(token)


def smh_unit(seed: int, subcategory: str, tier: str, first: int, count: int) -> list[TrainingExample]:
    """Instances ``first..first+count-1`` (0-based, as the SMH generator numbers them) of one subcategory and tier."""
    from benchmark.suites.smh.generate import generate_instances
    from benchmark.suites.smh.session import Homes
    from benchmark.suites.smh.settings import run_eia
    from emulator.home_config import dump_home

    per_instance: list[list[str]] = []
    instances: list[Any] = []
    homes: dict[str, Any] = {}
    for index in range(first, first + count):  # one generator call per instance: its picked phrases are its own
        with _picked_phrases() as picked:
            made, made_homes = generate_instances(seed, {tier: index + 1}, (subcategory,))
        instances.append(made[-1])
        homes.update(made_homes)
        per_instance.append(list(picked))
    examples = []
    with tempfile.TemporaryDirectory(prefix="smh-unit-") as temp:
        suite = Path(temp)
        (suite / "homes").mkdir()
        for name, home in homes.items():
            (suite / "homes" / f"{name}.json").write_text(dump_home(home), encoding="utf-8")
        loaded = Homes(suite)
        for instance, picked in zip(instances, per_instance, strict=True):
            oracle = RecordingOracle()
            outcome = asyncio.run(run_eia(instance, oracle, loaded))
            assert oracle.recorder is not None
            calls = oracle.recorder.calls
            home = json.loads(dump_home(loaded.config(instance.home)))
            turns = [{"role": turn.role, "text": turn.text} for turn in instance.dialogue_history]
            turns += [
                {"role": "user", "text": instance.user_query},
                {"role": "assistant", "text": outcome.prediction.response or ""},
            ]
            examples.append(
                TrainingExample(
                    example_id=f"smh/{instance.id}",
                    suite="smh",
                    kind=f"{subcategory}/{tier}",
                    episode_seed=seed,
                    home=home,
                    user_location=instance.entrance_device,
                    current_time=instance.current_time,
                    turns=turns,
                    gold_tool_calls=calls,
                    final_state_checks=instance.goal.model_dump(mode="json"),
                    oracle_passed=outcome.verdict.overall_pass,
                    templates=picked,
                    messages=[
                        *chat_messages(oracle.messages, calls),
                        {"role": "assistant", "content": outcome.prediction.response or ""},
                    ],
                    tools=oracle.recorder.schemas(),
                )
            )
    return examples

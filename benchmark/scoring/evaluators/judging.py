"""The seam between the evaluator and its judges: what a judge is given (:class:`JudgeRequest`) and what it
must do (:class:`Judge`). Declared here, below the judges (``benchmark.scoring.judges``), which implement it — so
the evaluator never imports a judge and the judges may use the evaluator's helpers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from benchmark.scoring.verdicts import JudgeRecord
from benchmark.suites.simuhome.episode import Episode
from emulator.emulated_home import EmulatedHome


@dataclass
class JudgeRequest:
    episode: Episode
    final_answer: str
    steps: list[dict[str, Any]]
    invocations: list[dict[str, Any]]
    after: dict[str, Any]  # the home when the agent finished
    fabric: EmulatedHome  # at that same moment (read-only use)
    changes: list[dict[str, Any]]  # device attributes the agent changed (vs the no-agent world)
    workflows: list[dict[str, Any]] = field(default_factory=list)  # every workflow the agent scheduled


class Judge(Protocol):
    name: str

    async def judge(self, request: JudgeRequest) -> JudgeRecord:
        """``passed`` None: the judge could not decide (an infrastructure error)."""
        ...

"""The optional LLM judge of query answers: the project's 3-vote majority judge (``benchmark.judges.llm.LLMJudge``)
with an SMH rubric — the question, the expected answer recomputed from the home, and the agent's response."""

from __future__ import annotations

import asyncio
from typing import Any

from benchmark.judges.llm import LLMJudge
from benchmark.smh.instance import Instance

RUBRIC = """\
You grade a smart-home assistant's answer to a question about the home. The expected answer was computed \
from the home's state and is correct. PASS if the response states the same facts (wording, units and extra \
correct detail do not matter); FAIL if a fact is missing, wrong or hedged. Reply with JSON {"verdict": "pass"} \
or {"verdict": "fail"} and nothing else."""


class SmhAnswerJudge(LLMJudge):
    name = "llm"

    async def judge_answer(self, instance: Instance, response: str) -> dict[str, Any]:
        expected = instance.goal.answer
        messages = [{"role": "system", "content": RUBRIC},
                    {"role": "user", "content": f"QUESTION: {instance.user_query}\nEXPECTED: "
                                                f"{expected.text if expected else ''} (facts: "
                                                f"{expected.facts if expected else []})\nRESPONSE: {response}"}]
        votes = await asyncio.gather(*(self._vote(client, messages) for client in self.clients))
        passes = sum(v["vote"] == "pass" for v in votes)
        fails = sum(v["vote"] == "fail" for v in votes)
        decided = passes + fails >= min(len(self.clients) // 2 + 1, len(self.clients))
        return {"name": self.name, "passed": passes > fails if decided else None, "votes": votes,
                "error": None if decided else f"only {passes + fails} of {len(self.clients)} votes were usable"}

"""The optional LLM judges: the project's 3-vote majority judge (``benchmark.scoring.judges.llm.LLMJudge``) with SMH
rubrics — for query answers (the question, the expected answer recomputed from the home, the response) and
for clarifying questions (the request, the missing slot and the hidden intent, the agent's question), the
paper's two judge roles (§5). The rules judges stay beside them: a judge that cannot decide leaves the
rules verdict, and both verdicts are recorded."""

from __future__ import annotations

import asyncio
from typing import Any

from benchmark.scoring.judges.llm import LLMJudge
from benchmark.suites.smh.instance import Instance

RUBRIC = """\
You grade a smart-home assistant's answer to a question about the home. The expected answer was computed \
from the home's state and is correct. PASS if the response states the same facts (wording, units and extra \
correct detail do not matter); FAIL if a fact is missing, wrong or hedged. Reply with JSON {"verdict": "pass"} \
or {"verdict": "fail"} and nothing else."""


CLARIFICATION_RUBRIC = """\
You grade a smart-home assistant's clarifying question. The user's request leaves a detail open (the SLOT); \
what the user really wants is the INTENT. PASS if the question asks the user for that missing detail (any \
wording; offering choices counts); FAIL if it asks about something else, asks nothing, or already assumes \
the answer. Reply with JSON {"verdict": "pass"} or {"verdict": "fail"} and nothing else."""


class _Majority(LLMJudge):
    name = "llm"

    async def _decide(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        votes = await asyncio.gather(*(self._vote(client, messages) for client in self.clients))
        passes = sum(v["vote"] == "pass" for v in votes)
        fails = sum(v["vote"] == "fail" for v in votes)
        decided = passes + fails >= min(len(self.clients) // 2 + 1, len(self.clients))
        return {
            "name": self.name,
            "passed": passes > fails if decided else None,
            "votes": votes,
            "error": None if decided else f"only {passes + fails} of {len(self.clients)} votes were usable",
        }


class SmhAnswerJudge(_Majority):
    async def judge_answer(self, instance: Instance, response: str) -> dict[str, Any]:
        expected = instance.goal.answer
        return await self._decide(
            [
                {"role": "system", "content": RUBRIC},
                {
                    "role": "user",
                    "content": f"QUESTION: {instance.user_query}\nEXPECTED: "
                    f"{expected.text if expected else ''} (facts: "
                    f"{expected.facts if expected else []})\nRESPONSE: {response}",
                },
            ]
        )


class SmhClarificationJudge(_Majority):
    async def judge_clarification(self, instance: Instance, question: str) -> dict[str, Any]:
        clarification = instance.goal.clarification
        slot = clarification.slot if clarification else "unknown"
        return await self._decide(
            [
                {"role": "system", "content": CLARIFICATION_RUBRIC},
                {
                    "role": "user",
                    "content": f"REQUEST: {instance.user_query}\nSLOT: {slot}\nINTENT: "
                    f"{instance.intended_query or instance.user_query}\nQUESTION: {question}",
                },
            ]
        )

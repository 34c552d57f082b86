"""The simulated user of clarification and multi-turn instances: it knows the hidden intent and answers.

``RuleUser`` (the default) is deterministic: a question for an instance that needs one gets the scripted
reply (``goal.clarification.reply``); any other question gets the intended request restated, or "just do
what I said". ``LlmUser`` answers through any OpenAI-compatible endpoint, grounded in the hidden intent and
the scripted reply. ``ReplayUser`` answers from a recorded transcript (a record's ``prediction.questions``),
so a run with an LLM user can be replayed exactly. Every exchange is kept in ``transcript``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Sequence
from typing import Any

from benchmark.suites.smh.instance import Instance

NOTHING_TO_ADD = "Nothing to add — please just do what I asked."


class RuleUser:
    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        self.transcript: list[dict[str, str]] = []

    def __call__(self, question: str) -> str:
        clarification = self.instance.goal.clarification
        reply = clarification.reply if clarification is not None else self.instance.intended_query or NOTHING_TO_ADD
        self.transcript.append({"question": question, "reply": reply})
        return reply


def question_fits(instance: Instance, question: str | None) -> bool:
    """Rules judge of a clarifying question: it is a question about the missing slot (mentions a cue)."""
    clarification = instance.goal.clarification
    if not question or clarification is None:
        return False
    text = question.lower()
    return any(cue.lower() in text for cue in clarification.accepts) or not clarification.accepts


class ReplayUser(RuleUser):
    """Answers the n-th question with the n-th recorded reply (then falls back to the rules)."""

    def __init__(self, instance: Instance, recorded: Sequence[dict[str, str]]) -> None:
        super().__init__(instance)
        self._recorded = list(recorded)

    def __call__(self, question: str) -> str:
        index = len(self.transcript)
        if index >= len(self._recorded):
            return super().__call__(question)
        reply = self._recorded[index]["reply"]
        self.transcript.append({"question": question, "reply": reply})
        return reply


USER_PROMPT = """You play the user of a smart home talking to its assistant. What you actually want: {intent}
If the assistant asks about it, the answer you give is: {reply}
Answer the assistant's question in one short sentence, as that user. Do not invent other wishes."""


class LlmUser(RuleUser):
    """An LLM plays the user (``client``: the project's LLMClient); calls are synchronous for the tools."""

    def __init__(self, instance: Instance, client: Any) -> None:
        super().__init__(instance)
        self.client = client

    def __call__(self, question: str) -> str:
        clarification = self.instance.goal.clarification
        prompt = USER_PROMPT.format(
            intent=self.instance.intended_query or self.instance.user_query,
            reply=clarification.reply if clarification else NOTHING_TO_ADD,
        )
        messages = [{"role": "system", "content": prompt}, {"role": "user", "content": question}]
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:  # the agent's loop is running
            response = pool.submit(asyncio.run, self.client.complete(messages)).result()
        reply = (response.content or "").strip() or NOTHING_TO_ADD
        self.transcript.append({"question": question, "reply": reply})
        return reply

"""The simulated user of clarification and multi-turn instances: it knows the hidden intent and answers.

``RuleUser`` (the default) is deterministic: a question for an instance that needs one gets the scripted
reply (``goal.clarification.reply``); any other question gets the intended request restated, or "just do
what I said". Every exchange is kept in ``transcript`` (recorded with the run, replayable as is).
"""

from __future__ import annotations

from benchmark.smh.instance import Instance

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

"""The null agent: does nothing and finishes with an empty-ish answer (the floor every score must beat)."""

from __future__ import annotations

from benchmark.agents.base import AgentBase, AgentOutcome, AgentStep, AgentTask, ToolCaller

NULL_ANSWER = "OK."


class NullAgent(AgentBase):
    name = "null"
    needs_episode = False

    async def run(self, task: AgentTask, tools: ToolCaller) -> AgentOutcome:
        envelope = tools.call("finish", {"answer": NULL_ANSWER})
        return AgentOutcome(NULL_ANSWER, [AgentStep(0, None, "finish", {"answer": NULL_ANSWER}, envelope)], "finished")

"""The voice suite's oracle: carries out each turn's gold tool calls through the agent tools, or asks the
turn's clarifying question — proving every generated dialogue solvable by an agent and that the scoring
agrees. The dialogue runner hands it the turn's gold in ``task.extras["voice_gold"]`` (``needs_episode``)."""

from __future__ import annotations

from benchmark.agents.base import AgentOutcome, AgentStep, AgentTask, ToolCaller


class VoiceOracleAgent:
    name = "oracle"
    needs_episode = True

    async def run(self, task: AgentTask, tools: ToolCaller) -> AgentOutcome:
        gold = task.extras["voice_gold"]
        steps: list[AgentStep] = []
        if gold["ask"] is not None:
            answer = gold["ask"]
        else:
            for call in gold["calls"]:
                envelope = tools.call(call["tool"], call["args"])
                steps.append(AgentStep(len(steps), None, call["tool"], call["args"], envelope))
            answer = "Done."
        envelope = tools.call("finish", {"answer": answer})
        steps.append(AgentStep(len(steps), None, "finish", {"answer": answer}, envelope))
        return AgentOutcome(answer, steps, "finished")

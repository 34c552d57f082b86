"""Agents: oracle, null, replay, react. Each implements benchmark.agents.base.Agent."""

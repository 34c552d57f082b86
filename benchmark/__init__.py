"""The benchmark: episodes (import, generate), evaluators, agents, a resumable parallel runner, reports."""

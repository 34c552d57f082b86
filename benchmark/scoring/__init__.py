"""Scoring an agent's episode: evaluators (what the home shows), judges (rules or an LLM), verdicts."""

"""Talking to an OpenAI-compatible model endpoint: the client and the checks before a run."""

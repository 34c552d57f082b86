"""Test helpers that ship with the package (the CLI demo uses them too): a scripted OpenAI-compatible stand-in."""

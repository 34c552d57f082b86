"""The seeded episode generator (see ``benchmark.generation.generate`` for the entry points)."""

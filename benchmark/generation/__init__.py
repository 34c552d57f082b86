"""The seeded episode generator (see ``benchmark.generate`` for the entry points)."""

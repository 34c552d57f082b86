"""Training data and reinforcement learning on the benchmark's suites.

``homefabric dataset build`` turns generated episodes, solved by the oracle, into seeded train / validation / test
splits (Hugging Face ``datasets`` on disk, Parquet, and chat-format JSONL with tool calls); the Gymnasium
environment ``homefabric/SmartHome-v0`` rolls the same episodes out with the episode's verifier as the reward.
Work is cut into deterministic units run by :mod:`benchmark.execution` in this process or, with ``--executor ray``,
as Ray tasks; the output is byte-identical either way. Nothing here imports Ray.
"""

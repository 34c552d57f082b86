"""Judges of the answer-scored kinds, one module per job: ``rules`` (deterministic checks, with the answer
vocabulary in ``words``) and ``llm`` (a 3-vote model majority). They implement
``benchmark.scoring.evaluators.judging.Judge``."""

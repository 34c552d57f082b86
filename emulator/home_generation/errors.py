"""The one error of home generation."""

from __future__ import annotations


class GeneratorError(ValueError):
    """Parameters that cannot produce a home (e.g. more rooms than the layout offers)."""

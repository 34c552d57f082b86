"""Serving the emulated home to real controllers (Matter bridge)."""

"""Seeded home generation: SimuHome's home-construction recipe (facts §7.1–§7.3) and bigger tiers.

``device_types`` (which devices go in which room), ``layouts`` (which rooms a home has), ``params``
(validated parameters and the named tiers), ``seeds`` (stable sub-seeds), ``generator`` (the algorithm)
and ``summary`` (a home's figures for the command line).
"""

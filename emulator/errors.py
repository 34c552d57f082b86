"""The home's one error type, :class:`clusters.status.HomeError`: defined where refusals begin (the clusters),
raised unchanged up to the tools, the HTTP/MQTT answers and the Matter wire."""

from clusters.status import HomeError

__all__ = ["HomeError"]

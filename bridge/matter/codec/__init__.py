"""Layer 1 of the Matter package: bytes in, bytes out — TLV, attribute values as TLV, the message frame, DER,
declarative TLV records (one field table drives encode and decode), and the on-disk JSON state (atomic
documents, persisted counters, the key-value store).

Depends on nothing else in ``bridge.matter``; every higher layer may use it.
"""

"""Layer 3: secure sessions — the request context, exchanges, MRP, the secure channel, PASE, CASE (and its
resumption store), the handshake driver, the protocol dispatch registry, message privacy, group messages and
the fabric table whose operational keys CASE and group messages need. Uses ``codec`` and ``crypto``.
"""

"""Layer 3: secure sessions — the request context, exchanges (each on a message channel, which the sessions
implement), MRP, the secure channel, PASE and CASE (their messages as TLV field tables; CASE's resumption store),
the handshake driver, the protocol dispatch registry, message privacy, group messages and the fabric table whose
operational keys CASE and group messages need. Uses ``codec`` and ``crypto``.
"""

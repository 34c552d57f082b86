"""The Matter protocol layer: TLV, messages, crypto, PASE, CASE and operational certificates.

Each module has one job and depends only on the standard library, ``cryptography`` and
``chip.tlv``; nothing here knows about the emulated home.
"""

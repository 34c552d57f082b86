"""Layer 2: the cryptography — primitives, P-256, SPAKE2+, operational certificates, fabric keys and the
device attestation chain. Uses only ``codec`` below it.
"""

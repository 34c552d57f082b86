"""The Matter face of the emulated home: a bridge node speaking the Matter protocol over UDP.

Layered as matter.js is; a layer imports only the layers before it (checked by
``tests/architecture/test_import_graph.py``):

    codec  ←  crypto  ←  session  ←  im  ←  node

Real dependencies: the standard library; ``cryptography`` (AES-CCM, HKDF, P-256, X.509), ``chip``
(``chip.tlv``), ``zeroconf`` and ``ifaddr`` (mDNS, interfaces), ``segno`` (the setup QR code); ``clusters``
(cluster servers, status codes, the official model of ids and types: ``clusters.chip_model``) from the codec
layer up; ``emulator`` for the emulated home in ``node/bridge_node.py``, and its loop hand-off helper
(``emulator.loop_handoff``, plain asyncio) in ``im/interaction.py``.
"""

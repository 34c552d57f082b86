"""Layer 5: the node — the runtime that wires the layers below to a UDP transport, the bridge node that
exposes the emulated home, commissioning, mDNS, the setup payload, group membership and the root-endpoint
clusters (``root/``). The only layer that knows about the emulated home.
"""

"""Layer 4: the Interaction Model — message codecs, read / subscribe / write / invoke, report chunking,
the event log, the data-model seam, privileges and access resolution, and persisted subscriptions.
Uses ``codec``, ``crypto`` and ``session``.
"""

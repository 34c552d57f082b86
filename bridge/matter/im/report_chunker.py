"""AttributeReportIB encoding and the splitting of a report into ReportData chunks.

A ReportData message must fit one UDP datagram (≤ 1280 bytes with headers), so a big report (a
wildcard read of the whole bridge, a subscription's priming report) goes out as many chunks
(Matter core spec §10.6.4.4/§8.4.3.3). Each chunk holds whole AttributeReportIBs; a list attribute
too big for one chunk is split the way the spec prescribes: a first IB replacing the list with the
elements that fit, then one IB per remaining element with ListIndex null ("append").

Chunks are produced lazily, so attribute values are read while the previous chunk is in flight.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from bridge.matter.codec.values_tlv import encode_uint, retag

_DATA_IB_HEAD = b"\x15\x35\x01"  # AttributeReportIB { 1: AttributeDataIB {
_IB_TAIL = b"\x18\x18"


@functools.lru_cache(maxsize=1 << 17)  # paths recur in every read and report
def attribute_path_bytes(endpoint: int, cluster: int, attribute: int, *, append: bool = False) -> bytes:
    """AttributePathIB (a TLV list, context tag 1) with ListIndex null when ``append``."""
    return (
        b"\x37\x01"
        + encode_uint(endpoint, 2)
        + encode_uint(cluster, 3)
        + encode_uint(attribute, 4)
        + (b"\x34\x05" if append else b"")
        + b"\x18"
    )


def attribute_data_report(version: int, endpoint: int, cluster: int, attribute: int, data_tag2: bytes) -> bytes:
    """One AttributeReportIB carrying AttributeDataIB; ``data_tag2`` is the value encoded with context tag 2."""
    return (
        _DATA_IB_HEAD
        + encode_uint(version, 0)
        + attribute_path_bytes(endpoint, cluster, attribute)
        + data_tag2
        + _IB_TAIL
    )


def attribute_status_report(endpoint: int | None, cluster: int | None, attribute: int | None, status: int) -> bytes:
    """One AttributeReportIB carrying AttributeStatusIB for a (concrete) path."""
    path = b"\x37\x00"
    for tag, value in ((2, endpoint), (3, cluster), (4, attribute)):
        if value is not None:
            path += encode_uint(value, tag)
    path += b"\x18"
    return b"\x15\x35\x00" + path + b"\x35\x01" + encode_uint(int(status), 0) + b"\x18" + _IB_TAIL


@dataclass
class ListReport:
    """A list attribute's report, kept as encoded elements so that it can be split across chunks."""

    version: int
    endpoint: int
    cluster: int
    attribute: int
    elements: list[bytes]  # anonymous TLV elements

    def _prefix(self, *, append: bool = False) -> bytes:
        return (
            _DATA_IB_HEAD
            + encode_uint(self.version, 0)
            + attribute_path_bytes(self.endpoint, self.cluster, self.attribute, append=append)
        )

    @functools.cached_property
    def _replace_prefix(self) -> bytes:
        return self._prefix()

    def size_with(self, count: int) -> int:
        """Encoded size of the replacing IB that carries the first ``count`` elements."""
        return len(self._replace_prefix) + 2 + sum(len(e) for e in self.elements[:count]) + 1 + len(_IB_TAIL)

    def replace_ib(self, count: int | None = None) -> bytes:
        items = self.elements if count is None else self.elements[:count]
        return self._replace_prefix + b"\x36\x02" + b"".join(items) + b"\x18" + _IB_TAIL

    def append_ib(self, element: bytes) -> bytes:
        return self._prefix(append=True) + retag(element, 2) + _IB_TAIL


ReportItem = bytes | ListReport


def chunk_reports(
    attribute_items: Iterable[ReportItem], event_items: Iterable[bytes], budget: int
) -> Iterator[tuple[list[bytes], list[bytes]]]:
    """Yield (attribute IBs, event IBs) per chunk, each chunk's IBs totalling ≤ ``budget`` bytes.

    Always yields at least one (possibly empty) chunk. An IB bigger than a whole chunk that cannot be
    split (not a list) goes alone in its own chunk.
    """
    attrs: list[bytes] = []
    events: list[bytes] = []
    size = 0

    def fits(n: int) -> bool:
        return size + n <= budget

    for item in attribute_items:
        if isinstance(item, bytes):
            if not fits(len(item)) and (attrs or events):
                yield attrs, events
                attrs, events, size = [], [], 0
            attrs.append(item)
            size += len(item)
            continue
        full = item.size_with(len(item.elements))
        if fits(full):
            attrs.append(item.replace_ib())
            size += full
            continue
        if full <= budget:
            yield attrs, events
            attrs, events, size = [item.replace_ib()], [], full
            continue
        # Too big for any chunk: replace with the leading elements that fit, then append the rest.
        if not fits(item.size_with(0)) and attrs:
            yield attrs, events
            attrs, events, size = [], [], 0
        count = 0
        running = item.size_with(0)
        while count < len(item.elements) and size + running + len(item.elements[count]) <= budget:
            running += len(item.elements[count])
            count += 1
        attrs.append(item.replace_ib(count))
        size += running
        for element in item.elements[count:]:
            ib = item.append_ib(element)
            if not fits(len(ib)) and attrs:
                yield attrs, events
                attrs, events, size = [], [], 0
            attrs.append(ib)
            size += len(ib)
    for ib in event_items:
        if not fits(len(ib)) and (attrs or events):
            yield attrs, events
            attrs, events, size = [], [], 0
        events.append(ib)
        size += len(ib)
    yield attrs, events

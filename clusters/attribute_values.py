"""A cluster server's attribute values: a table shared by every server built alike, and this server's changes.

A home holds hundreds of servers and most of their values never leave their initial ones, so a server does not
copy its initial values: it reads them from a table shared by every server built the same way (the class's
``defaults``, or the values a catalogue entry's first server was built with) and keeps only the values it changed
since (copy on write). A shared table and the values in it are never changed in place: a write stores the new
value as this server's own, a copy that drops an attribute reads a table without it (shared by the copies that drop
it too), and any other server that adds or drops one takes a copy of the table first.

It answers what a server asks of a dict of its values (``in``, ``[]``, ``get``, assignment, ``pop``, ``update``,
iteration in the table's order), with the same results a plain dict of the same values would give.

A server may read a few of its own values from a read-only mapping instead (``derive_changes``: a device's identity,
derived from its id when read) until its first write copies them into a dict of its own.

Every stored write lands here, so a :class:`WriteMark` installed on a server's values (``mark``) is raised by each
one, whether or not the server told its listeners: a home's snapshots re-read only the devices whose mark is up.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

# Values equal to a shared one of the same type that may stand for it (floats are not: 0.0 == -0.0).
_INTERCHANGEABLE = (bool, int, str, bytes, type(None))


def _same(value: Any, shared: Any) -> bool:
    """Whether ``value`` may be read back as ``shared``: the same object, or an equal value of an immutable type."""
    if value is shared:
        return True
    kind = type(value)
    return kind is type(shared) and kind in _INTERCHANGEABLE and value == shared


class _ChangesHolder:
    """What a server's dict of changes is the instance dict of (see :func:`_new_changes`)."""


# The first name a server changes → the holder class its dict of changes is the instance dict of
_CHANGES_HOLDERS: dict[str, type[_ChangesHolder]] = {}


def _new_changes(first: str) -> dict[str, Any]:
    """An empty dict for a server's changes, the first of them to ``first``: made as the instance dict of a holder
    class kept per first name, as CPython shares the keys of the instance dicts of one class — servers that change
    the same names (a home's lights their OnOff) share one table of names, and each holds only its values (half a
    plain dict's memory). It is a plain dict in every other way (any names, in any order)."""
    holder = _CHANGES_HOLDERS.get(first)
    if holder is None:
        holder = _CHANGES_HOLDERS[first] = type("ChangesHolder", (_ChangesHolder,), {})
    changes: dict[str, Any] = vars(holder())
    return changes


# id of a table that copies read (``AttributeValues.copy``: a catalogue entry's first server's, kept for the process)
# → (the table, kept so that its id stays its own; name → the table without it): copies that drop one name (a sensor
# bound to room physics drops its stored reading) share the table without it, itself a table copies read. At most
# _COPIED_TABLES_MAX (the oldest go first; a copy of an evicted one that drops a name takes a copy of its own).
_COPIED_TABLES: dict[int, tuple[dict[str, Any], dict[str, dict[str, Any]]]] = {}
_COPIED_TABLES_MAX = 2048


def _copied(table: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Note ``table`` as read by copies; returns its tables without one name each (none made yet)."""
    if len(_COPIED_TABLES) >= _COPIED_TABLES_MAX:
        del _COPIED_TABLES[next(iter(_COPIED_TABLES))]
    without: dict[str, dict[str, Any]] = {}
    _COPIED_TABLES[id(table)] = (table, without)
    return without


def _copied_table_without(table: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The shared table of ``table``'s names and values but ``name``, in order, if copies read ``table``; else None."""
    entry = _COPIED_TABLES.get(id(table))
    if entry is None or entry[0] is not table:
        return None
    found = entry[1].get(name)
    if found is None:
        found = entry[1][name] = {other: value for other, value in table.items() if other != name}
        _copied(found)
    return found


class WriteMark:
    """Raised (``written``) by every change of the values it is installed on; whoever installed it lowers it."""

    __slots__ = ("hooks", "written")

    def __init__(self) -> None:
        self.written = False
        # The hooks the servers it watches share while they hold none of their own (clusters/base.py ``_RareHooks``,
        # made by the first): a server keeps its mark there, one slot fewer for every server
        self.hooks: Any = None


class AttributeValues:
    """Attribute name → value of one server: a shared table plus this server's own changes."""

    # ``table`` and ``changed`` are read directly by ClusterServer.read (the hot path of every snapshot); every
    # change goes through the methods below.
    __slots__ = ("_owned", "changed", "mark", "table")

    def __init__(self, table: dict[str, Any]) -> None:
        self.table = table  # shared with servers built alike unless _owned: never changed in place then
        # this server's values of names in a shared table: a dict of its own, or a read-only mapping (derive_changes)
        self.changed: Mapping[str, Any] | None = None
        self._owned = False  # the table is this server's own copy (it added or dropped a name)
        self.mark: WriteMark | None = None  # raised by every write below (a copy starts without one)

    # ----------------------------------------------------------------------------- reads
    def __contains__(self, name: object) -> bool:
        return name in self.table

    def __getitem__(self, name: str) -> Any:
        changed = self.changed
        if changed is not None and name in changed:
            return changed[name]
        return self.table[name]

    def get(self, name: str, default: Any = None) -> Any:
        changed = self.changed
        if changed and name in changed:
            return changed[name]
        return self.table.get(name, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self.table)

    def __len__(self) -> int:
        return len(self.table)

    def items(self) -> Iterator[tuple[str, Any]]:
        changed = self.changed or {}
        for name, value in self.table.items():
            yield name, changed.get(name, value)

    def as_dict(self) -> dict[str, Any]:
        """A new plain dict of the values, in order."""
        return dict(self.items())

    # ----------------------------------------------------------------------------- writes
    def __setitem__(self, name: str, value: Any) -> None:
        if self.mark is not None:
            self.mark.written = True
        table = self.table
        if self._owned:
            table[name] = value
        elif name not in table:
            self._own_table()[name] = value
        elif _same(value, table[name]):
            if self.changed is not None and name in self.changed:
                self._own_changes().pop(name)
        elif self.changed is None:
            self.changed = changed = _new_changes(name)
            changed[name] = value
        else:
            self._own_changes()[name] = value

    def pop(self, name: str, default: Any = None) -> Any:
        if self.mark is not None:
            self.mark.written = True  # absent or not: a caller binding a live source drops the name first
        table = self.table
        if name not in table:
            return default
        if self._owned:
            return table.pop(name)
        without = _copied_table_without(table, name)
        if without is None:  # a table not shared by copies (a server's own initial values): a copy of its own
            return self._own_table().pop(name)
        value = self[name]
        if self.changed is not None and name in self.changed:
            self._own_changes().pop(name)
        self.table = without
        return value

    def update(self, values: Mapping[str, Any]) -> None:
        for name, value in values.items():
            self[name] = value

    def derive_changes(self, changes: Mapping[str, Any]) -> None:
        """Read the names of ``changes`` — a read-only mapping of names in the table, e.g. values derived when read
        from what the server's owner holds anyway — from it, until a write copies them into changes of its own.
        For values without changes of their own yet."""
        if self.changed or self._owned:
            raise AssertionError("derived changes are for values that hold no changes of their own")
        unknown = [name for name in changes if name not in self.table]
        if unknown:
            raise AssertionError(f"derived changes of names not in the table: {unknown}")
        if self.mark is not None:
            self.mark.written = True
        self.changed = changes

    def _own_changes(self) -> dict[str, Any]:
        """This server's changes as a dict of its own (a copy of derived ones: ``derive_changes``) to change."""
        changed = self.changed
        if type(changed) is not dict:
            changed = self.changed = dict(changed or {})
        return changed

    def _own_table(self) -> dict[str, Any]:
        """Take a copy of the table (with this server's changes) to add or drop names in."""
        if not self._owned:
            self.table = self.as_dict()
            self.changed = None
            self._owned = True
        return self.table

    # ----------------------------------------------------------------------------- sharing
    def alike_key(self) -> int | None:
        """What tells these values apart from other servers' when they may be read from one shared object: the id
        of the shared table they are exactly. None when they may not: changes of its own (derived ones included), a
        table of its own, or a mark (the server is watched)."""
        if self.changed or self._owned or self.mark is not None:
            return None
        return id(self.table)

    def copy(self) -> AttributeValues:
        """The same values for another server: the shared table shared, this server's own values copied."""
        if self._owned:
            other = AttributeValues(dict(self.table))
            other._owned = True
        else:
            other = AttributeValues(self.table)
            if id(self.table) not in _COPIED_TABLES:
                _copied(self.table)
        if self.changed:  # derived changes are read-only: shared
            other.changed = dict(self.changed) if type(self.changed) is dict else self.changed
        return other

    def shared_with(self, table: dict[str, Any] | None) -> dict[str, Any]:
        """Read from ``table`` (a table of a server built alike) if it holds exactly these values, dropping this
        server's own copies; returns the table to share with the next server built alike: ``table``, or these
        values when there was none (a server that differs keeps its values and shares nothing).

        Exactly: equal, and equal in ``repr`` too — the same names in the same order and values of the same types
        all the way down (``True == 1``, ``1.0 == 1`` and ``0.0 == -0.0`` in Python, but not in their repr)."""
        if table is None:
            if self.changed or self._owned:
                self.table, self.changed, self._owned = self.as_dict(), None, False
            return self.table  # unchanged: its table is shared already (often the class's defaults)
        if self.table is table and not self.changed and not self._owned:
            return table
        values = self.as_dict()
        if values == table and repr(values) == repr(table):
            self.table, self.changed, self._owned = table, None, False
        return table

    def __repr__(self) -> str:
        return f"AttributeValues({self.as_dict()!r})"

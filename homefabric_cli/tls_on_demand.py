"""OpenSSL's TLS layer loaded by the first use of TLS, not by ``import asyncio``.

asyncio imports ``ssl`` when it is imported, and its ``asyncio.sslproto`` reads ssl's names at once, so every
process with an event loop maps libssl and runs ssl's module code: about 2 MiB of a ``homefabric bench run`` that
never opens a TLS connection (perf/memory.py, issue #24). :func:`defer_tls` (called as the command line starts,
before anything imports asyncio) lets those two modules be imported as module objects whose code runs, in the
same object, the first time one of their names is read. ``import ssl``, asyncio's ``ssl is not None`` checks and
``from . import sslproto`` read no name; every use of TLS does (an ``ssl=`` argument, ``ssl.create_default_context``,
httpx, aiohttp, uvicorn), and from then on the modules are the ordinary ones.

The stdlib's ``importlib.util.LazyLoader`` cannot do this: its modules load on any attribute, and the import
statement itself reads ``__spec__``, so asyncio's own ``import ssl`` lines would load ssl at once.
"""

from __future__ import annotations

import _thread
import importlib.machinery
import sys
import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # this module runs first in every command: it imports nothing the command may not need
    from collections.abc import Sequence
    from importlib.abc import Loader
    from typing import Any

DEFERRED_MODULES = ("ssl", "asyncio.sslproto")  # sslproto reads ssl's names when it runs, so it waits too
_run_lock = _thread.RLock()  # re-entered: running sslproto reads ssl.*, which runs ssl


class _RunOnFirstUse(types.ModuleType):
    """A module whose code has not run: reading a name it lacks runs it (once, under a lock) and reads again.
    Dunder names the import system probes (``__path__``, ``__file__`` before it is set, …) do not count as a use;
    ``__all__`` does (``from ssl import *``)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__") and name != "__all__":
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        run_deferred_module(self)
        return getattr(self, name)

    def __dir__(self) -> list[str]:  # what the module defines, as dir() of the ordinary module lists it
        run_deferred_module(self)
        return dir(self)


def run_deferred_module(module: types.ModuleType) -> None:
    """Run a deferred module's code in it now (nothing if it has run)."""
    with _run_lock:
        if type(module) is not _RunOnFirstUse:
            return
        spec = module.__spec__
        assert spec is not None and isinstance(spec.loader, _DeferringLoader)
        real = spec.loader.real
        module.__class__ = types.ModuleType  # from here on an ordinary module: no __getattr__ hook
        spec.loader = real
        module.__loader__ = real
        try:
            real.exec_module(module)
        except BaseException:
            sys.modules.pop(spec.name, None)  # as a failed import leaves it: the next import tries again
            raise


def has_run(module_name: str) -> bool:
    """Whether ``module_name`` is imported and its code has run (False while it waits for its first use)."""
    module = sys.modules.get(module_name)
    return module is not None and type(module) is not _RunOnFirstUse


class _DeferringLoader:
    """The module's loader while it waits (the import system needs only ``create_module`` and ``exec_module``)."""

    def __init__(self, real: Loader) -> None:
        self.real = real

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return _RunOnFirstUse(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing yet: the module's code runs when one of its names is first read."""


class _DeferringFinder:
    """Finds each deferred module once, as the path finder would, with a loader that defers running it."""

    def __init__(self, names: Sequence[str]) -> None:
        self.waiting = set(names)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.waiting:
            return None
        self.waiting.discard(fullname)
        if not self.waiting and self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _DeferringLoader(spec.loader)  # type: ignore[assignment]  # a loader by protocol
        return spec


def defer_tls() -> bool:
    """Let ``ssl`` and ``asyncio.sslproto`` wait for their first use; False (nothing done) when asyncio or ssl is
    already imported or this Python has no ``_ssl``."""
    if "asyncio" in sys.modules or "ssl" in sys.modules or importlib.machinery.PathFinder.find_spec("_ssl") is None:
        return False
    if not any(isinstance(finder, _DeferringFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _DeferringFinder(DEFERRED_MODULES))
    return True

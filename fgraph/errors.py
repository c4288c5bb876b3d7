"""Errors raised to users, and where in the user's code a node was made."""
from __future__ import annotations

import os
import sys

_PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
# Frames inside these trees are library code, never the user's line:
# NumPy's dispatch layer sits between the user and __array_function__.
_LIBRARY_DIRS = (_PKG_DIR,)
import numpy as _np

_LIBRARY_DIRS += (os.path.dirname(os.path.abspath(_np.__file__)) + os.sep,)


class FgraphError(Exception):
    """Base class of every error fgraph raises for a user mistake."""


class ShapeError(FgraphError, ValueError):
    """Shapes that do not fit the op (also a ValueError, as in NumPy)."""


class DTypeError(FgraphError, TypeError):
    """Dtypes that the op cannot take (also a TypeError, as in NumPy)."""


class IndexingError(FgraphError, IndexError):
    """An index out of range or of a kind a static shape cannot hold (also an
    IndexError, and only that, as NumPy's: ``except ValueError`` before
    ``except IndexError`` must not catch it)."""


class AxisError(ShapeError, _np.exceptions.AxisError):
    """An axis out of range for an array's dimensions: also NumPy's
    ``AxisError`` (so a ``ValueError`` and an ``IndexError``, as NumPy's is)."""

    def __init__(self, message):
        _np.exceptions.AxisError.__init__(self, message)  # NumPy's one-argument form: the message
        Exception.__init__(self, message)


_LIKE: dict[type, type] = {}


def _reduce_plain(self):  # a class made here is not importable: pickle as FgraphError
    return FgraphError, self.args


def also(cls: type) -> type:
    """An ``FgraphError`` subclass that is also the exception class ``cls``
    (``FgraphError`` itself where ``cls`` cannot be mixed in), so a user's
    ``except FloatingPointError`` or ``except ValueError`` catches it."""
    if cls not in _LIKE:
        try:
            _LIKE[cls] = FgraphError if issubclass(cls, FgraphError) or not issubclass(cls, Exception) else \
                type(cls.__name__, (FgraphError, cls), {"__module__": __name__, "__reduce__": _reduce_plain})
        except TypeError:  # a class that cannot be mixed in (its instance layout)
            _LIKE[cls] = FgraphError
    return _LIKE[cls]


def error_like(e: BaseException, message: str) -> FgraphError:
    """An ``FgraphError`` saying ``message`` that is also an instance of
    ``e``'s class: a kernel's failure while a graph runs, renamed to the
    node and the user's line, stays catchable as what NumPy raised
    (``except FloatingPointError`` under ``np.errstate(divide="raise")``)."""
    try:
        return also(type(e))(message)
    except TypeError:  # a class whose constructor wants more than a message
        return FgraphError(message)


#: co_filename -> whether it is library code (fgraph, NumPy, frozen modules):
#: a frame is told by one dict look-up, not by string prefixes
_IS_LIBRARY: dict[str, bool] = {}


def _is_library(filename: str) -> bool:
    lib = filename.startswith(_LIBRARY_DIRS) or filename.startswith("<frozen")
    if len(_IS_LIBRARY) >= 4096:  # code compiled at run time may name many "files"
        _IS_LIBRARY.clear()
    _IS_LIBRARY[filename] = lib
    return lib


def user_location(skip: int = 2) -> tuple[str, int] | None:
    """The (filename, line) of the innermost frame outside fgraph and NumPy.

    Walks frames iteratively; one dict look-up per frame.
    """
    f = sys._getframe(skip)
    known = _IS_LIBRARY
    while f is not None:
        fn = f.f_code.co_filename
        # every node built walks the library frames above it (from inside a library, as in fgraph's own
        # benchmarks, 5 to 10 of them: a quarter of building one), so each is told by a plain dict's
        # subscript, the cheapest look-up (.get and a test for None cost 0.01 us more a frame)
        try:
            lib = known[fn]
        except KeyError:
            lib = _is_library(fn)
        if not lib:
            # one tuple a line, shared by every node made there: a loop's history holds thousands of nodes
            # made on a few lines (56 of a node's ~470 bytes, plus the line number's int past 256)
            line = f.f_lineno
            try:
                return _WHERE[fn][line]
            except KeyError:
                return _new_where(fn, line)
        f = f.f_back
    return None


#: co_filename -> line -> its (filename, line) tuple (``user_location``)
_WHERE: dict[str, dict[int, tuple]] = {}
_WHERE_MAX = 1 << 16


def _new_where(fn: str, line: int) -> tuple:
    lines = _WHERE.get(fn)
    if lines is None or len(lines) >= _WHERE_MAX:  # (code compiled at run time may name many lines)
        if len(_WHERE) >= 4096:
            _WHERE.clear()
        lines = _WHERE[fn] = {}
    where = lines[line] = (fn, line)
    return where


def user_stacklevel() -> int:
    """``warnings.warn``'s ``stacklevel`` that names the user's line, for a
    warning raised in the function calling this (however many fgraph and
    NumPy frames lie between it and the user's code)."""
    f, level = sys._getframe(1), 1
    while f is not None:
        fn = f.f_code.co_filename
        lib = _IS_LIBRARY.get(fn)
        if not (_is_library(fn) if lib is None else lib):
            return level
        f, level = f.f_back, level + 1
    return 1


def format_location(where: tuple[str, int] | None) -> str:
    if where is None:
        return "<unknown>"
    return f"{where[0]}:{where[1]}"

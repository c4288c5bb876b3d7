"""``import fgraph.numpy as np``: NumPy's names, building a lazy graph.

This is the default stack (NumPy engine, NumPy's default dtypes).  It is
also a Python Array API standard namespace (2024.12).
"""
from importlib import import_module as _import_module
import functools as _functools
import sys as _sys
from types import FunctionType as _FunctionType

import numpy as _np

from .. import stack as _stack
from ..eager import freeze_imports as _freeze_imports
from ..array_api import canonical_dtype as _canonical_dtype
from ..engines import get_engine as _get_engine
from ..ops import COMPOSITES as _COMPOSITES
from ..ops import FAMILIES as _FAMILIES
from ..ops.elementwise import ALIASES as _ALIASES
from ..tensor import PLACEHOLDERS as _PLACEHOLDERS
from ..tensor import Tensor
from ..tensor import _shadow_of
from ..tensor import placeholder_node as _placeholder_node
from ..tensor import python_data_array as _python_data_array
from ..tensor import variable_node as _variable_node

__all__ = ["Tensor", "placeholder", "variable", "ndarray"]

ndarray = Tensor  # isinstance(t, fnp.ndarray) reads naturally


def placeholder(shape, dtype=None, name=None) -> Tensor:
    """An input fed at each run: ``placeholder((64, 784), "float32", name="x")``.

    ``dtype`` defaults to the stack's float dtype.
    """
    st = _stack.current()
    dt = st.float_dtype if dtype is None else _canonical_dtype(dtype, st)
    node = _placeholder_node(shape, dt, name)
    _PLACEHOLDERS.add(node)
    t = Tensor(node, st)
    _shadow_of(t)  # its storage remembers the placeholder: Graph(inputs=[t]) names it after writes
    return t




def variable(value, name=None, dtype=None) -> Tensor:
    """State with an initial value; graphs update it through ``updates``."""
    st = _stack.current()
    if isinstance(value, Tensor):
        value = value.eval()
    arr = value if isinstance(value, _np.ndarray) and dtype is None else _python_data_array(value, dtype, st)
    t = Tensor(_variable_node(arr, name), st)
    _shadow_of(t)  # its storage remembers the variable: writes move the handle, updates={t: ...} still name it
    return t


#: the public names of the composite modules (``fgraph.ops.COMPOSITES``: functions built from other ops,
#: which register no op, kernel or rule), in their ``__all__`` order: a composite module is imported when
#: one of its names is first used (``__getattr__``), so ``import fgraph.numpy`` need not compile it.
#: tests/test_import_cost.py keeps this table equal to the modules' ``__all__``.
_COMPOSITE_NAMES = {
    "composite": ("isclose", "allclose", "array_equal", "array_equiv", "isposinf", "isneginf", "isreal",
                  "iscomplex", "isrealobj", "iscomplexobj", "common_type", "min_scalar_type", "einsum_path",
                  "nan_to_num", "angle", "sinc", "ndim", "shape", "size"),
    "arrays": ("diag", "diagflat", "append", "delete", "insert", "block", "rollaxis", "resize", "fromfunction",
               "asfortranarray", "ix_", "r_", "c_", "packbits", "unpackbits", "apply_along_axis", "apply_over_axes",
               "tril_indices_from", "triu_indices_from", "diag_indices_from", "piecewise", "vectorize", "require",
               "isfortran"),
    "statistics": ("cov", "corrcoef", "digitize", "interp", "isin", "bincount", "histogram_bin_edges", "histogram",
                   "histogramdd", "histogram2d"),
    "evaluated": ("array2string", "array_repr", "array_str", "save", "savez", "savez_compressed", "savetxt"),
    "data_dependent": ("intersect1d", "union1d", "setdiff1d", "setxor1d", "trim_zeros", "real_if_close", "roots",
                       "poly", "polydiv", "poly1d"),
}
assert tuple(_COMPOSITE_NAMES) == _COMPOSITES, "fgraph.ops.COMPOSITES and fgraph.numpy._COMPOSITE_NAMES differ"
_COMPOSITE_OF = {_name: _family for _family, _names in _COMPOSITE_NAMES.items() for _name in _names}

for _family in _FAMILIES:
    _mod = _import_module(f"fgraph.ops.{_family}")
    for _name in _mod.__all__:
        globals()[_name] = getattr(_mod, _name)
        __all__.append(_name)
for _names in _COMPOSITE_NAMES.values():
    __all__.extend(_names)

_api = _import_module("fgraph.array_api")
for _name in getattr(_api, "__all__", ()):
    globals()[_name] = getattr(_api, _name)
    __all__.append(_name)

# constants NumPy has
pi, e, inf, nan, newaxis, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, None, _np.euler_gamma
__all__ += ["pi", "e", "inf", "nan", "newaxis", "euler_gamma"]


class _UfuncType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, (_Ufunc, _np.ufunc))

    def __subclasscheck__(cls, sub):
        return isinstance(sub, type) and issubclass(sub, (_Ufunc, _np.ufunc))


class ufunc(metaclass=_UfuncType):
    """The type ``numpy.ufunc`` as a program tests it (``isinstance(f, np.ufunc)``):
    fgraph's lazy ufuncs (``fgraph.numpy.add``) and NumPy's own (``frompyfunc``'s)
    are its instances.  It makes none: NumPy's cannot be called either."""

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'numpy.ufunc' instances")


from ..ops.ufunc import Ufunc as _Ufunc  # noqa: E402
__all__.append("ufunc")
__version__ = _np.__version__  # NumPy's: programs test it for NumPy's features (fgraph's is fgraph.__version__)

#: NumPy's own names that compute on no array, taken as they are: the
#: dtype machinery and scalar types (``np.float16``, ``np.floating`` in
#: ``issubdtype``), floating-point error and print state (``errstate``
#: applies where a graph is evaluated, as NumPy's applies where it
#: computes), index helpers of shapes alone, and what makes data rather
#: than computes on it (``load``/``loadtxt``/
#: ``frombuffer``... read NumPy arrays, which join graphs as constants;
#: ``testing`` compares any array-likes; ``ndenumerate`` iterates values).
_PASSED_THROUGH = (
    "dtype", "generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating",
    "complexfloating", "character", "flexible", "bool_", "str_", "bytes_", "object_", "void", "datetime64",
    "timedelta64", "float16", "half", "single", "double", "longdouble", "csingle", "cdouble", "clongdouble",
    "byte", "ubyte", "short", "ushort", "intc", "uintc", "int_", "uint", "long", "ulong", "longlong",
    "ulonglong", "intp", "uintp",
    "errstate", "geterr", "seterr", "geterrcall", "seterrcall", "getbufsize", "setbufsize",
    "get_printoptions", "set_printoptions", "printoptions", "format_float_positional",
    "format_float_scientific", "base_repr", "binary_repr",
    "isscalar", "iterable", "issubdtype", "promote_types", "mintypecode", "typename",
    "True_", "False_", "float128", "complex256", "typecodes", "sctypeDict", "ScalarType", "little_endian",
    "dtypes", "typing",
    "tril_indices", "triu_indices", "diag_indices", "mask_indices", "ndindex", "ndenumerate", "s_",
    "index_exp", "mgrid", "ogrid",
    "load", "loadtxt", "genfromtxt", "fromfile", "frombuffer", "fromstring", "fromiter", "fromregex",
    "get_include", "show_config", "show_runtime", "testing", "exceptions",
    # dates and calendars (datetime64 data stays NumPy's), iterators over values (they evaluate, as
    # iteration does), NumPy's matrix, record and memory-mapped array classes, help, Python-function ufuncs
    "busday_count", "busday_offset", "busdaycalendar", "is_busday", "datetime_as_string", "datetime_data", "isnat",
    "nditer", "nested_iters", "flatiter", "matrix", "asmatrix", "bmat", "recarray", "record", "memmap", "info",
    "frompyfunc",
)
#: NumPy's submodules that ``import numpy`` does not load (numpy's own ``__getattr__`` imports them when
#: first asked for): passed through the same way, by this module's ``__getattr__``, so that importing
#: fgraph.numpy does not import numpy.testing (unittest, subprocess...) or numpy.typing
_NUMPY_LAZY_SUBMODULES = frozenset(("testing", "typing"))
for _name in _PASSED_THROUGH:
    if _name in globals():  # (an own version wins)
        continue
    if _name in _NUMPY_LAZY_SUBMODULES:
        __all__.append(_name)
    elif _name in vars(_np):  # (not hasattr: that would import NumPy's lazy submodules)
        globals()[_name] = vars(_np)[_name]
        __all__.append(_name)

del _family, _mod, _name, _names, _api

from . import linalg  # noqa: E402,F401  (numpy.linalg's names: fgraph.numpy.linalg)
from . import fft  # noqa: E402,F401  (numpy.fft's names: fgraph.numpy.fft)
from . import emath  # noqa: E402,F401  (numpy.emath's names: fgraph.numpy.emath)
from . import lib  # noqa: E402,F401  (numpy.lib: fgraph.numpy.lib.stride_tricks, lib.scimath)
# fgraph.numpy.random (numpy.random: NumPy's draws; shuffle/permutation/choice take lazy arrays) is imported
# when first used (``__getattr__``): it imports numpy.random, which ``import numpy`` does not
__all__.append("random")
from . import handles as _handles  # noqa: E402
from . import methods as _methods  # noqa: E402


def _give_handles_numpy_identity(ns: dict, names) -> None:
    """Views where NumPy returns views, fresh arrays where it returns new
    ones, and ``out=`` written as NumPy writes it (``handles``)."""
    same_kind = set(_ALIASES) | {"clip", "round", "around", "matmul", "vecdot", "matvec", "vecmat", "fix"}
    for name in names:
        fn = ns.get(name)
        if type(fn) is not _FunctionType or not fn.__module__.startswith("fgraph") or hasattr(fn, "__wrapped__"):
            continue
        if name in _handles.VIEW_FUNCTIONS:
            wrapped = _handles.viewing(fn, *_handles.VIEW_FUNCTIONS[name])
        elif name in _handles.SAME_OBJECT:
            wrapped = fn
        else:
            wrapped = _handles.fresh(fn)
        if _handles.takes_out(fn):
            wrapped = _handles.with_out(wrapped, name, name in same_kind)
        ns[name] = wrapped


_give_handles_numpy_identity(globals(), list(__all__))

# The default stack, composed here: this namespace, and the NumPy engine (made on first evaluation: the
# engine and its kernels are imported then, not by ``import fgraph.numpy``).  The lazy array's NumPy
# methods, operators and protocols call this namespace: installed now that it is built.
_stack.DEFAULT.backend = _functools.partial(_get_engine, "numpy")
_stack.DEFAULT.namespace = _sys.modules[__name__]
__fgraph_stack__ = _stack.DEFAULT
_methods.install(_sys.modules[__name__])


#: NumPy's submodules for data fgraph does not hold (masked, string and record arrays) and its C
#: interfaces: NumPy's own, imported when first asked for (numpy.polynomial is not among them: its
#: classes would evaluate a lazy array and return NumPy's)
_NUMPY_SUBMODULES = ("ma", "char", "strings", "rec", "ctypeslib")


def _load_composite(family: str) -> None:
    """Bind the names of the composite module ``family`` here, as the import would have bound them."""
    mod = _import_module(f"fgraph.ops.{family}")
    names = _COMPOSITE_NAMES[family]
    found = {name: getattr(mod, name) for name in names}
    _give_handles_numpy_identity(found, names)
    for name, value in found.items():
        globals().setdefault(name, value)  # (a second thread loading it too finds the first one's)


def __getattr__(name):
    # Called only for names the namespace lacks: the modules imported on first use, else say so in
    # NumPy's terms.
    family = _COMPOSITE_OF.get(name)
    if family is not None:
        _load_composite(family)
        return globals()[name]
    if name == "random":
        return _import_module("fgraph.numpy.random")  # (the import binds it here)
    if name in _NUMPY_LAZY_SUBMODULES:
        value = globals()[name] = getattr(_np, name)
        return value
    if name in _NUMPY_SUBMODULES:
        return getattr(_np, name)
    if hasattr(_np, name):
        raise AttributeError(f"fgraph.numpy has no lazy version of numpy.{name}; evaluate first with "
                             f"numpy.asarray(t) and call numpy.{name} on the result")
    raise AttributeError(f"module 'fgraph.numpy' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_COMPOSITE_OF) | {"random"} | _NUMPY_LAZY_SUBMODULES)


_freeze_imports()

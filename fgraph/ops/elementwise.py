"""Element-wise ops: every real/complex NumPy ufunc, plus where, clip, round,
astype and friends.  Shapes broadcast; dtypes follow NumPy's own ufunc loop
resolution under NEP 50 (Python scalars are weak).

Each op is declared here once, with every fact about it: its shape/dtype
rule, its flags, its reference NumPy kernel and out-form (the out-forms are
what fused kernels call too, :func:`out_form`) and its gradient rule.  The
ufuncs are taken from NumPy in a loop; what the loop declares for each
comes from the tables of the section "the ufuncs" (gradient rules by name:
``_DERIVATIVES`` for unary ones, ``_GRADS`` for the others, ``_NO_GRADIENT``
for piecewise-constant results).  A new element-wise op is one ``defop``
here (or one table entry, for a NumPy ufunc), plus its tests.

Gradient rules are written with fgraph's NumPy names, taken from the
namespace when a rule runs (``building.namespace()``: fgraph.numpy is built
from this module)."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from .. import eager as _eager
from ..array_api import canonical_dtype
from ..errors import DTypeError, FgraphError, user_location
from ..tensor import Tensor, apply, lift, literal_node, operand_node, stack_of
from ..shape import broadcast_shapes, check_weak_int_fits, defop, int_fits, probe, result_type, ufunc_dtypes
from ..symbol import Node, error_at, make_node, new_node, refuse_out
from ..opdef import no_gradient
from ..registry import NUMPY, Refused, attr_table
from .building import namespace
from .selection import Selection, apply_ufunc
from .ufunc import OBJECTS as UFUNC_OBJECTS
from .ufunc import Ufunc

# gufuncs live in linalg; isnat is for datetimes only
_SKIP = {"matmul", "matvec", "vecmat", "vecdot", "isnat"}
_MULTI_OUTPUT = {"divmod", "modf", "frexp"}

#: canonical ufunc name -> the NumPy ufunc (its dtype rules are our spec)
UFUNCS: dict[str, np.ufunc] = {}
#: every NumPy name of an element-wise ufunc (aliases included) -> canonical name
ALIASES: dict[str, str] = {}
for _n in sorted(vars(np)):  # (not dir/getattr: NumPy's __getattr__ would import numpy.f2py, testing, ...)
    _u = vars(np)[_n]
    if isinstance(_u, np.ufunc) and _u.__name__ not in _SKIP:
        UFUNCS[_u.__name__] = _u
        ALIASES[_n] = _u.__name__


def _ufunc_rule(ufunc: np.ufunc, output: int = 0):
    def rule(inputs, dtype=None, output=output):
        shape = broadcast_shapes(*(i.shape for i in inputs))
        return shape, ufunc_dtypes(ufunc, inputs, dtype)[ufunc.nin + output]
    rule.__doc__ = f"numpy.{ufunc.__name__}: broadcast shapes, NumPy's loop dtype."
    return rule


# ---------------------------------------------------------------- the ufuncs: kernels and gradients
#
# A ufunc's NumPy kernel and out-form are the NumPy ufunc itself; a
# multi-output one (divmod, modf, frexp) makes one node per output (param
# ``output``).

def _multi_output_kernel(u: np.ufunc):
    def run(*xs, output, dtype=None):
        return u(*xs, dtype=dtype)[output]
    return run


def _multi_output(u: np.ufunc):
    def run(*xs, out, output, dtype=None):
        outs = tuple(out if j == output else None for j in range(u.nout))
        return u(*xs, out=outs, dtype=dtype)[output]
    return run


LN2, LN10 = float(np.log(2.0)), float(np.log(10.0))

#: unary ufunc -> its derivative ``d(out, x)`` (the rule multiplies it by g)
_DERIVATIVES = {
    "negative": lambda o, x: -1.0,
    "positive": lambda o, x: 1.0,
    "conjugate": lambda o, x: 1.0,
    "absolute": lambda o, x: namespace().sign(x),
    "fabs": lambda o, x: namespace().sign(x),
    "exp": lambda o, x: o,
    "exp2": lambda o, x: o * LN2,
    "expm1": lambda o, x: o + 1.0,
    "log": lambda o, x: 1.0 / x,
    "log2": lambda o, x: 1.0 / (x * LN2),
    "log10": lambda o, x: 1.0 / (x * LN10),
    "log1p": lambda o, x: 1.0 / (x + 1.0),
    "sqrt": lambda o, x: 0.5 / o,
    "cbrt": lambda o, x: 1.0 / (3.0 * o * o),
    "square": lambda o, x: 2.0 * x,
    "reciprocal": lambda o, x: -(o * o),
    "sin": lambda o, x: namespace().cos(x),
    "cos": lambda o, x: -namespace().sin(x),
    "tan": lambda o, x: 1.0 + o * o,
    "arcsin": lambda o, x: 1.0 / namespace().sqrt(1.0 - x * x),
    "arccos": lambda o, x: -1.0 / namespace().sqrt(1.0 - x * x),
    "arctan": lambda o, x: 1.0 / (1.0 + x * x),
    "sinh": lambda o, x: namespace().cosh(x),
    "cosh": lambda o, x: namespace().sinh(x),
    "tanh": lambda o, x: 1.0 - o * o,
    "arcsinh": lambda o, x: 1.0 / namespace().sqrt(x * x + 1.0),
    "arccosh": lambda o, x: 1.0 / namespace().sqrt(x * x - 1.0),
    "arctanh": lambda o, x: 1.0 / (1.0 - x * x),
    "deg2rad": lambda o, x: np.pi / 180.0,
    "radians": lambda o, x: np.pi / 180.0,
    "rad2deg": lambda o, x: 180.0 / np.pi,
    "degrees": lambda o, x: 180.0 / np.pi,
}


def _unary(d):
    """The gradient rule of a unary ufunc whose derivative is ``d(out, x)``."""
    def rule(out, ins, g, **params):
        return (g * d(out, ins[0]),)
    return rule


def _add(out, ins, g):
    return g, g


def _subtract(out, ins, g):
    return g, -g


def _multiply(out, ins, g):
    a, b = ins
    return g * b, g * a


def _divide(out, ins, g, dtype=None):
    a, b = ins
    return g / b, -g * out / b


def _power(out, ins, g, dtype=None):
    fnp = namespace()
    a, b = ins
    # a Python exponent stays a Python scalar (x ** 2 -> 2 * x ** 1): a 0-d
    # int64 array would promote float32 to float64 under NEP 50
    bm1 = b.node.param("value").value - 1 if b.node.op == "literal" else b - 1
    da = g * b * fnp.power(a, bm1)
    # d/db a**b = a**b log(a); 0 where a == 0 (the limit from the right)
    db = fnp.where(a == 0, 0.0, g * out * fnp.log(fnp.where(a == 0, 1.0, a)))
    return da, db


def _maximum(out, ins, g):
    fnp = namespace()
    a, b = ins
    first = a >= b  # ties go to the first argument
    return fnp.where(first, g, 0.0), fnp.where(first, 0.0, g)


def _minimum(out, ins, g):
    fnp = namespace()
    a, b = ins
    first = a <= b
    return fnp.where(first, g, 0.0), fnp.where(first, 0.0, g)


def _arctan2(out, ins, g):
    a, b = ins
    r = a * a + b * b
    return g * b / r, -g * a / r


def _hypot(out, ins, g):
    a, b = ins
    return g * a / out, g * b / out


def _logaddexp(out, ins, g):
    fnp = namespace()
    a, b = ins
    return g * fnp.exp(a - out), g * fnp.exp(b - out)


def _logaddexp2(out, ins, g):
    fnp = namespace()
    a, b = ins
    return g * fnp.exp2(a - out), g * fnp.exp2(b - out)


def _copysign(out, ins, g):
    fnp = namespace()
    a, b = ins
    return g * fnp.sign(a) * fnp.where(fnp.signbit(b), -1.0, 1.0), None


def _remainder(out, ins, g):
    a, b = ins
    return g, -g * namespace().floor_divide(a, b)


def _fmod(out, ins, g):
    a, b = ins
    return g, -g * namespace().trunc(a / b)


def _ldexp(out, ins, g):
    a, n = ins
    return g * namespace().exp2(n.astype(out.dtype)), None


def _modf(out, ins, g, output, dtype=None):
    return (g if output == 0 else None),


def _divmod(out, ins, g, output, dtype=None):
    a, b = ins
    return (None, None) if output == 0 else (g, -g * namespace().floor_divide(a, b))


#: gradient rules of the ufuncs that are not in _DERIVATIVES
_GRADS = {
    "add": _add, "subtract": _subtract, "multiply": _multiply, "divide": _divide,
    "power": _power, "float_power": _power, "maximum": _maximum, "fmax": _maximum,
    "minimum": _minimum, "fmin": _minimum, "arctan2": _arctan2, "hypot": _hypot,
    "logaddexp": _logaddexp, "logaddexp2": _logaddexp2, "copysign": _copysign,
    "remainder": _remainder, "fmod": _fmod, "ldexp": _ldexp, "modf": _modf, "divmod": _divmod,
}

#: piecewise constant (or boolean/integer valued): no gradient flows
_NO_GRADIENT = frozenset((
    "floor", "ceil", "trunc", "rint", "sign", "signbit", "spacing", "nextafter", "heaviside", "floor_divide",
    "frexp", "isnan", "isinf", "isfinite", "equal", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
    "bitwise_xor", "invert", "left_shift", "right_shift", "gcd", "lcm", "bitwise_count"))


def ufunc_grad(name: str):
    """The gradient rule of NumPy's ufunc ``name``: from the tables above (a
    Refused for a ufunc a later NumPy adds, until it has an entry)."""
    if name in _DERIVATIVES:
        return _unary(_DERIVATIVES[name])
    if name in _GRADS:
        return _GRADS[name]
    if name in _NO_GRADIENT:
        return no_gradient
    return Refused(f"numpy.{name} has no gradient rule yet (fgraph/ops/elementwise.py's tables give none)")


#: ufunc -> may_raise: integers to negative integer powers fail on the data;
#: the engine writes no variable in place before such a node
_MAY_RAISE = {"power": lambda node: node.dtype.kind in "iu"}

# inplace: the output may overwrite these inputs when shape and dtype agree
# (a ufunc reads each element before writing it)
for _name, _u in UFUNCS.items():
    defop(_name, _ufunc_rule(_u), f"numpy.{_name}", elementwise=True, fusable=True, nin=_u.nin, nout=1,
          inplace="all", may_raise=_MAY_RAISE.get(_name),
          kernel=_u if _u.nout == 1 else _multi_output_kernel(_u),
          out_kernel=_u if _u.nout == 1 else _multi_output(_u), grad=ufunc_grad(_name))

_OUT_KERNELS = attr_table(NUMPY.out)


def out_form(op: str, params: dict | None = None):
    """``f(*args, out=buffer, **params)`` for element-wise op ``op``: its
    declared out-kernel (the NumPy ufunc itself for a one-output ufunc)."""
    return _OUT_KERNELS[op]


def _ufunc_function(public: str, name: str) -> Ufunc:
    """The ufunc object (``fgraph.ops.ufunc``) for NumPy's ufunc ``name``:
    its calls build a node of op ``name`` with NumPy's dtypes (NEP 50)."""
    ufunc = UFUNCS[name]

    def node_of(args, dtype):
        """The ufunc's node for ``args`` after NumPy's checks (one output),
        or the Tensor of a comparison settled at build time."""
        st = stack_of(args)
        nodes = [lift(a, st) for a in args]
        params = () if dtype is None else (("dtype", np.dtype(dtype)),)
        if any(n.weak and n.dtype.kind == "i" for n in nodes):
            settled = _beyond_range_comparison(name, nodes, dtype, st)
            if settled is not None:
                return settled
            _check_weak_ints(ufunc, nodes, dtype, public)
        if name in _MULTI_OUTPUT:
            return tuple(make_node(name, nodes, params + (("output", k),)) for k in range(ufunc.nout))
        return make_node(name, nodes, params)

    def general(*args, dtype=None):
        for a in args:
            if type(a) is Selection and a.pending:  # c[fired] * 2: kept a selection of the same mask if it can be
                kept = apply_ufunc(name, node_of, args, dtype)
                if kept is not None:
                    return kept
                break
        built = node_of(args, dtype)
        if type(built) is Tensor:
            return built
        st = stack_of(args)
        return tuple(Tensor(n, st) for n in built) if type(built) is tuple else Tensor(built, st)

    if name in _MULTI_OUTPUT or ufunc.nin not in (1, 2):
        impl = general
    elif ufunc.nin == 1:
        impl = _unary_fast(name, general)
    else:
        impl = _binary_fast(name, ufunc, general)
    impl.__name__ = impl.__qualname__ = public
    impl.node_of = node_of  # (where=: Ufunc._only_where builds the node without computing it)
    return Ufunc(ufunc, impl)


# ---------------------------------------------------------------- fast paths
# ``a + 1``, ``a * b``, ``sin(a)``: the calls of lazy arrays and Python
# scalars without keywords.  What the general path decided for inputs of
# these shapes, dtypes and weak flags (the result's shape and dtype, after
# every check passed) is remembered and the node made at once; a Python int
# joins only when it lies in the range the general path checked it against
# (else the general path runs: it raises, or settles a comparison).
# user_location(3) starts at the caller of Ufunc.__call__, the one caller of
# these functions: the user's line, or more library frames.  They are always
# called with the ufunc's nin arrays, so they take them as parameters (*args,
# its length test and unpacking were 0.07 us of ``a + 1``).  An array's node
# is read as Tensor.node does for an array that is no view (``_node``), not
# through the property: 0.05 us of ``a + 1``.

_FAST_MAX = 4096  # entries per ufunc; cleared when full
_SCALARS = (int, float, bool, complex)
_NUMERIC = frozenset("biufc")  # NumPy operands of these kinds lift to constants (others raise in the general path)


def _unary_fast(name: str, general):
    known: dict = {}

    def impl(x, dtype=None):
        if dtype is None and type(x) is Tensor:
            n = x._node if x._steps is None else x.node
            hit = known.get((n.shape, n.dtype, n.weak))
            if hit is not None:
                return _eager.made_now(new_node(Node, name, (), (n,), hit[0], hit[1], False, None, user_location(3)),
                                       x.stack)
            result = general(x)
            r = result.node
            if r.op == name and r.inputs == (n,) and not n.weak:
                if len(known) >= _FAST_MAX:
                    known.clear()
                known[(n.shape, n.dtype, n.weak)] = (r.shape, r.dtype)
            return result
        return general(x, dtype=dtype)

    return impl


def _binary_fast(name: str, ufunc: np.ufunc, general):
    known: dict = {}

    def impl(x, y, dtype=None):
        if dtype is None:
            tx, ty = type(x), type(y)
            if tx is Tensor:
                nx = x._node if x._steps is None else x.node
                if ty is Tensor:
                    ny = y._node if y._steps is None else y.node
                    key = (nx.shape, nx.dtype, nx.weak, ny.shape, ny.dtype, ny.weak)
                    hit = known.get(key)
                    if hit is not None:
                        return _eager.made_now(new_node(Node, name, (), (nx, ny), hit[0], hit[1], False, None,
                                                        user_location(3)), x.stack)
                elif ty in _SCALARS:
                    key = (nx.shape, nx.dtype, nx.weak, ty)
                    hit = known.get(key)
                    if hit is not None and (hit[2] is None or hit[2] <= y <= hit[3]):
                        return _eager.made_now(new_node(Node, name, (), (nx, literal_node(y)), hit[0], hit[1],
                                                        False, None, user_location(3)), x.stack)
                elif ty is np.ndarray and y.dtype.kind in _NUMERIC:  # t - b with NumPy's b: a constant, as lifted
                    ny = operand_node(y)
                    key = (nx.shape, nx.dtype, nx.weak, ny.shape, ny.dtype, False)
                    hit = known.get(key)
                    if hit is not None:
                        return _eager.made_now(new_node(Node, name, (), (nx, ny), hit[0], hit[1], False, None,
                                                        user_location(3)), x.stack)
                else:
                    return general(x, y)
            elif ty is Tensor and tx in _SCALARS:
                ny = y._node if y._steps is None else y.node
                key = (tx, ny.shape, ny.dtype, ny.weak)
                hit = known.get(key)
                if hit is not None and (hit[2] is None or hit[2] <= x <= hit[3]):
                    return _eager.made_now(new_node(Node, name, (), (literal_node(x), ny), hit[0], hit[1], False,
                                                    None, user_location(3)), y.stack)
            elif ty is Tensor and tx is np.ndarray and x.dtype.kind in _NUMERIC:  # b - t (NumPy defers to us)
                nx, ny = operand_node(x), y._node if y._steps is None else y.node
                key = (nx.shape, nx.dtype, False, ny.shape, ny.dtype, ny.weak)
                hit = known.get(key)
                if hit is not None:
                    return _eager.made_now(new_node(Node, name, (), (nx, ny), hit[0], hit[1], False, None,
                                                    user_location(3)), y.stack)
            else:
                return general(x, y)
            result = general(x, y)
            entry = _binary_entry(name, ufunc, result, x, y)
            if entry is not None:
                if len(known) >= _FAST_MAX:
                    known.clear()
                known[key] = entry
            return result
        return general(x, y, dtype=dtype)

    return impl


#: the range a Python int joining a float loop must lie in to take the fast
#: path (NumPy refuses one too large for a double; the general path tells)
_FLOAT_SAFE = (-(1 << 1000), 1 << 1000)


def _binary_entry(name, ufunc, result, x, y):
    """What the fast path remembers of ``result`` (the general path's node for
    ``x`` and ``y``): (shape, dtype, low, high), low and high bounding the
    Python int that may take the fast path (None: any value), or None where
    the result is not one plain node of the ufunc (a settled comparison)."""
    r = result.node
    if r.op != name or r.params:
        return None
    nx, ny = r.inputs
    lo = hi = None
    if type(x) is int or type(y) is int:
        (array, scalar) = (ny, nx) if type(x) is int else (nx, ny)
        if array.weak or not scalar.weak:
            return None
        loop = ufunc_dtypes(ufunc, r.inputs)[0 if type(x) is int else 1]
        if loop.kind in "iu":
            info = np.iinfo(loop)
            lo, hi = int(info.min), int(info.max)
            if name in _COMPARISONS and array.dtype.kind in "iu":  # beyond the array's range: settled apart
                info = np.iinfo(array.dtype)
                lo, hi = builtins.max(lo, int(info.min)), builtins.min(hi, int(info.max))
        elif loop.kind in "fc":
            lo, hi = _FLOAT_SAFE
        elif loop.kind != "b":
            return None
    elif nx.weak and ny.weak or (type(x) is Tensor and nx.weak) or (type(y) is Tensor and ny.weak):
        return None
    return r.shape, r.dtype, lo, hi


#: comparison ufunc -> the Python comparison it makes
_COMPARISONS = {"equal": operator.eq, "not_equal": operator.ne, "less": operator.lt, "less_equal": operator.le,
                "greater": operator.gt, "greater_equal": operator.ge}


def _beyond_range_comparison(name, nodes, dtype, st):
    """NumPy 2 compares an integer array with a Python int outside its dtype's
    range exactly (``int8_array == 300`` is all False, ``uint8_array > -1``
    all True) where arithmetic refuses the int: every element lies inside
    the range, so all compare alike and the result is a constant array.
    None when that is not the case."""
    if name not in _COMPARISONS or len(nodes) != 2 or (dtype is not None and np.dtype(dtype) != np.bool_):
        return None
    k = next((j for j, n in enumerate(nodes) if n.weak and n.dtype.kind == "i"), None)
    array = nodes[1 - k]
    if array.weak or array.dtype.kind not in "iu":  # bool, float...: NumPy converts the int (or refuses it)
        return None
    value = nodes[k].params[0][1].value
    if int_fits(value, array.dtype):
        return None
    low = int(np.iinfo(array.dtype).min)  # any element would do: all lie on the same side of value
    result = _COMPARISONS[name](*((low, value) if k == 1 else (value, low)))
    # the constant as a comparison that holds (or fails) for every element,
    # so the result still depends on the array (a graph keeps it as an input)
    return Tensor(make_node("greater_equal" if result else "less", [array, lift(low, st)], ()), st)


def _check_weak_ints(ufunc, nodes, dtype, public):
    try:
        loop = ufunc_dtypes(ufunc, nodes, dtype)
    except DTypeError:
        return  # make_node reports it with full context
    for n, dt in zip(nodes, loop):
        if n.weak and n.dtype.kind == "i":
            try:
                check_weak_int_fits(n.params[0][1].value, dt, public)
            except DTypeError as e:
                raise error_at(DTypeError, public, str(e).split(": ", 1)[1]) from None


__all__ = []
for _public, _name in ALIASES.items():  # aliases are the same object, as in NumPy (np.abs is np.absolute)
    if _name not in UFUNC_OBJECTS:
        UFUNC_OBJECTS[_name] = _ufunc_function(_name, _name)
    globals()[_public] = UFUNC_OBJECTS[_name]
    __all__.append(_public)


# ---------------------------------------------------------------- not ufuncs

def _where_rule(inputs):
    cond, x, y = inputs
    return broadcast_shapes(cond.shape, x.shape, y.shape), result_type(x, y)


_BITS = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def _as_bits(v, dtype, bits):
    """``v`` (an array of ``dtype``, or a scalar cast to it) as integers of
    the same bits; None when a cast of a whole array would be needed."""
    if isinstance(v, np.ndarray) and v.ndim:
        return v.view(bits) if v.dtype == dtype else None
    return np.asarray(v).astype(dtype).view(bits)


def _where(cond, x, y, out):
    """``where(cond, x, y)`` into ``out``.

    NumPy's where branches on every element, which is slow when the mask is
    unpredictable (a ReLU's gradient).  When the branches already have the
    output's dtype (or are scalars), select bits instead, in three passes
    over ``out`` and no temporary: ``out = y ^ ((x ^ y) * cond)`` on the
    values' bits as integers.  Exact for every value (NaN payloads, -0.0)."""
    bits = _BITS.get(out.dtype.itemsize) if out.dtype.kind in "biufc" else None
    if bits is not None and isinstance(cond, np.ndarray) and cond.dtype == np.bool_:
        xb, yb = _as_bits(x, out.dtype, bits), _as_bits(y, out.dtype, bits)
        if xb is not None and yb is not None:
            o = out.view(bits)
            if not yb.ndim and not yb:  # where(c, x, 0): one pass
                return np.multiply(xb, cond, out=o).view(out.dtype)
            np.bitwise_xor(xb, yb, out=o)
            np.multiply(o, cond, out=o)
            np.bitwise_xor(o, yb, out=o)
            return out
    np.copyto(out, y, casting="unsafe")
    np.copyto(out, x, casting="unsafe", where=np.broadcast_to(cond, out.shape))
    return out


def _shape(x) -> tuple:
    """``np.shape(x)``; an ndarray's without its Python call (0.5 us)."""
    return x.shape if type(x) is np.ndarray else np.shape(x)


def _where_new(cond, x, y):
    dtype = np.result_type(x, y)
    # (fgraph's broadcast_shapes, not NumPy's: 2 us of Python for the same answer; the node checked it)
    return _where(cond, x, y, np.empty(broadcast_shapes(_shape(cond), _shape(x), _shape(y)), dtype))


def _where_grad(out, ins, g):
    fnp = namespace()
    c, x, y = ins
    return None, fnp.where(c, g, 0.0), fnp.where(c, 0.0, g)


defop("where", _where_rule, "numpy.where(cond, x, y)", elementwise=True, fusable=True, nin=3,
      kernel=_where_new, out_kernel=_where, grad=_where_grad)


def _ufunc_where_rule(inputs, ufunc, dtype, params):
    return broadcast_shapes(*(i.shape for i in inputs)), dtype


def _ufunc_where_out(mask, *args, out, ufunc, dtype, params):
    out[...] = 0
    UFUNCS[ufunc](*args, out=out, where=mask, **dict(params))
    return out


def _ufunc_where(mask, *args, ufunc, dtype, params):
    if not isinstance(mask, np.ndarray):  # a device array (CuPy's ufuncs take no where=; a GPU gives no warnings)
        return np.where(mask, UFUNCS[ufunc](*args, **dict(params)), 0).astype(dtype)
    out = np.empty(broadcast_shapes(mask.shape, *[_shape(a) for a in args]), dtype)
    return _ufunc_where_out(mask, *args, out=out, ufunc=ufunc, dtype=dtype, params=params)


def _ufunc_where_grad(out, ins, g, ufunc, dtype, params):
    """The ufunc's own rule on the selected elements (as for ``ufunc(c[m])``,
    whose gradient this is), scattered back: no value from a dropped lane
    (a log's 0/0) reaches the gradient."""
    rule = ufunc_grad(ufunc)
    if isinstance(rule, Refused):
        raise error_at(FgraphError, "grad", f"op {ufunc!r} is not differentiable: {rule.reason}")
    fnp = namespace()
    m = fnp.broadcast_to(ins[0], out.shape)
    picked = [a if a.ndim == 0 else fnp.broadcast_to(a, out.shape)[m] for a in ins[1:]]
    grads = []
    for gi in rule(out[m], picked, g[m], **dict(params)):
        if gi is not None:
            full = fnp.zeros(out.shape, gi.dtype)
            full[m] = gi
            gi = full
        grads.append(gi)
    return (None, *grads)


# ``c[fired] + d[fired]`` kept lazy (``ops.selection``): the ufunc computed only where the mask is true, zero
# elsewhere, so its values and warnings are those of the ufunc of the selections
defop("ufunc_where", _ufunc_where_rule, "numpy.<ufunc>(*args, out=zeros, where=mask): inputs (mask, *args)",
      elementwise=True, kernel=_ufunc_where, out_kernel=_ufunc_where_out, grad=_ufunc_where_grad)


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """Lazy ``numpy.where(condition, x, y)``.

    The one-argument form is ``nonzero(condition)``: outside tracing the
    condition is evaluated (its count of true entries decides the shape);
    under tracing it raises unless JAX's ``size=`` (and ``fill_value=``)
    gives the result a static length.
    """
    if x is None and y is None:
        from .indexing import _nonzero  # late: indexing sits above this family

        return _nonzero(condition, size, fill_value, "where")
    if x is None or y is None:
        raise error_at(FgraphError, "where", "either both or neither of x and y should be given")
    if size is not None or fill_value is not None:
        raise error_at(FgraphError, "where", "size= and fill_value= apply to the one-argument form where(condition)")
    return apply("where", (condition, x, y))


def _clip_rule(inputs):
    return broadcast_shapes(*(i.shape for i in inputs)), ufunc_dtypes(np._core.umath.clip, inputs)[3]


def _clip_grad(out, ins, g):
    fnp = namespace()
    a, lo, hi = ins
    inside = (a >= lo) & (a <= hi)
    return fnp.where(inside, g, 0.0), fnp.where(a < lo, g, 0.0), fnp.where(a > hi, g, 0.0)


defop("clip", _clip_rule, "numpy.clip(a, lo, hi)", elementwise=True, fusable=True, nin=3, inplace="all",
      kernel=np.clip, out_kernel=lambda a, lo, hi, out: np.clip(a, lo, hi, out=out), grad=_clip_grad)

_NO_VALUE = object()


def clip(a, a_min=_NO_VALUE, a_max=_NO_VALUE, out=None, *, min=_NO_VALUE, max=_NO_VALUE, **kwargs):
    """Lazy ``numpy.clip``; either bound may be None (NumPy 2 and Array API forms)."""
    refuse_out("clip", out)
    lo = min if a_min is _NO_VALUE else a_min
    hi = max if a_max is _NO_VALUE else a_max
    lo = None if lo is _NO_VALUE else lo
    hi = None if hi is _NO_VALUE else hi
    kind = np.dtype(a.dtype).kind if hasattr(a, "dtype") else ""
    if kind in ("i", "u"):  # as NumPy: a Python int bound beyond the integer dtype clips nothing
        info = np.iinfo(a.dtype)
        lo = None if type(lo) is int and lo <= info.min else lo
        hi = None if type(hi) is int and hi >= info.max else hi
    if lo is None and hi is None:
        return apply("positive", (a,)) if not isinstance(a, Tensor) else a
    if lo is None:
        return globals()["minimum"](a, hi)
    if hi is None:
        return globals()["maximum"](a, lo)
    return apply("clip", (a, lo, hi))


def _probe_rule(fn):
    """Dtype by running NumPy on one-element arrays; shape unchanged."""
    def rule(inputs, **params):
        (x,) = inputs
        return x.shape, np.asarray(fn(probe(x, 1), **params)).dtype
    return rule


def _copy_into(fn):
    def run(*args, out, **params):
        np.copyto(out, fn(*args, **params), casting="unsafe")
        return out
    return run


def _real_grad(out, ins, g):
    return g,


def _imag_grad(out, ins, g):
    return None,  # the imaginary part of a real input is 0 whatever it is


defop("round", _probe_rule(np.round), "numpy.round(a, decimals)", elementwise=True, fusable=True, nin=1,
      inplace="all", kernel=np.round, out_kernel=lambda a, out, decimals=0: np.round(a, decimals, out=out),
      grad=no_gradient)
defop("fix", _probe_rule(np.fix), "numpy.fix", elementwise=True, fusable=True, nin=1, inplace="all",
      kernel=np.fix, out_kernel=lambda a, out: np.fix(a, out=out), grad=no_gradient)
# the out-forms copy: np.real/np.imag give a view, so the copy is the only write
defop("real", _probe_rule(np.real), "numpy.real", elementwise=True, fusable=True, nin=1,
      kernel=np.real, out_kernel=_copy_into(np.real), grad=_real_grad)
defop("imag", _probe_rule(np.imag), "numpy.imag", elementwise=True, fusable=True, nin=1,
      kernel=np.imag, out_kernel=_copy_into(np.imag), grad=_imag_grad)


def round(a, decimals=0, out=None):
    """Lazy ``numpy.round`` (half to even, as NumPy)."""
    refuse_out("round", out)
    return apply("round", (a,), (("decimals", int(decimals)),))


around = round


def fix(x, out=None):
    """Lazy ``numpy.fix``: round towards zero."""
    return apply("fix", (x,))


def real(val):
    """Lazy ``numpy.real``."""
    return apply("real", (val,))


def imag(val):
    """Lazy ``numpy.imag``."""
    return apply("imag", (val,))


def complex_dtype(dtype) -> np.dtype:
    """The dtype of ``1j * x`` for ``x`` of ``dtype`` (NEP 50: float16/32
    keep single precision, integers and bools take complex128)."""
    dtype = np.dtype(dtype)
    return np.result_type(dtype, np.complex64) if dtype.kind == "f" else np.dtype(np.complex128)


def _complex_rule(inputs, dtype):
    for part in inputs:
        if part.dtype.kind not in "biuf":
            raise DTypeError(f"the parts of a complex value are real, not {part.dtype}")
    return broadcast_shapes(*(p.shape for p in inputs)), dtype


def _complex_into(re, im, out, dtype=None):
    np.copyto(out.real, re)  # (NumPy's protocols hand CuPy arrays to CuPy)
    np.copyto(out.imag, im)
    return out


def _complex(re, im, dtype):
    return _complex_into(re, im, np.empty(np.broadcast_shapes(np.shape(re), np.shape(im)), dtype))


defop("complex", _complex_rule, "The complex value with real part re and imaginary part im (param dtype), "
                                "each copied exactly: signed zeros, infinities and NaNs are kept.",
      elementwise=True, nin=2, kernel=_complex, out_kernel=_complex_into,
      grad=Refused("its result is complex: gradients are for real floating dtypes only"))


def make_complex(re, im):
    """``re + 1j * im`` exactly: the parts are copied into place, where the
    arithmetic form turns an infinite ``im`` into a NaN real part and loses
    the sign of a zero ``re``.  The dtype is that arithmetic's."""
    st = stack_of((re, im))
    r, i = parts = [lift(p, st) for p in (re, im)]
    # NEP 50, as re + 1j * im: 1j * im is complex_dtype(im), or a Python complex (weak) for a Python im
    if i.weak:
        dtype = complex_dtype(r.dtype) if not r.weak else np.dtype(np.complex128)
    else:
        dtype = complex_dtype(i.dtype) if r.weak else np.result_type(r.dtype, complex_dtype(i.dtype))
    return Tensor(make_node("complex", parts, (("dtype", dtype),)), st)


def _astype_rule(inputs, dtype, casting="unsafe"):
    (x,) = inputs
    src = x.dtype
    if not np.can_cast(src, dtype, casting):
        raise DTypeError(f"cannot cast {src} to {dtype} with casting rule {casting!r}")
    return x.shape, dtype


def _astype(x, dtype, casting="unsafe"):
    return np.asarray(x).astype(dtype, casting=casting)


def _astype_into(a, out, dtype=None, casting="unsafe"):
    np.copyto(out, a, casting="unsafe")
    return out


def _astype_grad(out, ins, g, dtype, casting="unsafe"):
    return g,


defop("astype", _astype_rule, "x.astype(dtype)", elementwise=True, fusable=True, nin=1, kernel=_astype,
      out_kernel=_astype_into, grad=_astype_grad)


#: (type and value of the dtype argument, casting, stack, source dtype) ->
#: (target dtype, the node's params), for casts made before (their checks passed)
_casts: dict = {}


def astype(x, dtype, /, *, copy=True, casting="unsafe", device=None):
    """Lazy ``x.astype(dtype)`` (also the Array API's ``astype``)."""
    if type(x) is Tensor:
        n = x.node
        try:
            key = (type(dtype), dtype, casting, x.stack, n.dtype)
            hit = _casts.get(key)
        except TypeError:  # an unhashable dtype argument
            key = hit = None
        if hit is not None:
            if hit[0] == n.dtype:
                return x
            return _eager.made_now(new_node(Node, "astype", hit[1], (n,), n.shape, hit[0], False, None,
                                            user_location(2)), x.stack)
    else:
        key = None
    dt = canonical_dtype(dtype, stack_of((x,)))
    if isinstance(x, Tensor) and x.dtype == dt:
        result = x
    else:
        result = apply("astype", (x,), (("dtype", dt), ("casting", casting)))
    if key is not None:
        if len(_casts) >= _FAST_MAX:
            _casts.clear()
        _casts[key] = (dt, (("dtype", dt), ("casting", casting)))
    return result


__all__ += ["where", "clip", "round", "around", "fix", "real", "imag", "astype"]


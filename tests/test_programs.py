"""Issue 14's acceptance corpus: ordinary NumPy programs, unchanged but for the import.

Every ``tests/programs/*.py`` is a standalone script written the way NumPy users
write (``import numpy as np``, in-place writes, printing, loops on array values).
Each runs twice, in a fresh module namespace with stdout captured: once with
NumPy, once with its numpy imports swapped for ``fgraph.numpy``. The printed text
must be identical and the module-level ``result`` equal (same kind of value,
same shape, dtype and values for arrays).

Programs that fgraph cannot run yet are listed in ``KNOWN_FAILURES`` and marked
``xfail(strict=True)``: when a fix makes one pass, its XPASS fails the run, and
its entry must be removed.

``python tests/test_programs.py --report`` prints a table of where each program
stands.
"""

import contextlib
import io
import math
import re
import signal
import sys
import threading
import traceback
import types
from functools import lru_cache
from pathlib import Path

import numpy
import pytest

PROGRAMS_DIR = Path(__file__).resolve().parent / "programs"
PROGRAMS = sorted(p.name for p in PROGRAMS_DIR.glob("*.py"))
TIMEOUT_S = 30  # a program that loops on a wrong value must not hang the suite

# program -> why fgraph fails it today (first error). Remove an entry when its program passes.
KNOWN_FAILURES = {
    # type() of a lazy 0-d result is fgraph's Tensor, not a NumPy scalar type (values and printing match)
    "zero_d_arrays.py": "type(np.max(v) / 2).__name__: 'Tensor' where NumPy gives 'float64'",
    # functions or dtypes fgraph.numpy lacks
    "lexsort_records.py": "string arrays: fgraph's arrays hold booleans and numbers (a documented limit)",
}


# ----------------------------------------------------------------------------- running a program

_FROM_NUMPY = re.compile(r"^(\s*)from numpy((?:\.\w+)*) import ", re.M)
_IMPORT_NUMPY = re.compile(r"^(\s*)import numpy((?:\.\w+)*)(\s+as\s+\w+)?[ \t]*$", re.M)


def _import_fgraph(match):
    indent, sub, alias = match.group(1), match.group(2), match.group(3)
    if alias is None:  # `import numpy` binds `numpy`; `import numpy.linalg` binds `numpy` too
        first = f"import fgraph.numpy{sub}; " if sub else ""  # one line: tracebacks keep their line numbers
        return f"{indent}{first}import fgraph.numpy as numpy"
    return f"{indent}import fgraph.numpy{sub}{alias}"


def swap_imports(source):
    """The same program text with every numpy import replaced by fgraph.numpy's."""
    source = _FROM_NUMPY.sub(r"\1from fgraph.numpy\2 import ", source)
    return _IMPORT_NUMPY.sub(_import_fgraph, source)


@contextlib.contextmanager
def _time_limit(seconds):
    usable = hasattr(signal, "SIGALRM") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def expire(signum, frame):
        raise TimeoutError(f"program ran past {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _numpy_state_restored():
    """Print options, error handling and the legacy global RNG are process-wide: put them back."""
    printoptions = numpy.get_printoptions()
    errstate = numpy.geterr()
    rng_state = numpy.random.get_state()
    try:
        yield
    finally:
        numpy.set_printoptions(**printoptions)
        numpy.seterr(**errstate)
        numpy.random.set_state(rng_state)


def execute(name, fgraph):
    """Run program `name` (with fgraph.numpy if `fgraph`); return (stdout, result). Raises its error."""
    path = PROGRAMS_DIR / name
    source = path.read_text()
    if fgraph:
        source = swap_imports(source)
    module = types.ModuleType(f"program_{path.stem}")
    module.__file__ = str(path)
    out = io.StringIO()
    with _numpy_state_restored(), _time_limit(TIMEOUT_S), contextlib.redirect_stdout(out):
        exec(compile(source, str(path), "exec"), module.__dict__)
    if "result" not in module.__dict__:
        raise AssertionError(f"{name} defines no module-level `result`")
    return out.getvalue(), module.__dict__["result"]


@lru_cache(maxsize=None)
def numpy_outcome(name):
    return execute(name, fgraph=False)


# ----------------------------------------------------------------------------- comparing results

def _kind(value):
    if isinstance(value, (tuple, list)):
        return type(value).__name__
    if value is None:
        return "None"
    if isinstance(value, numpy.generic) or not isinstance(value, (bool, int, float, complex, str)):
        return "array"  # ndarrays, NumPy scalars and lazy arrays alike
    return f"Python {type(value).__name__}"


def assert_same_result(expected, actual, where="result"):
    kind, got = _kind(expected), _kind(actual)
    assert got == kind, f"{where}: NumPy gives a {kind} ({type(expected).__name__}), " \
                        f"fgraph a {got} ({type(actual).__name__})"
    if kind in ("tuple", "list"):
        assert len(actual) == len(expected), f"{where}: length {len(actual)} != {len(expected)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same_result(e, a, f"{where}[{i}]")
    elif kind == "array":
        e, a = numpy.asarray(expected), numpy.asarray(actual)
        assert a.shape == e.shape, f"{where}: shape {a.shape} != NumPy's {e.shape}"
        assert a.dtype == e.dtype, f"{where}: dtype {a.dtype} != NumPy's {e.dtype}"
        numpy.testing.assert_array_equal(a, e, err_msg=where)  # NaNs compare equal
    elif kind != "None":
        both_nan = isinstance(expected, (float, complex)) and \
            all(math.isnan(x) for x in (complex(expected).real, complex(actual).real))
        assert both_nan or actual == expected, f"{where}: {actual!r} != NumPy's {expected!r}"


def check_program(name):
    """Run `name` with fgraph and compare it with NumPy's run; return fgraph's result. Raises on any difference."""
    expected_out, expected = numpy_outcome(name)
    out, result = execute(name, fgraph=True)
    if out != expected_out:
        got, want = out.splitlines(), expected_out.splitlines()
        i = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got), len(want)))
        raise AssertionError(
            f"printed output differs at line {i + 1}: fgraph {got[i] if i < len(got) else '<end>'!r}, "
            f"NumPy {want[i] if i < len(want) else '<end>'!r}")
    assert_same_result(expected, result)
    return result


# ----------------------------------------------------------------------------- the tests

@pytest.mark.parametrize("name", PROGRAMS)
def test_program_runs_with_numpy(name):
    out, result = numpy_outcome(name)
    assert out.strip(), f"{name} prints nothing"
    assert _kind(result) != "None"


def _param(name):
    if name in KNOWN_FAILURES:
        return pytest.param(name, marks=pytest.mark.xfail(reason=KNOWN_FAILURES[name], strict=True))
    return name


@pytest.mark.parametrize("name", [_param(n) for n in PROGRAMS])
def test_program_matches_numpy_under_fgraph(name):
    check_program(name)


def test_corpus_is_large_and_known_failures_name_programs():
    assert len(PROGRAMS) >= 64
    stale = sorted(set(KNOWN_FAILURES) - set(PROGRAMS))
    assert not stale, f"KNOWN_FAILURES names programs that do not exist: {stale}"


def test_swap_imports():
    src = "import numpy as np\nimport numpy\nfrom numpy import zeros, ones\n" \
          "from numpy.linalg import norm\nimport numpy.linalg as la\nimport numpy.fft\nimport numpyx\n"
    assert swap_imports(src) == (
        "import fgraph.numpy as np\nimport fgraph.numpy as numpy\nfrom fgraph.numpy import zeros, ones\n"
        "from fgraph.numpy.linalg import norm\nimport fgraph.numpy.linalg as la\n"
        "import fgraph.numpy.fft; import fgraph.numpy as numpy\nimport numpyx\n")


# ----------------------------------------------------------------------------- the progress report

def _first_error_line(exc):
    lines = [ln for ln in str(exc).splitlines() if ln.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


def _holds_lazy(value):
    if isinstance(value, (tuple, list)):
        return any(_holds_lazy(v) for v in value)
    return type(value).__module__.split(".")[0] == "fgraph"


def report(names=PROGRAMS, file=sys.stdout):
    """Print program | numpy | fgraph (ok, or the first line of its error); return the failures."""
    rows, failures = [], {}
    for name in names:
        try:
            numpy_outcome(name)
            np_ok = "ok"
        except Exception as exc:  # noqa: BLE001 - a report lists every failure
            np_ok = "FAIL " + _first_error_line(exc)
        try:
            fg = "ok" if _holds_lazy(check_program(name)) else "ok (result holds no fgraph array)"
        except Exception as exc:  # noqa: BLE001
            fg = _first_error_line(exc)
            tb = traceback.extract_tb(exc.__traceback__)
            line = next((f.lineno for f in reversed(tb) if f.filename == str(PROGRAMS_DIR / name)), None)
            fg = failures[name] = (f"line {line}: " if line else "") + fg
        passed = name not in failures
        known = "" if passed == (name not in KNOWN_FAILURES) else \
            ("  [listed in KNOWN_FAILURES: remove]" if passed else "  [NEW failure]")
        rows.append((name, np_ok, fg + known))
    width = max(len(r[0]) for r in rows)
    print(f"{'program':<{width}}  numpy  fgraph", file=file)
    for name, np_ok, fg in rows:
        print(f"{name:<{width}}  {np_ok:<5}  {fg}", file=file)
    print(f"\n{len(rows)} programs; fgraph matches NumPy on {len(rows) - len(failures)}", file=file)
    return failures


if __name__ == "__main__":
    if "--report" in sys.argv[1:]:
        report([n for n in PROGRAMS if n in sys.argv[2:]] or PROGRAMS)
    else:
        sys.exit(pytest.main([__file__, "-q", *sys.argv[1:]]))

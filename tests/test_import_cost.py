"""``import fgraph.numpy`` costs little more than ``import numpy`` (issue 15).

No timings here (tests never time things): what is measured is which modules
the import loads, in a fresh interpreter.  The layers on top (autodiff, the
optimiser, nn, the ONNX importer, ``fgraph.numpy.random``) and the engines
are imported when first used, and NumPy's heavy submodules that ``import
numpy`` itself leaves unloaded stay unloaded.
"""
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

#: fgraph modules (and what only they import) that ``import fgraph.numpy`` leaves for first use
FGRAPH_LAZY = ("fgraph.autodiff", "fgraph.autodiff.graph_rules", "fgraph.optimiser", "fgraph.nn", "fgraph.onnx",
               "fgraph.updates", "fgraph.graph", "fgraph.numpy.random", "fgraph.engines.numpy_engine",
               "fgraph.engines.numpy_kernels", "fgraph.engines.cupy_engine", "fgraph.engines.dask_engine",
               "fgraph.devices", "onnx", "cupy", "dask",
               # the composite modules (functions built from other ops: they register nothing)
               "fgraph.ops.composite", "fgraph.ops.arrays", "fgraph.ops.statistics", "fgraph.ops.evaluated",
               "fgraph.ops.data_dependent")

#: NumPy's submodules that ``import numpy`` leaves unloaded and fgraph.numpy does not need at import
NUMPY_LAZY = ("numpy.f2py", "numpy.testing", "numpy.ma", "numpy.polynomial", "numpy.ctypeslib", "numpy.char",
              "numpy.rec", "numpy.typing", "numpy.random", "numpy.fft", "numpy.distutils")


def _run(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _loaded_after_import() -> list:
    return _run("""
        import json, sys
        import fgraph.numpy
        print(json.dumps(sorted(sys.modules)))
    """)


def test_import_leaves_the_layers_on_top_and_the_engines_for_first_use():
    loaded = set(_loaded_after_import())
    assert "fgraph.numpy" in loaded and "fgraph.ops.linalg" in loaded  # (every op family: the ops are registered)
    assert sorted(m for m in FGRAPH_LAZY if m in loaded) == []


def test_import_leaves_numpys_heavy_submodules_unloaded():
    loaded = set(_loaded_after_import())
    assert sorted(m for m in NUMPY_LAZY if m in loaded) == []


def test_what_is_lazy_works_on_first_use():
    got = _run("""
        import json, sys
        import numpy as np
        import fgraph
        import fgraph.numpy as fnp

        x = fnp.asarray(np.arange(6.0).reshape(2, 3))
        value = float((fnp.sin(x) * 2).sum())                      # evaluation: makes the NumPy engine
        w = fnp.variable(np.ones(3), name="w")
        loss = ((x @ w) ** 2).sum()
        gw = fgraph.grad(loss, w)                                  # autodiff and its rules
        g = fgraph.optimise(fgraph.Graph(outputs=[loss, gw]))       # the optimiser, Graph
        lv, gv = fgraph.compile(g)()
        assert np.allclose(gv, 2 * (np.arange(6.0).reshape(2, 3).T @ (np.arange(6.0).reshape(2, 3) @ np.ones(3))))
        vg = fgraph.value_and_grad(lambda a: (a * a).sum())(np.ones(3))
        assert np.allclose(vg[1], 2.0)
        assert fnp.allclose(fnp.ones(2), np.ones(2)) and fnp.r_[1:3].shape == (2,)  # composites, by name
        assert np.asarray(np.histogram(x, bins=3)[0]).tolist() == [2, 2, 2]       # ...and through NumPy
        relu = np.asarray(fgraph.nn.relu(fnp.asarray([-1.0, 2.0])))  # nn
        assert callable(fgraph.optim.sgd)                            # optim
        assert "Relu" in fgraph.onnx.supported_ops()                 # the ONNX importer
        assert fnp.random.default_rng(0).permutation(fnp.arange(4)).shape == (4,)
        fnp.testing.assert_allclose(fnp.ones(2), np.ones(2))         # NumPy's testing, passed through
        assert fnp.typing is np.typing and fnp.random is sys.modules["fgraph.numpy.random"]
        assert callable(fgraph.jit) and callable(fgraph.make)       # functions, though also submodule names
        import fgraph.jit, fgraph.make
        assert callable(fgraph.jit) and callable(fgraph.make)
        ns = {}
        exec("from fgraph import *", ns)
        assert all(name in ns for name in fgraph.__all__)
        assert {"grad", "optimise", "onnx", "nn"} <= set(dir(fgraph)) and "random" in dir(fnp)
        print(json.dumps({"value": value, "relu": relu.tolist(), "engines": sorted(
            m for m in ("fgraph.engines.cupy_engine", "fgraph.engines.dask_engine") if m in sys.modules)}))
    """)
    assert got["value"] == pytest.approx(float((np.sin(np.arange(6.0)) * 2).sum()))
    assert got["relu"] == [0.0, 2.0]
    assert got["engines"] == []  # only the engine asked for is made


def test_registries_are_complete_once_used():
    """Every gradient rule and NumPy kernel is there once the lazy layers are first used (an op's OpDef
    brings its own with it; what an engine adds comes with the engine)."""
    got = _run("""
        import json
        import fgraph
        from fgraph.registry import attr_table

        before = (len(attr_table("grad")), len(attr_table("numpy_kernel")))
        fgraph.grad                                   # imports autodiff, which imports its rules
        fgraph.get_engine("numpy")                    # makes the engine, which imports its kernels
        print(json.dumps({"before": before, "grad": sorted(attr_table("grad")),
                          "kernels": sorted(attr_table("numpy_kernel")), "ops": sorted(fgraph.registered_ops())}))
    """)
    assert "sin" in got["grad"] and "matmul" in got["grad"]
    assert "sin" in got["kernels"] and "matmul" in got["kernels"]
    eager = _run("""
        import json
        import fgraph, fgraph.autodiff, fgraph.engines.numpy_engine, fgraph.nn, fgraph.onnx, fgraph.optimiser
        from fgraph.registry import attr_table
        print(json.dumps({"grad": sorted(attr_table("grad")), "kernels": sorted(attr_table("numpy_kernel")),
                          "ops": sorted(fgraph.registered_ops())}))
    """)
    assert got == {**eager, "before": got["before"]}


def test_the_composite_names_table_is_the_composite_modules_all():
    """fgraph.numpy names the composites' functions before importing them: the table must list exactly
    what each module exports, in order (a name added to a module and not to the table is missing)."""
    from importlib import import_module

    import fgraph.numpy as fnp
    from fgraph.ops import COMPOSITES

    assert tuple(fnp._COMPOSITE_NAMES) == COMPOSITES
    for family, names in fnp._COMPOSITE_NAMES.items():
        assert names == tuple(import_module(f"fgraph.ops.{family}").__all__), family
    for names in fnp._COMPOSITE_NAMES.values():
        for name in names:
            assert getattr(fnp, name) is not None and name in fnp.__all__ and name in dir(fnp)


@pytest.mark.parametrize("setting, frozen", [(None, True), ("0", False), ("1", True)])
def test_the_import_freezes_what_it_made_unless_told_not_to(setting, frozen, monkeypatch):
    """The objects alive after ``import fgraph.numpy`` leave the collector's
    sight (``gc.freeze``: its full passes walked them all); ``FGRAPH_GC_FREEZE=0``
    leaves the collector as it was.  Garbage made later is still collected."""
    if setting is None:
        monkeypatch.delenv("FGRAPH_GC_FREEZE", raising=False)
    else:
        monkeypatch.setenv("FGRAPH_GC_FREEZE", setting)
    got = _run("""
        import gc, json, weakref
        import fgraph.numpy as fnp

        class Cycle:
            pass
        c = Cycle()
        c.me = c
        gone = weakref.ref(c)
        del c
        gc.collect()
        print(json.dumps({"frozen": gc.get_freeze_count(), "collected": gone() is None}))
    """)
    assert (got["frozen"] > 1000) == frozen
    assert got["collected"]

"""Layers import downward only (issue 18).

Every fgraph module's imports are read (``ast``, nothing is imported) and
checked against the layers below, bottom to top: a module may import its
own layer and the layers under it, never one above.  At module level there
is no exception.  Inside a function (a late import, which breaks a cycle
or keeps ``import fgraph.numpy`` light) an import going up must be in
``ALLOWED`` with its reason, and all imports inside functions are counted
against a recorded ceiling, so new ones cannot creep back in unnoticed:
lower ``FUNCTION_LEVEL_CEILING`` when you remove some.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "fgraph"

#: bottom to top; a module belongs to the layer of its longest listed prefix (names relative to ``fgraph``;
#: "" is the package itself, ``fgraph/__init__.py``, which sits on top)
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "tree"),
    ("devices",),
    ("registry", "opdef"),
    ("shape",),
    ("symbol", "memory", "cache"),
    ("views", "stack", "eager", "array_api"),  # what a lazy array's handle needs: its stack, its writes
    ("tensor",),                    # the lazy array handle
    ("ops",),                       # the op families
    ("graph",),
    ("optimiser",),
    ("engines",),
    ("numpy",),                     # the namespace: fgraph.numpy composes the default stack
    ("autodiff", "updates", "optim", "nn", "onnx", "show", "serialize", "control", "jit", "make", "bench",
     "models", "demo", "__main__", ""),
)

#: (importer, imported): imports inside functions that go up a layer, each with its reason (names relative to
#: fgraph).  Module-level imports have no allow-list: they all go down.
ALLOWED: dict[tuple[str, str], str] = {
    ("eager", "engines.incremental"): "a small value is computed when made by the engines' compute_now (the host "
                                      "engine object itself comes through the stack; this function does not yet)",
    ("graph", "show.listing"): "printing a graph shows its listing, which sits on top (loaded when first printed)",
    ("views", "ops.indexing"): "a write through a view builds indexing ops (a cycle: the ops import tensor, "
                               "which imports views)",
    ("views", "ops.writes"): "a write through a view builds the write's op (a cycle, as above)",
    ("views", "tensor"): "a write through a view makes a constant node (a cycle: tensor imports views)",
    ("ops.building", "numpy"): "the namespace is built from the op families: they reach it at call time "
                                "through building.namespace(), the one place that imports it",
}

#: import statements of fgraph modules inside functions, in all of fgraph (see the module docstring)
FUNCTION_LEVEL_CEILING = 103


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _resolve(module: str, is_package: bool, node: ast.ImportFrom, known: dict) -> list[str]:
    """The fgraph modules (relative names) an import names: ``from . import x`` names the submodule x."""
    if node.level == 0:
        if not (node.module or "").startswith("fgraph"):
            return []
        base = node.module[len("fgraph."):] if node.module != "fgraph" else ""
    else:
        parts = module.split(".") if module else []
        if not is_package:
            parts = parts[:-1]
        parts = parts[:len(parts) - (node.level - 1)]
        base = ".".join(parts + ([node.module] if node.module else []))
    found = []
    for alias in node.names:
        sub = f"{base}.{alias.name}" if base else alias.name
        found.append(sub if sub in known else base)
    return found


def _imports(module: str, path: Path, known: dict):
    """(module-level imports, function-level imports) of fgraph modules: [(line, imported)]."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    top, inner = [], []

    def visit(node, in_function: bool):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                names = [a.name[len("fgraph."):] if a.name.startswith("fgraph.") else "" for a in child.names
                         if a.name == "fgraph" or a.name.startswith("fgraph.")]
            elif isinstance(child, ast.ImportFrom):
                names = _resolve(module, is_package, child, known)
            else:
                visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))
                continue
            (inner if in_function else top).extend((child.lineno, n) for n in names)

    visit(tree, False)
    return top, inner


def _layer(module: str) -> int:
    best, rank = -1, None
    for k, names in enumerate(LAYERS):
        for prefix in names:
            if (module == prefix or module.startswith(prefix + ".") or prefix == "") and len(prefix) > best:
                best, rank = len(prefix), k
    return rank


@functools.lru_cache(maxsize=None)
def _scan():
    """(module-level imports going up, function-level ones going up, function-level import statements):
    the first two as [(importer, imported, where)], the last as {where: [imported]}."""
    known = _modules()
    up, late_up, inner = [], [], {}
    for module, path in known.items():
        top, late = _imports(module, path, known)
        where = f"fgraph/{path.relative_to(ROOT)}"
        for line, imported in top:
            if _layer(imported) > _layer(module):
                up.append((module, imported, f"{where}:{line}"))
        for line, imported in late:
            inner.setdefault(f"{where}:{line}", []).append(imported)
            if _layer(imported) > _layer(module):
                late_up.append((module, imported, f"{where}:{line}"))
    return up, late_up, inner


def test_every_module_has_a_layer():
    assert [m for m in _modules() if _layer(m) is None] == []


def _described(found) -> str:
    return "\n".join(f"{where}: {m} imports {i} (layer {_layer(i)}, above {m}'s {_layer(m)})" for m, i, where in found)


def test_module_level_imports_go_down():
    up, _, _ = _scan()
    assert up == [], "upward imports (move the code down, or inject what it needs from above):\n" + _described(up)


def test_function_level_imports_go_down_unless_allowed():
    _, late_up, _ = _scan()
    found = [(m, i, where) for m, i, where in late_up if (m, i) not in ALLOWED]
    assert found == [], "upward imports inside functions (move the code down, inject what it needs, or allow " \
                        "it in ALLOWED with a reason):\n" + _described(found)


def test_allow_list_has_no_stale_entries():
    _, late_up, _ = _scan()
    seen = {(m, i) for m, i, _ in late_up}
    assert sorted(k for k in ALLOWED if k not in seen) == []
    assert all(reason.strip() for reason in ALLOWED.values())


def test_function_level_imports_do_not_creep_back():
    _, _, inner = _scan()
    listing = "\n".join(f"{where}: {', '.join(imported)}" for where, imported in inner.items())
    assert len(inner) <= FUNCTION_LEVEL_CEILING, (
        f"{len(inner)} imports inside functions, the ceiling is {FUNCTION_LEVEL_CEILING}: import at module top "
        f"unless it breaks a cycle or keeps `import fgraph.numpy` light (then say so in a comment):\n{listing}")

"""Nothing a user holds changes: nodes, tensors, graphs, and their arrays."""
import numpy as np
import pytest

import fgraph
import fgraph.numpy as fnp
from fgraph.symbol import Node


def _graph():
    x = fnp.placeholder((3,), "float64", name="x")
    v = fnp.variable(np.ones(3), name="v")
    y = fnp.exp(x) * v + fnp.asarray(np.arange(3.0))
    return fgraph.Graph(outputs=[y, fnp.sin(y)], updates={v: v + 1}), x, y


def test_nodes_and_graphs_cannot_be_changed_writes_move_only_handles():
    g, x, y = _graph()
    for field in ("op", "params", "inputs", "shape", "dtype", "name", "where"):
        with pytest.raises(AttributeError):
            setattr(y.node, field, None)
    with pytest.raises(AttributeError):
        del y.node.op
    with pytest.raises(AttributeError):
        y.node = x.node
    with pytest.raises(AttributeError):
        g.outputs = ()
    key, old, keys = g.key, y.node, [n.key for n in g.nodes()]
    y[0] = 1  # a write makes a new node and moves the handle y
    y.sort()
    y += 1
    assert y.node is not old and old.op == "add"
    assert g.key == key and [n.key for n in g.nodes()] == keys


def test_constants_snapshot_the_users_array():
    a = np.arange(4.0)
    t = fnp.asarray(a) * 2
    a[:] = -1  # the user changes their array after building
    np.testing.assert_array_equal(np.asarray(t), [0, 2, 4, 6])


def test_compile_run_and_optimise_change_no_graph():
    g, x, y = _graph()
    key = g.key
    node_keys = [n.key for n in g.nodes()]
    exe = fgraph.compile(g)
    exe(x=np.zeros(3))
    exe.run(steps=3, x=np.ones(3))
    fgraph.optimise(g)
    np.asarray(fnp.sin(fnp.asarray(np.ones(2))))
    assert g.key == key and [n.key for n in g.nodes()] == node_keys
    # the variable's initial value is untouched by the executable's updates
    assert np.array_equal(g.updates[0][0].param("value").array, np.ones(3))


def test_optimise_returns_same_object_when_nothing_changes():
    g, _, _ = _graph()
    g2 = fgraph.optimise(g)
    assert g2 is not g and fgraph.optimise(g2) is g2


def test_cse_shares_and_does_not_mutate():
    a = fnp.asarray(np.arange(3.0))
    g = fgraph.Graph([fnp.sin(a) + 1, fnp.sin(a) + 1])
    before = g.key
    g2 = fgraph.optimise(g)
    assert g2 is not g and g2.outputs[0] is g2.outputs[1]
    assert g.key == before and g.outputs[0] is not g.outputs[1]
    r1, r2 = fgraph.compile(g)(), fgraph.compile(g2)()
    np.testing.assert_array_equal(r1[0], r2[0])


def test_structural_keys():
    a = fnp.asarray(np.arange(3.0))
    b = fnp.asarray(np.arange(3.0))
    assert (a + 1).node.key == (b + 1).node.key
    assert (a + 1).node.key != (a + 2).node.key
    assert (a + 0.0).node.key != (a + -0.0).node.key  # -0.0 is another constant
    assert (a + 1).node.key != (a + 1.0).node.key
    x1 = fnp.placeholder((3,), name="p")
    x2 = fnp.placeholder((3,), name="p")
    assert x1.node.key != x2.node.key  # two placeholders are two inputs
    assert isinstance(a.node, Node) and hash(a.node) == a.node.key[0]


def test_error_names_the_users_line():
    a = fnp.asarray(np.ones((2, 3)))
    b = fnp.asarray(np.ones((4,)))
    with pytest.raises(fgraph.ShapeError) as info:
        a * b  # THIS LINE
    msg = str(info.value)
    assert "multiply" in msg and "(2, 3)" in msg and "(4,)" in msg
    assert f"test_immutability.py:{info.tb.tb_lineno}" in msg
    assert isinstance(info.value, ValueError)
    with pytest.raises(fgraph.DTypeError) as info:
        fnp.bitwise_and(a, 1)
    assert isinstance(info.value, TypeError) and "test_immutability.py" in str(info.value)


def test_keys_tell_apart_params_python_hashes_alike():
    """hash(-1) == hash(-2) and hash(0.0) == hash(-0.0) in CPython."""
    x = fnp.asarray(np.arange(12.0).reshape(3, 4))
    a, b = fnp.sum(x, axis=-1), fnp.sum(x, axis=-2)
    assert a.node.key != b.node.key
    e1, e2 = fnp.eye(3, k=-1), fnp.eye(3, k=-2)
    np.testing.assert_array_equal(np.asarray(e1), np.eye(3, k=-1))
    np.testing.assert_array_equal(np.asarray(e2), np.eye(3, k=-2))
    g = fgraph.optimise(fgraph.Graph([fnp.roll(x, -1), fnp.roll(x, -2)]))
    r = fgraph.compile(g)()
    np.testing.assert_array_equal(r[1], np.roll(np.arange(12.0).reshape(3, 4), -2))

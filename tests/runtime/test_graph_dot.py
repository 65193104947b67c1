"""The DOT picture of a graph: constants, variables, outputs, no dead ops, captures outside."""

import re

import runtime as rt

SCALE = rt.Variable(2.0, name="scale")


def _scaled(x):
    c = rt.constant([1.0, 2.0, 3.0])
    unused = rt.zeros([10, 10])  # noqa: F841 - a dead op, left out of the picture
    y = x * c * SCALE
    if rt.reduce_sum(y) > 0:
        y = y * 2.0 + c
    return y


def _dot():
    return rt.function(_scaled).get_concrete_function(rt.TensorSpec([3])).graph.to_dot()


def _cluster(dot, label_part):
    match = re.search(r"subgraph cluster_\d+ \{\n\s*label=\"[^\"]*" + label_part + r"\";\n(.*?)\n\s*\}",
                      dot, re.S)
    return match.group(1)


def test_constants_show_small_values_and_variables_their_name():
    dot = _dot()
    assert '[label="Const\\n[1.,2.,3.]\\nf32[3]"]' in dot
    assert '[label="Const\\n2.0\\nf32[]"]' in dot
    assert '[label="ReadVariableOp\\nscale\\nf32[]"]' in dot


def test_big_constants_show_their_shape_not_their_values():
    @rt.function
    def add_big(x):
        return x + rt.ones([10, 10])

    dot = add_big.get_concrete_function(rt.TensorSpec([10, 10])).graph.to_dot()
    assert "f32[10,10]" in dot and "1.,1.," not in dot


def test_dead_ops_are_left_out_and_outputs_are_drawn():
    dot = _dot()
    assert "f32[10,10]" not in dot
    assert '"outputs" [label="outputs"' in dot and '"cond" -> "outputs";' in dot


def test_captured_values_stay_outside_the_branch_with_an_edge_in():
    dot = _dot()
    body = _cluster(dot, "cond_true")
    assert '"Mul_2" [' in body
    assert '"Mul_1"' not in body and '"Const"' not in body   # captured: declared outside
    top = dot.split("subgraph")[0] + dot.rsplit("}", 2)[-2]
    assert '"Mul_1" -> "Mul_2";' in top and '"Const" -> "Add";' in top


def test_side_effects_are_kept_even_when_unused():
    @rt.function
    def report(x):
        rt.print(x)
        return x + 1.0

    dot = report.get_concrete_function(rt.TensorSpec([])).graph.to_dot()
    assert "[label=\"PrintV2\\nPrintV2\"]" in dot   # no result, still drawn

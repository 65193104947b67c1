"""Writes docs/api.md from the public names' signatures and docstrings.

    python docs/make_api_reference.py          # rewrite docs/api.md
    python docs/make_api_reference.py --check  # exit 1 when docs/api.md is stale

The test suite runs the check, so the reference always matches the code.
"""

from __future__ import annotations

import enum
import inspect
import pathlib
import sys

import autograph as ag
import runtime as rt

OUT = pathlib.Path(__file__).resolve().parent / "api.md"

SECTIONS = [
    ("Tensors and dtypes", rt, [
        "DType", "as_dtype", "TensorShape", "TensorSpec", "Tensor", "constant", "convert_to_tensor",
        "is_tensor"]),
    ("Math", rt, [
        "add", "subtract", "multiply", "divide", "floordiv", "mod", "pow", "negative", "abs", "sign",
        "sqrt", "rsqrt", "square", "exp", "log", "log1p", "sin", "cos", "tan", "tanh", "sigmoid",
        "maximum", "minimum", "floor", "ceil", "round", "clip_by_value", "equal", "not_equal", "less",
        "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_not"]),
    ("Reductions", rt, [
        "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
        "reduce_all", "argmax", "argmin"]),
    ("Linear algebra", rt, ["matmul", "tensordot", "einsum", "eye", "linalg.inv", "linalg.det"]),
    ("Arrays", rt, [
        "reshape", "transpose", "concat", "stack", "unstack", "split", "squeeze", "expand_dims", "tile",
        "gather", "gather_nd", "where", "zeros", "ones", "zeros_like", "ones_like", "fill", "range",
        "shape", "size", "rank", "cast", "identity", "one_hot", "boolean_mask", "reverse", "cumsum"]),
    ("Random", rt, ["random.uniform", "random.normal", "random.set_seed"]),
    ("Neural networks", rt, [
        "nn.relu", "nn.softmax", "nn.log_softmax", "nn.dropout", "nn.softmax_cross_entropy_with_logits",
        "nn.sigmoid_cross_entropy_with_logits"]),
    ("Debugging", rt, [
        "print", "Assert", "debugging.assert_equal", "debugging.assert_less", "debugging.assert_greater",
        "debugging.assert_positive"]),
    ("Variables", rt, ["Variable"]),
    ("Control flow", rt, ["cond", "while_loop", "TensorArray"]),
    ("Compiled functions", rt, [
        "function", "defun", "defun_with_attributes", "Function", "ConcreteFunction", "register",
        "add_function_callback", "remove_function_callback", "clear_function_callbacks",
        "run_functions_eagerly", "functions_run_eagerly", "experimental_run_functions_eagerly",
        "device", "name_scope", "init_scope", "Graph", "Operation"]),
    ("Gradients", rt, ["GradientTape", "stop_gradient", "custom_gradient"]),
    ("Layers, models and optimizers", rt, [
        "layers.Layer", "Model", "layers.Dense", "layers.Dropout", "optimizers.SGD", "optimizers.Adam",
        "train.GradientDescentOptimizer"]),
    ("Autograph", ag, [
        "to_graph", "to_code", "do_not_convert", "experimental.Feature", "experimental.set_loop_options",
        "set_verbosity"]),
]


def resolve(module, dotted: str):
    obj = module
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def signature(obj) -> str:
    if inspect.isclass(obj) and issubclass(obj, enum.Enum):
        return ""       # what Python prints for an enum's constructor depends on its version
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return ""


def entry(prefix: str, name: str, obj) -> list[str]:
    doc = inspect.getdoc(obj)
    if not doc:
        raise SystemExit(f"{prefix}.{name} has no docstring: document it before publishing it.")
    kind = "class " if inspect.isclass(obj) else ""
    lines = [f"### `{kind}{prefix}.{name}{signature(obj)}`", "", doc, ""]
    if inspect.isclass(obj):
        for attr, member in sorted(vars(obj).items()):
            if attr.startswith("_") or not (inspect.isfunction(member) or isinstance(member, property)):
                continue
            member_doc = inspect.getdoc(member)
            if member_doc:
                sig = signature(member) if inspect.isfunction(member) else ""
                lines.append(f"- `{attr}{sig}`: {member_doc.splitlines()[0]}")
        lines.append("")
    return lines


def render() -> str:
    lines = ["# API reference", "",
             "Generated from the docstrings by `python docs/make_api_reference.py`; do not edit by hand.",
             "The user guide explains how the pieces fit together.", ""]
    for title, module, names in SECTIONS:
        prefix = "rt" if module is rt else "ag"
        lines += [f"## {title}", ""]
        for name in names:
            lines += entry(prefix, name, resolve(module, name))
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is stale: run python docs/make_api_reference.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Functions inside saved model configs: this runtime's public functions by name
(`kernel_initializer=rt.random.normal`), and lambdas (`Lambda(lambda x: ...)`) by their
source text, as Keras saves lambdas. A lambda is code: loading one runs it, so
`load_model` asks for `safe_mode=False`, as Keras does.

Under `safe_mode` (the default) a config may name only the public functions of an
allow-list: those that compute tensors from their arguments and do nothing else (the
namespaces of tensor math, listed in `PURE_NAMESPACES`, and the array, shape and random
functions of `PURE_NAMES`). Anything else (`rt.io.write_file`, `rt.print`, `rt.py_function`,
`rt.random.set_seed`, the summary and config functions, functions taking functions as
arguments) is refused when the config is read, before anything runs.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import dis
import importlib
import inspect
import textwrap
import threading
import types
from typing import Any, Iterator

from ..exports import NAMESPACES

PREFIX = "runtime>"


class _Mode(threading.local):
    safe = True
    depth = 0  # the loading() blocks open in this thread


_MODE = _Mode()
_UNSAFE = {"everywhere": False}  # keras.config.enable_unsafe_deserialization


@contextlib.contextmanager
def loading(safe_mode: bool) -> Iterator[None]:
    """Within the block, deserialised lambdas are refused unless `safe_mode` is False."""
    outer = _MODE.safe
    _MODE.safe = bool(safe_mode)
    _MODE.depth += 1
    try:
        yield
    finally:
        _MODE.safe = outer
        _MODE.depth -= 1


def enable_unsafe_deserialization() -> None:
    """Turns safe mode off for deserialisation outside `load_model` (Keras 3's
    `keras.config.enable_unsafe_deserialization`): `deserialize_keras_object` then rebuilds
    lambdas whatever its `safe_mode`; `load_model` keeps its own `safe_mode`, as in Keras."""
    _UNSAFE["everywhere"] = True


def effective_safe_mode(safe_mode: bool) -> bool:
    """`safe_mode`, or False when unsafe deserialisation was enabled and no load is under way."""
    return False if _UNSAFE["everywhere"] and not _MODE.depth else safe_mode


def public_name(fn: Any) -> str | None:
    """`PREFIX + "random.normal"` for a function published as `rt.random.normal`, or None."""
    for space, names in NAMESPACES.items():
        for name, value in names.items():
            if value is fn:
                return PREFIX + (f"{space}.{name}" if space else name)
    return None


def public_function(name: str) -> Any:
    """The function `public_name` named; a ValueError when there is none, or when it is not
    in the safe-mode allow-list and safe mode is on."""
    space, _, attr = str(name)[len(PREFIX):].rpartition(".")
    fn = NAMESPACES.get(space, {}).get(attr)
    if fn is None or inspect.isclass(fn) or not callable(fn):
        raise ValueError(f"Unknown function {name!r} in the config: no public function of this "
                         "runtime has that name.")
    if _MODE.safe and not is_pure(fn):
        shown = "rt." + (f"{space}.{attr}" if space else attr)
        raise ValueError(f"The model names the function {shown} ({name!r}), which safe_mode "
                         "does not allow: only functions that compute tensors from their "
                         "arguments and do nothing else load in safe mode. Nothing was run. "
                         "Load with safe_mode=False if you trust the file.")
    return fn


# Namespaces of functions that compute tensors from their arguments and do nothing else.
PURE_NAMESPACES = frozenset({"math", "math.special", "linalg", "nn", "signal", "image"})
# Other public functions that only compute tensors (random draws included: initializers).
PURE_NAMES = frozenset({
    "abs", "acos", "acosh", "add", "add_n", "argmax", "argmin", "argsort", "asin", "asinh",
    "atan", "atan2", "atanh", "boolean_mask", "broadcast_to", "cast", "ceil",
    "clip_by_global_norm", "clip_by_norm", "clip_by_value", "complex", "concat", "constant",
    "convert_to_tensor", "cos", "cosh", "cumsum", "divide", "einsum", "ensure_shape", "equal",
    "exp", "expand_dims", "eye", "fill", "floor", "floordiv", "gather", "gather_nd", "greater",
    "greater_equal", "histogram_fixed_width", "identity", "identity_n", "less", "less_equal",
    "lin_space", "linspace", "log", "log1p", "logical_and", "logical_not", "logical_or",
    "logical_xor", "matmul", "maximum", "meshgrid", "minimum", "mod", "multiply", "negative",
    "norm", "not_equal", "one_hot", "ones", "ones_like", "pad", "pow", "range", "rank",
    "realdiv", "reciprocal", "reduce_all", "reduce_any", "reduce_logsumexp", "reduce_max",
    "reduce_mean", "reduce_min", "reduce_prod", "reduce_sum", "repeat", "reshape", "reverse",
    "reverse_sequence", "roll", "round", "rsqrt", "saturate_cast", "scalar_mul", "scatter_nd",
    "searchsorted", "sequence_mask", "shape", "shape_n", "sigmoid", "sign", "sin", "sinh",
    "size", "slice", "sort", "split", "sqrt", "square", "squeeze", "stack", "subtract", "tan",
    "tanh", "tensor_scatter_nd_add", "tensor_scatter_nd_max", "tensor_scatter_nd_min",
    "tensor_scatter_nd_sub", "tensor_scatter_nd_update", "tensordot", "tile", "transpose",
    "truediv", "truncatediv", "truncatemod", "unique", "unique_with_counts", "unravel_index",
    "unstack", "where", "zeros", "zeros_like", "dtypes.saturate_cast", "dtypes.complex",
    "random.normal", "random.uniform", "random.truncated_normal", "random.stateless_normal",
    "random.stateless_uniform", "random.stateless_truncated_normal",
})


# Functions of those namespaces that call Python on the host (a PyFunc op: SciPy's Sobol
# engine, Pillow's codecs, the pool-adjacent-violators loop, NumPy's LAPACK calls): not
# allowed in safe mode.
HOST_SIDE_NAMES = frozenset({
    "math.sobol_sample", "nn.isotonic_regression", "image.adjust_jpeg_quality",
    "image.random_jpeg_quality", "image.stateless_random_jpeg_quality", "image.decode_webp",
    # LAPACK routines NumPy runs on the host: eigen-decompositions, LU, the matrix square root
    "linalg.eig", "linalg.eigvals", "linalg.logm", "linalg.lu", "linalg.sqrtm",
})


def _allowed_objects() -> set:
    found, host_side = set(), set()
    for space, names in NAMESPACES.items():
        for name, value in names.items():
            full = f"{space}.{name}" if space else name
            if full in HOST_SIDE_NAMES:
                host_side.add(id(value))
            elif (space in PURE_NAMESPACES or full in PURE_NAMES) and not inspect.isclass(value):
                found.add(id(value))
    return found - host_side


def is_pure(fn: Any) -> bool:
    """True when `fn` is published under a name of the safe-mode allow-list."""
    return id(fn) in _allowed_objects()


def is_lambda(fn: Any) -> bool:
    return isinstance(fn, types.FunctionType) and fn.__name__ == "<lambda>"


def lambda_config(fn: types.FunctionType) -> dict:
    """`{"source": "lambda x: ...", "modules": {global name: module name}}`; a TypeError
    when the lambda's text cannot be found or it uses values other than modules."""
    code = fn.__code__
    if fn.__closure__ or fn.__defaults__ or fn.__kwdefaults__:
        uses = ", ".join(code.co_freevars) or "default values"
        raise TypeError(f"A saved lambda may only use its arguments and modules; this one uses "
                        f"{uses} of its enclosing code. Use a function registered with "
                        "keras.saving.register_keras_serializable instead.")
    source = _lambda_source(fn)
    modules = {}
    for name in _global_names(code):
        value = fn.__globals__.get(name)
        if isinstance(value, types.ModuleType):
            modules[name] = value.__name__
        elif not hasattr(builtins, name):
            raise TypeError(f"The lambda {source!r} uses the global {name!r}, which is not a "
                            "module; a saved lambda may only use its arguments and modules. "
                            "Use a function registered with "
                            "keras.saving.register_keras_serializable instead.")
    return {"source": source, "modules": modules}


def lambda_from_config(config: dict) -> Any:
    """The lambda of `lambda_config`'s dict (only with `safe_mode=False`)."""
    if _MODE.safe:
        raise ValueError(f"The model holds a lambda ({config.get('source')!r}), and loading it "
                         "runs its code. Load with safe_mode=False if you trust the file.")
    namespace = {name: importlib.import_module(module)
                 for name, module in dict(config.get("modules", {})).items()}
    fn = eval(compile(config["source"], "<saved lambda>", "eval"), namespace)  # noqa: S307
    if not is_lambda(fn):
        raise ValueError("A saved lambda's source is not a lambda expression.")
    return fn


def _global_names(code: types.CodeType) -> set:
    names = {ins.argval for ins in dis.get_instructions(code)
             if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _lambda_source(fn: types.FunctionType) -> str:
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        raise TypeError("The source of a lambda in the model is not available (defined at a "
                        "prompt or with exec); use a registered function instead.") from None
    text = textwrap.dedent("".join(lines))
    line = fn.__code__.co_firstlineno - first + 1
    for source, offset in ((text, 0), (f"(\n{text}\n)", 1)):
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        found = {ast.get_source_segment(source, node) for node in ast.walk(tree)
                 if isinstance(node, ast.Lambda) and node.lineno == line + offset
                 and [a.arg for a in node.args.args] == _arguments(fn)}
        break
    else:  # the lines are part of a larger statement: find the lambda expression itself
        found = _lambdas_on_line(text, line, _arguments(fn))
    if len(found) != 1:
        raise TypeError("The lambda in the model cannot be told apart from others on its line; "
                        "use a registered function instead.")
    return found.pop()


def _lambdas_on_line(text: str, line: int, arguments: list) -> set:
    """The texts of the lambda expressions taking `arguments` that start on `line` of `text`
    (each the longest piece from its `lambda` keyword that parses as that lambda)."""
    start_of_line = sum(len(row) for row in text.splitlines(keepends=True)[:line - 1])
    end_of_line = text.find("\n", start_of_line) % (len(text) + 1)
    found = set()
    start = text.find("lambda", start_of_line, end_of_line)
    while start != -1:
        for end in range(len(text), start, -1):
            piece = text[start:end].strip()
            try:
                node = ast.parse(f"(\n{piece}\n)", mode="eval").body
            except SyntaxError:
                continue
            if isinstance(node, ast.Lambda) and [a.arg for a in node.args.args] == arguments:
                found.add(piece)
                break
        start = text.find("lambda", start + 1, end_of_line)
    return found


def _arguments(fn: types.FunctionType) -> list:
    return list(fn.__code__.co_varnames[:fn.__code__.co_argcount])

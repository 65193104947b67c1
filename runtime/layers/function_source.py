"""Functions inside saved model configs: this runtime's public functions by name
(`kernel_initializer=rt.random.normal`), and lambdas (`Lambda(lambda x: ...)`) by their
source text, as Keras saves lambdas. A lambda is code: loading one runs it, so
`load_model` asks for `safe_mode=False`, as Keras does.
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


_MODE = _Mode()


@contextlib.contextmanager
def loading(safe_mode: bool) -> Iterator[None]:
    """Within the block, deserialised lambdas are refused unless `safe_mode` is False."""
    outer = _MODE.safe
    _MODE.safe = bool(safe_mode)
    try:
        yield
    finally:
        _MODE.safe = outer


def public_name(fn: Any) -> str | None:
    """`PREFIX + "random.normal"` for a function published as `rt.random.normal`, or None."""
    for space, names in NAMESPACES.items():
        for name, value in names.items():
            if value is fn:
                return PREFIX + (f"{space}.{name}" if space else name)
    return None


def public_function(name: str) -> Any:
    """The function `public_name` named, or None."""
    space, _, attr = name[len(PREFIX):].rpartition(".")
    return NAMESPACES.get(space, {}).get(attr)


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
    try:
        tree = ast.parse(text)
    except SyntaxError:
        tree = ast.parse(f"(\n{text}\n)")
        text = f"(\n{text}\n)"
    line = fn.__code__.co_firstlineno - first + 1
    found = [node for node in ast.walk(tree) if isinstance(node, ast.Lambda)
             and node.lineno in (line, line + 1)
             and [a.arg for a in node.args.args] == _arguments(fn)]
    if len(found) != 1:
        raise TypeError("The lambda in the model cannot be told apart from others on its line; "
                        "use a registered function instead.")
    return ast.get_source_segment(text, found[0])


def _arguments(fn: types.FunctionType) -> list:
    return list(fn.__code__.co_varnames[:fn.__code__.co_argcount])

"""What the report shows, gathered from a compiled function: sources, traces, graphs, code."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Optional

from autograph.core.options import ConversionOptions
from autograph.impl import conversion
from autograph.pyct import parser
from autograph.pyct.namespaces import LiveNamespace
from autograph.pyct.origin import SourceMap

from ..function import ConcreteFunction, Function, function
from ..tensor import EagerTensor


@dataclass
class SourceLine:
    """One line of shown code and the user's source line it comes from (None: none)."""

    text: str
    origin: Optional[int]
    ops: tuple = ()


@dataclass
class Trace:
    """One concrete function: why it was traced, its graph and its generated code."""

    index: int
    signature: str
    reason: str
    concrete: ConcreteFunction
    generated: list[SourceLine] = field(default_factory=list)


@dataclass
class Pipeline:
    name: str
    filename: str
    source: list[SourceLine]
    converted: list[SourceLine]
    converted_note: str
    traces: list[Trace]
    captured_names: dict = field(default_factory=dict)


def collect(target: Any, args: tuple, kwargs: dict) -> Pipeline:
    """Traces `target` for `args` (when given) and gathers every stage of its pipeline."""
    fn = target if isinstance(target, Function) else function(target)
    if args or kwargs or (fn.input_signature is not None and not fn.list_concrete_functions()):
        fn.get_concrete_function(*args, **kwargs)
    python_function = _unwrapped(fn.python_function)
    filename, source = _original_source(python_function)
    converted, note = _converted_source(python_function, fn, filename)
    traces = [_trace_of(i, concrete, filename)
              for i, concrete in enumerate(fn.list_concrete_functions(), 1)]
    return Pipeline(fn.__name__, filename, source, converted, note, traces,
                    _python_names(python_function))


def _python_names(python_function) -> dict:
    """The global and closure names of the function's eager tensors, by id of their value:
    a captured value is drawn under the name it has in the user's code."""
    code = getattr(python_function, "__code__", None)
    if code is None:
        return {}
    scope = {k: python_function.__globals__[k] for k in code.co_names
             if k in python_function.__globals__}
    for name, cell in zip(code.co_freevars, python_function.__closure__ or ()):
        try:
            scope[name] = cell.cell_contents
        except ValueError:  # an empty cell
            continue
    return {id(v._value): name for name, v in scope.items() if isinstance(v, EagerTensor)}


def _unwrapped(python_function):
    return inspect.unwrap(getattr(python_function, "_rt_unbound", python_function))


def _original_source(python_function) -> tuple[str, list[SourceLine]]:
    filename = inspect.getsourcefile(python_function) or "<unknown>"
    try:
        lines, first = inspect.getsourcelines(python_function)
    except (OSError, TypeError):
        return filename, [SourceLine("(source not available)", None)]
    first = max(first, 1)
    return filename, [SourceLine(text.rstrip("\n"), first + i) for i, text in enumerate(lines)]


def _converted_source(python_function, fn: Function, filename: str):
    """The autograph-converted source with each line's origin, and a note when there is none."""
    if not fn.autograph:
        return [], "autograph=False: the function is traced as written."
    options = fn.autograph_options
    if not isinstance(options, ConversionOptions):
        options = ConversionOptions.make(True, options)
    try:
        conversion.check_convertible(python_function)
        node, info = conversion.parse_for_conversion(python_function)
        node, _ = conversion.convert_node(node, info, options,
                                          LiveNamespace(python_function.__globals__))
    except Exception as e:  # noqa: BLE001 - shown on the page instead of the code
        return [], f"not converted: {type(e).__name__}: {e}"
    text = parser.unparse(node)
    source_map = SourceMap.build(node, text, info.filename)
    lines = []
    for i, line in enumerate(text.splitlines(), 1):
        where = source_map.get(i)
        lines.append(SourceLine(line, where.lineno if where and where.filename == filename else None))
    return lines, ""


def origin_line(op, filename: str) -> Optional[int]:
    """The line of `filename` that created `op`, or None (constants, other files)."""
    location = op.location
    return location[1] if location is not None and location[0] == filename else None


def _trace_of(index: int, concrete: ConcreteFunction, filename: str) -> Trace:
    compiled = concrete.compiled
    generated = []
    for i, line in enumerate(compiled.source.splitlines(), 1):
        op = compiled.line_ops.get(i)
        origin = origin_line(op, filename) if op is not None else None
        generated.append(SourceLine(line, origin, (op.name,) if op is not None else ()))
    return Trace(index, concrete.pretty_printed_signature(verbose=False),
                 getattr(concrete, "trace_reason", "traced"), concrete, generated)

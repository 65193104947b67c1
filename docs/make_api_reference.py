"""Writes docs/api.md from the public names' signatures and docstrings.

    python docs/make_api_reference.py          # rewrite docs/api.md
    python docs/make_api_reference.py --check  # exit 1 when docs/api.md is stale

The test suite runs the check, so the reference always matches the code, and checks that
every public name (`rt.*`, its namespaces, `ag.*`) has an entry. The curated SECTIONS come
first; public names they do not list follow, one section per namespace. Each entry is a
heading with the public name and a mkdocstrings directive for the object where it is
defined: the site (`mkdocs build --strict`, configured by mkdocs.yml) renders its signature,
docstring and members.
"""

from __future__ import annotations

import builtins
import enum
import functools
import inspect
import pathlib
import re
import sys
import types

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
        "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_not", "math.erf",
        "math.is_nan", "math.is_inf", "math.is_finite", "clip_by_norm", "clip_by_global_norm"]),
    ("Reductions", rt, [
        "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
        "reduce_all", "reduce_logsumexp", "argmax", "argmin"]),
    ("Linear algebra", rt, [
        "matmul", "tensordot", "einsum", "eye", "linalg.inv", "linalg.det", "norm", "linalg.global_norm",
        "linalg.diag", "linalg.diag_part", "linalg.matrix_transpose", "linalg.trace", "linalg.band_part"]),
    ("Arrays", rt, [
        "reshape", "transpose", "concat", "stack", "unstack", "split", "squeeze", "expand_dims", "tile",
        "gather", "gather_nd", "where", "zeros", "ones", "zeros_like", "ones_like", "fill", "range",
        "shape", "size", "rank", "cast", "identity", "one_hot", "boolean_mask", "reverse", "cumsum",
        "linspace", "slice", "pad", "broadcast_to", "meshgrid"]),
    ("Random", rt, ["random.uniform", "random.normal", "random.truncated_normal", "random.set_seed"]),
    ("Neural networks", rt, [
        "nn.relu", "nn.softmax", "nn.log_softmax", "nn.dropout", "nn.softmax_cross_entropy_with_logits",
        "nn.sigmoid_cross_entropy_with_logits", "nn.sparse_softmax_cross_entropy_with_logits",
        "nn.leaky_relu", "nn.elu", "nn.gelu", "nn.softplus"]),
    ("Debugging", rt, [
        "print", "Assert", "debugging.assert_equal", "debugging.assert_less", "debugging.assert_greater",
        "debugging.assert_positive", "debugging.assert_rank"]),
    ("Variables", rt, ["Variable"]),
    ("Control flow", rt, ["cond", "while_loop", "TensorArray"]),
    ("Compiled functions", rt, [
        "function", "defun", "defun_with_attributes", "Function", "ConcreteFunction", "register",
        "add_function_callback", "remove_function_callback", "clear_function_callbacks",
        "run_functions_eagerly", "functions_run_eagerly", "experimental_run_functions_eagerly",
        "device", "name_scope", "init_scope", "Graph", "Operation", "config.set_trace_cache_size",
        "config.get_trace_cache_size"]),
    ("Gradients", rt, ["GradientTape", "stop_gradient", "custom_gradient"]),
    ("Layers, models and optimizers", rt, [
        "Module", "layers.Layer", "Model", "layers.Dense", "layers.Dropout", "optimizers.SGD", "optimizers.Adam",
        "train.GradientDescentOptimizer"]),
    ("Autograph", ag, [
        "to_graph", "to_code", "do_not_convert", "experimental.Feature", "experimental.set_loop_options",
        "set_verbosity"]),
]


# namespaces of `rt` whose members are public names; the lazy ones load on first use
RT_NAMESPACES = ["math", "linalg", "random", "nn", "debugging", "errors", "nest", "layers",
                 "optimizers", "train", "callbacks", "experimental"]
RT_LAZY = ["GradientTape", "stop_gradient", "custom_gradient", "Model"]


def _members(space) -> list[str]:
    """The public members of a namespace: not private, not a module, not a typing helper."""
    names = vars(space).get("__all__") or dir(space)
    found = []
    for name in names:
        obj = getattr(space, name, None)
        if name.startswith("_") or obj is None or isinstance(obj, types.ModuleType):
            continue
        defined_in = getattr(obj, "__module__", None) or ""
        if not (defined_in.startswith(("runtime", "autograph")) or isinstance(space, types.SimpleNamespace)):
            continue  # imported helpers such as `Any` or `annotations`
        found.append(name)
    return sorted(found)


def public_names() -> list[tuple[object, str]]:
    """Every public name, as (rt or ag, dotted name): `rt.*`, its namespaces and `ag.*`."""
    names = [(rt, n) for n in _members(rt) if n not in RT_NAMESPACES] + [(rt, n) for n in RT_LAZY]
    for space in RT_NAMESPACES:
        names += [(rt, f"{space}.{n}") for n in _members(getattr(rt, space))]
    names += [(ag, n) for n in ag.__all__ if n != "experimental"]
    names += [(ag, f"experimental.{n}") for n in sorted(vars(ag.experimental))]
    return names


def sections():
    """SECTIONS, then a section per namespace for the public names they do not list."""
    listed = {(module, name) for _, module, names in SECTIONS for name in names}
    rest: dict[tuple, list[str]] = {}
    for module, name in public_names():
        if (module, name) not in listed:
            space = name.rpartition(".")[0]
            rest.setdefault((module, space), []).append(name)
    extra = []
    for (module, space), names in rest.items():
        prefix = "rt" if module is rt else "ag"
        title = f"More of `{prefix}.{space}`" if space else f"More of `{prefix}`"
        extra.append((title, module, names))
    return SECTIONS + extra


def resolve(module, dotted: str):
    obj = module
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


class _SortedSet:
    """Shows a set default in sorted order, so the page does not change with the hash seed."""

    def __init__(self, items):
        self.items = items

    def __repr__(self) -> str:
        inner = ", ".join(sorted(map(repr, self.items)))
        return f"{type(self.items).__name__}({{{inner}}})"


def _defines_below(cls, first: str, second: str) -> bool:
    """Whether `cls`'s MRO defines `first` in a class at or below the one defining `second`."""
    owners = {name: next((k for k in cls.__mro__ if name in vars(k)), object)
              for name in (first, second)}
    return owners[first] is not object and cls.__mro__.index(owners[first]) <= \
        cls.__mro__.index(owners[second])


def signature(obj) -> str:
    if inspect.isclass(obj) and issubclass(obj, enum.Enum):
        return ""       # what Python prints for an enum's constructor depends on its version
    try:
        sig = inspect.signature(obj)
        if inspect.isclass(obj) and _defines_below(obj, "__init__", "__new__"):
            # the constructor's own parameters (Python 3.10 reads a base's __new__ instead)
            init = inspect.signature(obj.__init__)
            sig = init.replace(parameters=list(init.parameters.values())[1:])
    except (TypeError, ValueError):
        return ""
    params = [p.replace(default=_SortedSet(p.default)) if isinstance(p.default, (set, frozenset))
              else p for p in sig.parameters.values()]
    return str(sig.replace(parameters=params))


def _defined_as(obj) -> str:
    """`module.name` where mkdocstrings finds `obj`: its qualified name, or the module
    attribute holding it (a function renamed when published, such as `tuple_` as `rt.tuple`)."""
    module = sys.modules.get(obj.__module__)
    if module is not None and "." not in obj.__qualname__ and \
            getattr(module, obj.__qualname__, None) is not obj:
        for attr, value in vars(module).items():
            if value is obj:
                return f"{obj.__module__}.{attr}"
    return f"{obj.__module__}.{obj.__qualname__}"


@functools.cache
def builtin_docstrings() -> frozenset[str]:
    """The docstrings Python's own types and their members carry (`str`'s, `object.__init__`'s,
    `__weakref__`'s, ...): what `inspect.getdoc` returns for an object without one of its own."""
    class Probe:
        pass

    kinds = [t for t in vars(builtins).values() if isinstance(t, type)]
    kinds += [enum.Enum, enum.IntEnum, enum.Flag, enum.EnumMeta, types.FunctionType,
              types.MethodType, Probe]
    docs = set()
    for kind in kinds:
        for value in [kind, *vars(kind).values()]:
            try:
                doc = inspect.getdoc(value)
            except Exception:  # noqa: BLE001 - a descriptor that cannot be read has no docstring
                doc = None
            if doc:
                docs.add(doc)
    docs.discard(inspect.getdoc(Probe))  # the probe has no docstring of its own: None
    return frozenset(docs)


#: Python's own class machinery, hidden on every class whatever the Python version makes of it
#: (3.13 adds __firstlineno__ and __static_attributes__, and __hash__ = None reads differently)
MACHINERY = ("__annotations__", "__dict__", "__doc__", "__firstlineno__", "__hash__",
             "__match_args__", "__module__", "__orig_bases__", "__slots__",
             "__static_attributes__", "__weakref__")


def _inherited_members(cls) -> list[str]:
    """Members of `cls` that mkdocstrings would show with a builtin's docstring: Python's
    machinery (`__module__`, `__weakref__`, an undocumented `__repr__`) and plain values
    (`recursive = True` shows `bool`'s docstring). They are left off the page."""
    names = []
    # reading `__annotations__` gives a class without annotations an empty dict of its own
    for member in {*vars(cls), "__annotations__"}:
        if member.startswith("_") and not (member.startswith("__") and member.endswith("__")):
            continue  # private: mkdocstrings leaves it off already
        try:
            value = getattr(cls, member)
            doc = inspect.getdoc(value)
        except Exception:  # noqa: BLE001
            continue
        # a None default (`params = None`) is a plain value on every Python (3.13 gives None a
        # docstring of its own, earlier versions none)
        if (value is None or doc in builtin_docstrings()) and member not in MACHINERY:
            names.append(member)
    return sorted(names)


def entry(prefix: str, name: str, obj) -> list[str]:
    if isinstance(obj, types.SimpleNamespace):
        return [f"### `{prefix}.{name}`", "", f"A namespace: see *More of `{prefix}.{name}`*.", ""]
    if not callable(obj):  # a constant such as rt.float32
        return [f"### `{prefix}.{name}`", "", f"`{obj!r}` (a `{type(obj).__name__}`)", ""]
    doc = inspect.getdoc(obj)
    if not doc:
        raise SystemExit(f"{prefix}.{name} has no docstring: document it before publishing it.")
    own = vars(obj).get("__doc__") if inspect.isclass(obj) else doc
    if doc in builtin_docstrings() or not own:
        raise SystemExit(f"{prefix}.{name} shows a docstring it inherits from a builtin or a base "
                         f"class ({doc.splitlines()[0]!r}): give it its own before publishing it.")
    kind = "class " if inspect.isclass(obj) else ""
    # mkdocstrings renders the signature, docstring and members from the defining module
    lines = [f"### `{kind}{prefix}.{name}{signature(obj)}`", "",
             f"::: {_defined_as(obj)}", "    options:",
             "      show_root_heading: false", "      heading_level: 4"]
    if inspect.isclass(obj):  # mkdocstrings' default filter, the machinery, and these members
        hidden = [*MACHINERY, *_inherited_members(obj)]
        pattern = "|".join(re.escape(member) for member in hidden)
        lines.append(f'      filters: ["!^_[^_]", "!^({pattern})$"]')
    return lines + [""]


def render() -> str:
    lines = ["# API reference", "",
             "Generated from the docstrings by `python docs/make_api_reference.py`; do not edit by hand.",
             "The user guide explains how the pieces fit together.", ""]
    first_name: dict[int, str] = {}  # an object published under several names is documented once
    for title, module, names in sections():
        prefix = "rt" if module is rt else "ag"
        lines += [f"## {title}", ""]
        for name in names:
            obj = resolve(module, name)
            if callable(obj) and id(obj) in first_name:
                lines += [f"### `{prefix}.{name}`", "", f"The same as `{first_name[id(obj)]}`.", ""]
                continue
            first_name.setdefault(id(obj), f"{prefix}.{name}")
            lines += entry(prefix, name, obj)
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

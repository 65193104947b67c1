"""Writes the list of TensorFlow names this project provides into docs/tensorflow-users.md.

    python docs/make_tf_users_page.py          # rewrite the generated part of the page
    python docs/make_tf_users_page.py --check  # exit 1 when it is stale

The names are read from the package itself (`rt.*`, its namespaces and `rt.keras`), so the
list is exactly what `import runtime as tf` offers; the differences in meaning are prose.
"""

from __future__ import annotations

import importlib
import pathlib
import sys
import types

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]  # this checkout's runtime, and generated_region

import generated_region  # noqa: E402

PAGE = HERE / "tensorflow-users.md"
SCRIPT = "make_tf_users_page.py"

#: modules under `rt` that are part of its public surface (others are the implementation)
PUBLIC_MODULES = ("errors", "experimental", "train", "saved_model", "keras", "summary",
                  "data", "dask", "distribute", "feature_column", "compat", "version", "lite")


def _public(space) -> list[str]:
    """The public names of a namespace: a module's `__all__`, or its names that are
    defined by this project (not `typing` helpers or modules it imports)."""
    if isinstance(space, types.ModuleType) and hasattr(space, "__all__"):
        return sorted(space.__all__)
    names = []
    # a namespace's dir() has the names it loads on first use too (rt.exports.LAZY_NAMES):
    # the listing is the same whether or not something loaded them already
    listed = dir(space)  # rt itself lists its lazily loaded names in dir() too
    for name in listed:
        if name.startswith("_") or name == "annotations":
            continue
        value = getattr(space, name)
        if isinstance(space, types.ModuleType) and not _ours(value):
            continue
        names.append(name)
    return sorted(names)


def _ours(value) -> bool:
    if isinstance(value, types.ModuleType):
        return value.__name__.split(".")[0] == "runtime"
    module = getattr(value, "__module__", None) or getattr(type(value), "__module__", "")
    return isinstance(module, str) and module.split(".")[0] in ("runtime", "autograph")


def _namespaces(rt) -> list[tuple[str, object]]:
    """(dotted name, namespace) of every public namespace under `rt`, sorted."""
    found: list[tuple[str, object]] = []

    def add(title: str, space) -> None:
        if any(s is space for _, s in found):
            return
        found.append((title, space))
        for name in _public(space):
            value = getattr(space, name, None)
            if isinstance(value, types.SimpleNamespace) or (
                    isinstance(value, types.ModuleType) and _ours(value)
                    and value.__name__.startswith(getattr(space, "__name__", "runtime") + ".")):
                add(f"{title}.{name}", value)

    for name in sorted(vars(rt)):
        if isinstance(getattr(rt, name), types.SimpleNamespace):
            add(f"rt.{name}", getattr(rt, name))
    for name in PUBLIC_MODULES:
        try:
            add(f"rt.{name}", getattr(rt, name))
        except (AttributeError, ImportError):   # an optional extra that is not installed
            continue
    return sorted(found, key=lambda item: item[0])


def _names(space) -> list[str]:
    return [n for n in _public(space)
            if not isinstance(getattr(space, n, None), (types.SimpleNamespace, types.ModuleType))]


def _line(title: str, space) -> str:
    names = _names(space)
    return f"- `{title}` ({len(names)}): " + ", ".join(f"`{n}`" for n in names)


def listing() -> str:
    rt = importlib.import_module("runtime")
    spaces = _namespaces(rt)
    lines = [_line("rt", rt)] + [_line(title, space) for title, space in spaces]
    total = sum(len(_names(space)) for space in [rt] + [space for _, space in spaces])
    return f"{total} names in {len(spaces) + 1} namespaces:\n\n" + "\n".join(lines)


def render(text: str) -> str:
    return generated_region.replace(text, SCRIPT, listing())


def main(argv: list[str]) -> int:
    return generated_region.main(PAGE, render, argv, SCRIPT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

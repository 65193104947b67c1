"""Writes the supported-call tables of docs/numpy.md from the registry in runtime.numpy_api.

    python docs/make_numpy_page.py          # rewrite the generated part of docs/numpy.md
    python docs/make_numpy_page.py --check  # exit 1 when it is stale

The part between the BEGIN and END markers is generated; the rest of the page is prose.
The test suite runs the check, so the page always lists what tensors really support.
"""

from __future__ import annotations

import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]  # this checkout's runtime, and generated_region

import generated_region  # noqa: E402

PAGE = HERE / "numpy.md"
SCRIPT = "make_numpy_page.py"


def tables() -> str:
    """Markdown tables of the supported ufuncs, functions and ndarray methods."""
    from runtime.numpy_api import methods, supported

    lines = []
    for kind, title in (("ufunc", "Ufuncs"), ("function", "Functions")):
        rows = [(name, ops) for name, k, ops in supported() if k == kind]
        lines += [f"### {title} ({len(rows)})", "", "| NumPy | records |", "|---|---|"]
        lines += [f"| `{name}` | {ops} |" for name, ops in rows]
        lines.append("")
    names = sorted(methods.METHODS) + sorted(methods.PROPERTIES)
    lines += [f"### ndarray methods and properties ({len(names)})", "",
              ", ".join(f"`.{name}`" for name in names), ""]
    return "\n".join(lines)


def render(text: str) -> str:
    """`text` with its generated part replaced by the current tables."""
    return generated_region.replace(text, SCRIPT, tables())


def main(argv: list[str]) -> int:
    return generated_region.main(PAGE, render, argv, SCRIPT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

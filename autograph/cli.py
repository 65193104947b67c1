"""Command line: print the converted source of functions in a Python file.

    python -m autograph PATH [FUNCTION ...] [--diff] [--color auto|always|never]
    python -m autograph PATH FUNCTION --trace "f32[None,3], i32[]" [--html OUT.html]

The file is parsed, never imported or run. FUNCTION names a top-level function, or a
method as `Class.method`; without names, every top-level function is converted, and those
autograph cannot convert (generators, async functions) are listed as comments. `--diff`
prints a unified diff of each function against its conversion instead. `--trace` is the one
option that imports the file: it traces the function for the given argument specs with the
installed backend (the `autograph.backends` entry point) and prints its graph and code, or
with `--html` writes the cross-linked HTML pipeline report. `NO_COLOR` turns colour off.

Exit status: 0 on success, 2 on a usage error, 1 when the file is missing, does not parse,
or does not define a requested function (with a one-line reason on stderr).
"""

from __future__ import annotations

import argparse
import ast
import difflib
import os
import sys
import textwrap
from typing import Optional, Sequence

from . import __version__
from .converters import functions
from .core.options import ConversionOptions
from .impl import conversion
from .pipeline_report import installed_backend
from .pyct import parser
from .pyct.ast_conversion import to_gast
from .pyct.ast_util import SCOPE_TYPES
from .pyct.namespaces import StaticNamespace
from .pyct.parser import SourceInfo


class CliError(Exception):
    """A problem to report on one line, exiting with status 1."""


_EXAMPLES = """examples:
  autograph model.py                      every top-level function, converted
  autograph model.py train_step Net.call  one function and one method
  autograph model.py train_step --diff    a unified diff against the original
  autograph model.py step --trace "f32[None,784], i32[None]"
                                          IMPORTS model.py, traces step for these argument
                                          specs, prints the graph and the generated NumPy code
  autograph model.py step --trace "f32[None,784], i32[None]" --html step.html
                                          the same as one cross-linked HTML page

exit status: 0 success, 1 missing file / syntax error / unknown function, 2 usage error
"""


_USAGE = """autograph [options] PATH [FUNCTION ...]
       autograph [options] PATH FUNCTION --trace SPECS [--html OUT]"""


def _arguments() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="autograph", usage=_USAGE,
        description="Print the autograph-converted source of functions in a Python file "
                    "(the file is parsed, not run).",
        epilog=_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", metavar="PATH", help="the Python file")
    p.add_argument("functions", metavar="FUNCTION", nargs="*",
                   help="functions to convert (Class.method for methods); optional: default "
                        "all top-level functions")
    p.add_argument("--version", action="version", version=f"autograph {__version__}")
    p.add_argument("--diff", action="store_true",
                   help="print a unified diff of each function against its conversion")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="highlight the output (auto: only on a terminal, with pygments installed)")
    p.add_argument("--trace", metavar="SPECS",
                   help='trace one FUNCTION for argument specs such as "f32[None,3], i32[]" and '
                        "print its graph and generated code; this IMPORTS AND RUNS the file's "
                        "top-level code")
    p.add_argument("--html", metavar="OUT",
                   help="with --trace: write the HTML pipeline report (source, converted source, "
                        "graph, generated code, cross-linked) to OUT instead of printing")
    return p


def _highlight(text: str, diff: bool, mode: str) -> str:
    """Colours `text` with pygments when asked to (under `auto`: never into a pipe or when
    the NO_COLOR environment variable is set)."""
    if mode == "never" or (mode == "auto" and (not sys.stdout.isatty()
                                               or os.environ.get("NO_COLOR"))):
        return text
    try:
        from pygments import highlight
        from pygments.formatters import TerminalFormatter
        from pygments.lexers import DiffLexer, PythonLexer
    except ImportError:
        if mode == "always":
            print("autograph: --color always needs pygments (pip install pygments); "
                  "printing without colour.", file=sys.stderr)
        return text
    return highlight(text, DiffLexer() if diff else PythonLexer(), TerminalFormatter())


def trace_function(path: str, name: str, specs: str, html: Optional[str] = None) -> str:
    """Imports `path`, traces `name` for `specs` with the installed backend; the listing.

    With `html`, writes the HTML pipeline report there instead and says so. The specs are
    checked before the file is imported."""
    try:
        backend = installed_backend()
    except ImportError:
        raise CliError("--trace needs a backend (such as the runtime) installed; none is") from None
    try:
        parsed = backend.parse_specs(specs)
    except ValueError as e:
        raise CliError(str(e)) from None
    target = _import_function(path, name)
    try:
        if html is not None:
            backend.report(target, *parsed, path=html)
            return f"wrote the pipeline report of {name} to {html}\n"
        return backend.trace_listing(getattr(target, "python_function", target), specs) + "\n"
    except ValueError as e:
        raise CliError(str(e)) from None


def _import_function(path: str, name: str):
    """Imports the file at `path` (running its top-level code) and finds `name` in it."""
    from importlib import util
    spec = util.spec_from_file_location("__autograph_traced__", path)
    if spec is None or spec.loader is None:
        raise CliError(f"cannot import {path}")
    module = util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 - reported on one line
        raise CliError(f"importing {path} failed: {type(e).__name__}: {e}") from None
    target = module
    for part in name.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise CliError(f"{path} defines no function {name!r}")
    return target


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise CliError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise CliError(f"{path} is a directory, not a Python file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CliError(f"cannot read {path}: {e}") from None


def _parse(source: str, path: str) -> ast.Module:
    try:
        return ast.parse(source, path)
    except SyntaxError as e:
        raise CliError(f"{path}:{e.lineno}: syntax error: {e.msg}") from None
    except ValueError as e:   # e.g. null bytes
        raise CliError(f"{path}: cannot parse: {e}") from None


def _find(module: ast.Module, names: Sequence[str], path: str) -> list[tuple[str, ast.FunctionDef]]:
    top = {n.name: n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    classes = {n.name: n for n in module.body if isinstance(n, ast.ClassDef)}
    if not names:
        if not top:
            raise CliError(f"{path} defines no top-level functions")
        return list(top.items())
    found = []
    for name in names:
        if "." in name:
            cls_name, _, method = name.partition(".")
            cls = classes.get(cls_name)
            fn = None
            if cls is not None:
                fn = next((n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                           and n.name == method), None)
            if fn is None:
                raise CliError(f"{path} defines no method {name!r}")
        else:
            fn = top.get(name)
            if fn is None:
                raise CliError(f"{path} defines no top-level function {name!r}")
        found.append((name, fn))
    return found


def _segment(lines: list[str], node: ast.AST) -> str:
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return textwrap.dedent("".join(lines[first - 1:node.end_lineno]))


def convert_source(source: str, path: str, names: Sequence[str] = (), diff: bool = False) -> str:
    """The text the command prints for `source` (raises CliError on problems).

    Named functions that cannot be converted are errors; without names, they are listed as
    comments and the other functions are still converted."""
    module = _parse(source, path)
    namespace = StaticNamespace(to_gast(module))
    lines = source.splitlines(True)
    outputs = []
    for name, fn in _find(module, names, path):
        try:
            outputs.append(_convert_one(name, fn, path, lines, namespace, diff))
        except CliError as e:
            if names:
                raise
            outputs.append(f"# not converted: {e}\n")
    return "\n".join(outputs)


def _convert_one(name: str, fn: ast.FunctionDef, path: str, lines: list[str], namespace,
                 diff: bool) -> str:
    """The converted source of one function, or its diff against the original."""
    if isinstance(fn, ast.AsyncFunctionDef):
        raise CliError(f"{path}:{fn.lineno}: {name} is a coroutine function; autograph does "
                       "not convert async code")
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_nodes(fn)):
        raise CliError(f"{path}:{fn.lineno}: {name} is a generator function; autograph does "
                       "not convert generators")
    original = _segment(lines, fn)
    info = SourceInfo(path, fn.lineno, original)
    node = to_gast(fn)
    if "." in name:
        functions.mangle_private_names(node, name.partition(".")[0])
    try:
        node, _ = conversion.convert_node(node, info, ConversionOptions(), namespace)
    except conversion.ConversionError as e:
        raise CliError(str(e)) from None
    converted = parser.unparse(node) + "\n"
    if not diff:
        return converted
    patch = "".join(difflib.unified_diff(
        original.splitlines(True), converted.splitlines(True),
        fromfile=f"{path}:{name}", tofile=f"{path}:{name} (converted)"))
    return patch or f"# {path}:{name}: unchanged by conversion\n"


#: the `ast` (not gast) classes of the scope types
_AST_SCOPE_TYPES = tuple(getattr(ast, t.__name__) for t in SCOPE_TYPES)


def _own_nodes(fn: ast.AST):
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _AST_SCOPE_TYPES):
            continue
        stack.extend(ast.iter_child_nodes(node))


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the command; returns the exit status."""
    parser_ = _arguments()
    args = parser_.parse_intermixed_args(argv)
    if args.trace is not None and len(args.functions) != 1:
        parser_.error("--trace needs exactly one FUNCTION")
    if args.trace is not None and args.diff:
        parser_.error("--diff compares source with source; it cannot be used with --trace")
    if args.html is not None and args.trace is None:
        parser_.error("--html writes the report of a trace; it needs --trace SPECS")
    try:
        if args.trace is not None:
            _read(args.path)
            text = trace_function(args.path, args.functions[0], args.trace, args.html)
        else:
            text = convert_source(_read(args.path), args.path, args.functions, args.diff)
            text = _highlight(text, args.diff, args.color)
    except CliError as e:
        print(f"autograph: error: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - never a traceback: one line and status 1
        print(f"autograph: error: cannot convert {args.path}: {type(e).__name__}: {e}",
              file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0



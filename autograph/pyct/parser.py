"""Finding and parsing the source code of functions and lambdas.

Source comes from `linecache`, so functions defined in notebooks, in `exec`-ed code whose
lines were registered with `linecache`, and in ordinary files all work. Parsed nodes carry
the line and column numbers of the original file.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import threading
import types
from typing import Optional, Union

import gast

from ..records import FrozenRecord
from .ast_conversion import to_compilable_ast, to_gast
from .unparse_compat import unparse as _unparse


class SourceUnavailableError(Exception):
    """The source code of a function cannot be found or does not match it."""


class SourceInfo(FrozenRecord):
    """Where a parsed entity comes from: its file, its first line (that of its first
    decorator, if any) and its own source text, as written."""

    _fields = ("filename", "lineno", "source")
    filename: str
    lineno: int
    source: str


def parse(source: str, filename: str = "<string>") -> gast.Module:
    """Parses a module's source into a gast tree."""
    return to_gast(ast.parse(source, filename))


def parse_expression(source: str) -> gast.expr:
    """Parses one expression into a gast node."""
    return to_gast(ast.parse(source.strip(), mode="eval")).body


def unparse(node: Union[gast.AST, list]) -> str:
    """Python source for a gast node or a list of statements."""
    if isinstance(node, list):
        return "\n".join(unparse(n) for n in node)
    return _unparse(to_compilable_ast(node))


def parse_entity(entity: types.FunctionType) -> tuple[Union[gast.FunctionDef, gast.Lambda], SourceInfo]:
    """The syntax tree of a function or lambda, with original line numbers."""
    code = getattr(entity, "__code__", None)
    if code is None:
        raise SourceUnavailableError(f"{entity!r} has no code object")
    lines = linecache.getlines(code.co_filename, getattr(entity, "__globals__", None))
    if not lines:
        raise SourceUnavailableError(f"the source of {code.co_name!r} is not available: "
                                     f"{_why_no_source(code.co_filename)}")
    if code.co_name == "<lambda>":
        return _parse_lambda(code, lines)
    return _parse_function(code, lines)


def _why_no_source(filename: str) -> str:
    if filename.startswith("<") and filename.endswith(">"):
        return (f"it was defined in {filename}, code without a source file (typed at the "
                "interactive prompt, given to `python -c`, or run with `exec`); define it "
                "in a .py file to convert it")
    return f"its file {filename!r} cannot be read"


# -- functions ------------------------------------------------------------------------------------

def _block_end(lines: list[str], start: int) -> int:
    """Index past the last line of the block starting at `lines[start]` (a fast guess).

    A wrong guess makes the parse fail, and the caller then falls back to `inspect`.
    """
    first = lines[start]
    indent = len(first) - len(first.lstrip())
    past_def = first.lstrip().startswith(("def ", "async def "))
    i, n = start + 1, len(lines)
    while i < n:
        line = lines[i]
        stripped = line.lstrip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        if len(line) - len(stripped) <= indent:
            if stripped.startswith((")", "]", "}")):
                pass
            elif not past_def and stripped.startswith(("@", "def ", "async def ")):
                past_def = not stripped.startswith("@")
            else:
                break
        i += 1
    while i > start + 1 and not lines[i - 1].strip():
        i -= 1
    return i


def _parse_block(text: str, indented: bool, start: int) -> ast.Module:
    """Parses the lines of a block that starts at line `start + 1` of its file, keeping the
    file's line numbers (blank lines stand for the ones before it)."""
    if indented:
        return ast.parse("\n" * (start - 1) + "if 1:\n" + text)
    return ast.parse("\n" * start + text)


def _parse_function(code: types.CodeType, lines: list[str]):
    start = code.co_firstlineno - 1
    if not 0 <= start < len(lines):
        raise SourceUnavailableError(f"the source of {code.co_name!r} is out of date")
    indented = lines[start][:1] in (" ", "\t")
    text = "".join(lines[start:_block_end(lines, start)])
    if indented and start == 0:
        raise SourceUnavailableError(f"cannot parse the source of {code.co_name!r}")
    try:
        module = _parse_block(text, indented, start)
    except SyntaxError:
        try:
            text = "".join(inspect.getblock(lines[start:]))
            module = _parse_block(text, indented, start)
        except (SyntaxError, IndentationError, Exception) as e:  # noqa: BLE001 - any tokenizer error
            raise SourceUnavailableError(f"cannot parse the source of {code.co_name!r}: {e}") from None
    body = module.body[0].body if indented else module.body
    node = body[0] if body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != code.co_name:
        raise SourceUnavailableError(
            f"the source found for {code.co_name!r} does not define it (is the file out of date?)")
    return to_gast(node), SourceInfo(code.co_filename, code.co_firstlineno, text)


# -- lambdas ----------------------------------------------------------------------------------------

_file_cache: dict[str, tuple[int, Optional[ast.Module]]] = {}
_file_lock = threading.Lock()


def _parse_file(filename: str, lines: list[str]) -> Optional[ast.Module]:
    key = hash(tuple(lines))
    with _file_lock:
        cached = _file_cache.get(filename)
        if cached is not None and cached[0] == key:
            return cached[1]
    try:
        tree: Optional[ast.Module] = ast.parse("".join(lines))
    except SyntaxError:
        tree = None
    with _file_lock:
        _file_cache[filename] = (key, tree)
    return tree


def _positions(code: types.CodeType) -> list[tuple[int, int, int, int]]:
    if not hasattr(code, "co_positions"):  # Python 3.10: no columns (see _same_constants)
        return []
    out = []
    for pos in code.co_positions():
        # instructions without a source range (RESUME, the implicit return) say (l, l, 0, 0)
        if None not in pos and (pos[1], pos[3]) > (pos[0], pos[2]):
            out.append(pos)
    return out


def _same_constants(node: ast.Lambda, code: types.CodeType) -> bool:
    """Whether `node` compiles to the constants and names of `code`: tells lambdas on one
    line apart where code objects carry no columns (a closure's variables compile to global
    names here, so free and global names are compared together)."""
    def constants(c: types.CodeType) -> tuple:
        # nested code objects, and (Python 3.10) the qualified names made for them, which
        # name the enclosing functions and so differ when compiled on its own
        nested = {k.co_name for k in c.co_consts if isinstance(k, types.CodeType)}
        return tuple(k for k in c.co_consts if not isinstance(k, types.CodeType) and not (
            isinstance(k, str) and any(k == n or k.endswith("." + n) for n in nested)))

    def names(c: types.CodeType) -> set:
        return set(c.co_names) | set(c.co_freevars)
    outer = compile(ast.Expression(node), code.co_filename, "eval")
    compiled = next(k for k in outer.co_consts if isinstance(k, types.CodeType))
    return constants(compiled) == constants(code) and names(compiled) == names(code)


def _contains(node: ast.AST, pos) -> bool:
    start = (node.lineno, node.col_offset)
    end = (node.end_lineno, node.end_col_offset)
    return start <= (pos[0], pos[2]) and (pos[1], pos[3]) <= end


def _arg_names(args: ast.arguments) -> list[str]:
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    if args.vararg:
        names.append(args.vararg.arg)
    if args.kwarg:
        names.append(args.kwarg.arg)
    return names


def _code_arg_names(code: types.CodeType) -> list[str]:
    n = code.co_argcount + code.co_kwonlyargcount
    n += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
    return list(code.co_varnames[:n])


def _parse_lambda(code: types.CodeType, lines: list[str]):
    tree = _parse_file(code.co_filename, lines)
    candidates: list[ast.Lambda] = []
    if tree is not None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno:
                candidates.append(node)
    else:
        candidates = _lambdas_near(lines, code.co_firstlineno)
    wanted = _code_arg_names(code)
    candidates = [c for c in candidates if _arg_names(c.args) == wanted]
    positions = _positions(code)
    if positions:
        candidates = [c for c in candidates if all(_contains(c.body, p) for p in positions)]
    elif len(candidates) > 1:
        candidates = [c for c in candidates if _same_constants(c, code)]
        if len({ast.dump(c) for c in candidates}) > 1:
            raise SourceUnavailableError(
                f"several lambdas at {code.co_filename}:{code.co_firstlineno} could be this one "
                "(Python 3.10 records no columns); put each lambda on its own line")
    if not candidates:
        raise SourceUnavailableError(
            f"cannot find the source of the lambda defined at {code.co_filename}:{code.co_firstlineno}")
    node = min(candidates, key=lambda c: (c.end_lineno - c.lineno, c.end_col_offset - c.col_offset))
    if not _same_constants(node, code):
        raise SourceUnavailableError(
            f"the source found for the lambda defined at {code.co_filename}:"
            f"{code.co_firstlineno} is another lambda (is the file out of date?)")
    text = ast.get_source_segment("".join(lines), node) or ""
    return to_gast(node), SourceInfo(code.co_filename, code.co_firstlineno, text)


def _lambdas_near(lines: list[str], lineno: int) -> list[ast.Lambda]:
    """Lambdas on `lineno` when the whole file does not parse: try growing line ranges."""
    for end in range(lineno, min(len(lines), lineno + 20) + 1):
        text = "".join(lines[lineno - 1:end])
        stripped = text.lstrip()
        for candidate in (stripped, "(" + stripped + ")", stripped.rstrip().rstrip(",)") ):
            try:
                tree = ast.parse(candidate)
            except SyntaxError:
                continue
            found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
            if found:
                shift = len(text) - len(stripped) - (1 if candidate.startswith("(") else 0)
                for n in found:
                    for sub in ast.walk(n):
                        if hasattr(sub, "lineno"):
                            if sub.lineno == 1:
                                sub.col_offset += shift
                            if getattr(sub, "end_lineno", None) == 1:
                                sub.end_col_offset += shift
                    ast.increment_lineno(n, lineno - 1)
                return found
    return []

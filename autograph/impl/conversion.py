"""The conversion pipeline and its cache.

`transform` runs the converters over a parsed function; `convert_code` compiles a live
function's converted twin, caching the code by (code object, options) so each function is
converted once however many closures or calls share it (`converted_call.convert_function`
binds that code to the function's globals, closure and `ag__`).
"""

from __future__ import annotations
import __future__

import ast
import dis
import importlib
import inspect
import linecache
import threading
import time
import types
from typing import Any, Optional, Union

import gast

from .. import converters
from ..converters import (
    call_trees,
    directives,
    functions,
    logical_expressions,
    variables,
)
from ..core.options import ConversionOptions, Feature
from ..pyct import anno, loader, parser
from ..pyct.ast_util import SCOPE_TYPES
from ..pyct.namespaces import LiveNamespace, Namespace
from ..pyct.naming import Namer
from ..pyct.parser import SourceInfo
from ..pyct.transformer import Context, iter_nodes, run_handlers
from ..records import Record
from . import logs, rules

_CONVERTERS = converters.__name__
del converters

CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR = 0x20, 0x80, 0x200
_STORE_GLOBAL = dis.opmap["STORE_GLOBAL"]


class ConversionError(Exception):
    """Autograph could not convert a function (the message says where and why)."""


#: the scopes that are statements (def, async def, class): each binds its name
_DEFINITIONS = tuple(t for t in SCOPE_TYPES if issubclass(t, gast.stmt))


def _all_names(node: gast.AST) -> tuple[set[str], set[str]]:
    """(names bound anywhere in `node`, every identifier used in `node`, attributes too)."""
    bound, used = set(), set()
    for n in iter_nodes(node):
        if isinstance(n, gast.Name):
            used.add(n.id)
            if not isinstance(n.ctx, gast.Load):
                bound.add(n.id)
        elif isinstance(n, gast.Attribute):
            used.add(n.attr)
        elif isinstance(n, _DEFINITIONS):
            bound.add(n.name)
            used.add(n.name)
        elif isinstance(n, (gast.Import, gast.ImportFrom)):
            for alias in n.names:
                bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(n, (gast.Global, gast.Nonlocal)):
            bound.update(n.names)
    return bound, used


def _code_names(code: types.CodeType) -> tuple[set[str], set[str]]:
    """(names bound, all identifiers) of a code object and the code nested in it."""
    bound = set(code.co_varnames) | set(code.co_cellvars)
    used = bound | set(code.co_names) | set(code.co_freevars)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            b, u = _code_names(c)
            bound |= b
            used |= u
    return bound, used


def make_context(node: gast.AST, info: SourceInfo, options: ConversionOptions,
                 namespace: Optional[Namespace], code: Optional[types.CodeType] = None) -> Context:
    if code is not None and _STORE_GLOBAL not in code.co_code[::2]:
        bound, used = _code_names(code)     # no STORE_GLOBAL: the code object knows every name
    else:
        bound, used = _all_names(node)
    if code is not None and isinstance(node, gast.FunctionDef):
        # the code object knows whether the function is a generator
        anno.setanno(node, anno.Key.IS_GENERATOR, bool(code.co_flags & CO_GENERATOR))
    ctx = Context(info=info, namer=Namer(used | bound | {"ag__"}), options=options,
                  namespace=namespace, is_library=rules.is_library, bound_names=bound,
                  identifiers=frozenset(used))
    return ctx


#: statements whose presence needs the jump and control-flow passes (jump_flags, jumps,
#: statement_variables, control_flow); without them (and without a return or raise before
#: the end of a body) those passes change nothing
_FLOW_TYPES = tuple(getattr(gast, name) for name in (
    "If", "For", "AsyncFor", "While", "With", "AsyncWith", "Try", "TryStar", "Match", "Break",
    "Continue") if hasattr(gast, name))


def _converter(name: str):
    """The converter module `name`, imported on the first function that needs it, so that
    a function without control flow loads none of the control-flow analyses."""
    return importlib.import_module(f"{_CONVERTERS}.{name}")


def _scan_kinds(node: gast.AST) -> tuple[set, bool]:
    """(the node types in `node`, whether it holds control flow the jump and control-flow
    passes rewrite: a compound statement or loop jump, or a return or raise followed by more
    statements of its body)."""
    kinds = set()
    early_exit = False
    for n in iter_nodes(node):
        tp = type(n)
        kinds.add(tp)
        if (tp is gast.FunctionDef or tp is gast.AsyncFunctionDef) and not early_exit:
            early_exit = any(isinstance(s, (gast.Return, gast.Raise)) for s in n.body[:-1])
    return kinds, early_exit or not kinds.isdisjoint(_FLOW_TYPES)


def transform(node: Union[gast.FunctionDef, gast.Lambda], ctx: Context):
    """Runs the converters over a parsed function or lambda, in order; a converter whose
    node kinds the function does not hold is skipped (it would change nothing)."""
    opts = ctx.options
    node = functions.drop_decorators(node)
    kinds, flow = _scan_kinds(node)
    if flow:
        node = _converter("jump_flags").transform(node, ctx)
        node = _converter("jumps").transform(node, ctx)
    # statement- and expression-level converters share one traversal; each handler is the
    # converter of the same name (see its module), in this order
    handlers = [functions.Handler, directives.Handler]
    if opts.uses(Feature.ASSERT_STATEMENTS) and gast.Assert in kinds:
        handlers.append(_converter("asserts").Handler)
    if opts.uses(Feature.LISTS) and gast.Attribute in kinds:    # list methods: l.append(x)
        lists = _converter("lists")
        if lists.may_apply(ctx):
            handlers.append(lists.Handler)
    handlers += [call_trees.Handler]
    if flow or gast.IfExp in kinds:
        handlers.append(_converter("conditional_expressions").Handler)
    handlers.append(logical_expressions.Handler)
    if flow:
        handlers.append(_converter("try_statements").Handler)
    node = run_handlers(node, ctx, *handlers)
    if flow:
        node = _converter("statement_variables").transform(node, ctx)
        node = _converter("control_flow").transform(node, ctx)
    node = variables.transform(node, ctx)
    return node


def _all_code_names(code: types.CodeType):
    yield from code.co_names
    yield from code.co_varnames
    yield from code.co_cellvars
    yield from code.co_freevars
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _all_code_names(c)


def is_generator(fn: Any) -> bool:
    code = getattr(fn, "__code__", None)
    return code is not None and bool(code.co_flags & (CO_GENERATOR | CO_ASYNC_GENERATOR))


def is_coroutine(fn: Any) -> bool:
    code = getattr(fn, "__code__", None)
    return code is not None and bool(code.co_flags & CO_COROUTINE)


class Converted(Record):
    """The result of converting one code object: the code of the converted function, its
    syntax tree, where its source came from and the seconds the conversion took."""

    _fields = ("code", "node", "info", "seconds")

    def __init__(self, code: types.CodeType, node: gast.AST, info: SourceInfo,
                 seconds: float) -> None:
        self.code = code
        self.node = node
        self.info = info
        self.seconds = seconds

    @property
    def source(self) -> str:
        return parser.unparse(self.node)


_cache: dict[tuple, Converted] = {}
_cache_lock = threading.RLock()
_key_locks: dict[tuple, threading.Lock] = {}


def convert_node(node, info: SourceInfo, options: ConversionOptions, namespace,
                 code: Optional[types.CodeType] = None) -> tuple[gast.AST, Context]:
    """Converts a parsed function (no compiling); the CLI and `to_code` use this."""
    ctx = make_context(node, info, options, namespace, code)
    try:
        return transform(node, ctx), ctx
    except (directives.DirectiveError, NotImplementedError) as e:
        raise ConversionError(f"{info.filename}:{info.lineno}: {e}") from None


def convert_code(fn: types.FunctionType, options: ConversionOptions) -> Converted:
    """The converted code for `fn`'s code object (cached)."""
    key = (fn.__code__, options)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    with _cache_lock:
        lock = _key_locks.setdefault(key, threading.Lock())
    with lock:
        cached = _cache.get(key)
        if cached is not None:
            return cached
        start = time.perf_counter()
        node, info = parse_for_conversion(fn)
        node, ctx = convert_node(node, info, options, LiveNamespace(fn.__globals__), fn.__code__)
        freevars = tuple(fn.__code__.co_freevars) + ("ag__",)
        if ctx.extra.get(functions.USES_CLASS_CELL) and "__class__" not in freevars:
            freevars += ("__class__",)
        code = loader.compile_function(node, fn.__code__.co_filename, freevars)
        result = Converted(code, node, info, time.perf_counter() - start)
        _cache[key] = result
        with _cache_lock:
            _key_locks.pop(key, None)
    logs.log(1, "Converted %s (%s:%d) in %.2f ms", fn.__qualname__, info.filename, info.lineno,
             result.seconds * 1e3)
    if logs.has_verbosity(3):
        logs.log(3, "Converted code of %s:\n%s", fn.__qualname__, result.source)
    return result


def parse_for_conversion(fn: types.FunctionType):
    """The function's syntax tree, with private names mangled as in its class."""
    node, info = parser.parse_entity(fn)
    class_name = functions.class_of(fn.__qualname__)
    if class_name:
        prefix = f"_{class_name.lstrip('_')}__"
        if any(n.startswith(prefix) for n in _all_code_names(fn.__code__)):
            functions.mangle_private_names(node, class_name)
    if isinstance(node, gast.FunctionDef):
        _check_source_is_current(fn.__code__, node, info, fn.__qualname__)
    return node, info


def _check_source_is_current(code: types.CodeType, node: gast.FunctionDef, info: SourceInfo,
                             fn_qualname: str) -> None:
    """Raises SourceUnavailableError when the file changed since `code` was compiled from it:
    the code's lines must end inside the parsed function, its parameters must match, and the
    text on disk must compile to the same code (bytecode, constants, names, nested code)."""
    def same_const(a, b) -> bool:
        if type(a) is not type(b):
            return False
        if isinstance(a, types.CodeType):
            return same_code(a, b)
        if isinstance(a, tuple):
            return len(a) == len(b) and all(map(same_const, a, b))
        if isinstance(a, (float, complex)):
            return repr(a) == repr(b)  # -0.0 and nan
        return a == b

    def same_code(a: types.CodeType, b: types.CodeType) -> bool:
        fields = ("co_code", "co_names", "co_varnames", "co_freevars", "co_cellvars", "co_name",
                  "co_argcount", "co_posonlyargcount", "co_kwonlyargcount")
        return all(getattr(a, f) == getattr(b, f) for f in fields) and \
            same_const(a.co_consts, b.co_consts)

    def all_names(c: types.CodeType):
        yield from c.co_names
        for k in c.co_consts:
            if isinstance(k, types.CodeType):
                yield from all_names(k)

    def _compiles_to(code: types.CodeType, info: SourceInfo) -> bool:
        """Whether the function's text compiles (inside stand-ins for its enclosing classes and
        functions, for name mangling and closures) to `code`; True when that cannot be told."""
        if any(not n.isidentifier() for n in all_names(code)):
            return True  # code rewritten at import (pytest's assertions): no text compiles to it
        entry = linecache.cache.get(info.filename)
        if entry is not None and len(entry) == 4 and entry[1] is None:
            return True  # text registered in memory (a notebook cell, exec): no file to edit
        text = info.source
        indented = text[:1].isspace()
        try:
            tree = ast.parse("if 1:\n" + text if indented else text)
        except SyntaxError:
            return False
        defs = tree.body[0].body if indented else tree.body
        if len(defs) != 1 or not isinstance(defs[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        fn = defs[0]
        fn.decorator_list = []
        # the lines the file gives them: code records them (3.13 keeps a class body's first
        # line among its constants)
        ast.increment_lineno(fn, info.lineno - 1 - indented)
        # Python 3.10's code objects have no co_qualname: the function's own name tells
        qualname = getattr(code, "co_qualname", None) or fn_qualname
        # the enclosing scopes, outermost first, as the qualname tells: a name followed by
        # <locals> is a function, another a class
        parts = qualname.split(".")[:-1]
        scopes = [("def" if i + 1 < len(parts) and parts[i + 1] == "<locals>" else "class", part)
                  for i, part in enumerate(parts) if part != "<locals>"]
        has_class = any(kind == "class" for kind, _ in scopes)
        free = [n for n in code.co_freevars if not (has_class and n == "__class__")]
        if free and not any(kind == "def" for kind, _ in scopes):
            scopes.insert(0, ("def", "__outer__"))
        innermost_def = max((i for i, (kind, _) in enumerate(scopes) if kind == "def"), default=-1)
        body: list = [fn]
        path = [fn.name]
        for i in range(len(scopes) - 1, -1, -1):
            kind, name = scopes[i]
            name = name if name.isidentifier() else "_scope"
            if kind == "class":
                body = [ast.ClassDef(name, [], [], body, [])]
            else:
                if i == innermost_def:  # the closure's cells
                    body = [ast.Assign([ast.Name(n, ast.Store())], ast.Constant(None))
                            for n in free] + body
                body = [ast.FunctionDef(name, ast.arguments([], [], None, [], [], None, []),
                                        body, [], None)]
            path.insert(0, name)
        # names imported at module level load their attributes without LOAD_METHOD
        imported = _module_imports(info.filename)
        if imported is None:
            return False
        imports = [ast.Import([ast.alias(name)]) for name in sorted(imported - {"*"})]
        module = ast.fix_missing_locations(ast.Module(imports + body, []))
        flags = 0
        for feature in __future__.all_feature_names:
            flags |= getattr(__future__, feature).compiler_flag & code.co_flags
        try:
            found = compile(module, info.filename, "exec", flags=flags, dont_inherit=True)
        except (SyntaxError, ValueError):
            return False
        for name in path:
            found = next((k for k in found.co_consts
                          if isinstance(k, types.CodeType) and k.co_name == name), None)
            if found is None:
                return False
        return same_code(found, code)

    lines = [line for _, _, line in code.co_lines() if line is not None]
    last = node.body[-1]
    stale = bool(lines) and (max(lines) > node.end_lineno or
                             code.co_firstlineno < max(lines) < last.lineno)
    args = node.args
    written = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
    written += [a.id for a in (args.vararg, args.kwarg) if a is not None]
    count = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & inspect.CO_VARARGS) \
        + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    if not stale:
        stale = not _compiles_to(code, info)
    if stale or sorted(written) != sorted(code.co_varnames[:count]):
        raise parser.SourceUnavailableError(
            f"the file {info.filename} changed after {code.co_name!r} was loaded from it (the "
            "text at its line no longer matches its code); reload the module to convert it")


_IMPORTS_CACHE: dict = {}  # (filename, size, mtime) -> names imported at module level


def _module_imports(filename: str) -> Optional[set]:
    """The names a source file imports at module level (read once per version of the file);
    None when the file does not parse."""
    lines = linecache.getlines(filename)
    entry = linecache.cache.get(filename)
    key = (filename, entry[0], entry[1]) if entry is not None and len(entry) == 4 else None
    if key is not None and key in _IMPORTS_CACHE:
        return _IMPORTS_CACHE[key]
    try:
        whole = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return None
    imported: set = set()
    pending = list(whole.body)
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            imported.update((a.asname or a.name).split(".")[0] for a in stmt.names)
        elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            pending.extend(n for n in ast.iter_child_nodes(stmt) if not isinstance(n, ast.expr))
    if key is not None:
        if len(_IMPORTS_CACHE) > 256:
            _IMPORTS_CACHE.clear()
        _IMPORTS_CACHE[key] = imported
    return imported


def check_convertible(fn: Any) -> None:
    """Raises TypeError for functions autograph refuses to convert."""
    if is_generator(fn):
        raise TypeError(f"{getattr(fn, '__qualname__', fn)!s} is a generator function; autograph "
                        "does not convert generators (yield). Call it outside the converted "
                        "function, or mark it with ag.do_not_convert.")
    if is_coroutine(fn):
        raise TypeError(f"{getattr(fn, '__qualname__', fn)!s} is a coroutine function; autograph "
                        "does not convert async code.")


def clear_cache() -> None:
    """Forgets every converted function (for tests and benchmarks)."""
    with _cache_lock:
        _cache.clear()

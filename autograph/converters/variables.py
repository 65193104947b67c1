"""Declarations for variables that only generated functions assign.

A generated function declares `nonlocal y` for the variables it shares. Python requires
`y` to be bound in the enclosing function; when the user's code assigned `y` only inside
converted statements, the enclosing function gets the declaration

    y: ag__.Undefined

which binds the name without giving it a value (annotations of local variables are not
evaluated), so reading `y` before any assignment still raises Python's own
`UnboundLocalError`.
"""

from __future__ import annotations

import gast

from ..pyct import origin, templates, transformer
from ..pyct.ast_util import COMPREHENSION_TYPES, FUNCTION_TYPES, NO_STATEMENT_TYPES, SCOPE_TYPES
from ..pyct.transformer import Context, iter_nodes, walk_scope


def _scan(fn) -> tuple[set[str], list]:
    """(names `fn` binds itself, the functions defined directly in its scope)."""
    bound: set[str] = set()
    args = fn.args
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            bound.add(a.id)
    children = []
    for node in walk_scope(fn, include_root=False):
        tp = type(node)
        if tp is gast.Name:
            if type(node.ctx) is not gast.Load:
                bound.add(node.id)
        elif tp is gast.FunctionDef or tp is gast.AsyncFunctionDef:
            bound.add(node.name)
            children.append(node)
        elif tp is gast.ClassDef:
            bound.add(node.name)
        elif tp is gast.Import or tp is gast.ImportFrom:
            for alias in node.names:
                bound.add(alias.asname or alias.name.split(".")[0])
        elif tp is gast.Nonlocal or tp is gast.Global:
            bound.update(node.names)
        elif tp in COMPREHENSION_TYPES:
            for n in iter_nodes(node):
                if type(n) is gast.NamedExpr and type(n.target) is gast.Name:
                    bound.add(n.target.id)
        elif tp is gast.MatchAs and node.name:
            bound.add(node.name)
    return bound, children


def _declare(fn) -> None:
    """Declares what `fn` and the functions nested in it need."""
    bound, children = _scan(fn)
    missing: set[str] = set()
    for child in children:
        for n in child.body:
            if type(n) is gast.Nonlocal:
                missing.update(name for name in n.names if name not in bound)
    if missing:
        _insert(fn.body, missing)
    for child in children:
        _declare(child)


def _nonlocals(fn) -> list[str]:
    return [name for n in fn.body if type(n) is gast.Nonlocal for name in n.names]


def _insert(stmts: list, missing: set) -> None:
    """Puts each declaration right before the first function (in source order) that needs it."""
    i = 0
    while i < len(stmts) and missing:
        s = stmts[i]
        if isinstance(s, FUNCTION_TYPES):
            names = [n for n in _nonlocals(s) if n in missing]
            if names:
                decls = [origin.copy_location(
                    gast.AnnAssign(target=templates.name(n, gast.Store),
                                   annotation=templates.operator("Undefined"),
                                   value=None, simple=1), s) for n in names]
                stmts[i:i] = decls
                i += len(decls)
                missing.difference_update(names)
        elif not isinstance(s, SCOPE_TYPES):
            for f in ("body", "orelse", "finalbody"):
                value = getattr(s, f, None)
                if isinstance(value, list):
                    _insert(value, missing)
            for h in getattr(s, "handlers", None) or []:
                _insert(h.body, missing)
            for case in getattr(s, "cases", None) or []:
                _insert(case.body, missing)
        i += 1


class Handler(transformer.Handler):
    """Declares, in each function, the variables that only the functions nested in it
    assign. It works a function at a time, from the scan of its scope, so it walks the
    functions nested in a function itself."""

    skip_types = NO_STATEMENT_TYPES    # a lambda (converted itself) declares nothing

    def enter_FunctionDef(self, node):
        _declare(node)
        return transformer.SKIP     # done, with the functions nested in it

    enter_AsyncFunctionDef = enter_FunctionDef


def transform(node, ctx: Context):
    return transformer.run_handlers(node, ctx, Handler)

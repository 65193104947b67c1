"""Walking gast (and ast) trees."""

from __future__ import annotations

import gast

_AST = gast.AST   # gast's base class is ast.AST, so this serves both trees

#: node types with no node under them worth visiting: constants, contexts, operators and the
#: statements that hold only names
LEAF_TYPES = frozenset(
    [gast.Constant, gast.Pass, gast.Break, gast.Continue, gast.Global, gast.Nonlocal, gast.alias]
    + [c for c in vars(gast).values() if isinstance(c, type) and issubclass(c, (
        gast.operator, gast.unaryop, gast.cmpop, gast.boolop, gast.expr_context))])

#: node types that open a new variable scope: what they bind stays inside them. The one
#: definition; the subsets below are derived from it.
SCOPE_TYPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef,
               gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)

#: the scopes with parameters (functions and lambdas): the ones converted code runs
FUNCTION_TYPES = tuple(t for t in SCOPE_TYPES if "args" in t._fields)

#: the comprehensions: scopes whose first iterable (and whose walrus targets) belong to the
#: enclosing scope
COMPREHENSION_TYPES = tuple(t for t in SCOPE_TYPES if "generators" in t._fields)

#: node types that can hold no statement: all but modules, compound statements (those with a
#: statement list), `except` clauses and `match` cases. A handler that only rewrites or
#: reads statements skips them (see `transformer.Handler.skip_types`).
NO_STATEMENT_TYPES = tuple(
    c for c in vars(gast).values()
    if isinstance(c, type) and issubclass(c, gast.AST) and c not in (gast.AST, gast.stmt)
    and not issubclass(c, (gast.mod, gast.excepthandler, gast.match_case))
    and not (issubclass(c, gast.stmt) and {"body", "orelse", "finalbody", "cases"} & set(c._fields)))


def children_of(node: gast.AST) -> list:
    """The nodes directly under `node`, in field order."""
    out = []
    append = out.append
    d = node.__dict__
    for name in node._fields:
        value = d.get(name)
        if type(value) is list:
            for item in value:
                if isinstance(item, _AST):
                    append(item)
        elif isinstance(value, _AST):
            append(value)
    return out

"""`if`, `while` and `for` statements become generated functions and an operator call.

    if x > 0:                          def if_body_1():
        y = x                              nonlocal y
    else:                 ->               y = x
        y = -x                         def else_body_1():
                                           nonlocal y
                                           y = -x
                                       ag__.if_stmt(x > 0, if_body_1, else_body_1, ('y',))

    while i < n:                       def loop_body_2():
        i += 1            ->               nonlocal i
                                           i += 1
                                       ag__.while_stmt(lambda: i < n, loop_body_2, ('i',))

Inside loop bodies `break` becomes `return ag__.BREAK` and `continue` becomes `return`.
`elif` chains become nested calls (`lambda: ag__.if_stmt(...)`), a branch that only
returns a value becomes a lambda, and an `if` or loop that holds a jump (see `jumps`)
returns the operator's result. Statements annotated `plain` stay Python statements.
"""

from __future__ import annotations

from typing import Optional

import gast

from ..pyct import anno, origin, templates, transformer
from ..pyct.ast_util import NO_STATEMENT_TYPES, SCOPE_TYPES
from ..pyct.static_analysis import activity as activity_lib
from ..pyct.transformer import Context, is_generator, iter_nodes
from . import jumps, statement_variables


def _no_args() -> gast.arguments:
    return gast.arguments(args=[], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                          kwarg=None, defaults=[])


def _lambda(body: gast.expr) -> gast.Lambda:
    lam = gast.Lambda(args=_no_args(), body=body)
    anno.setanno(lam, anno.Key.IMMEDIATE, True)
    return lam


def _const(value) -> gast.Constant:
    return gast.Constant(value=value, kind=None)


def _names_tuple(names: list[str]) -> gast.Tuple:
    return gast.Tuple(elts=[_const(n) for n in names], ctx=gast.Load())


def _rewrite_loop_jumps(stmts: list) -> list:
    """`break` -> `return ag__.BREAK`, `continue` -> `return`, for the loop whose body is `stmts`."""
    out = []
    for s in stmts:
        if isinstance(s, gast.Break):
            new = templates.replace("return ag__.BREAK")[0]
            out.append(origin.copy_location(new, s))
            continue
        if isinstance(s, gast.Continue):
            out.append(origin.copy_location(gast.Return(value=None), s))
            continue
        if isinstance(s, SCOPE_TYPES):
            out.append(s)
            continue
        if isinstance(s, (gast.For, gast.While, gast.AsyncFor)):
            s.orelse = _rewrite_loop_jumps(s.orelse)
            if jumps.on_break(s):
                jumps.set_on_break(s, _rewrite_loop_jumps(jumps.on_break(s)))
            out.append(s)
            continue
        for f in ("body", "orelse", "finalbody"):
            value = getattr(s, f, None)
            if isinstance(value, list):
                setattr(s, f, _rewrite_loop_jumps(value))
        for h in getattr(s, "handlers", None) or []:
            h.body = _rewrite_loop_jumps(h.body)
        for case in getattr(s, "cases", None) or []:
            case.body = _rewrite_loop_jumps(case.body)
        out.append(s)
    return out


def _has_named_expr(node) -> bool:
    return any(isinstance(n, gast.NamedExpr) for n in iter_nodes(node))


class Handler(transformer.Handler):
    """Turns `if`, `while` and `for` statements into generated functions and an operator
    call (after the statements nested in them are converted)."""

    # only statements are converted; async functions are not
    skip_types = NO_STATEMENT_TYPES + (gast.AsyncFunctionDef,)

    def __init__(self, ctx: Context):
        super().__init__(ctx)
        self.numbers: list[int] = []    # the number of each converted statement being visited

    # -- helpers --------------------------------------------------------------------------
    def _function(self, name: str, body: list, names: list[str], global_names, src,
                  params: Optional[list[str]] = None) -> gast.FunctionDef:
        """`def name(params): nonlocal ...; body` sharing the `names` that `body` assigns."""
        cache = self.ctx.extra.get(statement_variables.ACTIVITY_CACHE, {})
        written = activity_lib.simple_cached_activity(cache, body).written_names
        shared = [n for n in names if n in written and "." not in n and "[" not in n]
        decls = []
        nonlocals = [n for n in shared if n not in global_names]
        globals_ = [n for n in shared if n in global_names]
        if globals_:
            decls.append(gast.Global(names=globals_))
        if nonlocals:
            decls.append(gast.Nonlocal(names=nonlocals))
        args = _no_args()
        args.args = [templates.name(p, gast.Param) for p in params or []]
        fn = gast.FunctionDef(name=name, args=args, body=decls + (body or [gast.Pass()]),
                              decorator_list=[], returns=None, type_comment=None, type_params=[])
        anno.setanno(fn, anno.Key.GENERATED, True)
        for d in decls:
            origin.copy_location(d, src)
        origin.copy_location(fn, src)
        return fn

    def _branch(self, stmts: list, stem: str, number: int, names, global_names, src):
        """(expression for the branch function, definitions to emit before the call)."""
        if (len(stmts) == 1 and isinstance(stmts[0], gast.Return)
                and not (stmts[0].value is not None and _has_named_expr(stmts[0].value))):
            value = stmts[0].value if stmts[0].value is not None else _const(None)
            return origin.copy_location(_lambda(value), stmts[0]), []
        last = stmts[-1] if stmts else None
        if last is not None and anno.hasanno(last, anno.Key.IF_CALL) and not _has_named_expr(last) and all(
                anno.getanno(s, anno.Key.GENERATED, False) for s in stmts[:-1]):
            return _lambda(last.value), list(stmts[:-1])      # elif: chain the calls
        name = self.ctx.namer.numbered(stem, number)
        fn = self._function(name, stmts, names, global_names, src)
        return templates.name(name), [fn]

    @staticmethod
    def _call(operator: str, args: list, keywords: list, returns: bool, src) -> gast.stmt:
        call = gast.Call(func=templates.operator(operator), args=args,
                         keywords=keywords)
        stmt = gast.Return(value=call) if returns else gast.Expr(value=call)
        origin.copy_location(stmt, src)
        if operator == "if_stmt":
            anno.setanno(stmt, anno.Key.IF_CALL, True)
        return stmt

    # -- hooks -------------------------------------------------------------------------------
    def enter_FunctionDef(self, node):
        # generated functions cannot hold a `yield`: leave generators alone
        return transformer.SKIP if is_generator(node) else node

    def enter_If(self, node: gast.If):
        if not anno.getanno(node, anno.Key.PLAIN, False):
            self.numbers.append(self.ctx.namer.next_number())   # before the nested statements: source order
        return node

    def _enter_loop(self, node):
        if not anno.getanno(node, anno.Key.PLAIN, False):
            node.body = _rewrite_loop_jumps(node.body)
            self.numbers.append(self.ctx.namer.next_number())
        return node

    enter_While = enter_For = _enter_loop

    def leave_If(self, node: gast.If):
        if anno.getanno(node, anno.Key.PLAIN, False):
            return node
        number = self.numbers.pop()
        names = anno.getanno(node, anno.Key.NAMES, [])
        temps = anno.getanno(node, anno.Key.TEMPS, [])
        global_names = anno.getanno(node, anno.Key.GLOBAL_NAMES, frozenset())
        body_ref, defs = self._branch(node.body, "if_body", number, names + temps,
                                      global_names, node)
        args = [node.test, body_ref]
        if node.orelse:
            else_ref, else_defs = self._branch(node.orelse, "else_body", number, names + temps,
                                               global_names, node)
            defs += else_defs
            args.append(else_ref)
        if names or temps:
            if len(args) == 2:
                args.append(_const(None))
            args.append(_names_tuple(names))
        keywords = [gast.keyword(arg="temps", value=_names_tuple(temps))] if temps else []
        if names and anno.getanno(node, anno.Key.AFTER_JUMP, False):
            keywords.append(gast.keyword(arg="after_jump", value=_const(True)))
        stmt = self._call("if_stmt", args, keywords, anno.getanno(node, anno.Key.RETURNS_RESULT, False),
                          node)
        return defs + [stmt]

    def _loop_common(self, node):
        if anno.getanno(node, anno.Key.PLAIN, False):
            return None
        number = self.numbers.pop()
        on_break = jumps.on_break(node)     # already visited: it is one of the node's fields
        names = anno.getanno(node, anno.Key.NAMES, [])
        global_names = anno.getanno(node, anno.Key.GLOBAL_NAMES, frozenset())
        defs, tail_args, keywords = [], [], []
        if node.orelse:
            name = self.ctx.namer.numbered("else_body", number)
            defs.append(self._function(name, node.orelse, names, global_names, node))
            tail_args.append(templates.name(name))
        if on_break:
            name = self.ctx.namer.numbered("after_break", number)
            defs.append(self._function(name, on_break, names, global_names, node))
            keywords.append(gast.keyword(arg="on_break", value=templates.name(name)))
        keywords.extend(anno.getanno(node, anno.Key.LOOP_OPTIONS, []))
        if names or tail_args:
            tail_args.insert(0, _names_tuple(names))
        return number, names, global_names, defs, tail_args, keywords

    def leave_While(self, node: gast.While):
        common = self._loop_common(node)
        if common is None:
            return node
        number, names, global_names, defs, tail_args, keywords = common
        body_name = self.ctx.namer.numbered("loop_body", number)
        body = self._function(body_name, node.body, names, global_names, node)
        if _has_named_expr(node.test):
            test_name = self.ctx.namer.numbered("loop_test", number)
            ret = origin.copy_location(gast.Return(value=node.test), node)
            test_fn = self._function(test_name, [ret], names, global_names, node)
            defs.insert(0, test_fn)
            test = templates.name(test_name)
        else:
            test = origin.copy_location(_lambda(node.test), node)
        stmt = self._call("while_stmt", [test, templates.name(body_name)] + tail_args, keywords,
                          anno.getanno(node, anno.Key.RETURNS_RESULT, False), node)
        return [body] + defs + [stmt]

    def leave_For(self, node: gast.For):
        common = self._loop_common(node)
        if common is None:
            return node
        number, names, global_names, defs, tail_args, keywords = common
        body_name = self.ctx.namer.numbered("loop_body", number)
        target = node.target
        body = list(node.body)
        if isinstance(target, gast.Name) and target.id not in names:
            param = target.id
        else:
            param = self.ctx.namer.unique("itr")
            assign = gast.Assign(targets=[target], value=templates.name(param), type_comment=None)
            body.insert(0, origin.copy_location(assign, node))
        fn = self._function(body_name, body, names, global_names, node, params=[param])
        stmt = self._call("for_stmt", [node.iter, templates.name(body_name)] + tail_args, keywords,
                          anno.getanno(node, anno.Key.RETURNS_RESULT, False), node)
        return [fn] + defs + [stmt]


def transform(node, ctx: Context):
    node = transformer.run_handlers(node, ctx, Handler)
    ctx.extra.pop(statement_variables.ACTIVITY_CACHE, None)   # the statements have changed
    return node


__all__ = ["transform", "statement_variables"]

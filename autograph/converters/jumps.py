"""Canonical `break`, `continue` and `return`: code that follows a conditional jump moves into
the branches that fall through, so that every jump ends the generated function it will be in.

    for x in xs:                        for x in xs:
        if x < 0:                           if x < 0:
            continue          ->                pass      (dropped: `if not x < 0: ...`)
        total += x                          else:
                                                total += x

After this pass, an `if` holding a jump is the last statement of its function or loop body,
so the converted `if` can simply return what its branches return. A loop holding a `return`
(or whose `else:` jumps) likewise ends its block: the code after it moves into its `else:`
(and, if the loop also has a `break`, into an `on_break` block run after a break).

A `return value` inside `depth` converted loops becomes `return ag__.Return(value, depth)`.

Code motion never crosses `try`, `with` or `match`: jumps out of `try` and `with` are
flags by now (see `jump_flags`); an `if` or loop inside them that still jumps out of them
stays plain Python (annotation `plain`), which is exact for Python values.
"""

from __future__ import annotations

import gast

from ..pyct import anno, origin, templates, transformer
from ..pyct.ast_util import NO_STATEMENT_TYPES, SCOPE_TYPES
from ..pyct.static_analysis.python_values import is_python_bool
from ..pyct.transformer import Context, is_generator
from ..records import FrozenRecord

_OPAQUE = (gast.Try, gast.With, gast.AsyncWith, gast.Match) + ((gast.TryStar,) if hasattr(gast, "TryStar") else ())


class _Region(FrozenRecord):
    """Where a statement is: the converted loops around it (within the function), whether a
    break/continue there belongs to a converted loop, and whether it is inside try/with/match
    (no code motion)."""

    _fields = ("loop_depth", "in_loop", "opaque")
    loop_depth: int
    in_loop: bool
    opaque: bool


# -- on_break blocks -------------------------------------------------------------------------------

def on_break(loop) -> list:
    """The statements a loop runs after a `break` (see the module docstring)."""
    return getattr(loop, "on_break", None) or []


def set_on_break(loop, stmts: list) -> None:
    """Stores `stmts` as the loop's `on_break` block: an extra field of that one node, so
    every traversal that follows `_fields` sees it like the loop's `body` and `orelse`."""
    loop.on_break = stmts
    if "on_break" not in loop._fields:
        loop._fields = tuple(loop._fields) + ("on_break",)


# -- queries ------------------------------------------------------------------------------------

def escapes(stmts: list) -> set[str]:
    """Jump kinds ("return", "break", "continue") that leave `stmts`."""
    found: set[str] = set()
    _escapes(stmts, found, in_nested_loop=False)
    return found


def _escapes(stmts, found: set, in_nested_loop: bool) -> None:
    for s in stmts:
        if isinstance(s, SCOPE_TYPES):
            continue
        if isinstance(s, gast.Return):
            found.add("return")
        elif isinstance(s, (gast.Break, gast.Continue)) and not in_nested_loop:
            found.add("break" if isinstance(s, gast.Break) else "continue")
        elif isinstance(s, (gast.For, gast.While, gast.AsyncFor)):
            _escapes(s.body, found, in_nested_loop=True)
            _escapes(s.orelse, found, in_nested_loop)
            _escapes(on_break(s), found, in_nested_loop)
        else:
            for f in ("body", "orelse", "finalbody", "handlers", "cases"):
                value = getattr(s, f, None)
                if isinstance(value, list):
                    _escapes(value, found, in_nested_loop)


def has_break(loop) -> bool:
    """Whether a loop's own body contains a `break` (not one of a nested loop)."""
    return "break" in escapes(loop.body)


def has_return(stmts: list) -> bool:
    return "return" in escapes(stmts)


def always_jumps(stmts: list) -> bool:
    """Whether running `stmts` always ends in a jump or a raise."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (gast.Return, gast.Break, gast.Continue, gast.Raise)):
        return True
    if isinstance(last, gast.If):
        return always_jumps(last.body) and always_jumps(last.orelse)
    return False


# -- the pass ----------------------------------------------------------------------------------

class Handler(transformer.Handler):
    """Moves the code after conditional jumps into the branches that fall through. The code
    moves between statement lists, so the handler walks a function's blocks itself, and
    the blocks of the functions nested in it."""

    skip_types = NO_STATEMENT_TYPES    # a lambda (converted itself) holds no statements

    def enter_FunctionDef(self, node):
        self.function(node)
        return transformer.SKIP     # done, with the functions nested in it

    enter_AsyncFunctionDef = enter_FunctionDef

    def function(self, node) -> None:
        node.body = self.block(node.body, _Region(0, False, False), tail=True) or [gast.Pass()]

    def block(self, stmts: list, region: _Region, tail: bool) -> list:
        out: list = []
        for i, s in enumerate(stmts):
            rest = stmts[i + 1:]
            is_last = not rest
            if isinstance(s, (gast.Return, gast.Break, gast.Continue, gast.Raise)):
                if isinstance(s, gast.Return):
                    self._rewrite_return(s, region)
                    out.append(s)
                elif isinstance(s, gast.Continue) and tail and region.in_loop and not region.opaque:
                    pass   # falling off the end of a loop body is a continue
                else:
                    out.append(s)
                return out
            if isinstance(s, gast.If):
                done = self._if(s, rest, region, tail and is_last)
                out.extend(done[0])
                if done[1]:
                    return out
                continue
            if isinstance(s, (gast.For, gast.While)):
                done = self._loop(s, rest, region, tail and is_last)
                out.append(s)
                if done:
                    return out
                continue
            if isinstance(s, gast.FunctionDef) and not is_generator(s):
                self.function(s)
            elif isinstance(s, _OPAQUE) or isinstance(s, gast.AsyncFor):
                self._opaque(s, region)
            out.append(s)
        return out

    def _python_test(self, test) -> bool:
        return is_python_bool(test, self.ctx.is_builtin)

    def _if(self, s: gast.If, rest: list, region: _Region, tail: bool):
        """Returns (statements replacing `s`, whether `rest` was consumed)."""
        jumps = escapes([s])
        static = self._python_test(s.test)
        if static:
            anno.setanno(s, anno.Key.PLAIN, True)
        if not jumps:
            s.body = self.block(s.body, region, tail) or [gast.Pass()]
            s.orelse = self.block(s.orelse, region, tail)
            return [s], False
        if region.opaque:
            anno.setanno(s, anno.Key.PLAIN, True)
            s.body = self.block(s.body, region, False) or [gast.Pass()]
            s.orelse = self.block(s.orelse, region, False)
            return [s], False
        if rest:
            need_body, need_orelse = not always_jumps(s.body), not always_jumps(s.orelse)
            if need_body:
                s.body = s.body + (templates.copy_tree(rest) if need_orelse else rest)
            if need_orelse:
                s.orelse = s.orelse + rest
        s.body = self.block(s.body, region, tail=True)
        s.orelse = self.block(s.orelse, region, tail=True)
        if not s.body and not s.orelse:
            return [], True
        if not s.body:
            s.test = gast.UnaryOp(op=gast.Not(), operand=s.test)
            s.body, s.orelse = s.orelse, []
        if not static and escapes([s]):
            anno.setanno(s, anno.Key.RETURNS_RESULT, True)
        return [s], True

    def _loop(self, s, rest: list, region: _Region, tail: bool) -> bool:
        """Processes a loop; returns whether `rest` was moved into it."""
        inner = _Region(region.loop_depth + 1, True, False)
        escaping_else = bool(escapes(s.orelse))
        if region.opaque and (has_return(s.body) or escaping_else):
            anno.setanno(s, anno.Key.PLAIN, True)
            s.body = self.block(s.body, _Region(region.loop_depth, False, True), tail=False)
            s.orelse = self.block(s.orelse, region, tail=False)
            return False
        s.body = self.block(s.body, inner, tail=True) or [gast.Pass()]
        if not (has_return(s.body) or escaping_else):
            s.orelse = self.block(s.orelse, region, tail=False)
            return False
        if rest:
            if has_break(s):
                set_on_break(s, self.block(templates.copy_tree(rest), region, tail=True))
            s.orelse = s.orelse + rest
        s.orelse = self.block(s.orelse, region, tail=True)
        anno.setanno(s, anno.Key.RETURNS_RESULT, True)
        return True

    def _opaque(self, s, region: _Region) -> None:
        inner = _Region(region.loop_depth, region.in_loop, True)
        if isinstance(s, gast.AsyncFor):
            s.body = self.block(s.body, _Region(region.loop_depth, False, True), tail=False)
            s.orelse = self.block(s.orelse, inner, tail=False)
            return
        for f in ("body", "orelse", "finalbody"):
            value = getattr(s, f, None)
            if isinstance(value, list) and value:
                setattr(s, f, self.block(value, inner, tail=False) or [gast.Pass()])
        for h in getattr(s, "handlers", []) or []:
            h.body = self.block(h.body, inner, tail=False) or [gast.Pass()]
        for case in getattr(s, "cases", []) or []:
            case.body = self.block(case.body, inner, tail=False) or [gast.Pass()]

    def _rewrite_return(self, node: gast.Return, region: _Region) -> None:
        if region.loop_depth == 0:
            return
        value = node.value if node.value is not None else gast.Constant(value=None, kind=None)
        if region.loop_depth == 1:
            new = templates.replace_as_expression("ag__.Return(value)", value=value)
        else:
            new = templates.replace_as_expression("ag__.Return(value, depth)", value=value,
                                                  depth=gast.Constant(value=region.loop_depth, kind=None))
        node.value = origin.copy_location(new, node)


def transform(node, ctx: Context):
    return transformer.run_handlers(node, ctx, Handler)

"""`return`, `break` and `continue` inside `with` and `try` statements become flags, so that
an `if` holding them can be staged while `__exit__` and `finally:` run as Python runs them:

    with scope():                         did_return = False
        if x > 0:                         with scope():
            return x          ->              if x > 0:
        y = -x                                    did_return = True
    return y                                      return_value__ = x
                                              if not did_return:
                                                  y = -x
                                          if did_return:
                                              return return_value__
                                          return y

The `if` after the statement is an ordinary conditional jump (see `jumps`). A `return`
inside a loop nested in the statement also leaves that loop (`did_return = True; break`).
The return value is a *placeholder* variable (`naming.RETURN_VALUE_STEM`): a staged `if` may
leave it undefined on the path that does not return. When every path through the statement
returns (`if x > 0: return 1` / `else: return 0` inside it), the return after it is
unconditional, `return return_value__`: a staged `if did_return:` would have nothing to
return on its other path, and the code after the statement is never reached.
"""

from __future__ import annotations

import gast

from ..pyct import anno, origin, templates, transformer
from ..pyct.ast_util import NO_STATEMENT_TYPES, SCOPE_TYPES
from ..pyct.naming import RETURN_VALUE_STEM
from ..pyct.transformer import Context, is_generator
from . import jumps

_LOOPS = (gast.For, gast.While, gast.AsyncFor)
_FLAGGED = (gast.With, gast.Try) + ((gast.TryStar,) if hasattr(gast, "TryStar") else ())


def _jumps_conditionally(stmts: list) -> bool:
    """Whether an `if` or loop among `stmts` (at any depth) holds a jump out of `stmts`: an
    unconditional jump needs no flag."""
    for s in stmts:
        if isinstance(s, SCOPE_TYPES):
            continue
        if isinstance(s, (gast.If,) + _LOOPS) and jumps.escapes([s]):
            return True
        if any(_jumps_conditionally(part) for part in _parts(s)):
            return True
    return False


def _always_returns(stmts: list) -> bool:
    """Whether every path through `stmts` ends in a `return` or a `raise` (loops are not
    followed: they may run no iteration)."""
    for s in stmts:
        if isinstance(s, (gast.Return, gast.Raise)):
            return True
        if isinstance(s, gast.If) and _always_returns(s.body) and _always_returns(s.orelse):
            return True
        if isinstance(s, (gast.With, gast.AsyncWith)):
            if _always_returns(s.body):
                return True
        elif isinstance(s, _FLAGGED):
            if _always_returns(s.finalbody):
                return True
            # the `else:` runs when the body ends normally; each handler when it catches
            if _always_returns(s.body) or _always_returns(s.orelse):
                if all(_always_returns(h.body) for h in s.handlers):
                    return True
    return False


def _parts(s) -> list:
    parts = [getattr(s, f) for f in ("body", "orelse", "finalbody")
             if isinstance(getattr(s, f, None), list)]
    parts += [h.body for h in getattr(s, "handlers", None) or []]
    return parts


def _name(name: str, ctx=gast.Load) -> gast.Name:
    return templates.name(name, ctx)


def _assign(name: str, value: gast.expr, src) -> gast.stmt:
    node = gast.Assign(targets=[_name(name, gast.Store)], value=value, type_comment=None)
    return origin.copy_location(node, src)


class _Flags:
    def __init__(self, ctx: Context, kinds: set):
        self.flag = {k: ctx.namer.unique(f"did_{k}") for k in sorted(kinds)}
        self.value = ctx.namer.unique(RETURN_VALUE_STEM) if "return" in kinds else None

    def jump(self, s) -> list:
        kind = {gast.Return: "return", gast.Break: "break", gast.Continue: "continue"}[type(s)]
        out = [_assign(self.flag[kind], gast.Constant(value=True, kind=None), s)]
        if kind == "return":
            value = s.value if s.value is not None else gast.Constant(value=None, kind=None)
            out.append(_assign(self.value, value, s))
        return out

    def none_set(self, src) -> gast.expr:
        names = [_name(n) for n in self.flag.values()]
        test = names[0] if len(names) == 1 else gast.BoolOp(op=gast.Or(), values=names)
        return origin.copy_location(gast.UnaryOp(op=gast.Not(), operand=test), src)

    def block(self, stmts: list) -> list:
        """`stmts` with jumps set flags, and what follows a possible jump guarded."""
        out: list = []
        for i, s in enumerate(stmts):
            if isinstance(s, (gast.Return, gast.Break, gast.Continue)):
                return out + self.jump(s)
            if isinstance(s, SCOPE_TYPES) or not jumps.escapes([s]):
                out.append(s)
                continue
            if isinstance(s, _LOOPS):    # its own break/continue stay; its else: may jump
                if jumps.has_return(s.body):
                    s.body = self.loop_body(s.body)
                s.orelse = self.block(s.orelse)
            else:
                for f in ("body", "orelse", "finalbody"):
                    value = getattr(s, f, None)
                    if isinstance(value, list) and value:
                        setattr(s, f, self.block(value) or [origin.copy_location(gast.Pass(), s)])
                for h in getattr(s, "handlers", None) or []:
                    h.body = self.block(h.body) or [origin.copy_location(gast.Pass(), h)]
            out.append(s)
            rest = stmts[i + 1:]
            if rest:
                guard = gast.If(test=self.none_set(rest[0]), body=self.block(rest), orelse=[])
                anno.setanno(guard, anno.Key.AFTER_JUMP, True)
                out.append(origin.copy_location(guard, rest[0]))
            return out
        return out

    def loop_body(self, stmts: list) -> list:
        """A loop body whose `return`s set the flag and leave the loop (and the loops
        around it, up to the statement)."""
        out: list = []
        for s in stmts:
            if isinstance(s, gast.Return):
                out.extend(self.jump(s) + [origin.copy_location(gast.Break(), s)])
                return out
            if isinstance(s, SCOPE_TYPES) or not jumps.has_return([s]):
                out.append(s)
                continue
            if isinstance(s, _LOOPS):
                s.body = self.loop_body(s.body)
                s.orelse = self.loop_body(s.orelse)
                leave = gast.If(test=_name(self.flag["return"]), body=[gast.Break()], orelse=[])
                out.extend([s, origin.copy_location(leave, s)])
                origin.copy_location(leave.body[0], s)
                continue
            for part in _parts(s):
                part[:] = self.loop_body(part) or [origin.copy_location(gast.Pass(), s)]
            out.append(s)
        return out

    def before(self, src) -> list:
        return [_assign(f, gast.Constant(value=False, kind=None), src) for f in self.flag.values()]

    def after(self, src, always_returns: bool = False) -> list:
        """The jumps after the statement. When every path through it returns, the return
        is unconditional: a staged `if did_return:` would have no value for its other
        branch."""
        out = []
        for kind, flag in self.flag.items():
            if kind == "return" and always_returns:
                return [origin.copy_location(gast.Return(value=_name(self.value)), src)]
            if kind == "return":
                body = [gast.Return(value=_name(self.value))]
            else:
                body = [gast.Break() if kind == "break" else gast.Continue()]
            for b in body:
                origin.copy_location(b, src)
            out.append(origin.copy_location(gast.If(test=_name(flag), body=body, orelse=[]), src))
        return out


class Handler(transformer.Handler):
    """Turns the jumps out of `with` and `try` statements into flags. The code after them
    moves into guards, so the handler walks a function's blocks itself, and the blocks of
    the functions nested in it."""

    skip_types = NO_STATEMENT_TYPES    # a lambda (converted itself) holds no statements

    def enter_FunctionDef(self, node):
        self.function(node)
        return transformer.SKIP     # done, with the functions nested in it

    enter_AsyncFunctionDef = enter_FunctionDef

    def function(self, node) -> None:
        node.body = self.block(node.body)

    def block(self, stmts: list) -> list:
        out = []
        for s in stmts:
            if isinstance(s, gast.FunctionDef) and not is_generator(s):
                self.function(s)
            elif isinstance(s, SCOPE_TYPES):
                pass
            elif isinstance(s, _FLAGGED) and _jumps_conditionally([s]):
                flags = _Flags(self.ctx, jumps.escapes([s]))
                always = "return" in flags.flag and _always_returns([s])
                for part in ("body", "orelse", "finalbody"):
                    value = getattr(s, part, None)
                    if isinstance(value, list) and value:
                        value = self.block(value)
                        new = (self._final_block(value, flags) if part == "finalbody"
                               else flags.block(value))
                        setattr(s, part, new or [gast.Pass()])
                for h in getattr(s, "handlers", None) or []:
                    h.body = flags.block(self.block(h.body)) or [gast.Pass()]
                out.extend(flags.before(s) + [s] + flags.after(s, always))
                if always:
                    return out      # what follows is never reached
                continue
            else:
                for part in _parts(s):
                    part[:] = self.block(part)
            out.append(s)
        return out


    def _final_block(self, stmts: list, flags: _Flags) -> list:
        """A `finally:` block. A `return` there replaces one the `try` made, so when the
        block's only jumps are returns, its guards read a flag of its own (set False on
        entry); a return it makes is then added to the statement's flag at its end."""
        if jumps.escapes(stmts) != {"return"}:
            return flags.block(stmts)
        own = _Flags(self.ctx, {"return"})
        own.value = flags.value
        out = own.before(stmts[0]) + own.block(stmts)
        if not _always_returns(stmts):
            mark = _assign(flags.flag["return"], gast.Constant(value=True, kind=None), stmts[-1])
            merge = gast.If(test=_name(own.flag["return"]), body=[mark], orelse=[])
            out.append(origin.copy_location(merge, stmts[-1]))
        return out


def transform(node, ctx: Context):
    """Rewrites the jumps out of `with`/`try` statements of a function (see module doc)."""
    return transformer.run_handlers(node, ctx, Handler)

"""A tiny staged backend for testing autograph without the runtime.

`Sym` wraps a number whose truth value is "unknown while tracing" (`bool()` raises), like a
symbolic tensor. The backend's `cond` runs both branches (as tracing does) and keeps the
outputs of the one the value selects; `while_loop` runs the loop with the values it carries.
Every staged construct is counted in `log`.
"""

from __future__ import annotations

import operator

import autograph as ag


class Sym:
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v.v if isinstance(v, Sym) else v

    def __bool__(self):
        raise TypeError("the truth value of a Sym is unknown while tracing")

    def __repr__(self):
        return f"Sym({self.v!r})"


def _lift(op):
    def method(self, *others):
        return Sym(op(self.v, *[o.v if isinstance(o, Sym) else o for o in others]))
    return method


def _rlift(op):
    def method(self, other):
        return Sym(op(other.v if isinstance(other, Sym) else other, self.v))
    return method


for _name, _op in [("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("truediv", operator.truediv), ("floordiv", operator.floordiv),
                   ("mod", operator.mod), ("lt", operator.lt), ("le", operator.le),
                   ("gt", operator.gt), ("ge", operator.ge), ("eq", operator.eq),
                   ("ne", operator.ne), ("neg", operator.neg), ("abs", abs)]:
    setattr(Sym, f"__{_name}__", _lift(_op))
for _name, _op in [("radd", operator.add), ("rsub", operator.sub), ("rmul", operator.mul),
                   ("rmod", operator.mod), ("rfloordiv", operator.floordiv),
                   ("rtruediv", operator.truediv)]:
    setattr(Sym, f"__{_name}__", _rlift(_op))
Sym.__hash__ = None


def value(x):
    return x.v if isinstance(x, Sym) else x


class FakeBackend(ag.Backend):
    value_types = (Sym,)

    def __init__(self):
        self.log = []
        self.printed = []

    def is_staged(self, v):
        return isinstance(v, Sym)

    def is_value(self, v):
        return isinstance(v, Sym)

    def convert(self, v):
        if isinstance(v, (bool, int, float)):
            return Sym(v)
        raise TypeError(f"cannot convert {v!r}")

    def spec(self, v):
        return type(value(v)).__name__

    def zeros(self, spec):
        return Sym({"int": 0, "float": 0.0, "bool": False}[spec])

    def cond(self, pred, true_fn, false_fn, names=()):
        self.log.append("cond")
        t, f = true_fn(), false_fn()
        assert len(t) == len(f), (t, f)
        for a, b in zip(t, f):
            if self.spec(a) != self.spec(b) and {self.spec(a), self.spec(b)} != {"int", "float"}:
                raise TypeError(f"branch outputs differ: {a!r} vs {b!r}")
        return t if value(pred) else f

    def while_loop(self, test, body, loop_vars, names, shape_invariants=None,
                   maximum_iterations=None):
        self.log.append("while")
        body(*loop_vars)      # trace once, like the runtime would
        vars_ = tuple(loop_vars)
        n = 0
        while value(test(*vars_)):
            if maximum_iterations is not None and n >= value(maximum_iterations):
                break
            vars_ = tuple(body(*vars_))
            n += 1
        return vars_

    def logical_and(self, a, b):
        return Sym(value(a) and value(b))

    def logical_or(self, a, b):
        return Sym(value(a) or value(b))

    def logical_not(self, a):
        return Sym(not value(a))

    def print(self, values, sep, end, file):
        self.printed.append(sep.join(str(value(v)) for v in values) + end)

    def assert_(self, condition, message, data):
        self.log.append(("assert", message))

    def guard_defined(self, v, defined, message):
        self.log.append(("guard", message))
        return v

    def len(self, v):
        return Sym(len(value(v)))

    def range_length(self, start, stop, step):
        return Sym(len(range(value(start), value(stop), value(step))))

    def getitem(self, v, i):
        return Sym(value(v)[value(i)])

    def cast(self, v, kind):
        return Sym({"int": int, "float": float, "bool": bool}[kind](value(v)))

    def reduce(self, kind, values):
        fn = {"min": min, "max": max, "sum": sum, "any": any, "all": all}[kind]
        if len(values) == 1:
            return Sym(fn(value(values[0])))
        return Sym(fn(value(v) for v in values))

    def new_list(self, items, element_spec=None):
        raise NotImplementedError

    def is_list(self, v):
        return False

    def list_append(self, lst, v):
        raise NotImplementedError

    def list_pop(self, lst):
        raise NotImplementedError

"""`while` and `for` loops in converted code.

    ag__.while_stmt(lambda: i < n, loop_body_1, ('i', 's'))
    ag__.for_stmt(range(n), loop_body_2, ('s',), else_body_2)

The loop body is a generated function (for `for` loops it takes the current item). It
returns None to go on, `BREAK` to leave the loop, or `Return(value)` to leave the function.
Loops over plain values run as Python loops (a loop over a Python list is unrolled while
tracing). A loop whose condition or iterable is staged — or whose `break`/`return` comes to
depend on a staged value while it runs — is staged with the backend's `while_loop`,
carrying the variables listed in `names`.

The loop statement's result: the value of a `return` inside the loop (still wrapped in
`Return` when it has more loops to leave), else `on_break()` after a `break`, else
`orelse()` after the loop ends normally (the `else:` clause plus, when the loop contains a
`return`, the code that follows it).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from .dispatch import staged_backend
from .iterables import staged_iteration
from .location import at, user_location
from .special_values import BREAK, NORMAL, Return, StagedJump
from .staged_cond import staged_cond
from .staged_loop import assigns, finish_loop, staged_loop
from .staging import may_jump
from .variables import Variables


def _leave(jump: Return) -> Any:
    return jump.value if jump.depth <= 1 else Return(jump.value, jump.depth - 1)


def while_stmt(test: Callable[[], Any], body: Callable[[], Any], names: Sequence[str] = (),
               orelse: Optional[Callable[[], Any]] = None, on_break: Optional[Callable[[], Any]] = None,
               **options: Any) -> Any:
    """`while test(): body()`, staged once the test or a break/return decision is staged.

    `options` are the loop options (`maximum_iterations`, `shape_invariants` — a dict from
    variable name to shape — ...) given with `ag.experimental.set_loop_options`."""
    python_iterations = 0
    while True:
        c = test()
        if c is not True and c is not False:
            backend = staged_backend(c)
            if backend is not None:
                if python_iterations:
                    _refuse_endless(backend, c, body)
                return _staged_while(backend, test, body, names, orelse, on_break, options, None,
                                     first_test=c)
        if not c:
            return orelse() if orelse is not None else None
        python_iterations += 1
        jump = body()
        if jump is None:
            continue
        if jump is BREAK:
            return on_break() if on_break is not None else None
        if isinstance(jump, Return):
            return _leave(jump)
        if isinstance(jump, StagedJump):
            backend = staged_backend(jump.kind)
            return _staged_while(backend, test, body, names, orelse, on_break, options, jump)
        raise TypeError(f"a loop body returned {jump!r}")


def _refuse_endless(backend, condition: Any, body: Callable[[], Any]) -> None:
    """A Python `while` whose condition became a tensor that is always true, with no
    `break` or `return` in its body, would stage a loop that never ends: TensorFlow refuses
    a condition that changes from a Python value to a tensor; so does this case."""
    if backend.known_value(condition) is True and not may_jump(body):
        raise NotImplementedError(
            f"the condition of while loop started as non-Tensor, then changed to Tensor"
            f"{at(user_location())}, a tensor that is always True, and nothing in the loop "
            "body leaves the loop: the staged loop would never end. Give the condition a "
            "tensor value before the loop (or compute it from the loop's variables).")


def _staged_while(backend, test, body, names, orelse, on_break, options, jump, first_test=None):
    location = user_location()
    variables = Variables(names, (body, orelse, on_break, test))
    if any(assigns(test, name) for name in names):
        final, guards = _staged_assigning_while(backend, variables, test, body, options, jump,
                                                first_test, location)
        return finish_loop(backend, variables, final, orelse, on_break, location, guards)
    final, _, guards = staged_loop(
        backend, variables, test=lambda ex: test(), body=lambda ex: (body(), ()), jump=jump,
        opts=options, location=location)
    return finish_loop(backend, variables, final, orelse, on_break, location, guards)


def _staged_assigning_while(backend, variables, test, body, options, jump, first_test, location):
    """A loop whose test assigns loop variables (`while (x := f(x)) < n:`) runs as
    `c = test(); while c: body(); c = test()`, carrying `c`: what the test assigns must
    reach the body, and the test runs once more only when the body did not jump."""
    def truth(value):
        return value if backend.is_value(value) else backend.convert(bool(value))

    def next_test(result):
        if result is None:
            return truth(test())
        if not isinstance(result, StagedJump) or NORMAL not in result.kinds:
            return backend.convert(False)
        running = backend.equal(result.kind, backend.convert(NORMAL))
        return staged_cond(backend, running, lambda: truth(test()),
                           lambda: backend.convert(False), variables, location)

    def step(extras):
        result = body()
        return result, (next_test(result),)

    start = truth(first_test) if jump is None else next_test(jump)
    final, _, guards = staged_loop(
        backend, variables, test=lambda ex: ex[0], body=step, extras=(start,),
        extra_labels=("the loop condition",), jump=jump, opts=options, location=location)
    return final, guards


def for_stmt(iterable: Any, body: Callable[[Any], Any], names: Sequence[str] = (),
             orelse: Optional[Callable[[], Any]] = None, on_break: Optional[Callable[[], Any]] = None,
             **options: Any) -> Any:
    """`for item in iterable: body(item)`, staged when the iterable is staged (a tensor, a
    range with a tensor bound, enumerate/zip of tensors, a staged list) or once a
    break/return decision is staged."""
    staged_items = getattr(type(iterable), "_ag_staged_items", None)
    if staged_items is not None:  # a dataset or iterator: its backend stages get-next
        items = staged_items(iterable)
        if items is not None:
            return _staged_iterator_for(items, body, names, orelse, on_break, options)
    staged = staged_iteration(iterable)
    if staged is not None:
        backend, length, item = staged
        return _staged_for(backend, length, item, 0, body, names, orelse, on_break, options, None)
    if type(iterable) is range:
        r = iterable
        for index, value in enumerate(r):
            jump = body(value)
            if jump is None:
                continue
            if isinstance(jump, StagedJump):
                backend = staged_backend(jump.kind)

                def item(i, r=r):
                    return r.start + i * r.step
                return _staged_for(backend, len(r), item, index + 1, body, names, orelse,
                                   on_break, options, jump)
            return _after_jump(jump, on_break)
        return orelse() if orelse is not None else None
    iterator = iter(iterable)
    for value in iterator:
        jump = body(value)
        if jump is None:
            continue
        if isinstance(jump, StagedJump):
            backend = staged_backend(jump.kind)
            return _unrolled_rest(backend, list(iterator), body, names, orelse, on_break, jump)
        return _after_jump(jump, on_break)
    return orelse() if orelse is not None else None


def _after_jump(jump: Any, on_break):
    if jump is BREAK:
        return on_break() if on_break is not None else None
    if isinstance(jump, Return):
        return _leave(jump)
    raise TypeError(f"a loop body returned {jump!r}")


def _staged_for(backend, length, item, start, body, names, orelse, on_break, options, jump):
    location = user_location()
    variables = Variables(names, (body, orelse, on_break))

    def test(ex):
        return ex[0] < length

    def step(ex):
        index = ex[0]
        return body(item(index)), (index + 1,)

    final, _, guards = staged_loop(
        backend, variables, test=test, body=step, extras=(start,), extra_labels=("the loop index",),
        jump=jump, opts=options, location=location)
    return finish_loop(backend, variables, final, orelse, on_break, location, guards)


def _staged_iterator_for(items, body, names, orelse, on_break, options):
    """`for x in it` over an iterable whose elements are fetched by staged ops:
    `items = (fetch, pack)`, `fetch()` -> (has_value, *components), `pack(components)` ->
    the element. The loop carries the current element and runs while `has_value`."""
    fetch, pack = items
    first = tuple(fetch())
    backend = staged_backend(first[0])
    location = user_location()
    variables = Variables(names, (body, orelse, on_break))

    def test(ex):
        return ex[0]

    def step(ex):
        result = body(pack(ex[1:]))
        return result, tuple(fetch())

    final, _, guards = staged_loop(
        backend, variables, test=test, body=step, extras=first,
        extra_labels=("the iterator's has-value flag",) + ("the current element",) * (len(first) - 1),
        jump=None, opts={**(options or {}), "relax_shapes": True}, location=location)
    return finish_loop(backend, variables, final, orelse, on_break, location, guards)


def _unrolled_rest(backend, items, body, names, orelse, on_break, jump):
    """The rest of a Python-iterable loop once a break/return became staged: each remaining
    iteration runs under a staged `if` on "no jump yet"."""
    location = user_location()
    variables = Variables(names, (body, orelse, on_break))
    for value in items:
        running = backend.equal(jump.kind, backend.convert(0))
        jump = staged_cond(backend, running, lambda v=value: body(v), lambda j=jump: j,
                                   variables, location)
    return finish_loop(backend, variables, jump, orelse, on_break, location)

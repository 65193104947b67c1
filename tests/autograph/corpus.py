"""A corpus of small programs for differential testing of autograph.

Each program is a plain function registered with `@case(...)`, listing example argument
tuples. The tests run every program natively, converted with Python values, and — for
programs marked `staged=True` — through `rt.function` with tensor arguments, where one
trace must serve all the examples (all examples of a staged case have the same shapes and
dtypes).
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import autograph as ag
import runtime as rt


@dataclass
class Case:
    fn: Callable
    args: list
    staged: bool = False
    # Python values that must stay Python values in the staged run (argument positions)
    static: tuple = ()
    tags: tuple = field(default_factory=tuple)

    @property
    def name(self) -> str:
        return self.fn.__name__


CASES: list[Case] = []


def case(*args, staged: bool = False, static: tuple = (), tags: tuple = ()):
    def register(fn):
        CASES.append(Case(fn, list(args), staged, static, tags))
        return fn
    return register


# -- helpers the programs use --------------------------------------------------------------

SCALE = 3
COUNTER = 0


def helper_abs(v):
    if v < 0:
        return -v
    return v


def helper_poly(v, k=2):
    total = 0
    for _ in range(k):
        total = total * v + 1
    return total


class Box:
    def __init__(self, value):
        self.value = value


class Accumulator:
    def __init__(self):
        self.total = 0
        self.items = []

    def add(self, v):
        if v > 0:
            self.total += v
        else:
            self.total -= v
        return self.total

    def add_all(self, vs):
        for v in vs:
            self.add(v)
        return self.total


class Scaler:
    def __init__(self, factor):
        self.factor = factor

    def apply(self, v):
        if v > 0:
            return v * self.factor
        return v - self.factor


class Doubler:
    def __call__(self, v):
        if v > 10:
            return v
        return v * 2


Point = collections.namedtuple("Point", ["x", "y"])


# -- if / elif / else ----------------------------------------------------------------------

@case((3,), (-4,), (0,), staged=True)
def abs_value(x):
    if x < 0:
        return -x
    return x


@case((5,), (-2,), (0,), staged=True)
def sign(x):
    if x > 0:
        s = 1
    elif x < 0:
        s = -1
    else:
        s = 0
    return s


@case((1.5, 0.0, 1.0), (-3.0, 0.0, 1.0), (0.5, 0.0, 1.0), staged=True)
def clamp(x, lo, hi):
    if x < lo:
        x = lo
    elif x > hi:
        x = hi
    return x


@case((1, 2), (1, -2), (-1, 2), (-1, -2), staged=True)
def nested_if(x, y):
    if x > 0:
        if y > 0:
            r = 1
        else:
            r = 2
    else:
        if y > 0:
            r = 3
        else:
            r = 4
    return r


@case((3,), (-3,), staged=True)
def if_without_else(x):
    y = 0
    if x > 0:
        y = x * 2
    return y


@case((3,), (-3,), staged=True)
def if_assigns_two(x):
    if x > 0:
        a = 1
        b = 2
    else:
        a = 3
        b = 4
    return a * 10 + b


@case((11,), (7,), (2,), (-5,), staged=True)
def early_returns(x):
    if x > 10:
        return 3
    if x > 5:
        return 2
    if x > 0:
        return 1
    return 0


@case((1, 1), (1, -1), (-1, 1), staged=True)
def return_in_nested_if(x, y):
    if x > 0:
        if y > 0:
            return x + y
        return x
    return -x


@case((2.0,), (-2.0,), staged=True)
def conditional_expression(x):
    return x if x > 0 else -x


@case((2,), (-2,), (0,), staged=True)
def nested_conditional_expression(x):
    return 1 if x > 0 else (-1 if x < 0 else 0)


@case((1, 1), (1, -1), (-1, 1), (-1, -1), staged=True)
def and_or_conditions(x, y):
    if x > 0 and y > 0:
        return 1
    elif x > 0 or y > 0:
        return 2
    return 3


@case((3,), (-3,), staged=True)
def not_condition(x):
    if not x > 0:
        return -1
    return 1


@case((5,), (15,), (-1,), staged=True)
def chained_comparison(x):
    if 0 < x < 10:
        return 1
    return 0


@case((3,), (-7,), (0,), staged=True)
def chained_comparison_with_call(x):
    if 0 < abs(x) <= 5:
        return 1
    return 0


@case(({"a": 1}, "a"), ({"a": -1}, "a"), ({}, "a"))
def lazy_and_on_dict(d, k):
    if k in d and d[k] > 0:
        return "positive"
    return "missing or not positive"


@case((None, 4), (3, 4))
def is_none_default(x, default):
    if x is None:
        x = default
    return x * 2


@case((3, True), (3, False), staged=True)
def bool_flag(x, flag):
    if flag:
        return x + 1
    return x - 1


@case((85,), (72,), (65,), (30,), staged=True)
def grade(score):
    if score >= 80:
        g = 4
    elif score >= 70:
        g = 3
    elif score >= 60:
        g = 2
    else:
        g = 0
    return g


@case((3, 5), (5, 3), staged=True)
def swap_if_greater(x, y):
    if x > y:
        x, y = y, x
    return x, y


@case((4,), (-4,), staged=True)
def augmented_assignment_in_branches(x):
    total = 10
    if x > 0:
        total += x
        total *= 2
    else:
        total -= x
    return total


# -- while loops ---------------------------------------------------------------------------

@case((5,), (0,), (1,), staged=True)
def count_down(n):
    s = 0
    while n > 0:
        n -= 1
        s += n
    return s


@case((10,), (3,), (100,), staged=True)
def while_compound_test(n):
    i = 0
    s = 0
    while i < n and s < 20:
        s += i
        i += 1
    return s


@case((10,), (50,), (0,), staged=True)
def while_true_break(n):
    i = 0
    while True:
        if i * i > n:
            break
        i += 1
    return i


@case((10,), (7,), staged=True)
def while_continue(n):
    i = 0
    s = 0
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        s += i
    return s


@case((10,), (5,), staged=True)
def while_else(n):
    i = 0
    while i < n:
        if i == 7:
            break
        i += 1
    else:
        i = -1
    return i


@case((6,), (7,), (1,), staged=True)
def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@case((48, 18), (17, 5), (10, 0), staged=True)
def gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


@case((10,), (2,), (0,), staged=True)
def while_return_inside(n):
    i = 0
    while i < n:
        if i * i >= n:
            return i
        i += 1
    return -1


@case((4,), (1,), staged=True)
def nested_while(n):
    i = 0
    total = 0
    while i < n:
        j = 0
        while j < i:
            total += j
            j += 1
        i += 1
    return total


@case((10.0,), (1.0,), (0.3,), staged=True)
def while_halving(x):
    count = 0
    while x > 1.0:
        x = x / 2.0
        count += 1
    return count


@case((5,), (1,), staged=True)
def while_loop_from_api_example(n):
    i = 0
    s = 0.0
    while i < n:
        s = s * 0.5 + rt.cast(i, rt.float32)
        i += 1
    return s


# -- for loops -----------------------------------------------------------------------------

@case((5,), (0,), (1,), staged=True)
def sum_range(n):
    s = 0
    for i in range(n):
        s += i
    return s


@case((10,), (3,), staged=True)
def sum_range_step(n):
    s = 0
    for i in range(1, n, 2):
        s += i
    return s


@case(([1.0, 2.0, 3.0],), ([0.5, -1.0, 4.0],), staged=True)
def for_over_tensor(xs):
    s = 0.0
    for x in xs:
        s += x
    return s


@case(([1, 2, 3],), ([4, 5, 6],), staged=True)
def for_enumerate(xs):
    s = 0
    for i, x in enumerate(xs):
        s += i * x
    return s


@case(([1, 2, 3], [4, 5, 6]), ([1, 0, 1], [2, 2, 2]), staged=True)
def for_zip_dot(xs, ys):
    s = 0
    for x, y in zip(xs, ys):
        s += x * y
    return s


@case(([3, 1, -2, 5],), ([1, 2, 3, 4],), staged=True)
def for_break_first_negative(xs):
    idx = -1
    for i, x in enumerate(xs):
        if x < 0:
            idx = i
            break
    return idx


@case(([3, -1, -2, 5],), ([-1, -2, -3, -4],), staged=True)
def for_continue_positives(xs):
    s = 0
    for x in xs:
        if x <= 0:
            continue
        s += x
    return s


@case(([1, 2, 3], 2), ([1, 2, 3], 7), staged=True)
def for_else_found(xs, t):
    for x in xs:
        if x == t:
            found = 1
            break
    else:
        found = 0
    return found


@case(([4, 5, 6], 5), ([4, 5, 6], 9), staged=True)
def for_return_index(xs, t):
    for i, x in enumerate(xs):
        if x == t:
            return i
    return -1


@case((4,), (0,), staged=True)
def nested_for(n):
    s = 0
    for i in range(n):
        for j in range(i):
            s += j
    return s


@case((3,), (-1,), staged=True)
def for_python_list_unrolled(x):
    for w in [1, 2, 3]:
        x = x * w + 1
    return x


@case(({"a": 1, "b": 2},), ({},))
def for_dict_items(d):
    out = []
    for k, v in d.items():
        out.append(f"{k}={v}")
    return ",".join(out)


@case((4,), (1,), staged=True)
def loop_target_used_after(n):
    for i in range(n):  # noqa: B007 - the loop variable is used after the loop
        pass
    return i


@case(([2, 4, 6],), ([1, 1, 1],), staged=True)
def for_range_len(xs):
    s = 0
    for i in range(len(xs)):
        s += xs[i] * i
    return s


@case(([[1, 2], [3, 4]],), ([[0, 1], [1, 0]],), staged=True)
def for_over_matrix_rows(m):
    total = 0
    for row in m:
        total += row[0] * row[1]
    return total


@case((3,), (8,), staged=True)
def python_range_staged_break(x):
    count = 0
    for i in range(6):
        if x < i:
            break
        count += 1
    return count


@case((0,), (2,), (5,), staged=True)
def python_list_staged_return(x):
    for w in [1, 2, 3]:
        if x < w:
            return w
    return 0


@case(([1, 2, 3, 4],), ([5, 6, 7, 8],), staged=True)
def for_else_no_break(xs):
    s = 0
    for x in xs:
        s += x
    else:
        s *= 2
    return s


@case((3, 4), (2, 2), staged=True)
def nested_loops_break_inner(n, m):
    total = 0
    for i in range(n):
        for j in range(m):
            if j > i:
                break
            total += 1
    return total


# -- lists ---------------------------------------------------------------------------------

@case((4,), (2,), staged=True)
def build_list_in_loop(n):
    squares = []
    for i in range(n):
        squares.append(i * i)
    return rt.stack(squares)


@case((4,), (3,), staged=True)
def list_length_after_loop(n):
    items = []
    i = 0
    while i < n:
        items.append(i)
        i += 1
    return len(items)


@case(([1, 2, 3],), ([5],))
def list_pop_python(xs):
    xs = list(xs)
    last = xs.pop()
    xs.append(last * 10)
    return xs


@case((4,), (0,))
def list_comprehension(n):
    return [i * i for i in range(n) if i % 2 == 0]


@case((5,), (1,))
def generator_expression_sum(n):
    return sum(i for i in range(n))


@case((3,), (2,), staged=True)
def python_list_of_tensors(x):
    values = [x, x * 2]
    values.append(x * 3)
    return rt.stack(values)


# -- calls ---------------------------------------------------------------------------------

@case((3,), (-3,), staged=True)
def call_user_function(x):
    return helper_abs(x) + 1


@case((2,), (-1,), staged=True)
def call_with_keyword(x):
    return helper_poly(x, k=3)


@case((5,), (0,), (1,))
def recursive_factorial(n):
    if n <= 1:
        return 1
    return n * recursive_factorial(n - 1)


@case((10,), (1,))
def recursive_fibonacci(n):
    if n < 2:
        return n
    return recursive_fibonacci(n - 1) + recursive_fibonacci(n - 2)


@case((3,), (-3,), staged=True)
def lambda_with_conditional(x):
    f = lambda v: v * 2 if v > 0 else -v  # noqa: E731
    return f(x)


@case((3,), (-3,), staged=True)
def closure_reads_outer(x):
    def inner(y):
        return y + x
    return inner(3)


@case((3,), (-5,), staged=True)
def nested_function_with_control_flow(x):
    def g(v):
        if v > 0:
            return v
        return -v
    return g(x) + g(-x)


@case((3,), (-3,), staged=True)
def method_call_staged(x):
    return Scaler(2).apply(x) + 1


@case((2, 3), (-1, 3), staged=True, static=(1,))
def recursive_power(x, n):
    if n == 0:
        return 1
    half = recursive_power(x, n // 2)
    if n % 2:
        return half * half * x
    return half * half


@case(([1, -2, 3],), ([-1, -1],))
def method_calls(xs):
    acc = Accumulator()
    return acc.add_all(xs)


@case((3,), (20,), staged=True)
def callable_object(x):
    d = Doubler()
    return d(x)


@case((3,), (-3,), staged=True)
def composite_attribute(x):
    box = Box(0)
    if x > 0:
        box.value = x
    else:
        box.value = -x
    return box.value


@case((3,), (-3,), staged=True)
def composite_subscript(x):
    d = {"a": 0, "b": 1}
    if x > 0:
        d["a"] = x
    return d["a"] + d["b"]


@case((2,), (-1,), staged=True)
def global_read(x):
    if x > 0:
        return x * SCALE
    return x


@case((1,), (2,))
def global_write(x):
    global COUNTER
    COUNTER += x
    if COUNTER > 100:
        COUNTER = 0
    return COUNTER > 0


@case((3, 8), (-2, 1), staged=True)
def builtins_min_max(x, y):
    return max(x, y) - min(x, y)


@case((-2.5,), (3.0,), staged=True)
def builtins_abs(x):
    return abs(x) * 2


@case(([1, 2, 3],), ([4, 5, 6],), staged=True)
def builtins_len(xs):
    return len(xs) * 2


@case((3.7,), (-1.2,))
def builtins_int_float(x):
    return int(x) + float(x)


@case(([0, 0, 1],), ([0, 0, 0],), ([],))
def builtins_any_all(xs):
    return any(xs), all(xs)


@case((3,), ("s",))
def isinstance_check(x):
    if isinstance(x, int):
        return x + 1
    return x * 2


@case((2, 3), (5, 1), staged=True)
def namedtuple_result(x, y):
    if x > y:
        return Point(x, y)
    return Point(y, x)


@case((3,), staged=True)
def default_arguments(x, scale=2, offset=1):
    return x * scale + offset


@case((1, 2, 3), (4, 5))
def star_args(*xs):
    total = 0
    for x in xs:
        total += x
    return total


@case((3,), (-3,))
def nonlocal_counter(x):
    count = 0

    def bump(v):
        nonlocal count
        if v > 0:
            count += v
        else:
            count -= v

    bump(x)
    bump(x * 2)
    return count


@case((4,), (1,))
def walrus_in_while(n):
    items = list(range(n))
    total = 0
    while (k := len(items)) > 0:
        total += items.pop() * k
    return total


# -- print and assert ----------------------------------------------------------------------
# `print` runs when a function is traced (once per trace) unless the function is compiled
# with `Feature.STAGED_PRINT`; the staged runs of the cases tagged "staged_print" use that
# feature, so they print at every call like the native run.

@case((3,), (-3,), staged=True, tags=("staged_print",))
def print_values(x):
    print("value:", x)
    return x


@case((3,), (-3,), staged=True, tags=("staged_print",))
def print_in_branches(x):
    if x > 0:
        print("positive")
    else:
        print("not positive")
    return x


@case((3,), (1,), staged=True, tags=("staged_print",))
def print_in_loop(n):
    for i in range(n):
        print("step", i)
    return n


@case((3,), (1,), staged=True)
def assert_passes(x):
    assert x > 0, "x must be positive"
    return x * 2


@case((3,), (-1,))
def assert_fails_for_negative(x):
    assert x > 0, "x must be positive"
    return x


# -- errors with Python values --------------------------------------------------------------

@case((3,), (-3,))
def unbound_local_in_branch(x):
    if x > 0:
        y = 1
    return y


@case((2,), (0,))
def zero_division(x):
    return 10 // x


@case((2,), (0,))
def try_except_in_converted_code(x):
    try:
        r = 10 // x
    except ZeroDivisionError:
        r = -1
    return r


@case(("abc",), ("",))
def string_processing(s):
    out = ""
    for ch in s:
        if ch == "b":
            continue
        out += ch.upper()
    return out or "empty"


@case((3,), (0,))
def with_statement_return(x):
    import contextlib
    with contextlib.suppress(ValueError):
        if x > 0:
            return x
    return -1


@case((5,), (12,))
def try_finally_in_loop(n):
    log = []
    for i in range(n):
        try:
            if i == 3:
                break
            log.append(i)
        finally:
            log.append(-1)
    return log


# -- jumps, walrus and early returns under staged control flow -----------------------------

@case((0,), (1,), (3,), staged=True)
def for_else_break_after_inner_return(x):
    c = 8
    for _ in range(2):
        c = x
        for _ in range(x):
            return c
        break
    else:
        c = 8
    return c


@case((1.0,), (60.0,), (0.5,), staged=True)
def walrus_in_while_test(x):
    n = 0
    while (x := x * 2.0) < 100.0:
        n += 1
    return n, x


@case((1.0,), (60.0,), (20.0,), staged=True)
def walrus_in_while_test_with_break(x):
    n = 0.0
    while (x := x * 2.0) < 100.0:
        n += 1.0
        if x > 30.0:
            break
    return n + x


@case((1,), (5,), staged=True)
def walrus_in_if_test(x):
    if (y := x * 2) > 3:
        x = y
    else:
        x = -y
    return x + y


@case((3,), (-2,), staged=True)
def return_inside_with(x):
    with rt.name_scope("outer"):
        if x > 0:
            return x
        y = -x
    return y * 10


@case((3,), (-2,), staged=True)
def return_inside_nested_with_and_empty_name_scope(x):
    with rt.name_scope("outer"):
        with rt.name_scope(""):
            if x > 0:
                return x + 1
            x = x * 2
        x = x - 1
    return x


@case((3,), (-2,), (0,), staged=True)
def return_inside_try_finally(x):
    y = x
    try:
        if x > 0:
            return x * 100
        y = y - 1
    finally:
        y = y + 1000
    return y


@case((3,), (-2,), staged=True)
def return_inside_finally(x):
    try:
        y = x * 2
    finally:
        if y > 0:
            return y  # noqa: B012 - the construct under test
    return -y


@case((2,), (5,), (7,), staged=True)
def break_and_continue_inside_try_finally(n):
    s = 0
    i = 0
    while i < n:
        i += 1
        try:
            if i == 4:
                break
            if i % 2 == 0:
                continue
            s += i
        finally:
            s += 100
    return s


@case((2,), (6,), staged=True)
def break_inside_with_in_for(n):
    s = 0
    for i in range(n):
        with rt.name_scope("step"):
            if i > 2:
                break
            s += i
    return s


@case((2,), (3,), (5,), staged=True)
def return_inside_loop_inside_try_finally(n):
    s = 0
    try:
        for k in range(n):
            for j in range(k):
                if j == 3:
                    return s * 1000
            s += k
            if s > 5:
                return s
    finally:
        n = n + 1
    return s + n


@case((2,), (6,), staged=True)
def return_inside_while_inside_with(n):
    i = 0
    with rt.name_scope("search"):
        while i < n:
            i += 1
            if i * i > 10:
                return i
        i = -i
    return i * 100


@case((3,), (6,), staged=True)
def continue_inside_with(n):
    s = 0
    i = 0
    while i < n:
        i += 1
        with rt.name_scope("step"):
            if i % 2 == 0:
                continue
            s += i
    return s


@case((2,), (6,), staged=True)
def break_inside_with_skips_for_else(n):
    s = 0
    for i in range(n):
        with rt.name_scope("step"):
            if i == 3:
                break
            s += i
    else:
        s = -s
    return s


@case((3,), (-2,), (-8,), staged=True)
def returns_in_nested_try_finally(x):
    try:
        try:
            if x > 0:
                return x
        finally:
            x = x + 10
        if x > 5:
            return x * 2
    finally:
        x = x + 100
    return x


@case((3,), (0,), staged=True)
def return_in_try_else(x):
    try:
        y = x + 1
    except ValueError:
        y = 0
    else:
        if y > 2:
            return y
    return -y


# Every path through the `try`/`with` returns: the value is returned unconditionally after
# the statement (a staged `if did_return:` has nothing to return on its other path).

@case((3,), (-2,), staged=True)
def return_in_both_branches_inside_try_finally(x):
    try:
        if x > 0:
            return 1
        else:
            return 0
    finally:
        x = x + 1


@case((3,), (-2,), staged=True)
def return_in_both_branches_inside_with(x):
    with rt.name_scope("s"):
        if x > 0:
            return 1
        else:
            return 0


@case((3,), (-2,), staged=True)
def return_in_both_branches_inside_nested_with(x):
    with rt.name_scope("a"):
        with rt.name_scope("b"):
            if x > 0:
                return x * 2
            else:
                return -x


@case((3,), (-2,), staged=True)
def return_in_both_branches_inside_finally(x):
    try:
        x = x + 1
    finally:
        if x > 0:
            return x  # noqa: B012 - the construct under test
        else:
            return x * 10  # noqa: B012 - the construct under test


@case((3,), (-2,), (0,), staged=True)
def return_in_branch_then_after_if_inside_try_finally(x):
    try:
        if x > 0:
            return x
        return x * 2
    finally:
        x = x + 1


@case((3,), (-2,), (9,), staged=True)
def return_in_elif_chain_inside_with(x):
    with rt.name_scope("s"):
        if x > 5:
            return x * 3
        elif x > 0:
            return x * 2
        else:
            return -x


@case((3,), (-2,), staged=True)
def return_in_both_branches_inside_with_in_try_finally(x):
    y = x
    try:
        with rt.name_scope("s"):
            y = y + 1
            if y > 0:
                return y
            else:
                return -y
    finally:
        y = y * 100


@case((3,), (-2,), staged=True)
def return_in_both_branches_inside_try_else(x):
    try:
        y = x + 1
    except ValueError:
        return 0
    else:
        if y > 0:
            return y
        else:
            return -y


@case((3,), (-1,), staged=True)
def return_tuple_inside_with(x):
    with rt.name_scope("pair"):
        if x > 0:
            return x, x + 1
    return x - 1, x


@case((3,), (-1,), (2,), staged=True)
def return_from_unrolled_loop_inside_with(x):
    with rt.name_scope("search"):
        for v in [1, 2, 3]:
            if x > v:
                return v
    return 0


@case((2, 5, 2.5, 1.0), (2, 5, -1.0, 1.0), (2, 5, 2.5, -1.0), staged=True)
def nested_conditional_expression_returns_outer_value(a, b, x, y):
    c = a - 1
    return (c if x > 0 else b) if y > 0 else b


@case((3, 2), (3, 5), (4, 1), staged=True)
def inner_loop_else_breaks_outer_loop_inside_with(n, m):
    s = 0
    for _ in range(n):
        with rt.name_scope("step"):
            for j in range(m):
                if j == 2:
                    break
                s += j
            else:
                if s > 3:
                    break
        s += 10
    return s


@case((True,), (False,), staged=True)
def early_return_then_shape_change(c):
    t = rt.constant(1)
    if c:
        return t
    t = rt.stack([t, t])
    return rt.reduce_sum(t)


@case((2,), (-2,), staged=True)
def early_return_reads_and_rebinds(x):
    t = x + 1
    if x > 0:
        t = t * 10
        return t
    return t - 100


@case((3,), (-3,))
def do_not_convert_call(x):
    return untouched(x)


@ag.do_not_convert
def untouched(x):
    return x if x > 0 else 0


# -- builtins over tensors and generator expressions ---------------------------------------------

@case(([1.0, 2.0, 3.0],), ([0.5, -1.0, 4.0],), staged=True)
def builtins_over_generators(xs):
    return (any(x > 2 for x in xs), all(x > 0 for x in xs), sum(x * x for x in xs),
            min(x for x in xs), max(x - 1 for x in xs), any([x > 3 for x in xs]))


@case((np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),), (np.array([[0.0, -1.0, 2.0], [1.0, 1.0, 1.0]]),),
      staged=True)
def sum_adds_rows(x):
    return sum(x), sum(x, 10.0)


@case((np.array([[1.0, 2.0], [3.0, 4.0]]),), staged=True)
def max_of_rows_is_ambiguous(x):
    return max(x)


@case((np.array([3.0, -1.0, 2.0]),), staged=True)
def min_max_of_a_vector(x):
    return min(x), max(x), sum(x)


# -- lists that staged loops carry -----------------------------------------------------------------

@case((0,), (2,), (4,), staged=True)
def pop_in_augmented_assignment(n):
    items = [1, 2, 3, 4]
    total = 0
    i = 0
    while i < n:
        total += items.pop()
        i += 1
    return total, len(items)


@case((1,), (3,), staged=True)
def pop_in_an_expression(n):
    items = [1.0, 2.0, 3.0, 4.0]
    out = 0.0
    for _ in range(n):
        out = out * 10.0 + items.pop() * 2.0
    return out, len(items)


@case((1,), (2,), staged=True)
def pop_statement_and_assignment(n):
    items = [5, 6, 7, 8]
    last = 0
    i = 0
    while i < n:
        items.pop()
        last = items.pop(-1) + last
        i += 1
    return last, len(items)


@case((-1.0,), (2.0,), staged=True)
def append_in_one_branch(x):
    out = [x]
    if x > 0:
        doubled = x * 2
        out.append(doubled)
    return rt.stack(out), len(out)


@case((-1.0,), (2.0,), staged=True)
def append_in_both_branches(x):
    out = [x]
    if x > 0:
        out.append(x * 2)
    else:
        out.append(x - 1)
        out.append(x - 2)
    return rt.stack(out), len(out)


@case((-3.0,), (2.0,), staged=True)
def append_in_a_branch_inside_a_loop(x):
    out = []
    i = 0
    while i < 3:
        if x + i > 0:
            out.append(x + i)
        i += 1
    return len(out)


@case((1,), (4,), staged=True)
def length_of_a_list_appended_in_a_branch(a):
    items = []
    if a >= 3:
        items.append(1.0)
    return len(items)


@case((2.5,), (12.0,), staged=True)
def append_after_a_staged_break(x):
    items = []
    for _ in range(2):
        if x > 10.0:
            break
        items.append(x)
    return len(items)


@case((2, 1, 2.5), (1, 3, -1.0), staged=True)
def append_in_nested_loops(n, m, x):
    items = []
    for _ in range(n):
        for _ in range(m):
            items.append(x)
    return rt.stack(items)

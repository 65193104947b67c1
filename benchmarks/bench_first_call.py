"""The first call of a compiled function (convert + trace + lower + run) against compile().

The function is 15 lines with a for loop holding an if/elif/else and an inner while loop.
"""

from __future__ import annotations

import linecache
import os
import sys
import textwrap
import time

sys.path.insert(0, os.path.dirname(__file__))
from _timing import report  # noqa: E402

import runtime as rt  # noqa: E402

SOURCE = textwrap.dedent('''
    def mixed(xs, limit):
        total = 0.0
        count = 0
        for x in xs:
            if x > limit:
                total += x * 2.0
            elif x < -limit:
                total -= x
            else:
                total += 1.0
            k = 0
            while k < count % 3:
                total = total * 0.5
                k += 1
            count += 1
        return total, count
''')


_count = [0]


def fresh_function():
    """A new function from SOURCE under a new name, so no cache holds it.

    (Code objects compiled from identical source compare equal, so the name must differ for
    the converter's cache to miss.)
    """
    _count[0] += 1
    namespace = {"rt": rt}
    source = SOURCE.replace("def mixed(", f"def mixed_{_count[0]}(")
    # the converter reads source through linecache, as for functions typed into a notebook
    linecache.cache["<bench_first_call>"] = (len(source), None, source.splitlines(True),
                                             "<bench_first_call>")
    exec(compile(source, "<bench_first_call>", "exec"), namespace)
    return namespace[f"mixed_{_count[0]}"]


def first_call_seconds(xs, limit) -> float:
    fn = fresh_function()
    start = time.perf_counter()
    rt.function(fn)(xs, limit)
    return time.perf_counter() - start


def compile_seconds() -> float:
    start = time.perf_counter()
    compile(SOURCE, "<bench_first_call>", "exec")
    return time.perf_counter() - start


def main(rounds: int = 25) -> float:
    xs = rt.constant([3.0, -4.0, 0.5, 2.0, -0.1])
    limit = rt.constant(1.0)
    first_call_seconds(xs, limit)  # imports and warms the converter's own caches
    ours, base = [], []
    for _ in range(rounds):  # alternating, so a change in machine speed hits both alike
        ours.append(first_call_seconds(xs, limit))
        base.append(compile_seconds())
    # each of ours is a genuine first call of a new function; the fastest is the least disturbed
    return report("first call (convert + trace + lower)", min(ours), min(base), 50, unit="ms",
                  baseline_name="compile()")


if __name__ == "__main__":
    main()

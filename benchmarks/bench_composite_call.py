"""Call overhead of composite arguments: a compiled function of a RaggedTensor (and of an
extension type of two tensors) against the same function of the two component tensors.

f(r) = reduce_sum(r.values) + cast(r.row_splits[-1]) on a 3-row ragged tensor of 6 int32 values;
the limit is 2x the call of g(values, row_splits) computing the same.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _timing import interleaved, report  # noqa: E402

import runtime as rt  # noqa: E402


class Pair(rt.experimental.ExtensionType):
    values: rt.Tensor
    row_splits: rt.Tensor


def main() -> float:
    ragged = rt.ragged.constant([[1, 2, 3], [4], [5, 6]])
    values, splits = ragged.values, ragged.row_splits
    pair = Pair(values, splits)

    @rt.function
    def on_ragged(r):
        return rt.reduce_sum(r.values) + rt.cast(r.row_splits[-1], rt.int32)

    @rt.function
    def on_pair(p):
        return rt.reduce_sum(p.values) + rt.cast(p.row_splits[-1], rt.int32)

    @rt.function
    def on_components(v, s):
        return rt.reduce_sum(v) + rt.cast(s[-1], rt.int32)

    assert on_ragged(ragged).numpy() == on_pair(pair).numpy() == on_components(values, splits).numpy() == 27
    ours, extension, base = interleaved([lambda: on_ragged(ragged), lambda: on_pair(pair),
                                         lambda: on_components(values, splits)],
                                        number=3000, rounds=15)
    report("compiled call on an ExtensionType of 2 tensors", extension, base, 2.0,
           baseline_name="its 2 tensors")
    return report("compiled call on a RaggedTensor (6 values, 3 rows)", ours, base, 2.0,
                  baseline_name="its 2 tensors")


if __name__ == "__main__":
    main()

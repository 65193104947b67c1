"""ag.set_verbosity shows conversions and, through the runtime backend, each trace and its reason."""

import autograph as ag
import runtime as rt


def test_verbosity_logs_conversions_and_why_functions_retrace(capsys):
    ag.set_verbosity(1, alsologtostdout=True)
    try:
        @rt.function
        def scale(x, n):
            if x > 0:
                x = x * n
            return x

        scale(rt.constant(1.0), 2)
        scale(rt.constant(1.0), 2)
        scale(rt.constant(1.0), 3)
    finally:
        ag.set_verbosity(0)
    out = capsys.readouterr().out
    assert "Converted " in out and ".scale (" in out
    assert "Tracing scale: first call" in out
    assert "Tracing scale: argument 'n' changed from 2 to 3" in out
    assert out.count("Tracing scale") == 2


def test_verbosity_two_shows_graph_cache_hits(capsys):
    ag.set_verbosity(2, alsologtostdout=True)
    try:
        @rt.function
        def total(x):
            return rt.reduce_sum(x)

        total.get_concrete_function(rt.TensorSpec([None], rt.float32))
        total(rt.ones([3]))
    finally:
        ag.set_verbosity(0)
    out = capsys.readouterr().out
    assert "Tracing total: first call" in out
    assert "Cache hit for total" in out and "(None,)" in out

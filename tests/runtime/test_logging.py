"""The loggers follow `logging`'s conventions; traces are logged once; re-created functions warn."""

import logging

import autograph as ag
import runtime as rt


def _handlers(name):
    return [type(h).__name__ for h in logging.getLogger(name).handlers]


def test_top_loggers_have_only_a_null_handler():
    from autograph.impl import logs as ag_logs
    from runtime.function import logs as rt_logs

    rt.function(lambda x: x + 1)(rt.constant(1.0))    # loads autograph's logger too
    for lazy in (ag_logs.logger, rt_logs.logger):  # `logging`'s loggers, made on first use
        assert lazy.logger is logging.getLogger(lazy.name)
    assert _handlers("runtime") == ["NullHandler"]
    assert _handlers("autograph") == ["NullHandler"]
    assert _handlers("runtime.function") == []


def test_each_trace_is_logged_once_even_with_autograph_verbosity(caplog):
    ag.set_verbosity(1)
    try:
        with caplog.at_level(logging.INFO):
            @rt.function
            def halve(x):
                return x / 2

            halve(rt.constant(1.0))
    finally:
        ag.set_verbosity(0)
    traces = [(r.name, r.getMessage()) for r in caplog.records if "Tracing" in r.getMessage()]
    assert traces == [("runtime.function", "Tracing halve: first call")]


def _recreated_warnings(records):
    return [r for r in records if "compiled anew" in r.getMessage()]


def test_a_function_created_in_a_loop_warns_at_five_then_at_fifty(caplog):
    with caplog.at_level(logging.WARNING, logger="runtime"):
        for i in range(50):
            rt.function(lambda x: x + 1)(rt.constant(1.0))
            if i == 8:
                assert len(_recreated_warnings(caplog.records)) == 1
    warnings = _recreated_warnings(caplog.records)
    assert len(warnings) == 2
    assert warnings[0].name == "runtime.function"
    assert "<lambda>" in warnings[0].getMessage() and __file__ in warnings[0].getMessage()
    assert "traced 5 times" in warnings[0].getMessage()
    assert "traced 50 times" in warnings[1].getMessage()


def test_one_function_called_in_a_loop_does_not_warn(caplog):
    double = rt.function(lambda x: x * 2)
    with caplog.at_level(logging.WARNING, logger="runtime"):
        for _ in range(10):
            double(rt.constant(1.0))
    assert _recreated_warnings(caplog.records) == []


def test_methods_of_many_instances_do_not_warn(caplog):
    class Scale:
        @rt.function
        def __call__(self, x):
            return x * 3

    with caplog.at_level(logging.WARNING, logger="runtime"):
        for _ in range(6):
            Scale()(rt.constant(1.0))
    assert _recreated_warnings(caplog.records) == []


def test_import_and_a_first_call_do_not_import_logging(tmp_path):
    """`logging` compiles regular expressions when imported: `import runtime` and a first
    conversion leave it to the program (the loggers import it when first used)."""
    import subprocess
    import sys

    program = tmp_path / "program.py"
    program.write_text("import sys\nimport runtime as rt\n\n@rt.function\ndef f(x):\n"
                       "    return x * 2 if x.shape.rank else x\n\nf(rt.constant(1.0))\n"
                       "assert 'logging' not in sys.modules\n")
    done = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr

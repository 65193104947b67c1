"""Test-wide fixtures: every test starts with compiled functions traced, not run eagerly.

The Numba tier compiles hundreds of kernels in a run; on a fresh machine (an empty kernel
cache) LLVM's optimisation passes are most of the suite's time. The tests check values, not
speed, so they compile at NUMBA_OPT=0 unless it is set (kernels of another level are cached
under another key: a test run never leaves unoptimised kernels for real programs). At that
level Numba cannot cache kernels that read some globals and says so for each: those warnings
are not shown (tests/summary checks the caching at Numba's own level, in a process of its own).
"""

import os

os.environ.setdefault("NUMBA_OPT", "0")  # before the Numba tier imports numba

import pytest  # noqa: E402

import runtime as rt  # noqa: E402

# The tests check what the compiled kernels compute: a jit_compile=True function compiles on
# its first call instead of running on the NumPy tier while it compiles in the background
# (tiered execution has its own tests, tests/jit/test_tiered.py).
rt.config.experimental.set_jit_wait_for_compile(True)

# The modules whose tests take most of a run (compilers, generated programs, site builds,
# memory soaks): marked `slow`. CI runs them on the oldest and newest Python it
# declares and `-m "not slow"` on the others (.ci/run); a plain `pytest` runs everything.
# The compiler tiers' own suites are among them: their results do not depend on the Python
# version (the converter's, which does, runs everywhere), and on a fresh machine they are
# mostly LLVM and XLA compile time.
SLOW_MODULES = (
    "jit/",                            # the Numba tier: hundreds of kernels compiled
    "xla/",                            # the XLA tier through JAX
    "differential/",                   # hundreds of generated programs, three tiers
    "dask/",                           # local clusters started and stopped
    "gradients/test_nested_tapes_compiled.py",     # every order of gradient, compiled
    "gradients/test_one_differentiation_path.py",  # nested tapes on every tier
    "gradients/test_loop_second_order_tiers.py",   # loop gradients of gradients, compiled
    "gradients/test_loop_gradient_orders.py",      # four nested tapes, compiled per order
    "models/test_recurrent_layers.py",             # RNN gradients on compiled tiers
    "models/test_build_and_regularizers.py",       # training on compiled tiers
    "models/test_more_optimizers.py",              # every optimizer, compiled steps
    "models/test_conv_layers_more.py",             # convolutions on every tier
    "models/test_safe_mode.py",                    # fuzzed model configs
    "reliability/test_memory.py",      # 100k calls watched for growth
    "reliability/test_registry_tier_agreement.py",  # every op's edge values, three tiers
    "test_docs_site.py",               # builds the documentation site
)


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a test of a module listed in SLOW_MODULES "
                                       "(tests/conftest.py); deselect with -m 'not slow'")
    if os.environ["NUMBA_OPT"] == "0":
        config.addinivalue_line("filterwarnings", "ignore:Cannot cache compiled function")


def pytest_collection_modifyitems(config, items):
    root = os.path.dirname(os.path.abspath(__file__))
    for item in items:
        path = os.path.relpath(str(item.path), root).replace(os.sep, "/")
        if path.startswith(SLOW_MODULES):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _reset_runtime_state():
    rt.run_functions_eagerly(False)
    rt.clear_function_callbacks()
    yield
    rt.run_functions_eagerly(False)
    rt.clear_function_callbacks()

"""The jit tests need Numba (the `jit` extra) and write kernels to a temporary cache."""

import pytest

pytest.importorskip("numba")


@pytest.fixture(autouse=True)
def _kernel_cache(tmp_path_factory, monkeypatch):
    # beside pytest's numbered temporary directories, so later runs load compiled kernels
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp().parent / "jit-cache"))

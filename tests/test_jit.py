"""engine/jit.refresh_cache: a cached kernel that calls a helper from another file is compiled
again when that file changes (numba alone keys the cache by the kernel's own file)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

KERNEL = textwrap.dedent("""
    import helper
    from safari_sim.engine.jit import refresh_cache
    refresh_cache(__file__, (helper.__file__,))
    from numba import njit

    @njit(cache=True)
    def kernel(x):
        return helper.step(x) + 1

    print(kernel(1))
""")


def _run(folder: Path, refresh: bool = True) -> str:
    code = (folder / "kernel.py").read_text()
    if not refresh:
        code = code.replace("refresh_cache(__file__", "(lambda *a: None)(__file__")
    (folder / "kernel_run.py").write_text(code)
    env = {"PYTHONPATH": f"{folder}:{ROOT}", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, str(folder / "kernel_run.py")], cwd=folder, env=env,
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _helper(folder: Path, value: int) -> None:
    (folder / "helper.py").write_text(textwrap.dedent(f"""
        from numba import njit

        @njit(cache=True)
        def step(x):
            return x + {value}
    """))


def test_a_changed_helper_file_recompiles_the_kernels_that_use_it(tmp_path):
    (tmp_path / "kernel.py").write_text(KERNEL)
    _helper(tmp_path, 1)
    assert _run(tmp_path) == "3"
    assert _run(tmp_path) == "3"                      # loaded from the cache
    assert list((tmp_path / "__pycache__").glob("kernel_run.*.nbi"))
    _helper(tmp_path, 100)
    assert _run(tmp_path) == "102"                    # the helper's change is played


def test_without_the_refresh_numba_runs_the_stale_helper(tmp_path):
    """The control: numba by itself keeps the kernel compiled against the old helper (what
    refresh_cache exists for; if numba ever tracks it itself, this test says so)."""
    (tmp_path / "kernel.py").write_text(KERNEL)
    _helper(tmp_path, 1)
    assert _run(tmp_path, refresh=False) == "3"
    _helper(tmp_path, 100)
    assert _run(tmp_path, refresh=False) == "3"

"""engine/inlining: numba's inliner without its quadratic copying compiles the same kernels.

The patch must change how long numba takes, never what it builds: kernels that inline helpers
(nested, at several sites, with branches that return early and loops) give the same answers
patched and unpatched, the helper's untyped IR is built once however many sites inline it, and
a site's changes never reach the IR shared with the next site.
"""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from numba import njit
from numba.core import inline_closurecall

from safari_sim.engine import inlining

ROOT = Path(__file__).resolve().parents[1]

KERNELS = textwrap.dedent("""
    import numpy as np
    from numba import njit

    @njit(inline="always")
    def leaf(a, i):
        if i < 0:
            return -1
        s = 0
        for j in range(i):
            s += a[j] * (j + 1)
        return s

    @njit(inline="always")
    def mid(a, i, k):
        x = leaf(a, i)
        if k > 2:
            return x + leaf(a, k)   # the same helper twice in one function
        y = leaf(a, i - 1)
        return x - y

    @njit
    def kernel(a, out):
        for i in range(a.shape[0]):
            out[i] = mid(a, i, i % 5) + leaf(a, i // 2) * mid(a, i // 3, 1)
        return out.sum()

    a = np.arange(1, 41, dtype=np.int64) % 7 - 3
    out = np.zeros(40, np.int64)
    print(kernel(a, out), ",".join(map(str, out)))
""")


def _run(tmp_path: Path, inliner: str) -> str:
    (tmp_path / "kernels.py").write_text(KERNELS)
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "NUMBA_CACHE_DIR": str(tmp_path),
           "SAFARI_SIM_NUMBA_INLINER": inliner}
    code = "import safari_sim.engine; import runpy; runpy.run_path('kernels.py')"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_the_patch_is_installed_on_this_numba():
    """The project's numba is the one the patch was written for: if this fails after an upgrade,
    first runs are slow again (see engine/inlining.py) though still right."""
    assert inlining.install()
    assert inline_closurecall.InlineWorker.inline_function is inlining._inline_function
    assert inline_closurecall.InlineWorker.inline_ir.__module__ == inline_closurecall.__name__
    from numba.core.targetconfig import TargetConfig
    assert TargetConfig.__hash__.__module__ == inlining.__name__


def test_patched_and_numbas_own_inliner_compute_the_same(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    patched = _run(tmp_path / "a", "patched")
    own = _run(tmp_path / "b", "numba")
    total, values = own.split()
    assert patched == own
    assert len(values.split(",")) == 40 and int(total) != 0   # the kernel did run


def test_a_helper_is_built_once_for_all_its_sites(monkeypatch):
    inlining.install()
    built = []
    real = inline_closurecall.InlineWorker.run_untyped_passes

    def counting(self, func, enable_ssa=False):
        built.append(func.__name__)
        return real(self, func, enable_ssa)

    monkeypatch.setattr(inline_closurecall.InlineWorker, "run_untyped_passes", counting)

    @njit(inline="always")
    def twice(x):
        if x > 3:
            return x * 2
        return x - 1

    @njit
    def three_sites(x):
        return twice(x) + twice(x + 1) * twice(x - 5)

    assert three_sites(4) == 8 + 10 * -2
    assert three_sites(1) == 0 + 1 * -5
    assert built.count("twice") == 1


def test_a_site_never_changes_the_ir_shared_with_the_next():
    """inline_ir renames and rewrites the copy it inlines; the shared IR stays as it was."""
    inlining.install()

    @njit(inline="always")
    def helper(a, i):
        t = a[i] + 1
        return t * t

    @njit
    def user_one(a):
        return helper(a, 0) + helper(a, 1)

    @njit
    def user_two(a):
        return helper(a, 2) - helper(a, 0)

    a = np.array([1, 2, 3], np.int64)
    assert user_one(a) == 4 + 9
    shared = list(inlining._untyped[helper.py_func].values())
    before = [str(b.body) for ir in shared for b in ir.blocks.values()]
    assert user_two(a) == 16 - 4
    after = [str(b.body) for ir in shared for b in ir.blocks.values()]
    assert before == after


FLAGS = textwrap.dedent("""
    import sys
    if sys.argv[1] == "patched":
        import safari_sim.engine  # installs the patches
    from numba.core.compiler import Flags
    from numba.core.cpu import CPUTargetOptions  # noqa: F401  (another TargetConfig subclass)
    made = []
    for nrt, boundscheck, release in ((False, None, False), (True, None, False),
                                      (True, True, True), (True, False, False)):
        f = Flags()
        if nrt:
            f.nrt = True
        if boundscheck is not None:
            f.boundscheck = boundscheck
        f.release_gil = release
        made.append(f)
    print([sorted(f.values().items(), key=str) for f in made])
    print([hash(f) for f in made])
    print([[a == b for b in made] for a in made], made[1] == Flags(made[1]), made[0] == 3)
""")


def test_the_faster_flags_hash_and_compare_as_numbas_own(tmp_path):
    """Typing keys its caches by the compile flags: the patched ``values``, hash and ``==`` must
    give exactly numba's (the hash with the same PYTHONHASHSEED, unpatched in another process)."""
    (tmp_path / "flags.py").write_text(FLAGS)
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "7",
           "NUMBA_CACHE_DIR": str(tmp_path)}
    out = {}
    for mode in ("patched", "numba"):
        out[mode] = subprocess.run(
            [sys.executable, str(tmp_path / "flags.py"), mode], cwd=tmp_path, env=env,
            capture_output=True, text=True, check=True).stdout
    assert out["patched"] == out["numba"]
    assert "[False, True, False, True]" in out["numba"]   # some flags differ, some are equal


def test_the_typing_memo_answers_as_numba_does():
    """A builtin's typing remembered per argument types gives numba's own answer: literal and
    plain arguments, arrays of other layouts, and a call no template types (never remembered)."""
    import operator

    from numba.core import types
    from numba.core.registry import cpu_target
    from numba.core.types.functions import BaseFunction

    inlining.install()
    assert types.Function.get_call_type is not BaseFunction.get_call_type
    ctx = cpu_target.typing_context
    ctx.refresh()
    a2 = types.Array(types.int8, 2, "C")
    a1 = types.Array(types.float64, 1, "A", readonly=True)
    tup = types.UniTuple(types.int64, 3)
    calls = [(operator.getitem, (a2, types.UniTuple(types.int64, 2))),
             (operator.getitem, (a2, types.int64)),
             (operator.getitem, (a1, types.intp)),
             (operator.getitem, (tup, types.IntegerLiteral(1))),
             (operator.add, (types.int8, types.int64)),
             (operator.add, (types.IntegerLiteral(3), types.IntegerLiteral(4))),
             (operator.lt, (types.float64, types.int32)),
             (operator.setitem, (a2, types.UniTuple(types.int64, 2), types.int64))]
    for fn, args in calls * 2:   # the second round from the memo
        fnty = ctx.resolve_value_type(fn)
        own = BaseFunction.get_call_type(fnty, ctx, args, {})
        assert fnty.get_call_type(ctx, args, {}) == own and own is not None
    fnty = ctx.resolve_value_type(operator.setitem)
    bad = (a1, types.int64, types.float64)   # a read-only array cannot be written
    for _ in range(2):
        with pytest.raises(Exception):
            fnty.get_call_type(ctx, bad, {})


def _reassigning(a, n):
    s = 0
    t = 1
    for i in range(n):
        if a[i] > 0:
            s = s + a[i]
            t = t * 2
        elif a[i] < -2:
            s = s - 1
            while t > 3:
                t = t - 3
        else:
            t = s
            if s > 5:
                return s
    x = s
    if t > 2:
        x = t
    return x + s


def _ssa_dump(run_ssa, func):
    import copy

    from numba.core.compiler import run_frontend

    func_ir = run_frontend(func)
    blocks = copy.deepcopy(func_ir.blocks)
    out = run_ssa(blocks)
    return _text(out), blocks


def _text(blocks):
    return "\n".join(f"{k}: " + "; ".join(str(s) for s in b.body) for k, b in blocks.items())


def test_ssa_by_blocks_builds_numbas_own_ir():
    """The SSA reconstruction that visits only the blocks naming each variable gives numba's IR
    statement for statement (phi nodes included), and leaves its input blocks as numba's does
    (numba's rewrite shares some expressions with its input, so both change it alike)."""
    from numba.core import ssa

    inlining.install()
    assert ssa._run_ssa.__module__ == inlining.__name__
    own_src = inspect.getsource(ssa).split("def _run_ssa(blocks):")[1].split("\ndef ")[0]
    scope: dict = {}
    exec("def _run_ssa(blocks):" + own_src, ssa.__dict__.copy(), scope)   # numba's own
    ours, before = _ssa_dump(ssa._run_ssa, _reassigning)
    own, own_before = _ssa_dump(scope["_run_ssa"], _reassigning)
    assert ours == own and "phi" in own and "s.1" in own
    assert _text(before) == _text(own_before)
    a = np.array([3, -4, 0, 2, -1, 5, 1], np.int64)
    assert njit(_reassigning)(a, 7) == _reassigning(a, 7)

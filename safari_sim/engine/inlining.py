"""numba's `inline="always"`, without its quadratic copying: most of a game's first run.

A kernel that inlines a helper makes numba (up to 0.68 at least) do two things that cost far more
than the inlining itself (numba issues 8989 and 9204, the numba-cuda pull requests 689 and 197):

- ``InlineWorker.inline_ir`` deep-copies the helper's IR twice, block by block with a new memo
  for each block, so each block copies the whole variable scope again: quadratic in the
  helper's size, and about a third of a first run (Hi-Lo Hijinks: 28 of 77 profiled seconds);
- ``InlineWorker.inline_function`` runs the untyped pipeline on the helper at every call site,
  and that pipeline inlines the helper's own helpers again, so a tree of inlined helpers is
  rebuilt at every site it reaches.

``install()`` changes both, leaving what numba builds the same: the helper's IR is copied once
per site with one memo (one scope copy, as the helper had one scope), the input IR is returned
as the "unmutated original" (inline_ir only ever mutates its copy), and the untyped IR of a
helper is built once per (helper, flags, locals) and copied at each site. The patch is applied
only to the numba source it was written against (the lines it replaces must be there word for word); with any
other numba it does nothing, and numba compiles as it always did, only more slowly.

It also makes numba's compile flags cheaper to compare (``_fast_flags``): typing looks every
call's implementation up in a cache keyed by the flags, and each lookup hashed and compared them
by reading all 22 options through properties (about 5% of a first run). And it remembers how a
builtin function types for given argument types (``_typing_memo``): numba tried every template
of ``getitem``, ``setitem``, ``+`` ... at each of a kernel's thousands of calls (about 1 ms a
call, failures raised and caught), though the answer depends only on the types. And SSA reconstruction (``_ssa_by_blocks``) visits,
for each variable assigned more than once, only the blocks that name it: numba rewrote every
statement of the function once per such variable (Jungle Thrills: 480,000 statement visits).
"""

from __future__ import annotations

import inspect
import os
import textwrap
import weakref

from numba.core import inline_closurecall as _icc

_OLD_COPY = """        # Always copy the callee IR, it gets mutated
        def copy_ir(the_ir):
            kernel_copy = the_ir.copy()
            kernel_copy.blocks = {}
            for block_label, block in the_ir.blocks.items():
                new_block = copy.deepcopy(the_ir.blocks[block_label])
                kernel_copy.blocks[block_label] = new_block
            return kernel_copy

        callee_ir = copy_ir(callee_ir)
"""
_NEW_COPY = """        # one copy, one memo (one scope copy); the input is never mutated, so it is the original
        callee_ir_original = callee_ir
        callee_ir = callee_ir.copy()
        callee_ir.blocks = copy.deepcopy(callee_ir.blocks)
"""
_OLD_SAVE = """        # save an unmutated copy of the callee_ir to return
        callee_ir_original = copy_ir(callee_ir)
"""

_installed = False
_untyped: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _patched_inline_ir():
    """InlineWorker.inline_ir with the copying above, built from numba's own source (so the
    rest of it stays numba's); None when the source is not the one this was written for."""
    src = inspect.getsource(_icc.InlineWorker.inline_ir)
    if _OLD_COPY not in src or _OLD_SAVE not in src:
        return None
    src = textwrap.dedent(src.replace(_OLD_COPY, _NEW_COPY).replace(_OLD_SAVE, ""))
    scope: dict = {}
    exec(compile(src, _icc.__file__, "exec"), _icc.__dict__, scope)
    return scope["inline_ir"]


def _inline_function(self, caller_ir, block, i, function, arg_typs=None):
    """InlineWorker.inline_function, with the helper's untyped IR built once (per flags and
    locals) and copied by inline_ir at each site."""
    flags = {k: v for k, v in self.flags.values().items() if k != "enable_ssa"}  # set below
    key = (repr(sorted(flags.items())), repr(sorted((self.locals or {}).items())),
           id(self.typingctx), id(self.targetctx))
    per_fn = _untyped.setdefault(function, {})
    callee_ir = per_fn.get(key)
    if callee_ir is None:
        callee_ir = per_fn[key] = self.run_untyped_passes(function)
    else:
        self.flags.enable_ssa = False  # what run_untyped_passes leaves set on the caller's flags
    return self.inline_ir(caller_ir, block, i, callee_ir, function.__code__.co_freevars,
                          arg_typs=arg_typs)


def _fast_flags() -> bool:
    """TargetConfig's ``values``, ``__hash__`` and ``__eq__`` giving what numba's give, faster:
    the values are the class's defaults updated by those set, and the hash (numba hashes the
    sorted option names, so it is one number per class) is worked out once per class."""
    from numba.core import targetconfig as tc

    cls = tc.TargetConfig
    if (inspect.getsource(cls.__hash__).strip().splitlines()[-1].strip()
            != "return hash(tuple(sorted(self.values())))"):
        return False
    per_class: dict = {}

    def _defaults(self):
        k = type(self)
        got = per_class.get(k)
        if got is None:
            got = per_class[k] = ({n: o.default for n, o in k.options.items()},
                                  hash(tuple(sorted(k.options))))
        return got

    def values(self):
        v = dict(_defaults(self)[0])
        v.update(self._values)
        return v

    def __hash__(self):
        return _defaults(self)[1]

    def __eq__(self, other):
        if isinstance(other, cls):
            return values(self) == values(other)
        return NotImplemented

    cls.values, cls.__hash__, cls.__eq__ = values, __hash__, __eq__
    return True


def _typing_memo() -> bool:
    """``types.Function.get_call_type`` (the typing of a call of a builtin: operators, getitem,
    numpy functions) remembered per (function, context, argument types, flags); only answers
    are kept, a failure is worked out again each time as numba does."""
    from numba.core import types
    from numba.core.targetconfig import ConfigStack

    real = types.Function.get_call_type
    if getattr(real, "_safari_memo", False):
        return True
    memo: dict = {}

    def get_call_type(self, context, args, kws):
        flags = ConfigStack.top_or_none()
        try:
            key = (self, context, tuple(args), tuple(sorted(kws.items())),
                   None if flags is None else repr(sorted(flags.values().items())))
            hash(key)
        except TypeError:  # an unhashable argument type: numba's own way
            return real(self, context, args, kws)
        sig = memo.get(key)
        if sig is None:
            sig = real(self, context, args, kws)
            if sig is not None:
                memo[key] = sig
        return sig

    get_call_type._safari_memo = True
    types.Function.get_call_type = get_call_type
    return True


_RUN_SSA_HASH = "22102bcc"  # numba's ssa._run_ssa this was written against (0.68)


def _ssa_by_blocks() -> bool:
    """numba's ``ssa._run_ssa`` with each violator's two rewrites run over the blocks where the
    variable is defined or used: a block that does not name it comes out of both unchanged
    (its statements are returned as they are), so only the work changes. Phi nodes the fix
    places in a block that does not name the variable go into a new copy of that block, as
    numba's rewrite would have made; the input blocks are never changed."""
    import hashlib
    from collections import defaultdict

    from numba.core import errors, ir, ssa

    src = inspect.getsource(ssa._run_ssa)
    if hashlib.sha1(src.encode()).hexdigest()[:8] != _RUN_SSA_HASH:
        return False

    def _run_ssa(blocks):
        if not blocks:
            return {}
        cfg = ssa.compute_cfg_from_blocks(blocks)
        df_plus = ssa._iterated_domfronts(cfg)
        violators = ssa._find_defs_violators(blocks, cfg)
        cache_list_vars = ssa._CacheListVars()
        named = defaultdict(set)   # variable -> labels of the blocks that define or use it
        for label, blk in blocks.items():
            for stmt in blk.body:
                for v in cache_list_vars.get(stmt):
                    named[v.name].add(label)
                if isinstance(stmt, ir.Assign):
                    named[stmt.target.name].add(label)
        scope = ssa._get_scope(blocks)
        for varname in violators:
            where = named[varname]
            sub = {k: b for k, b in blocks.items() if k in where}
            states = {"scope": scope, "varname": varname, "defmap": defaultdict(list)}
            sub = ssa._run_block_rewrite(sub, states, ssa._FreshVarHandler())
            defmap = states["defmap"]
            fix = {"scope": scope, "varname": varname, "defmap": defmap,
                   "phimap": defaultdict(list), "cfg": cfg,
                   "phi_locations": ssa._compute_phi_locations(df_plus, defmap)}
            sub = ssa._run_block_rewrite(sub, fix, ssa._FixSSAVars(cache_list_vars))
            blocks = {k: sub.get(k, b) for k, b in blocks.items()}
            for label, philist in fix["phimap"].items():
                blk = blocks[label]
                if label not in sub:   # a new block, as numba's rewrite makes for every block
                    new = ir.Block(scope=blk.scope, loc=blk.loc)
                    new.body = list(blk.body)
                    blocks[label] = blk = new
                blk.body = philist + blk.body
                where.add(label)
        if ssa.compute_cfg_from_blocks(blocks) != cfg:
            raise errors.CompilerError("CFG mutated in SSA pass")
        return blocks

    ssa._run_ssa = _run_ssa
    return True


def install() -> bool:
    """Patch numba's inliner (once per process); returns whether it is patched.
    ``SAFARI_SIM_NUMBA_INLINER=numba`` in the environment keeps numba's own (to compare)."""
    global _installed
    if _installed:
        return True
    if os.environ.get("SAFARI_SIM_NUMBA_INLINER") == "numba":
        return False
    inline_ir = _patched_inline_ir()
    if inline_ir is None:
        return False
    _icc.InlineWorker.inline_ir = inline_ir
    _icc.InlineWorker.inline_function = _inline_function
    _fast_flags()
    _typing_memo()
    _ssa_by_blocks()
    _installed = True
    return True

"""A chunk's Parquet bytes read back as the very values and types that were written, whatever
encoding each column was given (store._encoding), by pyarrow and by polars (what reports read)."""

import io
from types import SimpleNamespace

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from safari_sim.run import store


def outcome(rng, n, p):
    return SimpleNamespace(
        score=rng.integers(-40, 90, (n, p)).astype(np.float64),
        rank=rng.integers(1, p + 1, (n, p)).astype(np.int16),
        win=rng.choice([0.0, 1 / 3, 0.5, 1.0], (n, p)),
        turns=rng.integers(5, 400, n).astype(np.int32),
        stats={
            "counter": rng.integers(0, 7, (n, p)).astype(np.int32),
            "negative": rng.integers(-3000, 3000, (n, p)).astype(np.int32),
            "big": rng.integers(-2**40, 2**40, (n, p)).astype(np.int64),
            "small": rng.integers(-100, 100, (n, p)).astype(np.int8),
            "constant": np.full(n, 4, np.int32),
            "margin": rng.normal(0, 5, n),
        })


def test_a_chunk_reads_back_as_written():
    rng = np.random.default_rng(3)
    n, p = 5000, 3
    out = outcome(rng, n, p)
    seating = rng.integers(0, 2, (n, p)).astype(np.int8)
    table = store.chunk_table("rules.x=1", 2, 10_000, ["a", "b"], seating, out, {"k": 1},
                              deals=np.arange(n) // 3 + 7)
    data = store.parquet_bytes(table)
    back = pq.read_table(io.BytesIO(data))
    assert back.column_names == table.column_names
    for name in table.column_names:
        assert back.schema.field(name).type == table.schema.field(name).type, name
        assert back.column(name).to_pylist() == table.column(name).to_pylist(), name
    # the encodings differ by column (else the round trip above proves little)
    meta = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0)
    used = {meta.column(i).path_in_schema: set(meta.column(i).encodings)
            for i in range(meta.num_columns)}
    assert "DELTA_BINARY_PACKED" in used["game"] and "BYTE_STREAM_SPLIT" in used["negative"]
    assert "BYTE_STREAM_SPLIT" not in used["constant"]
    df = pl.read_parquet(io.BytesIO(data))
    for name in ("game", "deal", "seat", "score", "rank", "win", "turns", "counter", "negative",
                 "big", "small", "constant", "margin"):
        assert df[name].to_list() == table.column(name).to_pylist(), name
    assert df["strategy"].to_list() == [["a", "b"][i] for i in seating.reshape(-1)]
    assert df["deal"].to_list()[:6] == [7, 7, 7, 7, 7, 7]


def test_a_chunk_is_the_table_pyarrow_would_build():
    """``chunk_table`` builds its Arrow columns over the numpy bytes (``store._column``) rather
    than through ``pa.array``; the table is the one ``pa.array`` would give, a bool statistic, an
    odd length and a team column included."""
    rng = np.random.default_rng(5)
    n, p = 1001, 3
    out = outcome(rng, n, p)
    out.stats["flag"] = rng.random(n) < 0.3
    out.stats["flags"] = rng.random((n, p)) < 0.5
    seating = rng.integers(0, 3, (n, p)).astype(np.int8)
    names = ["héllo", "b", "counter_x"]
    table = store.chunk_table("rules.x=1", 4, 77, names, seating, out, {"k": 1},
                              teams=np.array([0, 1, 0]))
    assert table.column("flag").type == pa.bool_()
    for name in table.column_names:
        col = table.column(name).combine_chunks()
        if pa.types.is_dictionary(col.type):
            expect = [names[i] for i in seating.reshape(-1)] if name == "strategy" \
                else ["rules.x=1"] * (n * p)
            assert col.to_pylist() == expect, name
            continue
        values = col.to_numpy(zero_copy_only=False)
        assert pa.array(values).equals(col), name
    assert table.column("flag").to_pylist() == list(np.repeat(out.stats["flag"], p))
    assert table.column("flags").to_pylist() == list(out.stats["flags"].reshape(-1))
    assert table.column("team").to_pylist() == [0, 1, 0] * n


def test_writing_a_chunk_does_not_import_pandas():
    """A run's start does not pay for pandas (half a second) just to write its chunks."""
    import subprocess
    import sys

    code = ("import sys, numpy as np; from types import SimpleNamespace as S; "
            "from safari_sim.run import store; "
            "o = S(score=np.zeros((4, 2)), rank=np.ones((4, 2), np.int16), win=np.zeros((4, 2)), "
            "turns=np.ones(4, np.int32), stats={'capped': np.zeros(4, np.int8)}); "
            "t = store.chunk_table('v', 0, 0, ['a', 'b'], np.zeros((4, 2), np.int8), o, {}); "
            "store.parquet_bytes(t); print('pandas' in sys.modules)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.strip() == "False"

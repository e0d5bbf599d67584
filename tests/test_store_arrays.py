"""Arrow arrays built from their buffers are those ``pa.array`` gives, and a cold scan
stores its tables without importing pandas."""
import json
import os
import subprocess
import sys

import pyarrow as pa
import pytest

from punstats.store import arrays

CASES = [
    (pa.int64(), [3, -1, 0, 2**62, -(2**63)]),
    (pa.int64(), [None, 7, None]),
    (pa.bool_(), [True, False, True, True, False, False, False, False, True]),
    (pa.bool_(), [None, True, False]),
    (pa.float64(), [0.5, -1e300, 3.0]),
    (pa.float64(), [1.5, None]),
    (pa.large_string(), ["", "x", "caf\u00e9", "\u2603 snow", "a" * 300]),
    (pa.large_string(), [None, "", None, "text"]),
    (pa.large_string(), [None]),
]


@pytest.mark.parametrize("arrow_type, values", CASES + [(t, []) for t in (pa.int64(), pa.bool_(), pa.large_string())])
def test_a_built_column_equals_pa_array(arrow_type, values):
    built = arrays.column(values, arrow_type)
    expected = pa.array(values, type=arrow_type)
    assert built.type == arrow_type and built.null_count == expected.null_count
    assert built.equals(expected) and built.to_pylist() == values
    built.validate(full=True)


def test_another_type_goes_through_pa_array():
    assert arrays.column([1, None], pa.int32()).equals(pa.array([1, None], type=pa.int32()))


def test_a_repeated_label_and_scalars():
    label = arrays.string_array(["components"], repeat=4)
    assert label.equals(pa.array(["components"] * 4, type=pa.large_string()))
    assert arrays.string_array(["x"], repeat=0).to_pylist() == []
    assert arrays.scalar("ok").equals(pa.scalar("ok", type=pa.large_string()))
    assert arrays.scalar(12).equals(pa.scalar(12, type=pa.int64()))


@pytest.mark.parametrize("value, arrow_type", [("components", pa.string()), ("caf\u00e9", pa.large_string()),
                                               (7, pa.int32()), (2021, pa.int32()), (-3, pa.int64())])
@pytest.mark.parametrize("length", [0, 1, 5])
def test_a_constant_column_equals_pa_array_and_stores_the_same_bytes(value, arrow_type, length):
    import pyarrow.parquet as pq
    built = arrays.constant(value, length, arrow_type)
    expected = pa.array([value] * length, type=arrow_type)
    assert built.type == arrow_type and built.equals(expected)
    built.validate(full=True)
    stored = []
    for made in (built, expected):
        sink = pa.BufferOutputStream()
        pq.write_table(pa.table({"x": made}), sink)
        stored.append(sink.getvalue().to_pybytes())
    assert stored[0] == stored[1]


def test_a_cold_scan_from_the_command_line_never_imports_pandas(tmp_path):
    root = tmp_path / "src"
    root.mkdir()
    for n in range(3):
        (root / ("m%d.py" % n)).write_text("f(a=a)\nx = None\n" * (n + 1))
    check = ("import sys\nfrom punstats.cli import main\nstatus = main(sys.argv[1:])\n"
             "print(status, 'pandas' in sys.modules)\n")
    env = dict(os.environ, PUNSTATS_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-c", check, "scan", "-q", "--json", "--no-cache", "-o",
                           str(tmp_path / "out"), str(root)], capture_output=True, text=True, env=env, check=True)
    *payload, last = proc.stdout.splitlines()
    summary, = json.loads("\n".join(payload))
    assert last == "0 False" and summary["punnable"] == 6

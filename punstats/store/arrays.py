"""Arrow arrays and scalars built from their buffers, from Python values.

``pa.array`` and ``pa.scalar`` of Python values import pandas when it is
installed (pyarrow asks whether the values are a pandas object), which costs a
scan about a tenth of its own process's time and doubles that of a re-scan
answered from the cache.  These builders give the same arrays (values, nulls
and types) for the types the stored tables use: ``int64``, ``bool``,
``float64`` and ``large_string``, None a null in any of them.
"""
from __future__ import annotations

import array
import itertools
import sys
from typing import Any, Optional, Sequence

import pyarrow as pa

#: The ``array`` type code holding each Arrow type's values.
_CODES = {pa.int64(): "q", pa.float64(): "d", pa.bool_(): "b"}

#: What stands in a null's slot of each Arrow type.
_ZEROS = {pa.int64(): 0, pa.float64(): 0.0, pa.bool_(): False, pa.large_string(): ""}


def column(values: Sequence[Any], arrow_type: pa.DataType) -> pa.Array:
    """``values`` (None for a null) as an array of ``arrow_type`` (of another type than the
    stored tables use: through ``pa.array``)."""
    if arrow_type not in _ZEROS:
        return pa.array(values, type=arrow_type)
    valid = None
    if None in values:
        valid = _bits([value is not None for value in values])
        zero = _ZEROS[arrow_type]
        values = [zero if value is None else value for value in values]
    if arrow_type == pa.large_string():
        return string_array(values, valid=valid)
    data = array.array(_CODES[arrow_type], values)
    if arrow_type == pa.bool_():  # one byte a value, packed into bits by a cast
        return pa.Array.from_buffers(pa.int8(), len(data), [valid, pa.py_buffer(data.tobytes())]).cast(pa.bool_())
    return pa.Array.from_buffers(arrow_type, len(data), [valid, pa.py_buffer(_little(data))])


def string_array(values: Sequence[str], repeat: int = 1, valid: Optional[pa.Buffer] = None) -> pa.Array:
    """``values`` (``repeat`` times over) as a ``large_string`` array; ``valid``: its validity bits."""
    data = list(map(str.encode, values))
    if repeat == 1:
        offsets = array.array("q", itertools.accumulate(map(len, data), initial=0))
    else:  # one value (a label) for every row: its offsets are a range
        step = sum(map(len, data))
        offsets = array.array("q", range(0, step * repeat + 1, step)) if len(data) == 1 else array.array(
            "q", itertools.accumulate(map(len, data * repeat), initial=0))
    return pa.Array.from_buffers(pa.large_string(), len(offsets) - 1,
                                 [valid, pa.py_buffer(_little(offsets)), pa.py_buffer(b"".join(data) * repeat)])


def constant(value: Any, length: int, arrow_type: pa.DataType) -> pa.Array:
    """``value`` (a string or a whole number) ``length`` times over, as an array of ``arrow_type``
    (a string or an integer type): a column that says whose every row of a table is."""
    if isinstance(value, str):
        return string_array([value], repeat=length).cast(arrow_type)
    return column([value] * length, pa.int64()).cast(arrow_type)


def bool_array(values: Sequence[bool]) -> pa.Array:
    return column(values, pa.bool_())


def scalar(value: Any) -> pa.Scalar:
    """An ``int64`` or ``large_string`` scalar, for comparisons in ``pyarrow.compute``."""
    if isinstance(value, str):
        return string_array([value])[0]
    return column([value], pa.int64())[0]


def _bits(flags: Sequence[bool]) -> pa.Buffer:
    """``flags`` packed into a bitmap (Arrow's validity bits)."""
    packed = pa.Array.from_buffers(pa.int8(), len(flags), [None, pa.py_buffer(array.array("b", flags).tobytes())])
    return packed.cast(pa.bool_()).buffers()[1]


def _little(values: array.array) -> bytes:
    if sys.byteorder == "big":  # Arrow buffers are little-endian
        values.byteswap()
    return values.tobytes()

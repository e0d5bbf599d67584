"""How punstats' processes end: a SIGTERM is never lost."""
import signal
import time

import pytest

from punstats.model.processes import Terminated, terminated_raises


class _SignalledWhileFreed:
    """Sends this process a SIGTERM as it is freed: its handler then runs inside ``__del__``,
    where Python prints an exception and goes on."""

    def __del__(self):
        signal.raise_signal(signal.SIGTERM)
        sum(range(100))


def test_a_sigterm_raised_where_python_ignores_exceptions_is_raised_again_after(capsys):
    reached = []
    with pytest.raises(Terminated), terminated_raises():
        _SignalledWhileFreed()
        time.sleep(5)
        reached.append("end")
    assert reached == []
    assert "Exception ignored" not in capsys.readouterr().err
    # the handler and the hook are put back: nothing is raised for a SIGTERM ignored now
    previous = signal.signal(signal.SIGTERM, lambda *a: None)
    try:
        _SignalledWhileFreed()
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_other_unraisable_exceptions_still_reach_the_hook_before(monkeypatch):
    seen = []
    monkeypatch.setattr("sys.unraisablehook", seen.append)

    class Failing:
        def __del__(self):
            raise ValueError("in __del__")
    with terminated_raises():
        Failing()
    assert [type(u.exc_value) for u in seen] == [ValueError]

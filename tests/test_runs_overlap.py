"""``runs.overlap.Behind``: jobs run in order in one thread, at most one behind the caller."""
import threading
import time

import pytest

from punstats.runs.overlap import Behind


def test_jobs_run_in_order_in_another_thread_at_most_one_behind():
    done, running = [], []

    def job(n):
        def run():
            running.append(n)
            time.sleep(0.02)
            done.append((n, threading.current_thread().name))
        return run
    with Behind("store") as behind:
        for n in range(4):
            behind.submit(job(n))
            assert len(running) - len(done) <= 1  # the one before has finished when the next is given
            assert [d[0] for d in done] == list(range(n))
    assert [d[0] for d in done] == [0, 1, 2, 3]  # the last one too, waited for on leaving
    assert all(name.startswith("store") and name != threading.main_thread().name for _, name in done)


def test_a_failed_job_stops_the_caller_at_its_next_submit():
    ran = []

    def fail():
        raise OSError(28, "No space left on device")
    with pytest.raises(OSError, match="No space left"):
        with Behind() as behind:
            behind.submit(fail)
            behind.submit(lambda: ran.append("after"))
    assert ran == []


def test_the_last_job_s_failure_is_raised_on_leaving():
    with pytest.raises(ValueError, match="last"):
        with Behind() as behind:
            behind.submit(lambda: (_ for _ in ()).throw(ValueError("last")))


def test_a_failing_block_still_lets_the_running_job_finish():
    finished = []

    def slow():
        time.sleep(0.05)
        finished.append(True)
    with pytest.raises(KeyboardInterrupt):
        with Behind() as behind:
            behind.submit(slow)
            raise KeyboardInterrupt
    assert finished == [True]

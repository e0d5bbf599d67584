"""Patterns sent by their source (``extract/shipping.py``): what a Dask worker loads, and what it refuses."""
import ast
import hashlib

import pytest

import punstats
from punstats.extract import shipping
from punstats.extract.plugins import load
from punstats.extract.shipping import receive, ship
from punstats.model.kinds import PATTERN_ATTRIBUTE, PatternError

TRIES = '''\
import ast

import punstats


@punstats.pattern("try_finally", label="try with finally", per="Try")
def match(node, parents):
    return isinstance(node, ast.Try) and bool(node.finalbody)
'''


def test_a_file_pattern_travels_as_its_bytes_and_loads_without_its_file(tmp_path):
    plugin = tmp_path / "tries.py"
    plugin.write_text(TRIES)
    [kind] = load([str(plugin)])
    [sent] = ship([kind])
    assert sent == (str(plugin), "try_finally", kind.sha256, str(plugin), TRIES.encode())
    plugin.unlink()  # as on another machine
    [got] = receive([sent])
    assert (got.name, got.source, got.sha256, got.per, got.label) == (kind.name, kind.source, kind.sha256, "Try",
                                                                      "try with finally")
    assert got.matcher is not kind.matcher  # run again from the bytes sent
    tree = ast.parse("try:\n    pass\nfinally:\n    pass\n")
    assert got.matcher(tree.body[0], [tree]) and not got.matcher(tree, [])
    assert receive([sent])[0] is got  # once per process


def test_a_module_pattern_travels_as_its_module_s_file():
    [kind] = load(["punstats.patterns.return_in_finally"])
    [(source, name, digest, path, data)] = ship([kind])
    assert (source, name, digest) == ("punstats.patterns.return_in_finally", "return_in_finally", kind.sha256)
    assert path.endswith("return_in_finally.py") and hashlib.sha256(data).hexdigest() == digest
    [got] = receive([(source, name, digest, "/elsewhere/return_in_finally.py", data)])
    assert got.provenance() == kind.provenance()


def test_bytes_that_are_not_the_scan_s_are_refused_and_not_loaded(tmp_path):
    plugin = tmp_path / "tries.py"
    plugin.write_text(TRIES)
    [(source, name, digest, path, data)] = ship(load([str(plugin)]))
    tampered = data.replace(b"bool(node.finalbody)", b"True")
    with pytest.raises(PatternError, match=r"^pattern %s: the source the Dask worker received has sha256 %s, not "
                                           r"the scan's %s; not loaded$" % (
                                               source, hashlib.sha256(tampered).hexdigest()[:12], digest[:12])):
        receive([(source, name, digest, path, tampered)])
    with pytest.raises(PatternError, match="as the Dask worker received it, defines no pattern 'other'"):
        receive([(source, "other", digest, path, data)])


def test_a_file_edited_since_it_was_loaded_is_not_sent(tmp_path):
    plugin = tmp_path / "tries.py"
    plugin.write_text(TRIES)
    kinds = load([str(plugin)])
    plugin.write_text(TRIES.replace("bool(node.finalbody)", "True"))
    with pytest.raises(PatternError, match=r"^pattern 'try_finally' cannot be sent to the Dask workers: \S+tries.py "
                                           r"does not hold what the scan loaded"):
        ship(kinds)


def test_a_function_given_from_python_is_refused_in_one_line():
    @punstats.pattern("given", per="calls", on=ast.Call)
    def match(node, parents):
        return True

    kinds = load([getattr(match, PATTERN_ATTRIBUTE)])  # as punstats.scan(patterns=[match]) gives it
    with pytest.raises(PatternError) as caught:
        ship(kinds)
    assert str(caught.value) == shipping.NOT_SHIPPABLE % ("given", "%s does not hold what the scan loaded (a "
                                                          "function given from Python, or a file edited since)"
                                                          % __file__)

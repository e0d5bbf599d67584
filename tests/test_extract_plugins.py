"""``extract/plugins.py``: loading user patterns from a file, a module, an entry point."""
import hashlib
import importlib
import sys
import textwrap

import pytest

from punstats.extract import plugins
from punstats.model.kinds import PatternError

PLUGIN = '''\
import ast

import punstats


@punstats.pattern("{name}", label="a try", per="{per}")
def match(node, parents):
    return isinstance(node, ast.Try)
'''


def write(path, name="tries", per="Try", text=None):
    path.write_text(text if text is not None else PLUGIN.format(name=name, per=per))
    return str(path)


def test_a_file_gives_its_patterns_with_source_and_hash(tmp_path):
    path = write(tmp_path / "mine.py")
    [kind] = plugins.load([path])
    assert (kind.name, kind.label, kind.per, kind.source) == ("tries", "a try", "Try", path)
    assert kind.sha256 == hashlib.sha256((tmp_path / "mine.py").read_bytes()).hexdigest()
    assert kind.occurrence and kind.user and callable(kind.matcher)


def test_a_pattern_records_its_classes_and_its_definition_in_words(tmp_path):
    text = PLUGIN.format(name="tries", per="Try").replace('per="Try")', 'per="Try", on=ast.Try)').replace(
        "def match(node, parents):\n", 'def match(node, parents):\n    """A try\n    statement.\n\n    Any."""\n')
    [kind] = plugins.load([write(tmp_path / "doc.py", text=text)])
    recorded = kind.provenance()
    assert (recorded["on"], recorded["doc"]) == (["Try"], "A try statement.\n\nAny.")
    [shipped] = plugins.load(["punstats.patterns.bare_except"])
    assert shipped.provenance()["doc"].startswith("``except:`` handlers, which PEP 760 proposed to disallow.\n\n")
    undocumented = plugins.load([write(tmp_path / "plain.py")])[0].provenance()
    assert "doc" not in undocumented and "on" not in undocumented


def test_two_patterns_of_one_file_both_named_match(tmp_path):
    text = PLUGIN.format(name="one", per="lines") + PLUGIN.format(name="two", per="files").split("\n", 3)[3]
    assert [k.name for k in plugins.load([write(tmp_path / "two.py", text=text)])] == ["one", "two"]


def test_an_edited_file_is_loaded_again(tmp_path):
    path = write(tmp_path / "edit.py")
    first = plugins.load([path])[0]
    write(tmp_path / "edit.py", name="renamed")
    second = plugins.load([path])[0]
    assert (first.name, second.name) == ("tries", "renamed") and first.sha256 != second.sha256
    with pytest.raises(PatternError, match="no longer defines pattern 'tries'"):
        plugins.resolve(plugins.wire([first]))
    assert plugins.resolve(plugins.wire([second]))[0].matcher is second.matcher


def test_a_worker_holding_the_scan_s_pattern_uses_it_and_one_loading_an_edited_file_refuses(tmp_path, monkeypatch):
    path = write(tmp_path / "held.py")
    [kind] = plugins.load([path])
    sent = plugins.wire([kind])
    write(tmp_path / "held.py", text=PLUGIN.format(name="tries", per="Try") + "\n# edited\n")
    assert plugins.resolve(sent)[0].matcher is kind.matcher  # the bytes the scan started with: not read again
    monkeypatch.delitem(plugins._LOADED, path)  # a worker that has not loaded it yet reads the edited file
    with pytest.raises(PatternError, match="changed while the scan ran"):
        plugins.resolve(sent)


@pytest.fixture
def package(tmp_path, monkeypatch):
    """An importable module ``ps_plug`` with two patterns, and an installed entry point for one."""
    (tmp_path / "ps_plug.py").write_text(PLUGIN.format(name="plug_a", per="lines") + textwrap.dedent('''

        @punstats.pattern("plug_b")
        def other(node, parents):
            return False
        '''))
    info = tmp_path / "ps_plug-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ps-plug\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[punstats.patterns]\nplugged = ps_plug:other\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    yield tmp_path
    sys.modules.pop("ps_plug", None)
    plugins._LOADED.clear()


def test_module_name_module_and_entry_point(package):
    assert [k.name for k in plugins.load(["ps_plug:match"])] == ["plug_a"]
    assert [k.name for k in plugins.load(["ps_plug"])] == ["plug_a", "plug_b"]
    [plugged] = plugins.load(["plugged"])
    assert (plugged.name, plugged.source) == ("plug_b", "ps_plug:other")
    assert ("plugged", "ps_plug:other") in plugins.installed()
    expected = hashlib.sha256((package / "ps_plug.py").read_bytes()).hexdigest()
    assert plugged.sha256 == expected


@pytest.mark.parametrize("spec, text, message", [
    ("missing.py", None, "pattern file {dir}/missing.py: no such file"),
    ("syntax.py", "def (:\n", "pattern file {dir}/syntax.py: line 1: SyntaxError: invalid syntax"),
    ("raises.py", "x = 1\nraise RuntimeError('no')\n", "pattern file {dir}/raises.py: line 2: RuntimeError: no"),
    ("empty.py", "x = 1\n", "{dir}/empty.py defines no pattern (decorate a function with @punstats.pattern(NAME))"),
    ("per.py", PLUGIN.format(name="p", per="Tryy"),
     "{dir}/per.py: per='Tryy' is neither a unit (keywords, calls, class_keywords, dict_entries, functions, "
     "files, lines, code_lines) nor an ast node class such as 'Try'"),
    ("builtin.py", PLUGIN.format(name="call", per="lines"),
     "{dir}/builtin.py: 'call' names a built-in row; choose another name"),
    ("arity.py", PLUGIN.format(name="p", per="Try").replace("(node, parents)", "(node, parents, extra)"),
     "{dir}/arity.py: pattern 'p': its function is called as match(node, parents), but "
     "match(node, parents, extra) takes other arguments"),
    ("on.py", PLUGIN.format(name="p", per="Try").replace('per="Try")', 'per="Try", on=(ast.Try, int))'),
     "{dir}/on.py: pattern 'p': on=(<class 'ast.Try'>, <class 'int'>) is not an ast node class or a tuple "
     "of them, such as on=(ast.Return, ast.Break)"),
    ("empty_on.py", PLUGIN.format(name="p", per="Try").replace('per="Try")', 'per="Try", on=())'),
     "{dir}/empty_on.py: pattern 'p': on=() is not an ast node class or a tuple of them, such as "
     "on=(ast.Return, ast.Break)"),
])
def test_loading_errors_are_one_line(tmp_path, spec, text, message):
    if text is not None:
        (tmp_path / spec).write_text(text)
    with pytest.raises(PatternError) as caught:
        plugins.load([str(tmp_path / spec)])
    assert str(caught.value) == message.format(dir=tmp_path)


def test_a_name_used_twice_and_bad_modules(tmp_path, package):
    one, two = write(tmp_path / "one.py", name="same"), write(tmp_path / "two.py", name="same")
    with pytest.raises(PatternError, match="two patterns are named 'same'"):
        plugins.load([one, two])
    with pytest.raises(PatternError, match=r"pattern no_such_module_x: cannot import no_such_module_x"):
        plugins.load(["no_such_module_x"])
    with pytest.raises(PatternError, match="module ps_plug has no 'nothing'"):
        plugins.load(["ps_plug:nothing"])
    with pytest.raises(PatternError, match="pattern ps_plug:ast: ps_plug.ast is not decorated with @punstats.pattern"):
        plugins.load(["ps_plug:ast"])


def install(root, dist, points):
    """A distribution ``dist`` on ``root`` (on sys.path) declaring ``points`` ({name: value}) as plugins."""
    info = root / ("%s-1.0.dist-info" % dist)
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: %s\nVersion: 1.0\n" % dist)
    (info / "entry_points.txt").write_text("[punstats.patterns]\n" + "".join(
        "%s = %s\n" % item for item in points.items()))
    importlib.invalidate_caches()


@pytest.mark.parametrize("name, said", [
    ("bare_except", "pattern bare_except names both the shipped pattern punstats.patterns.bare_except and the "
                    "installed plugin bare_except (evil: ps_plug:other); give punstats.patterns.bare_except for "
                    "the one or ps_plug:other for the other"),
    ("punstats.patterns.bare_except",
     "pattern punstats.patterns.bare_except names both the shipped pattern punstats.patterns.bare_except and the "
     "installed plugin punstats.patterns.bare_except (evil: ps_plug:other); give "
     "punstats.patterns.bare_except:match for the one or ps_plug:other for the other"),
    ("ps_plug", "pattern ps_plug names both the module ps_plug and the installed plugin ps_plug (evil: "
                "ps_plug:other); give ps_plug:FUNCTION (its decorated function) for the one or ps_plug:other "
                "for the other"),
    ("twice", "pattern twice: 2 installed plugins declare this name (evil: ps_plug:match; evil2: ps_plug:other); "
              "give the one you mean as module:name"),
])
def test_a_plugin_named_like_a_shipped_pattern_or_a_module_is_an_error_naming_both(package, capsys, name, said):
    install(package, "evil", {"bare_except": "ps_plug:other", "punstats.patterns.bare_except": "ps_plug:other",
                              "ps_plug": "ps_plug:other", "twice": "ps_plug:match"})
    install(package, "evil2", {"twice": "ps_plug:other"})
    with pytest.raises(PatternError) as caught:
        plugins.load([name])
    assert str(caught.value) == said
    assert [k.name for k in plugins.load(["punstats.patterns.bare_except:match"])] == ["bare_except"]
    assert [k.name for k in plugins.load(["ps_plug:other"])] == ["plug_b"]
    from punstats.cli import main
    (package / "tree").mkdir()
    assert main(["scan", "-q", "--no-save", str(package / "tree"), "--pattern", name]) == 2
    assert capsys.readouterr().err == "punstats: error: %s\n" % said


def not_a_plugin(tmp_path, what):
    """A path that is not a Python file, and what the error says it is."""
    import os
    import py_compile
    if what == "directory":
        (tmp_path / "dir.py").mkdir()
        return str(tmp_path / "dir.py"), "a directory, not a Python file"
    if what == "FIFO":
        os.mkfifo(tmp_path / "fifo.py")
        return str(tmp_path / "fifo.py"), "a named pipe (FIFO), not a Python file"
    if what == "device link":
        (tmp_path / "zero.py").symlink_to("/dev/zero")
        return str(tmp_path / "zero.py"), "a device, not a Python file"
    if what == "pyc":
        write(tmp_path / "mine.py")
        return py_compile.compile(str(tmp_path / "mine.py"), cfile=str(tmp_path / "mine.pyc")), \
            "a compiled file; give the .py file it was compiled from"
    return what, "a device, not a Python file"


@pytest.mark.parametrize("what", ["directory", "FIFO", "device link", "/dev/zero", "/dev/null", "pyc"])
def test_a_pattern_path_that_is_not_a_python_file_is_a_one_line_error(tmp_path, capsys, what):
    path, said = not_a_plugin(tmp_path, what)
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "a.py").write_text("f(x=x)\n")
    from punstats.cli import main
    assert main(["scan", "-q", "--no-save", "--no-cache", str(tmp_path / "tree"), "--pattern", path]) == 2
    assert capsys.readouterr().err == "punstats: error: pattern file %s: %s\n" % (path, said)

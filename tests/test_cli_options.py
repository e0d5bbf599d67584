"""Every command keeps the options, and their defaults, it had before the shared
options became parent parsers (``punstats.cli.common``): recorded from the
code before that change.
"""
import argparse
import os
import re
import subprocess
import sys

import pytest

from punstats import cli
from punstats.cli import build_parser

#: command -> {option strings (or a positional's name): default}, as recorded before the change;
#: options added later are not listed here
RECORDED = {
    'scan': {
        'paths': None, '-o --output': None, '--no-save': False, '--csv': False, '--json': False,
        '-j --jobs': None, '--test-rule': 'components', '--test-pattern': None, '--long': 10,
        '--extensions': ['.py'], '--follow-links': False, '--no-exclude': False, '--max-bytes': 20971520,
        '-q --quiet': False, '--lines-saved': False, '--rev': None, '--python': None, '--compat': None,
        '--no-cache': False, '--engine': 'local', '--scheduler': None,
    },
    'cache': {
        '--clear': False, '--json': False,
    },
    'history': {
        'repo': None, '--since': '', '--until': '', '--rev-range': 'HEAD', '--every': 'month',
        '-o --output': None, '-j --jobs': None, '--test-rule': 'components', '--long': 10, '--no-cache': False,
        '--json': False, '-q --quiet': False,
    },
    'table': {
        'dirs': None, '--test-rule': None, '--long': None, '--format': 'rst', '--by': 'summary',
        '--kinds': None, '-n --top': 20, '-o --output': None,
    },
    'plot': {
        'dirs': None, '--test-rule': None, '--long': None, '-o --output': None, '--format': ['png', 'svg'],
    },
    'report': {
        'dirs': None, '--test-rule': None, '--long': None, '-o --output': None, '--figures-dir': None,
        '--no-figures': False,
    },
    'reproduce angelico': {
        'source': None, '--rev': None, '--since': None, '--until': None, '--branch': 'HEAD', '--python': None,
        '--walk': None, '--directory': '', '--profile': 'angelico-2023-10', '--descend': False,
        '--no-stale': False, '--test-rule': None, '--test-pattern': None, '--long': 10, '--nearest': 10,
        '--no-cache': False, '--lines': False, '--json': False,
    },
    'reproduce pep736': {
        '--cpython': None, '--numpy': None, '--pandas': None, '--scikit-learn': None, '--python': None,
        '--no-cache': False, '--json': False,
    },
    'reproduce': {},
    'corpus': {
        'corpus_file': None, '-o --output': None, '--csv': False, '--json': False, '-j --jobs': None,
        '--test-rule': 'components', '--long': 10, '--skip-existing': False, '-q --quiet': False,
        '--no-cache': False, '--engine': 'local', '--scheduler': None,
    },
    'rewrite': {
        'path': None, '--diff': False, '--write': False, '--rewrap': False, '-j --jobs': None,
    },
    'expand': {
        'path': None, '--diff': False, '--write': False, '-j --jobs': None,
    },
    '': {
        '--version': '==SUPPRESS==',
    },
}


def _commands(parser, path=()):
    yield " ".join(path), parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name in list(action.choices):
                sub = action.parser_of(name) if hasattr(action, "parser_of") else action.choices[name]
                yield from _commands(sub, path + (name,))


PARSER = build_parser()
COMMANDS = dict(_commands(PARSER))


def test_every_recorded_command_is_kept():
    assert sorted(set(RECORDED) - set(COMMANDS)) == []  # commands added since are allowed


def test_the_listed_help_is_the_groups():
    """``punstats --help`` lists each command with the help its group gives it, and a group adds no
    command the list lacks (it could not be chosen before its group is imported)."""
    commands, = [a for a in PARSER._actions if isinstance(a, argparse._SubParsersAction)]
    assert sorted(commands.group_help) == sorted(cli.COMMANDS)
    for name, (_, _, help_text) in cli.COMMANDS.items():
        assert commands.group_help[name] == help_text, name


def test_a_command_imports_only_its_group():
    code = ("import sys\nfrom punstats.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('punstats.cli.')))")
    for argv, groups in ((["--version"], ["common"]), (["--help"], ["common"]),
                         (["rewrite", "--help"], ["common", "rewrite"]),
                         # bootstrap: shared options; compare: the evidence commands' inputs side by side
                         (["plot", "-h"], ["bootstrap", "common", "compare", "evidence"])):
        out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True)
        assert out.stdout.splitlines()[-1] == repr(["punstats.cli." + g for g in groups]), argv


@pytest.mark.parametrize("command", sorted(RECORDED))
def test_options_and_defaults_kept(command):
    """Every recorded option is still there with its default; options added since are allowed."""
    parser = COMMANDS[command]
    found = {" ".join(a.option_strings) or a.dest: a.default for a in parser._actions
             if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))}
    assert {key: found.get(key, "<missing>") for key in RECORDED[command]} == RECORDED[command]


@pytest.mark.parametrize("command", sorted(RECORDED))
def test_help_lists_every_option(command):
    text = COMMANDS[command].format_help()
    listed = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", text))
    for options in RECORDED[command]:
        for option in options.split():
            if option.startswith("-"):
                assert option in listed, "%s --help does not list %s" % (command or "punstats", option)
    assert "-h" in listed


def test_shared_options_parse_alike():
    """An option from a parent parser means the same in every command that has it."""
    parse = build_parser().parse_args
    for argv in (["scan", "-j", "3", "--long", "7", "--test-rule", "none", "--json", "-q"],
                 ["corpus", "c.toml", "-j", "3", "--long", "7", "--test-rule", "none", "--json", "-q"],
                 ["history", "r", "-j", "3", "--long", "7", "--test-rule", "none", "--json", "-q"]):
        args = parse(argv)
        assert (args.jobs, args.long, args.test_rule, args.json, args.quiet) == (3, 7, "none", True, True)
    assert parse(["rewrite", "p", "-j", "2"]).jobs == parse(["expand", "p", "-j", "2"]).jobs == 2


# -- a mistyped command, option or choice is answered with the nearest (issue 27) --------------

@pytest.mark.parametrize("argv, argument, typo, hint", [
    (["scna"], "command", "scna", "scan"),
    (["histroy", "."], "command", "histroy", "history"),
    (["lable", "d"], "command", "lable", "label"),  # two letters swapped: label, not table (as near by ratio)
    (["rewirte", "."], "command", "rewirte", "rewrite"),
    (["reproduce", "angelcio"], "figures", "angelcio", "angelico"),
    (["table", "--by", "idntifier", "d"], "--by", "idntifier", "identifier"),
    (["table", "--format", "markdwon", "d"], "--format", "markdwon", "markdown"),
])
def test_an_unknown_command_or_choice_gets_the_nearest(argv, argument, typo, hint, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert re.fullmatch(r"punstats: error: argument %s: invalid choice: '%s' \(choose from [^)]*\) "
                        r"\(did you mean %s\?\)\n" % (argument, typo, hint), err), err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, unrecognized, hint", [
    (["scan", "--jbos", "2", "src"], "--jbos", "--jobs"),
    (["scan", "--no-cahce=1", "src"], "--no-cahce=1", "--no-cache"),
    (["history", "repo", "--sicne", "2024-01-01"], "--sicne 2024-01-01", "--since"),
    (["table", "d", "--fromat", "md"], "--fromat md", "--format"),
    (["reproduce", "angelico", "src", "--profle", "x"], "--profle x", "--profile"),
    (["cache", "--claer"], "--claer", "--clear"),
])
def test_an_unknown_option_gets_the_nearest_of_its_command(argv, unrecognized, hint, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    assert capsys.readouterr().err == "punstats: error: unrecognized arguments: %s (did you mean %s?)\n" % (
        unrecognized, hint)
    assert list(tmp_path.iterdir()) == []


def test_a_word_like_no_option_gets_no_guess(capsys):
    assert cli.main(["scan", "--zzzzqqq", "src"]) == 2
    assert capsys.readouterr().err == "punstats: error: unrecognized arguments: --zzzzqqq\n"
    assert cli.main(["xyzzyq"]) == 2
    assert "did you mean" not in capsys.readouterr().err


def test_a_result_in_the_default_place_says_where_that_is(tmp_path, monkeypatch, capsys):
    """A command run from any directory made ``./data/<name>/`` there; it now says so (stderr,
    so ``--json`` stays JSON), and says nothing more with ``-o`` or ``--no-save``."""
    from gitrepo import commit, init

    from punstats.cli import main
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "a.py").write_text("f(x=x)\n")
    init(tmp_path / "repo")
    commit(tmp_path / "repo", {"a.py": "f(x=x)\n"})
    monkeypatch.chdir(tmp_path)
    note = "punstats: note: stored in %s under the current directory, %s (the default place; -o DIR stores elsewhere)\n"
    quiet = ["-q", "-j", "1", "--no-cache"]
    assert main(["scan", "proj", "--json", *quiet]) == 0
    assert capsys.readouterr().err == note % ("data/proj", tmp_path)
    assert main(["history", "repo", "--json", *quiet]) == 0
    assert capsys.readouterr().err == note % ("data/repo-history", tmp_path)
    assert sorted(os.listdir(tmp_path / "data")) == ["proj", "repo-history"]
    for extra in (["-o", str(tmp_path / "elsewhere")], ["--no-save"]):
        assert main(["scan", "proj", *quiet, *extra]) == 0
        assert capsys.readouterr().err == ""

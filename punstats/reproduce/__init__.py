"""Reproducing published figures: the published numbers, replaying counting
scripts, Angelico's count and its revision search, PEP 736's tables and the
definition search (``definitions``), and how closely ``rewrite`` reproduces
a punning commit (``fidelity``).
"""
from punstats.reproduce.angelico import Reproduction, angelico  # noqa: F401
from punstats.reproduce.pep736 import (  # noqa: F401
    PUNNING_SUBJECT,
    REPRODUCED,
    lines_saved,
    pep736,
    punning_commit,
    split_spec,
)
from punstats.reproduce.published import published  # noqa: F401
from punstats.reproduce.replay import (  # noqa: F401
    EXTENSIONS,
    SEARCH_RULES,
    GitSource,
    LineRule,
    SourceFile,
    Triple,
    count_lines,
    directory_files,
    parse_line_rule,
)
from punstats.reproduce.search import (  # noqa: F401
    SEARCH_QUIRKS,
    SearchConfig,
    SearchHit,
    angelico_search,
)

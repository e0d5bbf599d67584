"""Reproducing published figures: the published numbers, replaying counting
scripts, Angelico's count and its revision search, PEP 736's tables.
"""
from punstats.reproduce.angelico import Reproduction, angelico  # noqa: F401
from punstats.reproduce.pep736 import (  # noqa: F401
    PUNNING_SUBJECT,
    lines_saved,
    pep736,
    text_delimited,
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

"""The errors a user is told about: ``PunstatsError`` and its kinds.

Every failure that is the user's to fix (an argument, a corpus, an engine,
a place to store, a pattern, an option's value) is a ``PunstatsError``; the
command line catches this one class, once (``cli.main``), and prints its
message as one line with exit status 2.  Anything else that escapes is a bug
of punstats (or a fault of the machine, which ``cli.main`` words itself) and
keeps its traceback.  The subclasses that were ``ValueError`` before stay
``ValueError`` too, so code written against them keeps working.
"""


class PunstatsError(Exception):
    """A failure the user can act on; the message is for the user, in one line."""


class OptionError(PunstatsError, ValueError):
    """An option's or an argument's value that punstats cannot use (a test rule, ``--every``, a row)."""


def one_line(exc: BaseException) -> str:
    """``exc``'s message in one line (its class name when it has none): how an error is quoted in another."""
    return " ".join(str(exc).split()) or type(exc).__name__


class PunstatsWarning(UserWarning):
    """A result punstats gives with a caveat the caller should hear (``warnings.warn``)."""


class NoPythonFilesWarning(PunstatsWarning):
    """A scan found no file to parse: a valid result whose every share is n/a.  ``punstats.scan``
    warns with it; the command line prints the same text as ``punstats: warning: ...``."""

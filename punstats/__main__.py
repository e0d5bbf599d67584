"""``python -m punstats``: the command line."""
import sys

from punstats.cli import main

sys.exit(main())

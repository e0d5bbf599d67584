"""Runs: the scan pipeline (``scan``), many projects (``projects``) and many
revisions (``history``).
"""

"""Presenting stored scans: console summaries, tables in the formats people
paste into (``formats``), figures (``plots``), the Markdown report and
provenance lines.  Modules import their heavy libraries themselves.
"""

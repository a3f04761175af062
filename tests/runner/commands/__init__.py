"""Tests of the runner commands."""

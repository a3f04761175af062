"""Tests of runner.trial."""

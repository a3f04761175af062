"""Tests of runner.report."""

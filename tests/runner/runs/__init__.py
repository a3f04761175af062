"""Tests of runner.runs."""

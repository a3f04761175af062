"""Tests of runner.grading."""

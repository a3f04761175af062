"""Tests of runner.sandbox."""

"""Tests of runner.gate."""

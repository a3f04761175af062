"""Tests of runner.workspace."""

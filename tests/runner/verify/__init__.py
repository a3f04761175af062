"""Tests of runner.verify."""

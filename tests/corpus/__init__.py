"""Tests of corpus."""

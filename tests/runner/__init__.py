"""Tests of runner."""

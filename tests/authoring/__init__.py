"""Tests of authoring."""

"""Test suite: mirrors the packages; shared fixtures live in tests.testing."""

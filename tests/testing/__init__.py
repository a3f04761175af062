"""Helpers shared by the tests: real git repositories, corpora, runs and scripted agents."""

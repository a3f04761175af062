"""Tests of miner."""

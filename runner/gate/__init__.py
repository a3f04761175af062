"""Judging runs: statistics, power, pairing two runs, the gate, quarantine, flakes, selection, their output."""

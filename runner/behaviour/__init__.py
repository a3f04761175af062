"""What an agent did in a trial, read from its machine-readable transcript: tool calls, tokens, cost, turns."""

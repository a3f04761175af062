"""The `runner` commands, one module per command: each a thin click layer over the library."""

"""`runner validate` and `runner verify`: check every corpus file, and prove each case."""

"""Cases other harnesses run: a corpus exported as SWE-bench instances or as Harbor task directories."""

"""The review screens and their modals."""

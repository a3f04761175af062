"""Reusable widgets of the review screen."""

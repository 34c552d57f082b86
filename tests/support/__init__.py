"""Test machinery shared by several test packages (never imported by production code)."""

"""Checked AST -> something that evaluates: Python functions, Arrow and Spark expressions."""

"""Text to AST: the lexer, the LALR grammar, the tree builder and the unparser."""

"""What selector operations mean: value rules, LIKE matching, static checks."""

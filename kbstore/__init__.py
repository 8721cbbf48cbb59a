"""kbstore."""

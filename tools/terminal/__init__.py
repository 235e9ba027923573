"""The game in a terminal: the board, what people type, and hints."""

"""The scoring language: its grammar (`grammar.lark`), the parser to a syntax tree (`parser`, `ast`), the
compiler to closures with types and positions (`compiler`), the function table (`builtins`) and the cache of
parsed trees (`treecache`)."""

"""The model room: a game as data. The YAML source with positions (`yamlsource`), the schema (`schemacheck`),
the loader that builds the frozen `Model` (`loader`, `frozen`), the expression language (`dsl/`), the sheet's
scoring (`scoring`), dice as multisets (`dice`), the soundness proof every model passes (`soundness`),
and what all rooms share: errors, languages, limits and the cache folder. It imports no other room."""

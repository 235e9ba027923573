"""The research adapters: every model as an OpenSpiel game, a PettingZoo AEC environment and a
Gymnasium environment, and large runs on a Dask cluster.

`encoding` (plain numpy, no optional package) numbers the actions and lays out the observations;
`openspiel`, `pettingzoo`, `gym` and `cluster` import their package when they are imported, and
nothing else in `rulebook.interpreter` imports them. The thin modules `rulebook.interpreter.openspiel`,
`.pettingzoo` and `.gym` are the names to import (docs/research.md).
"""

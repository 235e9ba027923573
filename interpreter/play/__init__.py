"""The play room: games with seats. A game with its log, save and replay (`game`), many games at once
(`simulate`, bulk play in `bulk`, their `results`) and variants compared (`compare`). It imports every room
below it; the tools build on it."""

"""The solver room: optimal play derived from the model. What the solver reads of a sheet (`abstraction`),
its state space (`space`, `size`), backward induction (`induction`) with the compiled kernel and its plan
(`kernel`, `kernelplan`), the turn planner (`turnplan`), write tables (`writetable`), the table files and
their cache (`tablefile`, `cache`), and the entry points (`solve`). It imports the model and the engine."""

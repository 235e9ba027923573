"""The engine room: one game in progress, in the OpenSpiel shape (`state.GameState`: current_player,
legal_actions, chance_outcomes, apply). The phase tree compiled to a program (`program`), running it
(`flow`), rolls and keeps (`keeping`), writes, effects and announcements (`writing`), saves (`saves`),
actions (`actions`) and a turn's keep/roll tables (`turn`). It imports only the model room."""

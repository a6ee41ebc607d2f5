"""The game contract: every function a game provides to the engine.

Read by ``setup.py`` (not compiled).  A game ``g`` with state struct ``S``
defines ``g_<name>`` in ``games/g/rules.pxd`` or ``games/g/actions.pxd`` with
the parameters below (``{S}`` is its struct); where a function has a default
the game may leave it out and the generated ``games/g/contract.pxd`` supplies
it.  ``algorithms/game.pxd`` dispatches ``game_<name>`` to ``g_<name>`` for
every game of ``list.txt``.

The table: one function per block of two lines.  The first line gives the
header that declares it, the return type, the name, the parameters and the
default body (``-`` when every game must write it; ``;`` separates its
statements); the second line, indented, says what it does.
"""

TABLE = """
rules | void | init_tables | | pass
    fill the game's lookup tables; called once per module
rules | int | to_move | const {S}* s | return s.to_move
    0 for the first player, 1 for the second
rules | int | status | const {S}* s | return s.status
    GAME_ONGOING, GAME_WIN_FIRST, GAME_WIN_SECOND or GAME_DRAW
rules | int | legal_moves | const {S}* s, int* moves | -
    write the legal moves (ints < MAX_MOVES), deterministic order; return how many (0 when over)
rules | undo_t | make | {S}* s, int move | -
    play a legal move; return the token unmake needs
rules | void | unmake | {S}* s, int move, undo_t undo | -
    restore the position before make(s, move) exactly
rules | uint64_t | hash | const {S}* s | -
    equal for equal positions, side to move included
rules | double | evaluate | const {S}* s, int heuristic | -
    static value for the side to move, |v| < 1e6; heuristic 0 is the default
rules | int | playout | {S}* s, rng_t* rng | -
    uniformly random moves until the end; the final status
rules | int | random_move | const {S}* s, rng_t* rng | -
    a uniformly random legal move (game on)
rules | int | playout_decisive | {S}* s, rng_t* rng | return {g}_playout(s, rng)
    a playout with the game's decisive-move policy
rules | int | decisive_move | const {S}* s, rng_t* rng | return {g}_random_move(s, rng)
    the first move of that playout
actions | bint | action_legal | const {S}* s, int a | -
    any int: is it a legal action now
actions | int | action_to_move | const {S}* s, int a | return a
    the move of a legal action
actions | int | move_to_action | const {S}* s, int move | return move
    the action of a legal move
actions | int | random_action | const {S}* s, rng_t* rng | return {g}_random_move(s, rng)
    a uniformly random legal action (game on)
actions | void | write_observation | const {S}* s, int8_t* obs | -
    int8 planes [k, rows, cols]: plane 0 the side to move's pieces, plane 1 the opponent's
actions | void | write_action_mask | const {S}* s, uint8_t* mask | -
    1 for the legal actions, 0 elsewhere
actions | void | write_planes | const {S}* s, int8_t* obs, uint8_t* mask | {g}_write_observation(s, obs); {g}_write_action_mask(s, mask)
    observation and action mask at once
actions | bint | draw_truncates | | return False
    True if a draw means a move cap (truncated), not a finished game
"""


def _parse(table):
    """``(header, return type, name, parameters, default body or None, meaning)``
    per function; a default's statements joined by newlines."""
    lines = [line for line in table.splitlines() if line.strip()]
    rows = []
    for signature, meaning in zip(lines[0::2], lines[1::2]):
        header, ret, name, params, default = (f.strip() for f in signature.split("|"))
        body = None if default == "-" else "\n".join(p.strip() for p in default.split(";"))
        rows.append((header, ret, name, params, body, meaning.strip()))
    return rows


#: (header, return type, name, parameters, default body or None if required, meaning)
CONTRACT = _parse(TABLE)

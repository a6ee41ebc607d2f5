"""Evaluation of a network: PUCT with it against ``ttt_engine.exact``'s oracle
where the game has one (its ``oracle`` fact: Tic-Tac-Toe), else a few games
against MCTS, and the policy alone on the game's exact yardstick where one
ships (:mod:`ttt_engine.yardstick`)."""
from __future__ import annotations

import numpy as np

from ttt_engine import _util
from ttt_engine import games as _games      # `games` is evaluate_network's game count


class _TTTTable:
    """A Tic-Tac-Toe evaluator answering from one batched pass of ``net`` over
    all 3^9 cell patterns (the same outputs, looked up by the planes' base-3 code)."""

    def __init__(self, net):
        codes = np.arange(3 ** 9)
        digits = (codes[:, None] // 3 ** np.arange(9)) % 3
        obs = np.stack([digits == 1, digits == 2], axis=1).astype(np.int8).reshape(-1, 2, 3, 3)
        self.logits, self.values = net(obs)
        self.powers = 3 ** np.arange(9)

    def __call__(self, observations, legal_mask=None):
        o = observations.reshape(len(observations), 2, 9).astype(np.int64)
        code = (o[:, 0] + 2 * o[:, 1]) @ self.powers
        return self.logits[code], self.values[code]


class PUCTPlayer:
    """A fresh PUCT search of ``simulations`` per move with ``network`` (the
    agent protocol: ``select_move``, ``name``, ``reset``); deterministic."""

    def __init__(self, network, simulations=100, c_puct=1.25, evaluator=None,
                 playout_weight=0.0, mixed_playouts=1):
        from ttt_engine.search import PUCT
        self.network = network
        self.simulations = _util.check_int("simulations", simulations, min=1)
        from ttt_engine._core.algorithms import puct as _puct
        nodes = max(int(_puct.MIN_NODES), self.simulations * network.num_actions + 64)
        self.search = PUCT(evaluator or network, c_puct=c_puct, reuse=False,
                           max_nodes=min(nodes, 1 << 20), playout_weight=playout_weight,
                           mixed_playouts=mixed_playouts)
        self.name = f"PUCT({self.simulations})"
        self.last_stats = {}

    def select_move(self, board):
        self.search.reset()
        move = self.search.search(board, simulations=self.simulations)
        self.last_stats = self.search.stats
        return move

    def reset(self, seed=None):
        self.search.reset()


def evaluate_network(network, *, simulations=100, games=10, mcts_simulations=800,
                     c_puct=1.25, seed=0, playout_weight=0.0, mixed_playouts=1):
    """A dict of scores of ``network`` with PUCT at ``simulations`` per move
    (``playout_weight`` / ``mixed_playouts``: the leaf value, as in
    :class:`ttt_engine.search.PUCT`; not used by the Tic-Tac-Toe evaluation,
    which scores the network's own values).

    Tic-Tac-Toe: ``optimality`` (share of the 4520 decision positions where
    PUCT's move is optimal, exact oracle), ``prior_optimality`` (the same for
    the raw policy's best move), ``worst_x`` / ``worst_o`` (its result against
    the most damaging opponent as X and as O: "win", "draw" or "loss").
    Other games: ``score`` (wins + draws/2 over ``games`` games against
    ``MCTSAgent(mcts_simulations)``, colours alternating) and its W/D/L; where
    the game has a yardstick suite, also ``policy_keeps`` / ``policy_optimal``
    (:func:`policy_yardstick`)."""
    simulations = _util.check_int("simulations", simulations, min=1)
    g = _games.get(network.game_key)
    if g.oracle:
        from ttt_engine import exact
        table = _TTTTable(network)
        player = PUCTPlayer(network, simulations, c_puct, evaluator=table)
        q = exact.policy_table(player)
        o = exact.optimality(q)
        # the raw policy: its best legal action in every decision position
        rows, mask, codes = _ttt_decisions()
        best = np.argmax(np.where(mask, table.logits[codes], -np.inf), axis=1)
        pq = np.zeros((19683, 9))
        pq[rows, best] = 1.0
        po = exact.optimality(pq)
        return {"optimality": o.rate, "prior_optimality": po.rate,
                "worst_x": exact.worst_case(q, "X").outcome,
                "worst_o": exact.worst_case(q, "O").outcome}
    from ttt_engine.agents import MCTSAgent, play_match
    player = PUCTPlayer(network, simulations, c_puct, playout_weight=playout_weight,
                        mixed_playouts=mixed_playouts)
    mcts = MCTSAgent(simulations=_util.check_int("mcts_simulations", mcts_simulations, min=1),
                     seed=seed)
    r = play_match(player, mcts, games=games, seed=seed,
                   board_factory=lambda: g.new_board(**network.board_options))
    n = max(1, r.wins + r.draws + r.losses)
    out = {"score": (r.wins + 0.5 * r.draws) / n, "wins": r.wins, "draws": r.draws,
           "losses": r.losses, "opponent": f"mcts{mcts_simulations}"}
    from ttt_engine import yardstick
    if yardstick.has_suite(g.key) and not network.board_options and _suite_arrays(g.key)[0].size:
        out.update(policy_yardstick(network))
    return out


_SUITE_ARRAYS = {}


def _suite_arrays(game):
    """The shipped yardstick suite of ``game`` as arrays, made once: every
    position's observation and each action's exact score (NaN where illegal),
    of the positions on the default board (the network's)."""
    if game not in _SUITE_ARRAYS:
        from ttt_engine import yardstick
        suite = yardstick.load(yardstick.suite_path(game), game)
        obs, scores = [], []
        for i in range(len(suite)):
            if suite.options_of(i):
                continue
            b = suite.board(i)
            obs.append(np.asarray(b.observation()))
            row = np.full(b.num_actions, np.nan)
            for move, v in suite.scores[i].items():
                row[b.move_to_action(move)] = v
            scores.append(row)
        _SUITE_ARRAYS[game] = ((np.stack(obs), np.stack(scores)) if obs else
                               (np.zeros(0), np.zeros(0)))
    return _SUITE_ARRAYS[game]


def policy_yardstick(network):
    """``{"policy_keeps", "policy_optimal"}``: the shares of the game's shipped
    yardstick positions where the network's policy alone (its legal action of
    largest logit, ties the first) keeps the game-theoretic value / is optimal --
    what ``yardstick.yardstick(PolicyAgent(network))`` measures over the whole
    suite, in one batched pass."""
    obs, scores = _suite_arrays(network.game_key)
    logits, _ = network(obs)
    legal = ~np.isnan(scores)
    pick = np.argmax(np.where(legal, logits, -np.inf), axis=1)
    chosen = scores[np.arange(len(scores)), pick]
    best = np.nanmax(scores, axis=1)
    return {"policy_keeps": float(np.mean(np.sign(chosen) == np.sign(best))),
            "policy_optimal": float(np.mean(chosen == best))}


_TTT_DECISIONS = None


def _ttt_decisions():
    """(board indices, legal masks, planes' base-3 codes) of the 4520 decision positions."""
    global _TTT_DECISIONS
    if _TTT_DECISIONS is None:
        from ttt_engine import exact
        rows = np.asarray(exact._DECISIONS, dtype=np.int64)
        mask = np.zeros((len(rows), 9), bool)
        codes = np.zeros(len(rows), np.int64)
        powers = 3 ** np.arange(9)
        for j, i in enumerate(rows):
            b = exact.Board.from_index(int(i))      # the oracle's board
            mask[j, b.legal_moves] = True
            o = b.observation().reshape(2, 9).astype(np.int64)
            codes[j] = (o[0] + 2 * o[1]) @ powers
        _TTT_DECISIONS = rows, mask, codes
    return _TTT_DECISIONS

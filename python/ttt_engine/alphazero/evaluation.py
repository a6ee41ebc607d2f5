"""Evaluation of a network: PUCT with it scored by the game's exact evaluator
where it has one (its entry's ``oracle``), else a few games against MCTS, and
the policy alone on the game's exact yardstick where one ships
(:mod:`ttt_engine.yardstick`)."""
from __future__ import annotations

import numpy as np

from ttt_engine import _util
from ttt_engine import games as _games      # `games` is evaluate_network's game count


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

    def analyse(self, board):
        """The root moves of its search (the analysis protocol, docs/agents.md)."""
        from ttt_engine import _explain
        return _explain.tree_search(self, board, lines=self.search.lines)

    def reset(self, seed=None):
        self.search.reset()


def evaluate_network(network, *, simulations=100, games=10, mcts_simulations=800,
                     c_puct=1.25, seed=0, playout_weight=0.0, mixed_playouts=1):
    """A dict of scores of ``network`` with PUCT at ``simulations`` per move
    (``playout_weight`` / ``mixed_playouts``: the leaf value, as in
    :class:`ttt_engine.search.PUCT`; not used by an exact evaluator, which
    scores the network's own values).

    A game with an exact evaluator (its entry's ``oracle``): what that returns
    (Tic-Tac-Toe: ``optimality``, the share of the 4520 decision positions where
    PUCT's move is optimal, ``prior_optimality``, the same for the raw policy's
    best move, ``worst_x`` / ``worst_o``, its result against the most damaging
    opponent as X and as O: "win", "draw" or "loss", see
    :func:`ttt_engine.ttt.oracle.evaluate_network`).  Other games: ``score`` (wins + draws/2 over ``games`` games against
    ``MCTSAgent(mcts_simulations)``, colours alternating) and its W/D/L; where
    the game has a yardstick suite, also ``policy_keeps`` / ``policy_optimal``
    (:func:`policy_yardstick`)."""
    simulations = _util.check_int("simulations", simulations, min=1)
    g = _games.get(network.game_key)
    if g.oracle is not None:            # the game's exact evaluator
        return g.oracle.evaluate_network(
            network, lambda evaluator: PUCTPlayer(network, simulations, c_puct,
                                                  evaluator=evaluator))
    from ttt_engine.agents import MCTSAgent, play_match
    player = PUCTPlayer(network, simulations, c_puct, playout_weight=playout_weight,
                        mixed_playouts=mixed_playouts)
    mcts = MCTSAgent(simulations=_util.check_int("mcts_simulations", mcts_simulations, min=1),
                     seed=seed)
    r = play_match(player, mcts, games=games, seed=seed,
                   board_factory=lambda: g.new_board(**network.board_options))
    n = max(1, r.wins + r.draws + r.losses)
    out = {"score": (r.wins + 0.5 * r.draws) / n, "wins": r.wins, "draws": r.draws,
           "losses": r.losses, "capped": r.capped, "opponent": f"mcts{mcts_simulations}"}
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

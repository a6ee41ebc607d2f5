"""Gymnasium environments (needs the ``[rl]`` extra).

- :class:`GameEnv`, registered as ``ttt_engine/TicTacToe-v0``,
  ``ttt_engine/UltimateTicTacToe-v0``, ``ttt_engine/Clobber-v0`` and
  ``ttt_engine/Quixo-v0``: one game against a ttt_engine agent.
- :class:`VectorGameEnv`: a ``gymnasium.vector.VectorEnv`` of ``num_envs``
  games over the batched C core, against a built-in opponent or in self-play,
  in Gymnasium's next-step autoreset mode.

Rewards are from the learner's point of view: +1 win, -1 loss, 0 draw; an
illegal action ends the episode with -1.  The legal actions are in
``info["action_mask"]`` and, for sb3-contrib's MaskablePPO, ``action_masks()``.
"""
from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from ttt_engine.envs._batch import BatchEnv
from ttt_engine._util import check_bool, check_choice, check_int
from ttt_engine.envs import _games
from ttt_engine.envs._games import NOT_STARTED

__all__ = ["ENV_IDS", "GameEnv", "VectorGameEnv", "register_envs"]

#: Gymnasium id -> game key
ENV_IDS = {f"ttt_engine/{_games.env_name(k)}-v0": k for k in _games.GAME_KEYS}


def register_envs():
    """Register the ``ttt_engine/<Game>-v0`` ids (idempotent); returns them."""
    for env_id, key in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point="ttt_engine.envs.gymnasium:GameEnv",
                         kwargs={"game": key})
    return list(ENV_IDS)


def _side_index(game, side):
    sides = _games.sides(game)
    if side in (0, 1) and not isinstance(side, bool):
        return int(side)
    if side in sides:
        return sides.index(side)
    raise ValueError(f"agent_side must be 0, 1 or one of {sides}, got {side!r}")


def _seeded_reset(agent, seed):
    reset = getattr(agent, "reset", None)
    if reset is None:
        return
    try:
        reset(seed=seed)
    except TypeError:
        reset()


class GameEnv(gym.Env):
    """One game against an opponent agent, from the learner's side.

    ``GameEnv(game=None, opponent="random", agent_side=0, render_mode=None,
    **game_options)``: ``opponent`` is an engine name of the game in the
    registry ``ttt_engine.games`` (``"random"``, ``"mcts"``, TTT's
    ``"perfect"``, ...) or any object with ``select_move(board)``;
    ``agent_side`` 0/1 or the side's symbol (``"X"``/``"O"``, Clobber
    ``"B"``/``"W"``).  Observation: int8 planes from the learner's view (see
    docs/envs.md); action: ``Discrete(num_actions)``.  ``reset(seed=...)``
    also reseeds the opponent.  Quixo's move cap ends an episode as
    *truncated*.  One thread at a time: a ``reset`` or ``step`` called while
    another thread's runs raises ``RuntimeError``.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, game=None, opponent="random", agent_side=0, render_mode=None,
                 **game_options):
        self.game = _games.game_key(game)
        self._options = dict(game_options)
        board = _games.new_board(self.game, self._options)
        self.agent_side = _side_index(self.game, agent_side)
        if isinstance(opponent, str):
            engines = _games.get(self.game).engines
            if opponent not in engines:
                raise ValueError(f"opponent must be an agent object or one of the "
                                 f"{self.game} engines {', '.join(map(repr, engines))}; "
                                 f"got {opponent!r}")
        elif not callable(getattr(opponent, "select_move", None)):
            raise ValueError("opponent must be 'random', 'perfect', 'mcts' or an agent with "
                             f"select_move(board), got {opponent!r}")
        else:
            # a registry agent says its game: one of another game could not reply
            other = getattr(opponent, "game", None)
            other = getattr(other, "key", other)
            if isinstance(other, str) and other in _games.GAME_KEYS and other != self.game:
                raise ValueError(f"opponent plays {_games.get(other).title}, not "
                                 f"{_games.get(self.game).title}: give an agent of "
                                 f"{self.game!r}")
        self._opponent_spec = opponent
        self.opponent = None if isinstance(opponent, str) else opponent
        if render_mode is not None:
            check_choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))
        self.render_mode = render_mode
        self.num_actions = board.num_actions
        self.observation_space = spaces.Box(0, 1, board.observation().shape, np.int8)
        self.action_space = spaces.Discrete(self.num_actions)
        self._board = board
        self._mask = board.action_mask()
        self._started = False
        self._illegal = False       # an illegal action ended the episode
        self._one_thread = _games.OneThread("GameEnv")

    # ------------------------------------------------------------------ helpers
    def _new_opponent(self, seed):
        if self.opponent is None:
            self.opponent = _games.make_agent(self.game, self._opponent_spec, seed=seed)
        else:
            _seeded_reset(self.opponent, seed)

    def _side_to_move(self):
        return 0 if self._board.to_move == _games.sides(self.game)[0] else 1

    def _outcome(self):
        """(reward for the learner, terminated, truncated) of the board now."""
        w = self._board.winner
        if w is None:
            return 0.0, False, False
        if w == "draw":
            cut = self._board.draw_truncates
            return 0.0, not cut, cut
        won = _games.sides(self.game).index(w) == self.agent_side
        return (1.0 if won else -1.0), True, False

    def _opponent_moves(self, board):
        board.push(self.opponent.select_move(board))

    def _obs_info(self):
        self._mask = self._board.action_mask()
        return self._board.observation(), {"action_mask": self._mask}

    # ------------------------------------------------------------------ API
    def reset(self, *, seed=None, options=None):
        """Start an episode: ``(observation, {"action_mask": ...})``, after the
        opponent's first move when the agent plays second; ``seed`` reseeds."""
        with self._one_thread:
            return self._reset(seed)

    def _reset(self, seed):
        super().reset(seed=seed)
        if seed is not None or self.opponent is None:
            self._new_opponent(int(self.np_random.integers(0, 2 ** 63)))
        board = _games.new_board(self.game, self._options)
        if self.agent_side == 1:
            self._opponent_moves(board)
        self._board = board
        self._started = True
        self._illegal = False
        return self._obs_info()

    def step(self, action):
        """Play ``action`` and the opponent's reply: ``(observation, reward,
        terminated, truncated, info)``; an illegal action ends the episode at -1."""
        with self._one_thread:
            return self._step(action)

    def _step(self, action):
        if not self._started:
            raise ValueError(NOT_STARTED)
        try:
            a = int(action)
            if a != action or isinstance(action, (bool, np.bool_)):   # True is no action 1
                raise ValueError
        except (TypeError, ValueError):
            raise ValueError(f"action must be an integer in 0..{self.num_actions - 1}, "
                             f"got {action!r}") from None
        if not 0 <= a < self.num_actions:
            raise ValueError(f"action {a} is out of range: {self.game} actions are "
                             f"0..{self.num_actions - 1}")
        if self._illegal or self._board.is_terminal():
            raise ValueError("the episode is over: call reset()")
        if not self._mask[a]:
            # an illegal action ends the episode as a loss; the position stays
            self._illegal = True
            self._mask = np.zeros(self.num_actions, bool)
            return self._board.observation(), -1.0, True, False, {"action_mask": self._mask,
                                                                   "illegal_action": True}
        self._board.push(self._board.action_to_move(a))
        if not self._board.is_terminal():
            try:
                self._opponent_moves(self._board)
            except BaseException:
                # the opponent failed (or was interrupted): the step did not happen
                self._board.pop()
                raise
        reward, terminated, truncated = self._outcome()
        obs, info = self._obs_info()
        return obs, reward, terminated, truncated, info

    def action_masks(self):
        """Bool ``[num_actions]``: the legal actions now (MaskablePPO's hook)."""
        return self._mask

    @property
    def board(self):
        """The current position (a copy)."""
        return self._board.copy()

    def render(self):
        """The board as ``render_mode`` asks: ``"ansi"`` returns the text, ``"human"`` prints it."""
        return _games.render(self._board, self.render_mode)


class VectorGameEnv(gym.vector.VectorEnv):
    """``num_envs`` games over the batched C core (:class:`~ttt_engine.envs.BatchEnv`).

    ``VectorGameEnv(game=None, num_envs=64, opponent="random", agent_side=0,
    seed=None, copy=True, **game_options)``:

    - ``opponent="random"`` (uniform, drawn in C) or ``"perfect"`` (TTT only:
      a uniformly random optimal move from the solved game): every step plays
      the learner's action, then the opponent's reply; rewards are the
      learner's.
    - ``opponent=None``: self-play; each step plays the side to move's action
      and the reward is that mover's (``info["current_player"]`` says whose
      turn it is in the new observation).

    Autoreset is Gymnasium's next-step mode: the step after a game ended
    resets it (its action is ignored) and returns its first observation with
    reward 0.  ``info["action_mask"]`` holds the legal actions.  With
    ``copy=False`` the returned arrays are the core's views, overwritten by
    the next step.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, game=None, num_envs=64, opponent="random", agent_side=0, seed=None,
                 copy=True, **game_options):
        self.game = _games.game_key(game)
        self.num_envs = check_int("num_envs", num_envs, min=1, max=1 << 24)
        if opponent is not None:
            check_choice("opponent", opponent, ("random", "perfect"))
            if opponent == "perfect" and _games.get(self.game).oracle is None:
                solved = " or ".join(repr(k) for k in _games.GAME_KEYS
                                     if _games.get(k).oracle is not None)
                raise ValueError(f"opponent 'perfect' is only offered for {solved} in the vector "
                                 "env; use 'random' or None (self-play)")
        self.opponent = opponent
        self.agent_side = _side_index(self.game, agent_side)
        self.copy = check_bool("copy", copy)
        self.core = BatchEnv(self.game, self.num_envs, seed=seed, **game_options)
        self.num_actions = self.core.num_actions
        self.single_observation_space = spaces.Box(0, 1, self.core.obs_shape, np.int8)
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.observation_space = spaces.Box(0, 1, (self.num_envs, *self.core.obs_shape), np.int8)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, self.num_actions))
        self.render_mode = None
        self._done = np.zeros(self.num_envs, bool)
        self._started = False
        self._np_rng = np.random.default_rng(self.core.seed)
        # the perfect opponent: the game's exact evaluator's optimal actions
        self._oracle = _games.get(self.game).oracle if opponent == "perfect" else None

    # ------------------------------------------------------------------ opponent
    def _opponent_actions(self):
        if self.opponent == "random":
            return self.core.random_actions()
        choices = self._oracle.optimal_actions(self.core.observation,
                                               self.core.current_player)
        choices = choices & self.core.legal_action_mask
        # a uniformly random optimal move: argmax of random keys on the optimal cells
        keys = np.where(choices, self._np_rng.random(choices.shape), -1.0)
        return keys.argmax(axis=1).astype(np.int32)

    def _opponent_step(self, where):
        if where.any():
            self.core.step(self._opponent_actions(), where=where)

    def _out(self, reward, terminated, truncated):
        info = {"action_mask": self.core.legal_action_mask}
        obs = self.core.observation
        if self.opponent is None:
            info["current_player"] = self.core.current_player
        if self.copy:
            obs = obs.copy()
            info = {k: v.copy() for k, v in info.items()}
        return obs, reward, terminated, truncated, info

    # ------------------------------------------------------------------ API
    def _reset_mask(self, options):
        """The games to reset: ``options["reset_mask"]`` (as Gymnasium's vector
        envs), or None for all; every option checked before anything changes."""
        if options is None:
            return None
        if not isinstance(options, dict):
            raise TypeError(f"options must be a dict, got {type(options).__name__}")
        unknown = sorted(map(repr, set(options) - {"reset_mask"}))
        if unknown:
            raise ValueError(f"unknown reset option(s) {', '.join(unknown)}: the only one is "
                             "'reset_mask'")
        if "reset_mask" not in options:
            return None
        mask = options["reset_mask"]
        if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ \
                or mask.shape != (self.num_envs,):
            raise ValueError(f"options['reset_mask'] must be a bool array of shape "
                             f"({self.num_envs},), got {mask!r:.60}")
        if not mask.any():
            raise ValueError("options['reset_mask'] must hold at least one True")
        if not self._started:
            raise ValueError("options['reset_mask'] resets some games of a started batch: "
                             "call reset() without it first")
        return mask.copy()

    def reset(self, *, seed=None, options=None):
        """Start every game, or those where ``options["reset_mask"]`` is True:
        ``(observations, infos)`` of all of them (``infos["action_mask"]``);
        ``seed`` reseeds the batch."""
        mask = self._reset_mask(options)
        where = np.ones(self.num_envs, bool) if mask is None else mask
        if seed is not None:
            self.core.reset(mask, seed=seed)
            self._np_rng = np.random.default_rng(self.core.seed)
        else:
            self.core.reset(mask)
        self._done[where] = False
        self._started = True
        if self.opponent is not None and self.agent_side == 1:
            self._opponent_step(where)
        obs, _, _, _, info = self._out(None, None, None)
        return obs, info

    def step(self, actions):
        """One action per game (and the opponents' replies): ``(observations,
        rewards, terminated, truncated, infos)``; a finished game restarts on the
        next step (Gymnasium's next-step autoreset)."""
        if not self._started:
            raise ValueError(NOT_STARTED)
        core = self.core
        prev_done = self._done
        active = ~prev_done
        n = self.num_envs
        if self.opponent is None:
            mover = core.current_player.astype(np.intp)
            core.step(actions, where=active)
            reward = core.rewards[np.arange(n), mover].astype(np.float32)
        else:
            side = self.agent_side
            core.step(actions, where=active)
            reward = core.rewards[:, side].copy()
            opp_turn = active & ~(core.terminated | core.truncated)
            self._opponent_step(opp_turn)
            reward += np.where(opp_turn, core.rewards[:, side], 0.0).astype(np.float32)
        if prev_done.any():
            core.reset(prev_done)
            if self.opponent is not None and self.agent_side == 1:
                self._opponent_step(prev_done)
            reward[prev_done] = 0.0
        terminated = core.terminated & active
        truncated = core.truncated & active
        self._done = terminated | truncated
        return self._out(reward, terminated.copy(), truncated.copy())

    def action_masks(self):
        """Bool ``[num_envs, num_actions]``: the legal actions now."""
        return self.core.legal_action_mask.copy()

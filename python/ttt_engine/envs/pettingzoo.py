"""PettingZoo AEC environments, one per game (needs the ``[rl]`` extra).

``env(game=None, render_mode=None, **game_options)`` returns the env with
the rules of PettingZoo's classic wrappers built in: an illegal action ends
the game with -1 for the mover and 0 for the other (``TerminateIllegalWrapper``),
an action outside the action space is an error (``AssertOutOfBoundsWrapper``;
here a ``ValueError`` naming the range), and stepping or observing before
``reset()`` is an error (``OrderEnforcingWrapper``).  Built in rather than
wrapped because the wrapper classes forward every attribute through
``__getattr__``, which costs several times the game itself.  ``raw_env`` is
the bare AEC env; ``wrapped_env`` applies PettingZoo's own three wrappers to it
(same behaviour, slower).  Agents ``"player_0"`` (moves first: X, or B
in Clobber) and ``"player_1"``.  Observations are dicts
``{"observation": int8 planes from the observing agent's view,
"action_mask": int8 [num_actions]}`` (the mask is all zero for the agent not
to move); rewards +1 / -1 / 0 at the end.  Quixo's move cap ends a game as
truncated.

Tic-Tac-Toe cells: ttt_engine numbers them row by row (``0 1 2 / 3 4 5 /
6 7 8``) and its planes are ``[2, 3, 3]`` (channel first);
``pettingzoo.classic.tictactoe_v3`` numbers them column by column
(``0 3 6 / 1 4 7 / 2 5 8``) with a ``(3, 3, 2)`` observation.  PettingZoo's
action ``a`` is our action ``3 * (a % 3) + a // 3``, and the mapping is its
own inverse.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from ttt_engine._util import check_choice
from ttt_engine.envs import _games
from ttt_engine.envs._games import NOT_STARTED

__all__ = ["GameAECEnv", "env", "pettingzoo_ttt_action", "raw_env", "wrapped_env"]


def pettingzoo_ttt_action(action):
    """Convert a Tic-Tac-Toe action between ``pettingzoo.classic`` numbering
    (column by column) and ttt_engine's (row by row); the map is an involution."""
    return 3 * (action % 3) + action // 3


def env(game=None, render_mode=None, **game_options):
    """The AEC env of ``game`` with the classic wrappers' rules built in."""
    return GameAECEnv(game=game, render_mode=render_mode, **game_options)


def wrapped_env(game=None, render_mode=None, **game_options):
    """``raw_env`` inside PettingZoo's ``TerminateIllegalWrapper(-1)``,
    ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``."""
    e = raw_env(game=game, render_mode=render_mode, **game_options)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv):
    """Bare two-player AEC env over a ttt_engine ``Board`` (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human"], "name": "ttt_engine_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, game=None, render_mode=None, **game_options):
        super().__init__()
        self._one_thread = _games.OneThread(type(self).__name__)
        self.game = _games.game_key(game)
        self._mover_planes = _games.get(self.game).mover_planes
        self._options = dict(game_options)
        self.board = _games.new_board(self.game, self._options)
        if render_mode is not None:
            check_choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"ttt_engine_{self.game}_v0")
        self.possible_agents = ["player_0", "player_1"]
        self.agents = self.possible_agents[:]
        self.num_actions = self.board.num_actions
        shape = self.board.observation().shape
        space = spaces.Dict({
            "observation": spaces.Box(0, 1, shape, np.int8),
            "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
        })
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self._sides = _games.sides(self.game)
        self._zero_mask = np.zeros(self.num_actions, np.int8)
        self._reset_state(started=False)

    def _reset_state(self, started=True):
        self._started = started
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def _mover(self):
        return 0 if self.board.to_move == self._sides[0] else 1

    def observe(self, agent):
        if agent not in self.possible_agents:
            raise ValueError(f"agent must be one of {', '.join(map(repr, self.possible_agents))}, "
                             f"got {agent!r:.40}")
        b = self.board
        obs = b.observation()
        if agent == self.possible_agents[self._mover()] and not b.is_terminal():
            mask = b.action_mask().view(np.int8)
        else:
            mask = self._zero_mask.copy()
            if agent != self.possible_agents[self._mover()]:
                obs[[0, 1]] = obs[[1, 0]]       # the observing agent's pieces first
                for plane in self._mover_planes:
                    obs[plane] = 0              # the mover's options: it may play nowhere now
        return {"observation": obs, "action_mask": mask}

    def reset(self, seed=None, options=None):
        """Start a game (the rules have no randomness: ``seed`` changes nothing)."""
        with self._one_thread:
            self.board = _games.new_board(self.game, self._options)
            self._reset_state()

    def step(self, action):
        """Play ``action`` for ``agent_selection`` (rewards and terminations as
        PettingZoo's AEC API; ``ValueError`` for an illegal one).  One thread
        at a time: a ``reset`` or ``step`` while another thread's runs raises
        ``RuntimeError``."""
        with self._one_thread:
            return self._step(action)

    def _step(self, action):
        if not self._started:
            raise ValueError(NOT_STARTED)
        if not self.agents:
            # every agent has taken its dead step (env() warns here, as PettingZoo's wrapper)
            raise ValueError("the episode is over: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        b = self.board
        move = b.action_to_move(action)
        b.push(move)        # ValueError if illegal (the wrapper ends the game with -1 first)
        self._cumulative_rewards[agent] = 0
        w = b.winner
        if w is not None:
            if w == "draw":
                if b.draw_truncates:
                    self.truncations = {a: True for a in self.agents}
                else:
                    self.terminations = {a: True for a in self.agents}
            else:
                winner = self.possible_agents[self._sides.index(w)]
                for a in self.agents:
                    self.rewards[a] = 1 if a == winner else -1
                self.terminations = {a: True for a in self.agents}
        self.agent_selection = self.possible_agents[self._mover()]
        self._accumulate_rewards()

    def render(self):
        return _games.render(self.board, self.render_mode)

    def close(self):
        pass


class GameAECEnv(raw_env):
    """``raw_env`` with the rules of PettingZoo's classic wrappers built in
    (see the module docstring)."""

    def __init__(self, game=None, render_mode=None, **game_options):
        super().__init__(game=game, render_mode=render_mode, **game_options)
        self._has_reset = False

    def reset(self, seed=None, options=None):
        """Start a game, as :meth:`raw_env.reset`."""
        with self._one_thread:
            super().reset(seed=seed, options=options)
            self._has_reset = True

    def observe(self, agent):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return super().observe(agent)

    def render(self):
        if not self._has_reset:
            EnvLogger.error_render_before_reset()
        return super().render()

    def _step(self, action):
        """:meth:`raw_env.step`, but an illegal action ends the game with -1 for its
        player, as PettingZoo's classic wrappers; one out of range is a ``ValueError``."""
        if not self._has_reset:
            raise ValueError(NOT_STARTED)
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        try:
            a = int(action)
            ok = a == action and 0 <= a < self.num_actions and \
                not isinstance(action, (bool, np.bool_))          # True is no action 1
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"action {action!r} is out of range: {self.game} actions are "
                             f"0..{self.num_actions - 1}")
        if not self.board.action_mask()[a]:
            # the illegal-move rule of TerminateIllegalWrapper(illegal_reward=-1)
            EnvLogger.warn_on_illegal_move()
            self._cumulative_rewards[agent] = 0
            self.terminations = dict.fromkeys(self.agents, True)
            self.truncations = dict.fromkeys(self.agents, True)
            self.rewards = dict.fromkeys(self.agents, 0)
            self.rewards[agent] = -1.0
            self._accumulate_rewards()
            self._deads_step_first()
            return
        super()._step(a)

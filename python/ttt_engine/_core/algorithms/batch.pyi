"""Typed stub of the batched environments (``ttt_engine.envs.BatchEnv``)."""

from typing import Any

import numpy as np
import numpy.typing as npt

class BatchEnv:
    num_envs: int
    num_actions: int
    obs_shape: tuple[int, ...]
    autoreset: bool
    game: str
    options: dict[str, Any]
    seed: int
    observation: npt.NDArray[np.int8]
    legal_action_mask: npt.NDArray[np.bool_]
    current_player: npt.NDArray[np.int8]
    rewards: npt.NDArray[np.float32]
    terminated: npt.NDArray[np.bool_]
    truncated: npt.NDArray[np.bool_]
    def __init__(self, game: str, n: int, seed: int | None = None, *, autoreset: bool = False,
                 **game_options: Any) -> None: ...
    def reset(self, mask: npt.ArrayLike | None = None,
              seed: int | None = None) -> npt.NDArray[np.int8]: ...
    def step(self, actions: npt.ArrayLike, where: npt.ArrayLike | None = None) -> tuple[
        npt.NDArray[np.int8], npt.NDArray[np.float32], npt.NDArray[np.bool_],
        npt.NDArray[np.bool_]]: ...
    def random_actions(self) -> npt.NDArray[np.int32]: ...
    def boards(self, i: int) -> Any: ...
    def __len__(self) -> int: ...

"""The replay buffer: the most recent self-play positions, sampled uniformly."""
from __future__ import annotations

import numpy as np


class ReplayBuffer:
    """A numpy ring buffer of the most recent ``capacity`` positions."""

    def __init__(self, capacity, obs_shape, num_actions):
        self.capacity = int(capacity)
        self.obs = np.zeros((self.capacity, *obs_shape), np.int8)
        self.masks = np.zeros((self.capacity, num_actions), bool)
        self.policies = np.zeros((self.capacity, num_actions), np.float32)
        self.values = np.zeros(self.capacity, np.float32)
        self.size = 0
        self.next = 0

    def __len__(self):
        return self.size

    def add(self, obs, masks, policies, values):
        n = len(values)
        if n >= self.capacity:          # keep the last `capacity`
            obs, masks, policies, values = (a[n - self.capacity:] for a in
                                            (obs, masks, policies, values))
            n = self.capacity
        idx = (self.next + np.arange(n)) % self.capacity
        self.obs[idx] = obs
        self.masks[idx] = masks
        self.policies[idx] = policies
        self.values[idx] = values
        self.next = int((self.next + n) % self.capacity)
        self.size = int(min(self.capacity, self.size + n))

    def sample(self, rng, batch):
        i = rng.integers(0, self.size, batch)
        return self.obs[i], self.masks[i], self.policies[i], self.values[i]

    def fields(self):
        s = self.size
        if s < self.capacity:
            return {"buffer_obs": self.obs[:s], "buffer_masks": self.masks[:s],
                    "buffer_policies": self.policies[:s], "buffer_values": self.values[:s],
                    "buffer_next": np.int64(self.next)}
        return {"buffer_obs": self.obs, "buffer_masks": self.masks,
                "buffer_policies": self.policies, "buffer_values": self.values,
                "buffer_next": np.int64(self.next)}

    def restore(self, raw, what):
        n = len(raw["buffer_values"])
        if n > self.capacity:
            raise ValueError(f"{what}: the replay buffer holds {n} positions, more than "
                             f"buffer_size {self.capacity}")
        for name, arr in (("obs", self.obs), ("masks", self.masks),
                          ("policies", self.policies), ("values", self.values)):
            a = raw[f"buffer_{name}"]
            if a.shape[1:] != arr.shape[1:] or len(a) != n:
                raise ValueError(f"{what}: buffer_{name} has shape {a.shape}, expected "
                                 f"({n}, {', '.join(map(str, arr.shape[1:]))})")
            arr[:n] = a
        self.size = n
        self.next = int(raw["buffer_next"]) % self.capacity
